// Checkpoints against the journal: a store restored from a checkpoint must be indistinguishable from one
// replayed from the journal alone, and a checkpoint that does not match its journal must be ignored.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { manifestParts } from "../../bridge/store/checkpoint-format";
import { STATEMENTS_VERSION } from "../../bridge/store/record-statements";
import { checkpointStatus, copyDataDir, observe, openAt, RECORDS, touchEarlier, writeHistory } from "./checkpoint-fixtures";
import { tempDir } from "./helpers";

describe("store checkpoints", () => {
  it("restores a store that answers every search, receipt and count exactly like a full journal replay", () => {
    const dataDir = tempDir("ckpt-");
    const live = openAt(dataDir);
    writeHistory(live, 0, 200);
    const written = live.checkpoint();
    const expected = observe(live);
    live.close();

    const restored = openAt(dataDir);
    expect(checkpointStatus(restored)).toEqual({ used: true, offset: written.offset, entries_replayed_after: 0, latest_offset: written.offset });
    const replayed = openAt(copyDataDir(dataDir, { withCheckpoint: false }));
    expect(checkpointStatus(replayed)).toMatchObject({ used: false, reason: "no checkpoint", offset: 0 });
    expect(observe(restored)).toEqual(expected);
    expect(observe(replayed)).toEqual(expected);
    expect(restored.status()).toMatchObject({ open_ms: expect.any(Number), journal: { entries: (replayed.status() as { journal: { entries: number } }).journal.entries } });
    restored.close();
    replayed.close();
  });

  it("replays only the journal after the checkpoint, including forgets and quarantines of checkpointed memories", () => {
    const dataDir = tempDir("ckpt-");
    const first = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    writeHistory(first, 0, 160);
    const { offset } = first.checkpoint();
    const before = (first.status() as { journal: { entries: number } }).journal.entries;
    writeHistory(first, 160, 230);
    touchEarlier(first, 0, 160);
    const tail = (first.status() as { journal: { entries: number } }).journal.entries - before;
    first.close();

    const replayDir = copyDataDir(dataDir, { withCheckpoint: false });
    const restored = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    const replayed = openAt(replayDir, { checkpointOnCloseBytes: Infinity });
    expect(checkpointStatus(restored)).toMatchObject({ used: true, offset, entries_replayed_after: tail });
    expect(observe(restored)).toEqual(observe(replayed));
    // New doc numbers must continue after the hole the last forget left, in both stores alike.
    for (const store of [restored, replayed]) {
      writeHistory(store, 230, 260);
      touchEarlier(store, 150, 260);
    }
    expect(observe(restored)).toEqual(observe(replayed));
    restored.close();
    replayed.close();
  });

  it("writes a checkpoint on close once the journal has grown past the threshold, and only then", () => {
    const dataDir = tempDir("ckpt-");
    const small = openAt(dataDir, { checkpointOnCloseBytes: 1_000_000 });
    small.importRecords(RECORDS.slice(0, 20));
    small.close();
    expect(fs.existsSync(path.join(dataDir, "checkpoint"))).toBe(false);

    const grown = openAt(dataDir, { checkpointOnCloseBytes: 1000 });
    expect(checkpointStatus(grown)).toMatchObject({ used: false, reason: "no checkpoint" });
    grown.importRecords(RECORDS.slice(20, 40));
    const end = grown.journalEndOffset;
    grown.close();
    const reopened = openAt(dataDir, { checkpointOnCloseBytes: 1000 });
    expect(checkpointStatus(reopened)).toEqual({ used: true, offset: end, entries_replayed_after: 0, latest_offset: end });
    expect(reopened.journalBytesSinceCheckpoint).toBe(0);
    reopened.close();
  });

  it("does not rewrite a checkpoint that already covers the whole journal", () => {
    const dataDir = tempDir("ckpt-");
    const store = openAt(dataDir);
    store.importRecords(RECORDS.slice(0, 30));
    const first = store.checkpoint();
    const files = fs.readdirSync(path.join(dataDir, "checkpoint")).sort();
    expect(store.checkpoint()).toEqual({ offset: first.offset, entries: 30, unchanged: true });
    expect(fs.readdirSync(path.join(dataDir, "checkpoint")).sort()).toEqual(files);
    store.add({ id: "later", text: "one more memory", source_type: "user_message" });
    expect(store.checkpoint()).toMatchObject({ offset: store.journalEndOffset, entries: 31 });
    expect(fs.readdirSync(path.join(dataDir, "checkpoint"))).toHaveLength(files.length);
    store.close();
  });

  it("keeps exactly the new manifest and its parts after a checkpoint, in a directory of its own", () => {
    const dataDir = tempDir("ckpt-");
    const store = openAt(dataDir);
    writeHistory(store, 0, 60);
    store.checkpoint();
    store.close();
    const dir = path.join(dataDir, "checkpoint");
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
    expect(manifest).toMatchObject({
      format: "dsh-dream-checkpoint",
      version: 6,
      analyzer: expect.stringMatching(/^zh-bigram\+en-porter\/1 [0-9a-f]{16}$/),
      statements: { analyzer: expect.stringMatching(new RegExp(`^${STATEMENTS_VERSION.replace(/[+/]/g, "\\$&")} [0-9a-f]{16}$`)) },
      journal: { offset: fs.statSync(path.join(dataDir, "journal.jsonl")).size, entries: expect.any(Number) },
      // Spaces in creation order (m-0 carries the first vector, an "alt" one), as status lists them.
      vector_spaces: [
        { provider: "alt", model: "m3", dim: 3 },
        { provider: "test", model: "m8", dim: 8 },
      ],
    });
    // Each vector part names its head (all but the rows) with the head's own size and hash.
    for (const space of manifest.vector_spaces) {
      for (const segment of space.segments.filter(Boolean)) {
        const bytes = fs.readFileSync(path.join(dir, segment.part.file));
        expect(segment.head.bytes).toBe(bytes.length - 4 * space.dim * segment.vectors);
        expect(segment.head.sha256).toBe(createHash("sha256").update(bytes.subarray(0, segment.head.bytes)).digest("hex"));
      }
    }
    const parts = manifestParts(manifest);
    expect(fs.readdirSync(dir).sort()).toEqual(["manifest.json", ...parts.map((p: { file: string }) => p.file)].sort());
    for (const part of parts) expect(fs.statSync(path.join(dir, part.file)).size).toBe(part.bytes);
  });

  it("reads a checkpoint of format version 4 (vector parts without codes, read whole), rows paged or kept", () => {
    const dataDir = tempDir("ckpt-v4-");
    const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity, checkpoint: { segmentDocs: 16 } });
    writeHistory(store, 0, 120);
    store.checkpoint();
    store.close();
    // The checkpoint rewritten as version 4 wrote it: version 1 vector parts (header, docs, digests, rows).
    const dir = path.join(dataDir, "checkpoint");
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
    for (const space of manifest.vector_spaces) {
      for (const segment of space.segments.filter(Boolean)) {
        const bytes = fs.readFileSync(path.join(dir, segment.part.file));
        const count = segment.vectors;
        const header = Buffer.from(bytes.subarray(0, 24));
        header.writeUInt32LE(1, 8);
        const v1 = Buffer.concat([header, bytes.subarray(24, 24 + 36 * count), bytes.subarray(segment.head.bytes)]);
        fs.writeFileSync(path.join(dir, segment.part.file), v1);
        segment.part = { ...segment.part, bytes: v1.length, sha256: createHash("sha256").update(v1).digest("hex") };
        delete segment.head;
      }
    }
    delete manifest.text_index;
    fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ ...manifest, version: 4 }));
    const replayed = openAt(copyDataDir(dataDir, { withCheckpoint: false }), { checkpointOnCloseBytes: Infinity });
    try {
      for (const rowsInMemoryMax of [0, Infinity]) {
        const restored = openAt(copyDataDir(dataDir), { checkpointOnCloseBytes: Infinity, checkpoint: { rowsInMemoryMax } });
        try {
          expect(checkpointStatus(restored)).toMatchObject({ used: true });
          expect(observe(restored)).toEqual(observe(replayed));
          // Its next checkpoint is of this version again, with heads, and opens to the same state.
          restored.importRecords(RECORDS.slice(120, 125));
          restored.checkpoint();
          const next = JSON.parse(fs.readFileSync(path.join(restored.dataDir, "checkpoint", "manifest.json"), "utf8"));
          expect(next.version).toBe(6);
          // Every vector part written again with its head; unchanged segments keep their other parts.
          for (const space of next.vector_spaces) for (const segment of space.segments.filter(Boolean)) expect(segment.head).toBeDefined();
          expect(next.records[0]).toEqual(manifest.records[0]);
          const again = openAt(copyDataDir(restored.dataDir), { checkpointOnCloseBytes: Infinity, checkpoint: { rowsInMemoryMax } });
          try {
            expect(checkpointStatus(again)).toMatchObject({ used: true });
            expect(observe(again)).toEqual(observe(restored));
          } finally {
            again.close();
          }
        } finally {
          restored.close();
        }
      }
    } finally {
      replayed.close();
    }
  });
});

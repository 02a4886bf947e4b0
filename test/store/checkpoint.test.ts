// Checkpoints against the journal: a store restored from a checkpoint must be indistinguishable from one
// replayed from the journal alone, and a checkpoint that does not match its journal must be ignored.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { manifestParts } from "../../bridge/store/checkpoint-format";
import type { MemoryStore, StoreOptions } from "../../bridge/store/memory-store";
import { STATEMENTS_VERSION } from "../../bridge/store/record-statements";
import { checkpointStatus, copyDataDir, observe, openAt, RECORDS, touchEarlier, writeHistory } from "./checkpoint-fixtures";
import { crc32Hex, tempDir } from "./helpers";

const sha256Hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Gives every part and vector head the manifest names a SHA-256 for its CRC-32, as formats 4 to 6 wrote them. */
function withSha256(dir: string, manifest: any): void {
  const resum = (sum: { crc32?: string; sha256?: string }, bytes: Buffer) => {
    expect(sum.crc32).toBe(crc32Hex(bytes));
    delete sum.crc32;
    sum.sha256 = sha256Hex(bytes);
  };
  for (const part of manifestParts(manifest)) resum(part, fs.readFileSync(path.join(dir, part.file)));
  for (const space of manifest.vector_spaces) {
    for (const segment of space.segments.filter(Boolean)) resum(segment.head, fs.readFileSync(path.join(dir, segment.part.file)).subarray(0, segment.head.bytes));
  }
}

/** A copy of `store`'s data directory opens from its checkpoint to the same state. */
function expectReopensAs(store: MemoryStore, options: Partial<StoreOptions>): void {
  const again = openAt(copyDataDir(store.dataDir), options);
  try {
    expect(checkpointStatus(again)).toMatchObject({ used: true });
    expect(observe(again)).toEqual(observe(store));
  } finally {
    again.close();
  }
}

/**
 * `restored` opened from its checkpoint into the state a replay gives; then, given five more records, it
 * writes a checkpoint of this build's format: its manifest.
 */
function checkpointAfterRestore(restored: MemoryStore, replayed: MemoryStore): Record<string, any> {
  expect(checkpointStatus(restored)).toMatchObject({ used: true });
  expect(observe(restored)).toEqual(observe(replayed));
  restored.importRecords(RECORDS.slice(120, 125));
  restored.checkpoint();
  const next = JSON.parse(fs.readFileSync(path.join(restored.dataDir, "checkpoint", "manifest.json"), "utf8"));
  expect(next.version).toBe(7);
  return next;
}

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
      version: 7,
      analyzer: expect.stringMatching(/^zh-bigram\+en-porter\/1 [0-9a-f]{16}$/),
      statements: { analyzer: expect.stringMatching(new RegExp(`^${STATEMENTS_VERSION.replace(/[+/]/g, "\\$&")} [0-9a-f]{16}$`)) },
      journal: { offset: fs.statSync(path.join(dataDir, "journal.jsonl")).size, entries: expect.any(Number) },
      // Spaces in creation order (m-0 carries the first vector, an "alt" one), as status lists them.
      vector_spaces: [
        { provider: "alt", model: "m3", dim: 3 },
        { provider: "test", model: "m8", dim: 8 },
      ],
    });
    // Each vector part names its head (all but the rows) with the head's own size and CRC-32.
    for (const space of manifest.vector_spaces) {
      for (const segment of space.segments.filter(Boolean)) {
        const bytes = fs.readFileSync(path.join(dir, segment.part.file));
        expect(segment.head).toEqual({ bytes: bytes.length - 4 * space.dim * segment.vectors, crc32: crc32Hex(bytes.subarray(0, segment.head.bytes)) });
      }
    }
    const parts = manifestParts(manifest);
    expect(fs.readdirSync(dir).sort()).toEqual(["manifest.json", ...parts.map((p: { file: string }) => p.file)].sort());
    // Each part with its size and CRC-32, and nothing else.
    for (const part of parts) expect(part).toEqual({ file: part.file, bytes: fs.statSync(path.join(dir, part.file)).size, crc32: crc32Hex(fs.readFileSync(path.join(dir, part.file))) });
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
    withSha256(dir, manifest);
    for (const space of manifest.vector_spaces) {
      for (const segment of space.segments.filter(Boolean)) {
        const bytes = fs.readFileSync(path.join(dir, segment.part.file));
        const count = segment.vectors;
        const header = Buffer.from(bytes.subarray(0, 24));
        header.writeUInt32LE(1, 8);
        const v1 = Buffer.concat([header, bytes.subarray(24, 24 + 36 * count), bytes.subarray(segment.head.bytes)]);
        fs.writeFileSync(path.join(dir, segment.part.file), v1);
        segment.part = { ...segment.part, bytes: v1.length, sha256: sha256Hex(v1) };
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
          // Its next checkpoint is of this version again, with heads, and opens to the same state.
          const next = checkpointAfterRestore(restored, replayed);
          // Every vector part written again with its head; unchanged segments keep their other parts.
          for (const space of next.vector_spaces) for (const segment of space.segments.filter(Boolean)) expect(segment.head).toBeDefined();
          // Found whole by its SHA-256 at the open: named by its CRC-32 now.
          expect(next.records[0]).toEqual({ file: manifest.records[0].file, bytes: manifest.records[0].bytes, crc32: crc32Hex(fs.readFileSync(path.join(dir, manifest.records[0].file))) });
          expectReopensAs(restored, { checkpointOnCloseBytes: Infinity, checkpoint: { rowsInMemoryMax } });
        } finally {
          restored.close();
        }
      }
    } finally {
      replayed.close();
    }
  });
  it("reads a checkpoint of format version 6 (SHA-256 sums); the next names the parts the open found whole by their CRC-32", () => {
    const dataDir = tempDir("ckpt-v6-");
    const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity, checkpoint: { segmentDocs: 16, snapshotWorkerMinBytes: 0, rowsInMemoryMax: 0 } });
    writeHistory(store, 0, 120);
    store.checkpoint();
    store.close();
    const dir = path.join(dataDir, "checkpoint");
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
    withSha256(dir, manifest);
    fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ ...manifest, version: 6 }));
    const replayed = openAt(copyDataDir(dataDir, { withCheckpoint: false }), { checkpointOnCloseBytes: Infinity });
    const crcOf = (file: string, bytes?: number) => crc32Hex(fs.readFileSync(path.join(dir, file)).subarray(0, bytes));
    // With and without the worker that hashes the parts (the heads read there, rows left in the files).
    try {
      for (const snapshotWorkerMinBytes of [0, Infinity]) {
        const options = { checkpointOnCloseBytes: Infinity, checkpoint: { segmentDocs: 16, snapshotWorkerMinBytes, rowsInMemoryMax: 0 } };
        // A part damaged is reported by its SHA-256.
        const damagedDir = copyDataDir(dataDir);
        const kept = path.join(damagedDir, "checkpoint", manifest.records[0].file);
        const bytes = fs.readFileSync(kept);
        bytes[bytes.length >> 1] ^= 0x20;
        fs.writeFileSync(kept, bytes);
        const damaged = openAt(damagedDir, options);
        try {
          expect(checkpointStatus(damaged)).toMatchObject({ used: false, reason: "the record part does not match its SHA-256 (damaged)" });
          expect(observe(damaged)).toEqual(observe(replayed));
        } finally {
          damaged.close();
        }
        const restored = openAt(copyDataDir(dataDir), options);
        try {
          const next = checkpointAfterRestore(restored, replayed);
          // The segments the import left alone keep their files; those the open found whole (the record and
          // statement parts, the vector heads) are named by their CRC-32 now. A vector part's whole sum, not
          // read with its rows left in the file, stays a SHA-256.
          const last = next.records.length - 1;
          expect(next.records.slice(0, last)).toEqual(manifest.records.slice(0, last).map(({ file, bytes }: { file: string; bytes: number }) => ({ file, bytes, crc32: crcOf(file) })));
          expect(next.statements.parts.slice(0, last)).toEqual(manifest.statements.parts.slice(0, last).map(({ file, bytes }: { file: string; bytes: number }) => ({ file, bytes, crc32: crcOf(file) })));
          const segments = next.vector_spaces[1].segments;
          expect(segments.slice(0, last)).toEqual(
            manifest.vector_spaces[1].segments.slice(0, last).map((segment: { vectors: number; part: { file: string }; head: { bytes: number } } | null) =>
              segment === null ? null : { ...segment, head: { bytes: segment.head.bytes, crc32: crcOf(segment.part.file, segment.head.bytes) } },
            ),
          );
          expect(segments.slice(0, last).every((segment: { part: { sha256?: string } } | null) => segment === null || segment.part.sha256 !== undefined)).toBe(true);
          expect(Object.keys(next.records[last]).sort()).toEqual(["bytes", "crc32", "file"]);
          expectReopensAs(restored, options);
        } finally {
          restored.close();
        }
      }
    } finally {
      replayed.close();
    }
  });
});

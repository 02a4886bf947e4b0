// Incremental checkpoints (issue 18, item 4): a checkpoint rewrites only the segments whose docs changed and
// keeps the BM25 snapshot while few docs came after it; one written in steps holds the state of its first
// step, whatever is written between the steps; either way the reopened store equals a full journal replay.
import fs from "node:fs";
import path from "node:path";
import type { CheckpointWritten } from "../../bridge/store/checkpoint";
import { type Manifest, manifestParts } from "../../bridge/store/checkpoint-format";
import type { CheckpointOutcome, StoreOptions } from "../../bridge/store/memory-store";
import { seededRandom } from "../fixtures/seeded-random";
import { checkpointStatus, copyDataDir, observe, openAt, RECORDS, writeHistory } from "./checkpoint-fixtures";
import { tempDir } from "./helpers";

const SEGMENT = 16;
const options = (extra: Partial<StoreOptions> = {}): Partial<StoreOptions> => ({ checkpointOnCloseBytes: Infinity, checkpoint: { segmentDocs: SEGMENT }, ...extra });
const readManifest = (dataDir: string): Manifest => JSON.parse(fs.readFileSync(path.join(dataDir, "checkpoint", "manifest.json"), "utf8"));
const written = (outcome: CheckpointOutcome | undefined): CheckpointWritten => {
  if (!outcome || "abandoned" in outcome || "unchanged" in outcome) throw new Error(`expected a checkpoint written, got ${JSON.stringify(outcome)}`);
  return outcome;
};
const m8 = (values: number[]) => ({ provider: "test", model: "m8", vector: Float32Array.from(values) });
const mainSpace = (manifest: Manifest) => manifest.vector_spaces.find((space) => space.model === "m8")!;

/** Opens a copy of `dataDir` from its checkpoint and one without it (a full replay); both must equal `expected`. */
function expectReopened(dataDir: string, expected: unknown, offset: number, extra: Partial<StoreOptions> = {}): void {
  const restored = openAt(copyDataDir(dataDir), options(extra));
  const replayed = openAt(copyDataDir(dataDir, { withCheckpoint: false }), options(extra));
  try {
    expect(checkpointStatus(restored)).toMatchObject({ used: true, offset });
    expect(observe(restored)).toEqual(expected);
    expect(observe(replayed)).toEqual(expected);
  } finally {
    restored.close();
    replayed.close();
  }
}

describe("incremental checkpoints", () => {
  it("rewrites only the segments whose docs changed, keeps the others' files, and reopens equal to a full replay", () => {
    const dataDir = tempDir("ckpt-inc-");
    const store = openAt(dataDir, options());
    writeHistory(store, 0, 200);
    const first = store.checkpoint() as CheckpointWritten;
    expect(first).toMatchObject({ parts_reused: 0 });
    const before = readManifest(dataDir);
    expect(before.records).toHaveLength(Math.ceil(200 / SEGMENT));

    // Doc n is m-n: forget one in segment 0 (it has a vector), quarantine one in segment 2 (records only),
    // and add 30 docs, which fill segment 12 and open 13 and 14.
    expect(store.get("m-5")).toBeDefined();
    store.forget("m-5");
    store.quarantine("m-41", "late");
    store.importRecords(RECORDS.slice(200, 230));
    const second = store.checkpoint() as CheckpointWritten;
    const after = readManifest(dataDir);
    const changed = [0, 2, 12, 13, 14];
    after.records.forEach((part, s) => {
      if (changed.includes(s)) expect(part.file).not.toBe(before.records[s]?.file);
      else expect(part).toEqual(before.records[s]);
    });
    after.statements.parts.forEach((part, s) => expect(part.file === before.statements.parts[s]?.file).toBe(!changed.includes(s)));
    // A changed segment is written whole: segment 2's vectors again, the same bytes (a quarantine changes
    // no vector); segment 0's without m-5's; untouched segments keep their vector parts.
    const [vectorsBefore, vectorsAfter] = [mainSpace(before), mainSpace(after)];
    expect(vectorsAfter.segments[2]!.part.file).not.toBe(vectorsBefore.segments[2]!.part.file);
    expect(vectorsAfter.segments[2]!.part.crc32).toMatch(/^[0-9a-f]{8}$/);
    expect(vectorsAfter.segments[2]!.part.crc32).toBe(vectorsBefore.segments[2]!.part.crc32);
    expect(vectorsAfter.segments[0]!.vectors).toBe(vectorsBefore.segments[0]!.vectors - 1);
    for (const [spaceBefore, spaceAfter] of before.vector_spaces.map((space, i) => [space, after.vector_spaces[i]] as const)) {
      spaceAfter.segments.forEach((segment, s) => {
        if (!changed.includes(s)) expect(segment).toEqual(spaceBefore.segments[s]);
      });
    }
    // The BM25 snapshot is kept: the new docs are indexed at open and m-5 is removed there.
    expect(after.bm25).toEqual({ ...before.bm25, forgotten: [5] });
    // Written: exactly the parts not named before; the rest kept.
    const beforeFiles = new Set(manifestParts(before).map((part) => part.file));
    const fresh = manifestParts(after).filter((part) => !beforeFiles.has(part.file));
    expect(second).toMatchObject({ parts_written: fresh.length, parts_reused: manifestParts(after).length - fresh.length, bytes: fresh.reduce((sum, part) => sum + part.bytes, 0) });
    expect(second.bytes).toBeLessThan(first.bytes / 2);
    expect(second.total_bytes).toBe(manifestParts(after).reduce((sum, part) => sum + part.bytes, 0));
    // Only the parts the manifest names are left.
    expect(fs.readdirSync(path.join(dataDir, "checkpoint")).sort()).toEqual(["manifest.json", ...manifestParts(after).map((part) => part.file)].sort());

    const expected = observe(store);
    store.close();
    expectReopened(dataDir, expected, second.offset);
  });

  it("restores as a question a message that a reply in a later segment answered 'I don't know'", () => {
    const dataDir = tempDir("ckpt-asked-");
    const store = openAt(dataDir, options({ checkpoint: { segmentDocs: 4 } }));
    const T = 1_760_000_000_000;
    const asked = { id: "u1", text: "我记得护照放在保险柜里。", source_type: "user_message", timestamp_ms: T, session_id: "s1", turn: 1 };
    store.importRecords([asked, ...RECORDS.slice(0, 20)]);
    store.checkpoint();
    expect(store.inspect("u1")).toMatchObject({ act: "statement", slots: [expect.anything()] });
    // The reply comes in a later segment and changes the message's act and slots in segment 0.
    store.importRecords([{ id: "r1", text: "抱歉，我不知道。", source_type: "assistant_message", timestamp_ms: T + 1000, session_id: "s1", turn: 1 }]);
    expect(store.inspect("u1")).toMatchObject({ act: "question", slots: [] });
    const written = store.checkpoint() as CheckpointWritten;
    const restored = openAt(copyDataDir(dataDir), options());
    expect(checkpointStatus(restored)).toMatchObject({ used: true, offset: written.offset, entries_replayed_after: 0 });
    expect(restored.inspect("u1")).toMatchObject({ act: "question", slots: [] });
    expect(observe(restored)).toEqual(observe(store));
    restored.close();
    store.close();
  });

  it("keeps reusing segments after a reopen, and writes a new BM25 snapshot once more docs came after it than the slack", () => {
    const dataDir = tempDir("ckpt-inc-");
    const tuned = { checkpoint: { segmentDocs: SEGMENT, bm25SlackDocs: 20 } };
    const store = openAt(dataDir, options(tuned));
    writeHistory(store, 0, 160);
    store.checkpoint();
    store.close();
    const base = readManifest(dataDir);

    const reopened = openAt(dataDir, options(tuned));
    reopened.importRecords(RECORDS.slice(160, 175));
    const small = reopened.checkpoint() as CheckpointWritten;
    const kept = readManifest(dataDir);
    // Segments 0-8 are untouched since the checkpoint the store was opened from.
    for (let s = 0; s < 9; s++) expect(kept.records[s]).toEqual(base.records[s]);
    expect(small.parts_reused).toBeGreaterThan(small.parts_written);
    expect(kept.bm25.part).toEqual(base.bm25.part);

    reopened.importRecords(RECORDS.slice(175, 200));
    reopened.forget("m-3");
    reopened.checkpoint();
    const rebased = readManifest(dataDir);
    expect(rebased.bm25.part.file).not.toBe(base.bm25.part.file);
    expect(rebased.bm25).toMatchObject({ docs: 200, forgotten: [] });
    const expected = observe(reopened);
    reopened.close();
    expectReopened(dataDir, expected, rebased.journal.offset, tuned);
  });

  it("writes in steps the state of its first step, whatever is written, forgotten, quarantined or embedded between the steps", () => {
    for (const seed of [1, 2, 3]) {
      const random = seededRandom(seed);
      const dataDir = tempDir("ckpt-steps-");
      const store = openAt(dataDir, options({ checkpoint: { segmentDocs: 8, bm25SlackDocs: 4 } }));
      writeHistory(store, 0, 120);
      store.checkpoint();
      writeHistory(store, 120, 160);
      const frozenOffset = store.journalEndOffset;
      const frozen = observe(store);
      let next = 160;
      let steps = 0;
      let outcome: CheckpointOutcome | undefined;
      // A budget of 0 runs one step per call; between steps, writes touch docs in every segment.
      while (!(outcome = store.checkpointInSteps(0))) {
        steps++;
        const id = `m-${Math.floor(random() * 160)}`;
        const roll = random();
        if (roll < 0.3 && next < RECORDS.length) store.importRecords([RECORDS[next++]]);
        else if (roll < 0.5 && store.get(id)) store.forget(id);
        else if (roll < 0.7 && store.get(id)) store.quarantine(id, `step ${steps}`);
        else if (roll < 0.8 && store.get(id)?.quarantine) store.release(id);
        else if (store.get(id) && !store.currentWithVectors(id)?.embeddings.some((e) => e.model === "m8")) {
          store.attachVectors([{ id, contentHash: store.get(id)!.content_hash, embedding: m8(Array.from({ length: 8 }, () => random() - 0.5)) }]);
        }
      }
      expect(steps).toBeGreaterThan(20);
      expect(written(outcome).offset).toBe(frozenOffset);
      expect(store.journalEndOffset).toBeGreaterThan(frozenOffset);
      // The checkpoint alone (the journal cut where it was taken) is the state of the first step…
      const cut = copyDataDir(dataDir);
      fs.truncateSync(path.join(cut, "journal.jsonl"), frozenOffset);
      const atFreeze = openAt(cut, options());
      expect(checkpointStatus(atFreeze)).toMatchObject({ used: true, offset: frozenOffset, entries_replayed_after: 0 });
      expect(observe(atFreeze)).toEqual(frozen);
      atFreeze.close();
      // …and with the journal written meanwhile, the store as it is now.
      const expected = observe(store);
      store.close();
      expectReopened(dataDir, expected, frozenOffset);
    }
  });

  it("runs in the background in slices between requests, one at a time, and gives up when the store closes", async () => {
    const dataDir = tempDir("ckpt-bg-");
    // One step per slice, so that the slices are many whatever the machine's speed.
    const store = openAt(dataDir, options({ checkpoint: { segmentDocs: 4, sliceMs: 0 } }));
    writeHistory(store, 0, 200);
    const offset = store.journalEndOffset;
    const running = store.checkpointInBackground();
    expect(store.checkpointInBackground()).toBe(running);
    // Requests are served while it runs: the slices leave the event loop between them.
    let served = 0;
    let settled = false;
    void running.finally(() => (settled = true));
    while (!settled) {
      store.add({ id: `bg-${served}`, text: `written during the checkpoint ${served}`, source_type: "user_message" });
      served++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(written(await running)).toMatchObject({ offset, parts_reused: 0 });
    expect(served).toBeGreaterThan(5);
    expect(await store.checkpointInBackground()).toMatchObject({ parts_written: expect.any(Number), offset: store.journalEndOffset });
    expect(await store.checkpointInBackground()).toEqual({ offset: store.journalEndOffset, entries: expect.any(Number), unchanged: true });

    store.add({ id: "last", text: "one more", source_type: "user_message" });
    const closing = store.checkpointInBackground();
    store.close();
    expect(await closing).toEqual({ abandoned: "the store was closed" });
  });

  it("in the background, makes its parts' fsyncs on the thread pool in a store of flushWorkerMinRecords records or more, and reopens the same", async () => {
    const fsyncsOnThisThread = async (flushWorkerMinRecords: number) => {
      const dataDir = tempDir("ckpt-flush-");
      const store = openAt(dataDir, options({ checkpoint: { segmentDocs: SEGMENT, flushWorkerMinRecords } }));
      writeHistory(store, 0, 200);
      const expected = observe(store);
      const fsync = jest.spyOn(fs, "fsyncSync");
      let outcome: CheckpointWritten;
      let fsyncs: number;
      try {
        outcome = written(await store.checkpointInBackground());
        fsyncs = fsync.mock.calls.length;
      } finally {
        fsync.mockRestore();
      }
      store.close();
      expectReopened(dataDir, expected, outcome.offset);
      return { fsyncs, parts: outcome.parts_written };
    };
    const here = await fsyncsOnThisThread(Infinity);
    // Each part flushed here, and the manifest and directory around the commit.
    expect(here.fsyncs).toBeGreaterThan(here.parts);
    const onWorker = await fsyncsOnThisThread(1);
    expect(onWorker.parts).toBe(here.parts);
    expect(onWorker.fsyncs).toBe(here.fsyncs - here.parts);
  });

  it("run to its end in one go (no event loop turning), makes here the flushes it waits for on the thread pool, and reopens the same", () => {
    const fsyncs = (flushWorkerMinRecords: number) => {
      const dataDir = tempDir("ckpt-settle-");
      const store = openAt(dataDir, options({ checkpoint: { segmentDocs: SEGMENT, flushWorkerMinRecords } }));
      writeHistory(store, 0, 200);
      const expected = observe(store);
      const here = jest.spyOn(fs, "fsyncSync");
      const pool = jest.spyOn(fs, "fsync");
      let outcome: CheckpointWritten;
      let counts: { here: number; pool: number };
      try {
        // Would never end if it waited for the pool's answers, which only come when the event loop turns.
        outcome = written(store.checkpointInSteps(Infinity));
        counts = { here: here.mock.calls.length, pool: pool.mock.calls.length };
      } finally {
        here.mockRestore();
        pool.mockRestore();
      }
      store.close();
      expectReopened(dataDir, expected, outcome.offset);
      return { ...counts, parts: outcome.parts_written };
    };
    const alone = fsyncs(Infinity);
    expect(alone.pool).toBe(0);
    const settled = fsyncs(1);
    expect(settled.parts).toBe(alone.parts);
    // Each flush started on the pool (one a part, at least), then made here when waited for.
    expect(settled.pool).toBeGreaterThanOrEqual(settled.parts);
    expect(settled.here).toBe(alone.here);
  });

  it("gives up a checkpoint in steps when a vector it is reading is replaced, and leaves the previous one current", () => {
    const dataDir = tempDir("ckpt-steps-");
    const store = openAt(dataDir, options());
    writeHistory(store, 0, 100);
    const previous = store.checkpoint() as CheckpointWritten;
    writeHistory(store, 100, 140);
    expect(store.checkpointInSteps(0)).toBeUndefined();
    const id = "m-1";
    expect(store.currentWithVectors(id)?.embeddings.some((e) => e.model === "m8")).toBe(true);
    store.attachVectors([{ id, contentHash: store.get(id)!.content_hash, embedding: m8([1, 2, 3, 4, 5, 6, 7, 8]) }]);
    let outcome: CheckpointOutcome | undefined;
    while (!(outcome = store.checkpointInSteps(0)));
    expect(outcome).toEqual({ abandoned: "a vector in test/m8 was replaced while the checkpoint was written" });
    expect(checkpointStatus(store)).toMatchObject({ latest_offset: previous.offset });
    expect(readManifest(dataDir).journal.offset).toBe(previous.offset);
    // The next one starts afresh, and its clean-up removes the abandoned one's parts.
    const next = written(store.checkpointInSteps(Infinity));
    expect(fs.readdirSync(path.join(dataDir, "checkpoint")).sort()).toEqual(["manifest.json", ...manifestParts(readManifest(dataDir)).map((part) => part.file)].sort());
    const expected = observe(store);
    store.close();
    expectReopened(dataDir, expected, next.offset);
  });
});


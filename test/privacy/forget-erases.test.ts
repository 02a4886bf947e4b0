// Issue 16, item 1: forgetting erases. Compaction rewrites the journal with only what is live, drops
// the checkpoint that may hold older text and cleans the receipts: afterwards no byte of the data
// directory holds a forgotten memory, everything else looks exactly as before, and a crash at any
// file operation of the compaction leaves the old journal or the new one, whole.
import fs from "node:fs";
import path from "node:path";
import type { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { copyDataDir, observe, openAt, RECORDS, touchEarlier, writeHistory } from "../store/checkpoint-fixtures";
import { runWithCrashAt } from "../store/crash-injection";
import { tempDir } from "../store/helpers";
import { filesHolding } from "./files-holding";

/**
 * What a user sees, without the journal's entry count (compaction shrinks it on purpose), scores to
 * 6 decimals: a compacted journal holds each vector as the index kept it (unit length, float32), so
 * cosines can move in the 8th decimal.
 */
function seen(store: MemoryStore): unknown {
  const { entries: _entries, ...rest } = observe(store) as Record<string, unknown>;
  return JSON.parse(JSON.stringify(rest, (_key, value) => (typeof value === "number" && !Number.isInteger(value) ? Number(value.toFixed(6)) : value)));
}

function storeWithHistory(): { dataDir: string; store: MemoryStore } {
  const dataDir = tempDir("compact-");
  const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
  writeHistory(store, 0, 120);
  store.checkpoint();
  writeHistory(store, 120, 200);
  touchEarlier(store, 0, 120);
  return { dataDir, store };
}

describe("compaction", () => {
  it("keeps everything a user can observe, in this process and after a reopen, and shrinks the journal", () => {
    const { dataDir, store } = storeWithHistory();
    const expected = seen(store);
    const forgotten = store.forgottenNotErased;
    expect(forgotten).toBeGreaterThan(10);
    expect(store.status()).toMatchObject({ journal: { forgotten_not_erased: forgotten } });
    const report = store.compact();
    expect(report.erased).toBe(forgotten);
    expect(report.journal_bytes_after).toBeLessThan(report.journal_bytes_before);
    expect(seen(store)).toEqual(expected);
    expect((store.status().journal as Record<string, unknown>).forgotten_not_erased).toBeUndefined();
    // New writes after a compaction go on as usual.
    store.add({ id: "after", text: "written after the compaction", source_type: "user_message" });
    const withAfter = seen(store);
    store.close();
    const reopened = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    expect(seen(reopened)).toEqual(withAfter);
    reopened.close();
    const replayed = openAt(copyDataDir(dataDir, { withCheckpoint: false }));
    expect(seen(replayed)).toEqual(withAfter);
    replayed.close();
  });

  it("leaves no byte of a forgotten memory in the data directory: journal, checkpoint, receipts, kept tails", () => {
    const dataDir = tempDir("erase-");
    const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    const secret = "my bank PIN is 4711, the zebra code";
    store.add({ id: "secret", text: secret, source_type: "user_message", scope: "project:bank", embedding: { provider: "test", model: "m8", vector: [1, 2, 3, 4, 5, 6, 7, 8] } });
    store.add({ id: "keep", text: "the umbrella is in the hallway", source_type: "user_message" });
    // A receipt naming it, a receipt whose query is its text (searched where it is not visible, so the
    // receipt does not name it), and a checkpoint holding it.
    store.search(parseSearchRequest({ query: "bank PIN zebra" }));
    store.search(parseSearchRequest({ query: secret, scope: "project:other" }));
    store.search(parseSearchRequest({ query: "umbrella" }));
    store.checkpoint();
    store.forget("secret");
    expect(filesHolding(dataDir, "PIN is 4711").length).toBeGreaterThan(1);
    const report = store.compact();
    expect(report).toMatchObject({ erased: 1, receipts: { dropped: 1, masked: 1 } });
    expect(filesHolding(dataDir, "PIN is 4711")).toEqual([]);
    expect(filesHolding(dataDir, "zebra code")).toEqual([]);
    // The rest is still there and found; the receipt that named only kept memories is kept.
    expect(store.search(parseSearchRequest({ query: "umbrella" })).results.map((r) => r.id)).toEqual(["keep"]);
    expect(fs.readFileSync(path.join(dataDir, "audit.jsonl"), "utf8")).toContain('"query":"umbrella"');
    store.close();
    expect(filesHolding(dataDir, "PIN is 4711")).toEqual([]);
  });

  it("runs in the background: writes, forgets and searches meanwhile are served, carried over, and the same as without it", async () => {
    const { dataDir, store } = storeWithHistory();
    // Enough memories for the compaction to take many steps (it yields every few dozen entries).
    store.importRecords(Array.from({ length: 1000 }, (_, i) => ({ id: `bulk-${i}`, text: `bulk note ${i} about the shed`, source_type: "user_message", scope: i % 2 ? "global" : "project:alpha" })));
    for (let i = 0; i < 1000; i += 9) store.forget(`bulk-${i}`);
    store.close();
    const base = copyDataDir(dataDir);
    const live = openAt(copyDataDir(base), { checkpointOnCloseBytes: Infinity });
    const forgottenBefore = live.forgottenNotErased;
    // One operation per turn of the event loop while the compaction runs; replayed afterwards on a
    // copy that was never compacted, which must look the same.
    const operations: Array<(store: MemoryStore) => void> = [];
    const opAt = (k: number): ((store: MemoryStore) => void) => {
      const id = `m-${(k * 7) % 200}`;
      switch (k % 5) {
        case 0:
          return (s) => s.importRecords([RECORDS[200 + ((k / 5) % 60)]]);
        case 1:
          return (s) => void (s.get(id) && s.forget(id));
        case 2:
          return (s) => void (s.get(id) && s.quarantine(id, `during ${k}`));
        case 3:
          return (s) => void (s.get(id)?.quarantine && s.release(id));
        default:
          return (s) => void s.search(parseSearchRequest({ query: String(RECORDS[k % 200].text).slice(0, 20) }));
      }
    };
    const auditLines = () => fs.readFileSync(path.join(live.dataDir, "audit.jsonl"), "utf8").split("\n").filter(Boolean).length;
    live.search(parseSearchRequest({ query: String(RECORDS[3].text) }));
    const receiptsBefore = auditLines();
    let finished = false;
    const compaction = live.compactInBackground(0).finally(() => (finished = true));
    while (!finished) {
      const op = opAt(operations.length);
      op(live);
      operations.push(op);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const report = await compaction;
    expect(operations.length).toBeGreaterThan(10); // it yielded: the store served while it ran
    // What was forgotten before, and what was forgotten meanwhile before it was written out.
    expect(report.erased).toBeGreaterThanOrEqual(forgottenBefore);
    expect(report.erased - forgottenBefore).toBeLessThanOrEqual(operations.filter((_, k) => k % 5 === 1).length);
    expect(report.longest_pause_ms).toBeGreaterThanOrEqual(0);
    expect(report.carried_from_offset).toBeLessThanOrEqual(report.journal_bytes_after);
    // The receipts of the searches made meanwhile were written during the receipts' own purge, and kept.
    const searchesDuring = operations.filter((_, k) => k % 5 === 4).length;
    expect(searchesDuring).toBeGreaterThan(1);
    expect(auditLines()).toBe(receiptsBefore - report.receipts.dropped + searchesDuring);

    const reference = openAt(copyDataDir(base), { checkpointOnCloseBytes: Infinity });
    for (const op of operations) op(reference);
    const expected = seen(reference);
    reference.close();
    expect(seen(live)).toEqual(expected);
    live.close();
    const reopened = openAt(copyDataDir(live.dataDir, { withCheckpoint: false }));
    expect(seen(reopened)).toEqual(expected);
    // Forgotten during the compaction: left out of the new journal, or (forgotten after it was written)
    // counted for the next erasure, which takes it out.
    const forgottenDuring = operations.map((_, k) => k).filter((k) => k % 5 === 1).map((k) => `m-${(k * 7) % 200}`);
    reopened.compact();
    expect(reopened.forgottenNotErased).toBe(0);
    expect(seen(reopened)).toEqual(expected);
    reopened.close();
    const journal = fs.readFileSync(path.join(reopened.dataDir, "journal.jsonl"), "utf8");
    for (const id of forgottenDuring) if (!reference.get(id)) expect(journal).not.toContain(`"id":"${id}"`);
  });

  it("failing before its switch (here: the rename) leaves the store serving the old journal, the receipts as they were, and can run again", async () => {
    const { dataDir, store } = storeWithHistory();
    store.search(parseSearchRequest({ query: String(RECORDS[5].text) }));
    const journalBefore = fs.readFileSync(path.join(dataDir, "journal.jsonl"));
    const auditBefore = fs.readFileSync(path.join(dataDir, "audit.jsonl"));
    const expected = seen(store);
    const rename = jest.spyOn(fs, "renameSync").mockImplementationOnce(() => {
      throw Object.assign(new Error("EIO: i/o error, rename"), { code: "EIO" });
    });
    try {
      await expect(store.compactInBackground(0)).rejects.toThrow(/EIO/);
    } finally {
      rename.mockRestore();
    }
    expect(fs.readFileSync(path.join(dataDir, "journal.jsonl")).equals(journalBefore)).toBe(true);
    expect(fs.readdirSync(dataDir).filter((name) => name.endsWith(".tmp") || name.endsWith(".compact"))).toEqual([]);
    // The receipts' draft was dropped: the log was not rewritten, and it rotates again as usual.
    expect(fs.readFileSync(path.join(dataDir, "audit.jsonl")).subarray(0, auditBefore.length).equals(auditBefore)).toBe(true);
    expect(seen(store)).toEqual(expected);
    store.add({ id: "after-failure", text: "written after the failed compaction", source_type: "user_message" });
    const report = await store.compactInBackground(0);
    expect(report.erased).toBeGreaterThan(10);
    expect(store.get("after-failure")?.id).toBe("after-failure");
    store.close();
  });

  it("crashed at any file operation leaves the old journal or the new one, whole, and the same memories", () => {
    const { dataDir, store } = storeWithHistory();
    store.close();
    const base = copyDataDir(dataDir);
    const reference = openAt(copyDataDir(base), { checkpointOnCloseBytes: Infinity });
    const expected = seen(reference);
    reference.compact();
    const compactedJournal = fs.readFileSync(path.join(reference.dataDir, "journal.jsonl"));
    reference.close();
    const oldJournal = fs.readFileSync(path.join(base, "journal.jsonl"));

    const outcomes = new Set<string>();
    let crashAt = 0;
    for (;;) {
      const attempt = copyDataDir(base);
      const victim = openAt(attempt, { checkpointOnCloseBytes: Infinity });
      const crashed = runWithCrashAt(crashAt, () => victim.compact());
      if (!crashed) {
        victim.close();
        break;
      }
      // The process is gone: its lock goes with it; the disk is what it left.
      const left = copyDataDir(attempt);
      const journal = fs.readFileSync(path.join(left, "journal.jsonl"));
      const which = journal.equals(oldJournal) ? "old" : journal.equals(compactedJournal) ? "new" : "mixed";
      expect(which).not.toBe("mixed");
      outcomes.add(which);
      const reopened = openAt(left, { checkpointOnCloseBytes: Infinity });
      expect(seen(reopened)).toEqual(expected);
      reopened.close();
      crashAt++;
    }
    expect(crashAt).toBeGreaterThan(8);
    expect([...outcomes].sort()).toEqual(["new", "old"]);
  });
});

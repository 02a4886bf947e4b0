// Record texts read from the checkpoint (issue 18, item 3): in a store above checkpoint.textInMemoryMax, a
// record's text stays in the checkpoint's record part once one holds it, and is read back when a search,
// a view or an export shows or checks it. Nothing a caller sees may change, a record handed out must stay
// readable, and no record part may stay open once no record reads it (a forgotten text must be let go).
import fs from "node:fs";
import path from "node:path";
import { manifestParts } from "../../bridge/store/checkpoint-format";
import { encodeRecordPart, RECORDS_PER_LINE } from "../../bridge/store/checkpoint-parts";
import type { MemoryStore, StoreOptions } from "../../bridge/store/memory-store";
import type { MemoryRecord } from "../../bridge/store/records";
import { findTexts, isPaged } from "../../bridge/store/text-pages";
import { copyDataDir, linux, observe, openAt, openFilesUnder, readManifest, RECORDS, touchEarlier, writeHistory } from "./checkpoint-fixtures";
import { tempDir } from "./helpers";

const SEGMENT = 16;
const options = (textMax: number): Partial<StoreOptions> => ({ checkpointOnCloseBytes: Infinity, checkpoint: { segmentDocs: SEGMENT, textInMemoryMax: textMax } });
const recordsOf = (store: MemoryStore): Array<MemoryRecord | undefined> => (store as unknown as { state: { records: Array<MemoryRecord | undefined> } }).state.records;
const pagedCount = (store: MemoryStore) => recordsOf(store).filter((record) => record !== undefined && isPaged(record)).length;
const liveCount = (store: MemoryStore) => recordsOf(store).filter((record) => record !== undefined).length;

/** Everything a caller can read of the store's memories besides searches: views, an export, every record. */
function views(store: MemoryStore): unknown {
  const ids = RECORDS.map((r) => r.id as string).filter((id) => store.get(id));
  const page = store.exportPage(0, 10_000, true);
  return {
    list: store.list({ limit: 500 } as never),
    contains: store.forgetMatching({ textContains: "钥匙" }, false).map((record) => record.id),
    stats: store.stats(),
    // Receipt ids are random per store; which receipts used a memory is compared.
    inspect: ids.slice(0, 40).map((id) => {
      const detail = store.inspect(id);
      return { ...detail, receipts: detail.receipts.map(({ receipt_id: _id, ...receipt }) => receipt) };
    }),
    export: page,
    json: ids.map((id) => JSON.stringify(store.get(id))),
  };
}

/** The record parts this process holds open (Linux), relative to the checkpoint directory. */
const openRecordParts = (dataDir: string) => openFilesUnder(path.join(dataDir, "checkpoint")).filter((file) => file.includes(".records-"));
const namedRecordParts = (dataDir: string) =>
  manifestParts(readManifest(dataDir))
    .map((part) => part.file)
    .filter((file) => file.includes(".records-"))
    .sort();

describe("findTexts", () => {
  it("finds each record's own text in a record part, whatever the text or the metadata hold", () => {
    const texts = [
      'quote " and backslash \\ and \\" and "text":"fake"',
      "末尾的反斜杠\\",
      "line\nbreak, tab\t, emoji 🙂, NUL-free \u0001 control",
      "plain",
    ];
    const records: Array<MemoryRecord | undefined> = [
      { id: "a", text: texts[0], source_type: "user_message", timestamp_ms: 1, scope: "global", metadata: { text: "inner", nested: { text: "deep" } }, content_hash: "h" },
      undefined,
      // Another key order: the text is found as the object's own key, not by its place.
      { source_type: "system_fact", id: "b", metadata: { list: [{ text: "x" }] }, text: texts[1], timestamp_ms: 2, scope: "global", content_hash: "h" } as MemoryRecord,
      { id: "c", text: texts[2], source_type: "user_message", timestamp_ms: 3, scope: "global", metadata: {}, content_hash: "h", tags: ["text"] },
      undefined,
    ];
    // RECORDS_PER_LINE (512) records a line: the texts of a part of several lines are found at their offsets in the whole part.
    const many = [...records, ...Array.from({ length: 2100 }, (_, i) => ({ id: `n${i}`, text: i === 2099 ? texts[3] : `t${i}`, source_type: "system_fact", timestamp_ms: i, scope: "global", metadata: {}, content_hash: "h" }) as MemoryRecord)];
    const bytes = Buffer.concat([...encodeRecordPart(many)]);
    expect(bytes.toString("utf8").split("\n").length).toBe(Math.ceil(many.length / RECORDS_PER_LINE) + 1);
    const ranges = findTexts(bytes, many.length);
    const found = many.map((_, i) => (ranges.start[i] < 0 ? null : JSON.parse(bytes.toString("utf8", ranges.start[i], ranges.end[i]))));
    expect(found.slice(0, 5)).toEqual([texts[0], null, texts[1], texts[2], null]);
    expect(found.at(-1)).toBe(texts[3]);
    expect(found.slice(5, -1)).toEqual(Array.from({ length: 2099 }, (_, i) => `t${i}`));
    expect(() => findTexts(bytes, many.length + 1)).toThrow(`the record part holds ${many.length} records; ${many.length + 1} were expected`);
  });
});

describe("record texts read from the checkpoint", () => {
  it("a store opened above textInMemoryMax keeps no text in memory and answers as one that keeps them all, before and after a checkpoint", () => {
    const dataDir = tempDir("texts-paged-");
    const writer = openAt(dataDir, options(Infinity));
    writeHistory(writer, 0, 200);
    writer.checkpoint();
    writer.close();

    const paged = openAt(copyDataDir(dataDir), options(0));
    const inMemory = openAt(copyDataDir(dataDir), options(Infinity));
    try {
      expect(liveCount(paged)).toBeGreaterThan(150);
      expect(pagedCount(paged)).toBe(liveCount(paged));
      expect(pagedCount(inMemory)).toBe(0);
      expect(observe(paged)).toEqual(observe(inMemory));
      expect(views(paged)).toEqual(views(inMemory));
      // Counting characters reads no text; a page of a list reads the texts it shows, once each.
      const reads = () => paged.textFootprint().reads;
      let before = reads();
      paged.stats();
      expect(reads()).toBe(before);
      before = reads();
      expect(paged.list({ limit: 10 } as never).memories).toHaveLength(10);
      expect(reads() - before).toBe(10);
      expect(inMemory.textFootprint()).toEqual({ files: 0, reads: 0 });

      // New memories and changed ones keep their text in memory until a checkpoint holds them.
      for (const store of [paged, inMemory]) {
        store.importRecords(RECORDS.slice(200, 230));
        touchEarlier(store, 0, 200);
      }
      expect(pagedCount(paged)).toBeLessThan(liveCount(paged));
      expect(observe(paged)).toEqual(observe(inMemory));
      expect(views(paged)).toEqual(views(inMemory));
      paged.checkpoint();
      inMemory.checkpoint();
      expect(pagedCount(paged)).toBe(liveCount(paged));
      expect(pagedCount(inMemory)).toBe(0);
      expect(observe(paged)).toEqual(observe(inMemory));
      expect(views(paged)).toEqual(views(inMemory));
      // The checkpoint's parts hold the texts as the in-memory store wrote them.
      const partsOf = (store: MemoryStore) => readManifest(store.dataDir).records.map((part) => part.crc32);
      expect(partsOf(paged).every((sum) => /^[0-9a-f]{8}$/.test(sum ?? ""))).toBe(true);
      expect(partsOf(paged)).toEqual(partsOf(inMemory));
    } finally {
      paged.close();
      inMemory.close();
    }
  });

  it("opens without reading a text back, and still knows which replies did not know", () => {
    const dataDir = tempDir("texts-paged-asked-");
    const T = 1_760_000_000_000;
    const writer = openAt(dataDir, options(Infinity));
    writer.importRecords([{ id: "u1", text: "我记得护照放在保险柜里。", source_type: "user_message", timestamp_ms: T, session_id: "s1", turn: 1 }, ...RECORDS.slice(0, 40)]);
    // The reply in a later segment: it makes u1 a question.
    writer.importRecords([{ id: "r1", text: "抱歉，我不知道。", source_type: "assistant_message", timestamp_ms: T + 1000, session_id: "s1", turn: 1 }]);
    writer.checkpoint();
    writer.close();

    const paged = openAt(copyDataDir(dataDir), options(0));
    const inMemory = openAt(copyDataDir(dataDir), options(Infinity));
    try {
      expect(paged.textFootprint().reads).toBe(0);
      expect(pagedCount(paged)).toBe(42);
      // Another message of that turn, after the open: the reply's kind is known without its text.
      const late = { id: "u2", text: "我记得钥匙放在鞋柜里。", source_type: "user_message", timestamp_ms: T + 2000, session_id: "s1", turn: 1 };
      for (const store of [paged, inMemory]) store.importRecords([late]);
      expect(paged.textFootprint().reads).toBe(0);
      for (const store of [paged, inMemory]) {
        expect(store.inspect("u1")).toMatchObject({ act: "question", slots: [] });
        expect(store.inspect("u2")).toMatchObject({ act: "question", slots: [] });
      }
      expect(observe(paged)).toEqual(observe(inMemory));
    } finally {
      paged.close();
      inMemory.close();
    }
  });

  it("a record handed out stays whole after its text's part is let go, and an edit or a quarantine keeps the text", () => {
    const dataDir = tempDir("texts-paged-out-");
    const writer = openAt(dataDir, options(0));
    writer.importRecords(RECORDS.slice(0, 40));
    writer.checkpoint();
    writer.close();
    const store = openAt(dataDir, options(0));
    try {
      expect(pagedCount(store)).toBe(40);
      const held = store.get("m-5")!;
      expect(isPaged(held)).toBe(false);
      const forgotten = store.forget("m-6");
      store.quarantine("m-7", "checked");
      const edited = store.edit("m-8", "钥匙放在抽屉里了，改过的。");
      // Every record of m-5's segment is rewritten and the old part closed and removed.
      store.checkpoint();
      expect(held.text).toBe(RECORDS[5].text);
      expect(forgotten.text).toBe(RECORDS[6].text);
      expect(store.get("m-7")).toMatchObject({ text: RECORDS[7].text, quarantine: { reason: "checked" } });
      expect(edited.replaced.text).toBe(RECORDS[8].text);
      expect(store.get("m-8")!.text).toBe(RECORDS[8].text);
      expect(store.get(edited.record.id)!.text).toBe("钥匙放在抽屉里了，改过的。");
      store.release("m-7");
      expect(store.get("m-7")!.text).toBe(RECORDS[7].text);
      expect(store.get("m-7")!.quarantine).toBeUndefined();
    } finally {
      store.close();
    }
  });

  it("a checkpoint written in steps pages only the records it wrote: one quarantined or forgotten meanwhile is kept as it is now", () => {
    const dataDir = tempDir("texts-paged-steps-");
    const store = openAt(dataDir, options(0));
    try {
      store.importRecords(RECORDS.slice(0, 40));
      store.quarantine("m-9", "before");
      expect(store.checkpointInSteps(0)).toBeUndefined();
      store.quarantine("m-3", "meanwhile");
      store.release("m-9");
      store.forget("m-4");
      let outcome;
      while (!(outcome = store.checkpointInSteps(0)));
      expect(outcome).toHaveProperty("parts_written");
      expect(store.get("m-3")).toMatchObject({ text: RECORDS[3].text, quarantine: { reason: "meanwhile" } });
      expect(store.get("m-9")).toMatchObject({ text: RECORDS[9].text });
      expect(store.get("m-9")!.quarantine).toBeUndefined();
      expect(store.get("m-4")).toBeUndefined();
      // The two changed since the first step keep their text in memory until the next checkpoint.
      expect(pagedCount(store)).toBe(37);
      store.checkpoint();
      expect(pagedCount(store)).toBe(39);
      expect(store.get("m-3")!.quarantine).toEqual(expect.objectContaining({ reason: "meanwhile" }));
    } finally {
      store.close();
    }
  });

  it("pages the texts a part a step after the commit; a store stopped between those steps has the checkpoint, whole", () => {
    const manifestOf = (dir: string) => fs.readFileSync(path.join(dir, "checkpoint", "manifest.json"), "utf8");
    const filesOf = (dir: string) => fs.readdirSync(path.join(dir, "checkpoint")).sort();
    const namedIn = (dir: string) => ["manifest.json", ...manifestParts(JSON.parse(manifestOf(dir))).map((part) => part.file)].sort();
    for (const stop of ["close while removing", "close", "checkpoint"] as const) {
      const dataDir = tempDir(`texts-paged-commit-${stop.replace(/ /g, "-")}-`);
      const store = openAt(dataDir, options(0));
      store.importRecords(RECORDS.slice(0, 40));
      store.checkpoint();
      store.importRecords(RECORDS.slice(40, 100));
      const before = manifestOf(dataDir);
      const oldParts = filesOf(dataDir).filter((name) => name !== "manifest.json");
      // Step until the new manifest is in place: the 60 new texts are still in memory then.
      let steps = 0;
      while (manifestOf(dataDir) === before) {
        expect(store.checkpointInSteps(0)).toBeUndefined();
        steps++;
      }
      expect(steps).toBeGreaterThan(1);
      const atCommit = pagedCount(store);
      expect(atCommit).toBeGreaterThanOrEqual(40);
      expect(atCommit).toBeLessThan(100);
      // From the commit on: the new record parts opened a step each, the old parts removed a file a step,
      // then the texts swapped one part a step: the 60 fall in segments 2 (docs 40 to 47) to 6 (16 docs each).
      const stale = oldParts.filter((name) => !namedIn(dataDir).includes(name));
      expect(stale.length).toBeGreaterThan(1);
      const staleLeft = () => filesOf(dataDir).filter((name) => stale.includes(name)).length;
      while (staleLeft() > 0) {
        expect(pagedCount(store)).toBe(atCommit);
        expect(store.checkpointInSteps(0)).toBeUndefined();
        if (stop === "close while removing" && staleLeft() < stale.length) break;
      }
      if (stop === "close while removing") {
        // Stopped after the first old part went: the others are left.
        expect(staleLeft()).toBe(stale.length - 1);
      } else {
        expect(filesOf(dataDir)).toEqual(namedIn(dataDir));
        while (pagedCount(store) === atCommit) expect(store.checkpointInSteps(0)).toBeUndefined();
        expect(pagedCount(store)).toBe(atCommit + 8);
        expect(store.checkpointInSteps(0)).toBeUndefined();
        expect(pagedCount(store)).toBe(atCommit + 24);
      }
      if (stop === "checkpoint") {
        // Asked for a checkpoint now: the paging finishes first, and nothing is left to write.
        expect(store.checkpoint()).toMatchObject({ unchanged: true });
        expect(pagedCount(store)).toBe(100);
      }
      store.close();
      const reopened = openAt(dataDir, options(0));
      try {
        expect(reopened.status()).toMatchObject({ checkpoint: { used: true, entries_replayed_after: 0 } });
        expect(pagedCount(reopened)).toBe(100);
        expect(RECORDS.slice(0, 100).every((r) => reopened.get(r.id as string)!.text === r.text)).toBe(true);
        if (stop === "close while removing") {
          // What the stopped checkpoint left goes at the next one that writes.
          reopened.importRecords(RECORDS.slice(100, 101));
          reopened.checkpoint();
          expect(filesOf(dataDir)).toEqual(namedIn(dataDir));
        }
      } finally {
        reopened.close();
      }
    }
  });

  it("starts reading texts back at the checkpoint after the store grows past textInMemoryMax, every segment's included", () => {
    const dataDir = tempDir("texts-paged-grow-");
    const reference = openAt(tempDir("texts-paged-grow-ref-"), options(Infinity));
    const store = openAt(dataDir, options(50));
    try {
      for (const s of [store, reference]) {
        s.importRecords(RECORDS.slice(0, 40));
        s.checkpoint();
      }
      expect(pagedCount(store)).toBe(0);
      for (const s of [store, reference]) {
        s.importRecords(RECORDS.slice(40, 80));
        s.checkpoint();
      }
      // The segments of the first 40 had not changed; their records are written again to be read back.
      expect(pagedCount(store)).toBe(80);
      expect(observe(store)).toEqual(observe(reference));
      // Back under the limit it stays read back, as it was opened.
      for (let i = 0; i < 60; i++) store.forget(`m-${i}`), reference.forget(`m-${i}`);
      store.checkpoint();
      reference.checkpoint();
      expect(pagedCount(store)).toBe(20);
      expect(observe(store)).toEqual(observe(reference));
    } finally {
      store.close();
      reference.close();
    }
    const reopened = openAt(dataDir, options(10));
    try {
      expect(pagedCount(reopened)).toBe(20);
      expect(reopened.get("m-79")!.text).toBe(RECORDS[79].text);
    } finally {
      reopened.close();
    }
  });

  linux("holds open exactly the record parts the newest checkpoint names, none for a forgotten segment, and nothing after a compaction or close", () => {
    const dataDir = tempDir("texts-paged-fd-");
    const reference = openAt(tempDir("texts-paged-fd-ref-"), options(Infinity));
    const store = openAt(dataDir, options(0));
    try {
      for (const s of [store, reference]) {
        s.importRecords(RECORDS.slice(0, 64));
        s.checkpoint();
      }
      expect(openRecordParts(dataDir)).toEqual(namedRecordParts(dataDir));
      expect(openRecordParts(dataDir)).toHaveLength(4);

      // The second segment forgotten whole: its new part holds only nulls, and no file of it stays open.
      for (let i = 16; i < 32; i++) store.forget(`m-${i}`), reference.forget(`m-${i}`);
      // A quarantine and a release rewrite segments 0 and 3: their old parts go too.
      for (const s of [store, reference]) s.quarantine("m-3", "checked"), s.quarantine("m-50", "checked"), s.release("m-50");
      store.checkpoint();
      reference.checkpoint();
      const named = namedRecordParts(dataDir);
      expect(openRecordParts(dataDir)).toEqual(named.filter((file) => !file.endsWith(".records-1.jsonl")));
      expect(observe(store)).toEqual(observe(reference));

      for (const s of [store, reference]) {
        s.importRecords(RECORDS.slice(64, 70));
        s.compact();
      }
      // The compacted state's texts are in memory until its checkpoint pages them (none yet here, or the new parts).
      expect(openRecordParts(dataDir).every((file) => namedRecordParts(dataDir).includes(file))).toBe(true);
      expect(observe(store)).toEqual(observe(reference));
      store.checkpoint();
      // Compaction numbered the docs again: every segment holds live memories now.
      expect(pagedCount(store)).toBe(liveCount(store));
      expect(liveCount(store)).toBe(54);
      expect(openRecordParts(dataDir)).toEqual(namedRecordParts(dataDir));
      expect(observe(store)).toEqual(observe(reference));
    } finally {
      store.close();
      reference.close();
    }
    expect(openRecordParts(dataDir)).toEqual([]);
  });

  linux("lets go of the old part of a record quarantined or released while a checkpoint was written", () => {
    const dataDir = tempDir("texts-paged-fd-steps-");
    const store = openAt(dataDir, options(0));
    try {
      store.importRecords(RECORDS.slice(0, 48));
      store.quarantine("m-41", "before");
      store.checkpoint();
      expect(pagedCount(store)).toBe(48);
      // Segments 0 and 2 change, then, once the checkpoint has frozen them, a record of each changes again.
      store.forget("m-1");
      store.forget("m-40");
      expect(store.checkpointInSteps(0)).toBeUndefined();
      store.quarantine("m-3", "meanwhile");
      store.release("m-41");
      while (!store.checkpointInSteps(0));
      // Those two keep their text in memory, and read nothing from the parts the checkpoint replaced.
      expect(pagedCount(store)).toBe(44);
      expect(openRecordParts(dataDir)).toEqual(namedRecordParts(dataDir));
      expect(store.get("m-3")).toMatchObject({ text: RECORDS[3].text, quarantine: { reason: "meanwhile" } });
      expect(store.get("m-41")).toMatchObject({ text: RECORDS[41].text });
      expect(store.get("m-41")!.quarantine).toBeUndefined();
    } finally {
      store.close();
    }
  });

  linux("an open that refuses the checkpoint after its records closes the record parts it had opened", () => {
    const dataDir = tempDir("texts-paged-refused-");
    const writer = openAt(dataDir, options(0));
    writeHistory(writer, 0, 120);
    writer.checkpoint();
    writer.close();
    // The BM25 snapshot, read after every record part, damaged.
    const snapshot = path.join(dataDir, "checkpoint", readManifest(dataDir).bm25.part.file);
    const bytes = fs.readFileSync(snapshot);
    bytes[bytes.length - 1] ^= 0xff;
    fs.writeFileSync(snapshot, bytes);
    const store = openAt(dataDir, options(0));
    try {
      expect(store.status()).toMatchObject({ checkpoint: { used: false, reason: expect.stringContaining("does not match its CRC-32") } });
      expect(openRecordParts(dataDir)).toEqual([]);
      expect(pagedCount(store)).toBe(0);
      expect(store.get("m-3")!.text).toBe(RECORDS[3].text);
    } finally {
      store.close();
    }
  });

  it("refuses a textInMemoryMax that is not a number of records, before anything is read", () => {
    const dataDir = tempDir("texts-paged-bad-");
    expect(() => openAt(dataDir, options(-1))).toThrow("checkpoint.textInMemoryMax must be a number of records, 0 or more (or Infinity), got -1");
    expect(() => openAt(dataDir, options(Number.NaN))).toThrow("checkpoint.textInMemoryMax must be a number of records, 0 or more (or Infinity), got NaN");
    // The lock went with the refusal: the store opens.
    openAt(dataDir, options(0)).close();
  });
});

// The text index beside a record part (checkpoint format 6, issue 18: start at 1M): where each record's text
// and content hash lie in the part and each text's length, so that an open whose texts are read back neither
// scans the part nor measures its texts. An open through the index must answer as one through the scan, and
// an index that does not fit its part must refuse the checkpoint (a full replay), never mislead it.
import fs from "node:fs";
import path from "node:path";
import type { Manifest } from "../../bridge/store/checkpoint-format";
import { decodeTextIndex, encodeRecordPart, encodeTextIndex } from "../../bridge/store/checkpoint-parts";
import type { MemoryStore, StoreOptions } from "../../bridge/store/memory-store";
import { hashContent, type MemoryRecord } from "../../bridge/store/records";
import { findTexts, jsonStringUnits } from "../../bridge/store/text-pages";
import { checkpointedHistory, checkpointStatus, copyDataDir, observe, openAt, readManifest } from "./checkpoint-fixtures";
import { crc32Hex } from "./helpers";

const SEGMENT = 16;
const options = (textMax: number): Partial<StoreOptions> => ({ checkpointOnCloseBytes: Infinity, checkpoint: { segmentDocs: SEGMENT, textInMemoryMax: textMax } });
const checkpointDir = (dataDir: string) => path.join(dataDir, "checkpoint");
const writeManifest = (dataDir: string, manifest: Manifest) => fs.writeFileSync(path.join(checkpointDir(dataDir), "manifest.json"), JSON.stringify(manifest));

/** A closed store whose checkpoint was written with its texts read back: every record part has its index. */
const indexedStore = () => checkpointedHistory("text-index-", options(0));

/** Rewrites segment `s`'s text index through `edit` and names it in the manifest with its new size and hash. */
function editIndex(dataDir: string, s: number, edit: (bytes: Buffer) => Buffer): void {
  const manifest = readManifest(dataDir);
  const part = manifest.text_index![s]!;
  const bytes = edit(fs.readFileSync(path.join(checkpointDir(dataDir), part.file)));
  fs.writeFileSync(path.join(checkpointDir(dataDir), part.file), bytes);
  manifest.text_index![s] = { file: part.file, bytes: bytes.length, crc32: crc32Hex(bytes) };
  writeManifest(dataDir, manifest);
}

const statsOf = (store: MemoryStore) => store.stats();

/** Every text index of the store made version 1, as a build before the heads wrote them: the same body. */
function toVersion1(dataDir: string): void {
  readManifest(dataDir).text_index!.forEach((_, s) =>
    editIndex(dataDir, s, (bytes) => {
      const v1 = Buffer.from(bytes.subarray(0, 16 + 28 * bytes.readUInt32LE(12)));
      v1.writeUInt32LE(1, 8);
      return v1;
    }),
  );
}

/** Reopens `dataDir` (texts read back): its checkpoint used, no text read, the same as `reference`; closes both. */
function expectReopenedAs(dataDir: string, reference: MemoryStore): void {
  const reopened = openAt(dataDir, options(0));
  try {
    expect(checkpointStatus(reopened).used).toBe(true);
    expect(reopened.textFootprint().reads).toBe(0);
    expect(statsOf(reopened)).toEqual(statsOf(reference));
    expect(observe(reopened)).toEqual(observe(reference));
  } finally {
    reopened.close();
    reference.close();
  }
}

/** Segment `s`'s text index: its version, and the bytes of its records' heads (0: none). */
function indexHeads(dataDir: string, s: number): { version: number; headsBytes: number } {
  const bytes = fs.readFileSync(path.join(checkpointDir(dataDir), readManifest(dataDir).text_index![s]!.file));
  const body = 16 + 28 * bytes.readUInt32LE(12);
  return { version: bytes.readUInt32LE(8), headsBytes: bytes.length > body ? bytes.readUInt32LE(body) : 0 };
}

describe("a record part's text index", () => {
  it("holds what a scan of the part finds: each text's range and length, each content hash's digits", () => {
    const records: Array<MemoryRecord | undefined> = [
      { id: "a", text: 'quote " 末尾\\ 🙂', source_type: "user_message", timestamp_ms: 1, scope: "global", metadata: { text: "x" }, content_hash: hashContent('quote " 末尾\\ 🙂') },
      undefined,
      { content_hash: "sha256:odd", id: "b", text: "b", source_type: "user_message", timestamp_ms: 2, scope: "global", metadata: {} } as MemoryRecord,
    ];
    const part = Buffer.concat([...encodeRecordPart(records)]);
    const ranges = findTexts(part, 3, { hashes: true }) as Required<ReturnType<typeof findTexts>>;
    const chars = Int32Array.from([jsonStringUnits(part, ranges.start[0], ranges.end[0]), 0, 1]);
    expect(chars[0]).toBe('quote " 末尾\\ 🙂'.length);
    const decoded = decodeTextIndex(encodeTextIndex(ranges, chars), 3, part);
    expect(decoded).toEqual({ version: 2, ranges, chars });
    expect([...decoded.ranges.hashAt]).toEqual([part.indexOf(records[0]!.content_hash.slice(7)), -1, -1]);
    // With the records, their heads too, unless a record's fields are not in the order heads keep (record 2's
    // hash comes first) or its hash is not where the index places it (record 2's is not a SHA-256).
    expect(decodeTextIndex(encodeTextIndex(ranges, chars, records), 3, part)).toEqual({ version: 2, ranges, chars });
    const inOrder = [records[0], undefined, { id: "b", text: "b", source_type: "user_message", timestamp_ms: 2, scope: "global", metadata: {}, content_hash: "sha256:odd" } as MemoryRecord];
    expect(decodeTextIndex(encodeTextIndex(ranges, chars, inOrder), 3, part)).toEqual({ version: 2, ranges, chars });
    inOrder[2] = { ...inOrder[2]!, content_hash: hashContent("b") };
    const hashedPart = Buffer.concat([...encodeRecordPart(inOrder)]);
    const hashedRanges = findTexts(hashedPart, 3, { hashes: true }) as Required<ReturnType<typeof findTexts>>;
    const withHeads = decodeTextIndex(encodeTextIndex(hashedRanges, chars, inOrder), 3, hashedPart);
    expect([withHeads.ranges, withHeads.chars, withHeads.heads?.ids]).toEqual([hashedRanges, chars, "ab"]);
    // Records that are not the part's (one where it has none, none where it has one): no heads.
    expect(decodeTextIndex(encodeTextIndex(hashedRanges, chars, [inOrder[0], inOrder[0], undefined]), 3, hashedPart).heads).toBeUndefined();
    // Heads beside an index that places no hash for a record (written by no build): refused.
    const unplaced = encodeTextIndex(hashedRanges, chars, inOrder);
    unplaced.writeDoubleLE(-1, 16 + 8 * 2 * 3 + 8 * 2);
    expect(() => decodeTextIndex(unplaced, 3, hashedPart)).toThrow("the text index holds the head of record 2 but not where its content hash is");
    // Version 1 (a build before the heads): the same body, no heads.
    const v1 = Buffer.from(encodeTextIndex(ranges, chars).subarray(0, 16 + 28 * 3));
    v1.writeUInt32LE(1, 8);
    expect(decodeTextIndex(v1, 3, part)).toEqual({ version: 1, ranges, chars });
    // Another count, another magic, another version: refused.
    expect(() => decodeTextIndex(encodeTextIndex(ranges, chars), 4, part)).toThrow("a text index is not one of version 1 or 2 for 4 records");
    const other = Buffer.from(encodeTextIndex(ranges, chars));
    other.write("DSHVECS\0", 0, "latin1");
    expect(() => decodeTextIndex(other, 3, part)).toThrow("a text index is not one of version 1 or 2 for 3 records");
    v1.writeUInt32LE(3, 8);
    expect(() => decodeTextIndex(v1, 3, part)).toThrow("a text index is not one of version 1 or 2 for 3 records");
  });

  it("opens a store that reads its texts back through the index, as a scan of the parts would and with no text read", () => {
    const dataDir = indexedStore();
    const manifest = readManifest(dataDir);
    expect(manifest.version).toBe(7);
    expect(manifest.text_index!.every((part) => part !== null)).toBe(true);
    // The same checkpoint as format 5 wrote it: no index, the parts scanned.
    const scanned = copyDataDir(dataDir);
    const { text_index: _index, ...v5 } = manifest;
    writeManifest(scanned, { ...v5, version: 5 } as Manifest);
    const byIndex = openAt(copyDataDir(dataDir), options(0));
    const byScan = openAt(scanned, options(0));
    const inMemory = openAt(copyDataDir(dataDir), options(Infinity));
    try {
      expect([checkpointStatus(byIndex).used, checkpointStatus(byScan).used, checkpointStatus(inMemory).used]).toEqual([true, true, true]);
      expect(byIndex.textFootprint().reads).toBe(0);
      // The texts' lengths (counted from the index) and everything else a caller sees.
      expect(statsOf(byIndex)).toEqual(statsOf(inMemory));
      expect(statsOf(byIndex)).toEqual(statsOf(byScan));
      expect(observe(byIndex)).toEqual(observe(inMemory));
      expect(observe(byScan)).toEqual(observe(inMemory));
    } finally {
      byIndex.close();
      byScan.close();
      inMemory.close();
    }
  });

  it("is written again with its segment's part, kept with an unchanged one, and named for removal with it", () => {
    const dataDir = indexedStore();
    const before = readManifest(dataDir);
    const store = openAt(dataDir, options(0));
    try {
      store.forget("m-1");
      store.checkpoint();
      const after = readManifest(dataDir);
      expect(after.text_index![0]).not.toEqual(before.text_index![0]);
      expect(after.text_index!.slice(1)).toEqual(before.text_index!.slice(1));
      // Only the files the manifest names stay: the old index of segment 0 is gone.
      expect(fs.existsSync(path.join(checkpointDir(dataDir), before.text_index![0]!.file))).toBe(false);
      expect(fs.existsSync(path.join(checkpointDir(dataDir), after.text_index![0]!.file))).toBe(true);
    } finally {
      store.close();
    }
  });

  it("is made for the parts an earlier checkpoint wrote without one, at the next checkpoint that reads texts back, keeping those parts", () => {
    // Written with the texts in memory: no index (as a checkpoint of format 5 had none).
    const dataDir = checkpointedHistory("text-index-upgrade-", options(Infinity));
    const before = readManifest(dataDir);
    expect(before.text_index!.every((part) => part === null)).toBe(true);
    const store = openAt(dataDir, options(0));
    const reference = openAt(copyDataDir(dataDir), options(Infinity));
    try {
      for (const s of [store, reference]) s.forget("m-1");
      store.checkpoint();
      const after = readManifest(dataDir);
      // Segment 0 written again; every other record part kept as it was, with an index beside it now.
      expect(after.records[0]).not.toEqual(before.records[0]);
      expect(after.records.slice(1)).toEqual(before.records.slice(1));
      expect(after.text_index!.every((part) => part !== null)).toBe(true);
      // With the records' heads: an open makes the records from them.
      expect(after.text_index!.map((_, s) => indexHeads(dataDir, s).headsBytes > 0)).toEqual(after.text_index!.map(() => true));
    } finally {
      store.close();
    }
    expectReopenedAs(dataDir, reference);
  });

  it("is made again with the records' heads where it is of version 1, at the next checkpoint, keeping the parts", () => {
    const dataDir = indexedStore();
    const segments = readManifest(dataDir).text_index!.length;
    expect(indexHeads(dataDir, 0)).toEqual({ version: 2, headsBytes: expect.any(Number) });
    toVersion1(dataDir);
    expect(indexHeads(dataDir, 0)).toEqual({ version: 1, headsBytes: 0 });
    const before = readManifest(dataDir);
    const store = openAt(dataDir, options(0));
    const reference = openAt(copyDataDir(dataDir), options(Infinity));
    try {
      expect(checkpointStatus(store).used).toBe(true);
      for (const s of [store, reference]) s.forget("m-1");
      store.checkpoint();
      const after = readManifest(dataDir);
      expect(after.records.slice(1)).toEqual(before.records.slice(1));
      expect(after.text_index!.every((part, s) => part!.file !== before.text_index![s]!.file)).toBe(true);
      for (let s = 0; s < segments; s++) expect([indexHeads(dataDir, s).version, indexHeads(dataDir, s).headsBytes > 0]).toEqual([2, true]);
      // Made once: the next checkpoint keeps them.
      for (const s of [store, reference]) s.forget("m-2");
      store.checkpoint();
      expect(readManifest(dataDir).text_index!.slice(1)).toEqual(after.text_index!.slice(1));
    } finally {
      store.close();
    }
    expectReopenedAs(dataDir, reference);
  });

  it("leaves a version 1 index as it is when its segment changes while the checkpoint runs, and makes it at the next", () => {
    const dataDir = indexedStore();
    toVersion1(dataDir);
    const before = readManifest(dataDir);
    const store = openAt(dataDir, options(0));
    try {
      store.forget("m-1");
      // The first step freezes the state; segment 2 (docs 32-47) changes before its index is made.
      expect(store.checkpointInSteps(0)).toBeUndefined();
      expect(store.get("m-40")).toBeDefined();
      store.forget("m-40");
      while (!store.checkpointInSteps(0));
      const after = readManifest(dataDir);
      // Its part and index kept as they were (the part holds the segment as it was at the first step).
      expect([after.records[2], after.text_index![2]]).toEqual([before.records[2], before.text_index![2]]);
      expect(indexHeads(dataDir, 2)).toEqual({ version: 1, headsBytes: 0 });
      expect(indexHeads(dataDir, 3).headsBytes).toBeGreaterThan(0);
      store.checkpoint();
      expect(indexHeads(dataDir, 2).headsBytes).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });

  it("refuses the checkpoint when the index does not fit its part: damaged, moved, another segment's, or misplaced", () => {
    const base = indexedStore();
    const expectRefused = (damage: (dataDir: string) => void, reason: string | RegExp, opened = options(0)) => {
      const dataDir = copyDataDir(base);
      damage(dataDir);
      const replayDir = copyDataDir(dataDir, { withCheckpoint: false });
      const store = openAt(dataDir, opened);
      const replayed = openAt(replayDir, opened);
      try {
        const status = checkpointStatus(store);
        expect(status).toMatchObject({ used: false, offset: 0 });
        expect(status.reason).toEqual(typeof reason === "string" ? reason : expect.stringMatching(reason));
        expect(observe(store)).toEqual(observe(replayed));
      } finally {
        store.close();
        replayed.close();
      }
    };
    // One byte changed behind the manifest's back: the segment's last text's length, 2^24 more, which decodes. With a
    // worker thread, read here unhashed and refused by the worker's hash.
    const lastLength = (dataDir: string) => {
      const file = path.join(checkpointDir(dataDir), readManifest(dataDir).text_index![1]!.file);
      const bytes = fs.readFileSync(file);
      bytes[16 + 28 * SEGMENT - 1] ^= 1;
      fs.writeFileSync(file, bytes);
    };
    expectRefused(lastLength, "the text index part does not match its CRC-32 (damaged)");
    const withWorker = options(0);
    withWorker.checkpoint = { ...withWorker.checkpoint, snapshotWorkerMinBytes: 0 };
    expectRefused(lastLength, "the text index part does not match its CRC-32 (damaged)", withWorker);
    // Segment 2's index named for segment 1 (the same count of records).
    expectRefused((dataDir) => {
      const manifest = readManifest(dataDir);
      manifest.text_index![1] = manifest.text_index![2];
      writeManifest(dataDir, manifest);
    }, /^the text index does not match its record part at record \d+$/);
    // A text's start moved by one byte; a hash's; a text index claiming a forgotten doc has a text.
    const column = (c: number, i: number) => 16 + 8 * c * SEGMENT + 8 * i;
    expectRefused((dataDir) => editIndex(dataDir, 1, (bytes) => (bytes.writeDoubleLE(bytes.readDoubleLE(column(0, 3)) + 1, column(0, 3)), bytes)), "the text index does not match its record part at record 3");
    expectRefused((dataDir) => editIndex(dataDir, 1, (bytes) => (bytes.writeDoubleLE(bytes.readDoubleLE(column(2, 3)) - 1, column(2, 3)), bytes)), "the text index does not match its record part at record 3");
    // Segment 0 holds m-0 (forgotten by writeHistory): its index says -1, and another record's ranges there are refused.
    expectRefused((dataDir) => {
      const manifest = readManifest(dataDir);
      const index = fs.readFileSync(path.join(checkpointDir(dataDir), manifest.text_index![0]!.file));
      expect([0, 1, 2].map((c) => index.readDoubleLE(column(c, 0)))).toEqual([-1, -1, -1]);
      editIndex(dataDir, 0, (bytes) => {
        for (const c of [0, 1, 2]) bytes.writeDoubleLE(bytes.readDoubleLE(column(c, 1)), column(c, 0));
        return bytes;
      });
    }, /^the text index does not match its record part at record [01]$/);
  });
});

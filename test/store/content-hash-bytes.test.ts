// Content hashes kept as bytes (issue 18, start at 1M): a store that opens from its checkpoint with its texts
// read back decodes each record without its content hash and keeps the hash's 32 bytes instead (a million
// strings of 71 characters were ~88 MB of heap at an open). Every reader must still see the hash as a string,
// the vectors' bindings must be checked and written again from those bytes, and the JSON a record makes
// must not change.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { decodeRecordPart, encodeRecordPart } from "../../bridge/store/checkpoint-parts";
import { hashOfDigest, hashOfHex, writeDigest } from "../../bridge/store/content-digests";
import type { MemoryStore, StoreOptions } from "../../bridge/store/memory-store";
import { hashContent, type MemoryRecord } from "../../bridge/store/records";
import { findTexts } from "../../bridge/store/text-pages";
import { DocHashes } from "../../bridge/store/vector-spaces";
import { checkpointedHistory, checkpointStatus, copyDataDir, observe, openAt, readManifest, RECORDS, touchEarlier } from "./checkpoint-fixtures";

const SEGMENT = 16;
const options = (textMax: number): Partial<StoreOptions> => ({ checkpointOnCloseBytes: Infinity, checkpoint: { segmentDocs: SEGMENT, textInMemoryMax: textMax } });
const recordsOf = (store: MemoryStore): Array<MemoryRecord | undefined> => (store as unknown as { state: { records: Array<MemoryRecord | undefined> } }).state.records;
const live = (store: MemoryStore) => recordsOf(store).filter((record): record is MemoryRecord => record !== undefined);
const binding = { provider: "test", model: "m8", dim: 8, modelDigest: null, configHash: null };

const hex = (seed: number) => Array.from({ length: 64 }, (_, i) => "0123456789abcdef"[(seed * 7 + i * 13) % 16]).join("");

describe("content hashes found in a record part", () => {
  it("places each record's own content hash, and only one spelled as sha256 and 64 lowercase hex digits", () => {
    const records: Array<MemoryRecord | undefined> = [
      // A content_hash inside the metadata is not the record's.
      { id: "a", text: "one", source_type: "user_message", timestamp_ms: 1, scope: "global", metadata: { content_hash: `sha256:${hex(9)}` }, content_hash: `sha256:${hex(1)}` },
      undefined,
      // The hash before the text: another key order.
      { content_hash: `sha256:${hex(2)}`, id: "b", text: 'he said "content_hash":"sha256:0"', source_type: "user_message", timestamp_ms: 2, scope: "global", metadata: {} } as MemoryRecord,
      { id: "c", text: "upper", source_type: "user_message", timestamp_ms: 3, scope: "global", metadata: {}, content_hash: `sha256:${hex(3).toUpperCase()}` },
      { id: "d", text: "short", source_type: "user_message", timestamp_ms: 4, scope: "global", metadata: {}, content_hash: "sha256:abc" },
      { id: "e", text: "md5", source_type: "user_message", timestamp_ms: 5, scope: "global", metadata: {}, content_hash: `md5:${hex(5)}` },
    ];
    const bytes = Buffer.concat([...encodeRecordPart(records)]);
    const ranges = findTexts(bytes, records.length, { hashes: true });
    const digits = [...ranges.hashAt!].map((at) => (at < 0 ? null : bytes.toString("utf8", at, at + 64)));
    expect(digits).toEqual([hex(1), null, hex(2), null, null, null]);
    expect(findTexts(bytes, records.length).hashAt).toBeUndefined();

    // Decoded with those hashes left out: "" where each was, everything else as it was.
    const decoded = decodeRecordPart(bytes, records.length, undefined, ranges);
    const expected = records.map((record, i) => record && { ...record, text: "", content_hash: digits[i] === null ? record.content_hash : "" });
    expect(decoded).toEqual(expected);
  });

  it("leaves out exactly the texts and hashes placed, over lines of many records in either key order", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ text: fc.string({ minLength: 1 }), first: fc.boolean(), gone: fc.boolean(), odd: fc.boolean() }), { minLength: 1, maxLength: 40 }), (items) => {
        const records = items.map(({ text, first, gone, odd }, i): MemoryRecord | undefined => {
          if (gone) return undefined;
          const content_hash = odd ? `sha256:${text}` : hashContent(text);
          const rest = { id: `r${i}`, text, source_type: "user_message" as const, timestamp_ms: i, scope: "global", metadata: { text, content_hash } };
          return first ? ({ content_hash, ...rest } as MemoryRecord) : { ...rest, content_hash };
        });
        const bytes = Buffer.concat([...encodeRecordPart(records)]);
        const ranges = findTexts(bytes, records.length, { hashes: true });
        const decoded = decodeRecordPart(bytes, records.length, undefined, ranges);
        expect(decoded).toEqual(records.map((record) => record && { ...record, text: "", content_hash: /^sha256:[0-9a-f]{64}$/.test(record.content_hash) ? "" : record.content_hash }));
      }),
    );
  });
});

describe("a store opened with its content hashes as bytes", () => {
  it("keeps no hash string per record, and shows every hash, record and search as a store that keeps them all", () => {
    const dataDir = checkpointedHistory("hash-bytes-", options(Infinity));

    const paged = openAt(copyDataDir(dataDir), options(0));
    const inMemory = openAt(copyDataDir(dataDir), options(Infinity));
    try {
      expect(checkpointStatus(paged).used).toBe(true);
      const records = live(paged);
      expect(records.length).toBeGreaterThan(150);
      // No record holds a hash of its own; each one's hash is still its text's.
      expect(records.filter((record) => Object.hasOwn(record, "content_hash"))).toEqual([]);
      expect(records.filter((record) => record.content_hash !== hashContent(record.text)).map((record) => record.id)).toEqual([]);
      expect(live(inMemory).every((record) => Object.hasOwn(record, "content_hash"))).toBe(true);
      // What a caller reads: whole records (their JSON byte for byte), searches, exports with vectors.
      const ids = RECORDS.map((r) => r.id as string).filter((id) => inMemory.get(id));
      expect(ids.map((id) => JSON.stringify(paged.get(id)))).toEqual(ids.map((id) => JSON.stringify(inMemory.get(id))));
      expect(observe(paged)).toEqual(observe(inMemory));
      expect(paged.exportPage(0, 10_000, true)).toEqual(inMemory.exportPage(0, 10_000, true));
      // The vectors are bound to those hashes: none is wanted again, and those without one are.
      const wanted = (store: MemoryStore) => store.memoriesNeedingVectors(binding, 0, 1000).items.map((item) => [item.id, item.contentHash]);
      expect(wanted(paged)).toEqual(wanted(inMemory));
      expect(wanted(paged).length).toBeGreaterThan(0);
      expect(wanted(paged).length).toBeLessThan(records.length / 2);
    } finally {
      paged.close();
      inMemory.close();
    }
  });

  it("writes the vectors' bindings from those bytes at its next checkpoint, which the open after it takes", () => {
    const dataDir = checkpointedHistory("hash-bytes-again-", options(Infinity));
    const reference = openAt(copyDataDir(dataDir), options(Infinity));
    const paged = openAt(dataDir, options(0));
    const mainParts = () => readManifest(dataDir).vector_spaces.find((space) => space.model === "m8")!.segments.map((segment) => segment?.part.crc32);
    const partsBefore = mainParts();
    expect(partsBefore.filter((sum) => sum !== undefined).length).toBeGreaterThan(1);
    try {
      // A vector of the main space forgotten in every segment: each one's part is written again, the hashes of the rest
      // from the records' bytes.
      for (const store of [paged, reference]) {
        touchEarlier(store, 0, 200);
        for (let from = 0; from < 200; from += SEGMENT) {
          const id = RECORDS.slice(from, from + SEGMENT).find((r) => (r.embedding as { model?: string } | undefined)?.model === "m8" && store.get(r.id as string))?.id as string;
          store.forget(id);
        }
      }
      paged.checkpoint();
      reference.checkpoint();
      expect(mainParts().filter((sum, i) => sum !== undefined && sum === partsBefore[i])).toEqual([]);
      // The same bytes as the store that held every hash as a string wrote.
      const partsOf = (store: MemoryStore) => readManifest(store.dataDir).vector_spaces.map((space) => space.segments.map((segment) => segment?.part.crc32 ?? null));
      expect(partsOf(paged).flat().filter((sum) => sum !== null).length).toBeGreaterThan(1);
      expect(partsOf(paged)).toEqual(partsOf(reference));
    } finally {
      paged.close();
      reference.close();
    }
    const reopened = openAt(dataDir, options(0));
    const again = openAt(copyDataDir(dataDir), options(Infinity));
    try {
      expect(checkpointStatus(reopened)).toMatchObject({ used: true, entries_replayed_after: 0 });
      expect(observe(reopened)).toEqual(observe(again));
    } finally {
      reopened.close();
      again.close();
    }
  });
});

describe("a content hash's string", () => {
  it("is sha256: and the text's digest in lowercase hex, from the text or from the digest's bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.nat(64), (text, at) => {
        const hex = createHash("sha256").update(text, "utf8").digest("hex");
        expect(hashContent(text)).toBe(`sha256:${hex}`);
        const digests = new Uint8Array(at + 32 + 7);
        expect(writeDigest(hashContent(text), digests, at)).toBe(true);
        expect(hashOfDigest(digests, at)).toBe(`sha256:${hex}`);
      }),
    );
    // Each is a string of its own (one scratch buffer makes them all).
    const [a, b] = [hashContent("a"), hashContent("b")];
    expect([a, b]).toEqual([`sha256:${createHash("sha256").update("a").digest("hex")}`, `sha256:${createHash("sha256").update("b").digest("hex")}`]);
  });

  it("is refused from other than 64 hex digits", () => {
    expect(() => hashOfHex("abc")).toThrow("hashOfHex: 3 hex digits, not 64");
  });
});

describe("DocHashes", () => {
  it("answers get and boundTo as a map of the hash strings would, canonical or not", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ doc: fc.nat({ max: 200 }), seed: fc.nat({ max: 3 }), odd: fc.boolean() }), { maxLength: 40 }), (sets) => {
        const hashes = new DocHashes();
        const reference = new Map<number, string>();
        const hashOf = (seed: number, odd: boolean) => (odd ? `sha256:${seed}` : `sha256:${hex(seed)}`);
        for (const { doc, seed, odd } of sets) {
          hashes.set(doc, hashOf(seed, odd));
          reference.set(doc, hashOf(seed, odd));
        }
        for (let doc = 0; doc <= 200; doc++) {
          expect(hashes.get(doc)).toBe(reference.get(doc));
          for (const odd of [false, true]) {
            for (let seed = 0; seed < 4; seed++) {
              const record = { content_hash: hashOf(seed, odd) } as MemoryRecord;
              expect(hashes.boundTo(doc, record)).toBe(reference.get(doc) === record.content_hash);
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("takes a digest from a vector part's bytes", () => {
    const hashes = new DocHashes();
    const digests = Buffer.from(hex(1) + hex(2), "hex");
    hashes.setDigest(5, digests, 32);
    expect([hashes.get(5), hashes.size, hashes.has(4)]).toEqual([`sha256:${hex(2)}`, 1, false]);
    expect(hashes.boundTo(5, { content_hash: `sha256:${hex(2)}` } as MemoryRecord)).toBe(true);
    expect(hashes.boundTo(5, { content_hash: `sha256:${hex(1)}` } as MemoryRecord)).toBe(false);
  });
});

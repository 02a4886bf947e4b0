// A record part's heads (issue 18, start at 1M): an open makes paged records from them instead of parsing the
// part. A record made from its head must be the record the part's JSON gives, field order included (a later
// checkpoint writes it again), and heads that cannot say so are not written, or refused when read.
import fc from "fast-check";
import { CheckpointRejected } from "../../bridge/store/checkpoint-format";
import { SharedValues } from "../../bridge/store/checkpoint-parts";
import { decodeRecordHeads, encodeRecordHeads, recordHeadsInSteps, recordsFromHeads } from "../../bridge/store/record-heads";
import { type MemoryRecord, SOURCE_TYPES, validateRecordInput } from "../../bridge/store/records";

const json = fc.jsonValue({ maxDepth: 2 });
const recordArbitrary = fc
  .record(
    {
      id: fc.string({ unit: fc.oneof(fc.constantFrom("记", "😀", '"', "\\"), fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 })), minLength: 1, maxLength: 40 }),
      text: fc.string(),
      source_type: fc.constantFrom(...SOURCE_TYPES),
      timestamp_ms: fc.integer({ min: 0, max: 8.64e15 }),
      scope: fc.constantFrom("global", "project:a", "project:记忆"),
      metadata: fc.dictionary(fc.string({ maxLength: 5 }), json, { maxKeys: 3 }),
      content_hash: fc.constant("sha256:" + "ab".repeat(32)),
      session_id: fc.constantFrom("s1", "会话-2", "a-session-id-longer-than-ten"),
      turn: fc.nat(),
      tags: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
      quarantine: fc.record({ reason: fc.string({ maxLength: 8 }), atMs: fc.nat() }),
    },
    { requiredKeys: ["id", "source_type", "timestamp_ms", "scope", "metadata"] },
  )
  // fc.record keeps its keys' order: validateRecordInput's, with text and content_hash where a paged record lacks them or not.
  .map((record) => record as unknown as MemoryRecord);

/** The records made from `records`' heads, as plain objects (what a paged record holds of its own). */
function roundTrip(records: Array<MemoryRecord | undefined>, shared = new SharedValues()): Array<Record<string, unknown> | undefined> {
  const bytes = encodeRecordHeads(records);
  if (!bytes) throw new Error("no heads");
  const heads = decodeRecordHeads(bytes, records.length, (i) => records[i] === undefined);
  const made: Array<Record<string, unknown> | undefined> = new Array(records.length).fill(undefined);
  const doc = Symbol("doc");
  recordsFromHeads(heads, shared, (i, record) => {
    expect(record[doc]).toBe(100 + i);
    made[i] = record;
  }, { key: doc, from: 100 });
  return made;
}

const withoutTextAndHash = (record: MemoryRecord) => {
  const { text: _text, content_hash: _hash, ...rest } = record;
  return rest;
};

describe("record heads", () => {
  it("give back each record's fields but its text and hash, in the same order, as the part's JSON has them", () => {
    fc.assert(
      fc.property(fc.array(fc.option(recordArbitrary, { nil: undefined }), { minLength: 1, maxLength: 30 }), (records) => {
        const made = roundTrip(records);
        // The JSON, not deep equality: the order of the fields too.
        expect(made.map((record) => (record === undefined ? null : JSON.stringify(record)))).toEqual(records.map((record) => (record === undefined ? null : JSON.stringify(withoutTextAndHash(record)))));
      }),
      { numRuns: 150 },
    );
  });

  it("are made for every record a write makes, with or without its optional fields, in the fields' order", () => {
    const defaults = { newId: () => "new-id", nowMs: () => 1_700_000_000_000 };
    const optional = { session_id: "a-session-id-longer-than-ten", turn: 3, tags: ["highlight"], quarantined: "looks like an injection" };
    const names = Object.keys(optional) as Array<keyof typeof optional>;
    // Every subset of the optional fields, given in any order: the record's own order is the heads' order.
    const records = Array.from({ length: 1 << names.length }, (_, mask) => {
      const given = Object.fromEntries(names.filter((_, bit) => mask & (1 << bit)).reverse().map((name) => [name, optional[name]]));
      return validateRecordInput({ ...given, text: `text ${mask}`, source_type: "assistant_message", metadata: { mask } }, defaults).record;
    });
    expect(Object.keys(records[(1 << names.length) - 1])).toEqual(["id", "text", "source_type", "timestamp_ms", "scope", "metadata", "content_hash", "session_id", "turn", "tags", "quarantine"]);
    const made = roundTrip(records);
    expect(made.map((record) => JSON.stringify(record))).toEqual(records.map((record) => JSON.stringify(withoutTextAndHash(record))));
  });

  it("are the same bytes made in steps, a step for each `perStep` records, and none made when one record cannot have a head", () => {
    fc.assert(
      fc.property(fc.array(fc.option(recordArbitrary, { nil: undefined }), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 12 }), (records, perStep) => {
        const steps = recordHeadsInSteps(records, perStep);
        let yields = 0;
        let next = steps.next();
        for (; !next.done; next = steps.next()) yields++;
        expect(next.value).toEqual(encodeRecordHeads(records));
        expect(yields).toBe(Math.ceil(records.length / perStep) - 1);
      }),
      { numRuns: 100 },
    );
    const fine = { id: "a", text: "t", source_type: "user_message", timestamp_ms: 1, scope: "global", metadata: {}, content_hash: "sha256:x" } as MemoryRecord;
    const reordered = { text: "t", id: "b", source_type: "user_message", timestamp_ms: 1, scope: "global", metadata: {}, content_hash: "sha256:x" } as MemoryRecord;
    const steps = recordHeadsInSteps([fine, fine, fine, reordered], 2);
    expect(steps.next()).toEqual({ done: false, value: undefined });
    expect(steps.next()).toEqual({ done: true, value: undefined });
  });

  it("share metadata, scopes and session ids as decodeRecordPart does, and make tags and quarantines for each record", () => {
    const record = (id: string, metadata: object, rest: object = {}) => ({ id, text: "t", source_type: "user_message", timestamp_ms: 1, scope: "global", metadata, content_hash: "sha256:x", ...rest }) as MemoryRecord;
    const big = { notes: "n".repeat(2000) };
    const records = [0, 1].map((i) => record(`r${i}`, { cwd: "/w" }, { session_id: "a-session-id-longer-than-ten", tags: ["t"], quarantine: { reason: "r", atMs: 1 } }));
    records.push(record("r2", big), record("r3", big));
    const shared = new SharedValues();
    const share = jest.spyOn(shared, "share");
    const made = roundTrip(records, shared) as Array<Record<string, any>>;
    expect(made[0].metadata).toBe(made[1].metadata);
    expect(Object.isFrozen(made[0].metadata)).toBe(true);
    // Strings compare by value: what is shared is what goes through SharedValues, once per distinct value.
    expect(share.mock.calls.map(([value]) => value).sort()).toEqual(["a-session-id-longer-than-ten", "global"]);
    expect(made[0].tags).not.toBe(made[1].tags);
    expect(made[0].quarantine).not.toBe(made[1].quarantine);
    // Metadata past 1,024 characters of JSON: one object a record, not frozen (SharedValues does not share it).
    expect(made[2].metadata).toEqual(big);
    expect(made[2].metadata).not.toBe(made[3].metadata);
    expect(Object.isFrozen(made[2].metadata)).toBe(false);
  });

  it.each([
    ["fields in another order", { id: "a", source_type: "user_message", text: "t", timestamp_ms: 1, scope: "global", metadata: {}, content_hash: "h" }],
    ["a field it does not keep", { id: "a", text: "t", source_type: "user_message", timestamp_ms: 1, scope: "global", metadata: {}, content_hash: "h", extra: 1 }],
    ["a required field missing", { id: "a", text: "t", source_type: "user_message", timestamp_ms: 1, metadata: {}, content_hash: "h" }],
    ["an unknown source type", { id: "a", text: "t", source_type: "note", timestamp_ms: 1, scope: "global", metadata: {}, content_hash: "h" }],
    ["a timestamp JSON cannot keep", { id: "a", text: "t", source_type: "user_message", timestamp_ms: Number.NaN, scope: "global", metadata: {}, content_hash: "h" }],
    ["a timestamp JSON gives back as 0", { id: "a", text: "t", source_type: "user_message", timestamp_ms: -0, scope: "global", metadata: {}, content_hash: "h" }],
    ["an id with a lone surrogate", { id: "a\ud800", text: "t", source_type: "user_message", timestamp_ms: 1, scope: "global", metadata: {}, content_hash: "h" }],
    ["a negative turn", { id: "a", text: "t", source_type: "user_message", timestamp_ms: 1, scope: "global", metadata: {}, content_hash: "h", turn: -1 }],
  ])("are not written for a part with a record with %s", (_, record) => {
    const fine = { id: "b", text: "t", source_type: "user_message", timestamp_ms: 1, scope: "global", metadata: {}, content_hash: "h" } as MemoryRecord;
    expect(encodeRecordHeads([fine])).toBeDefined();
    expect(encodeRecordHeads([fine, record as unknown as MemoryRecord])).toBeUndefined();
  });

  it("are refused when damaged or when they disagree with the part on which docs it holds", () => {
    const records = [{ id: "a", text: "t", source_type: "user_message", timestamp_ms: 1, scope: "global", metadata: {}, content_hash: "h" } as MemoryRecord, undefined];
    const bytes = encodeRecordHeads(records)!;
    const refused = (damaged: Buffer, forgotten: (i: number) => boolean = (i) => i === 1) => {
      try {
        decodeRecordHeads(damaged, 2, forgotten);
      } catch (error) {
        expect(error).toBeInstanceOf(CheckpointRejected);
        return (error as Error).message;
      }
      return "accepted";
    };
    expect(refused(bytes)).toBe("accepted");
    expect(refused(bytes, () => false)).toBe("a text index's record heads leave out record 1, which the part holds");
    expect(refused(bytes, () => true)).toBe("a text index's record heads hold record 0, which the part leaves out");
    expect(refused(bytes.subarray(0, bytes.length - 1))).toBe("a text index's record heads are not 2 records' long");
    // The last column is the quarantines': record 0's pointing past the table.
    const pastTable = Buffer.from(bytes);
    pastTable.writeInt32LE(7, pastTable.length - 8);
    expect(refused(pastTable)).toBe("a text index's record heads hold a malformed record at 0");
    // The kinds follow the ids, their offsets and two columns of doubles.
    const kindAt = bytes.length - 5 * 4 * 2 - 2;
    const unknownKind = Buffer.from(bytes);
    unknownKind[kindAt] = SOURCE_TYPES.length;
    expect(refused(unknownKind)).toBe("a text index's record heads hold a malformed record at 0");
  });
});

// Issue 18, item 4: a store whose texts are read back opens its record parts without decoding the texts.
// What it gets that way must be exactly what decoding them gives: each text's length (measured on the
// JSON bytes), the records (texts aside), and each reply's kind (from its act, the text read only for an
// acknowledgement).
import fc from "fast-check";
import { loadCheckpoint } from "../../bridge/store/checkpoint";
import { PartBuffer } from "../../bridge/store/checkpoint-files";
import { decodeRecordPart, encodeRecordPart, RECORDS_PER_LINE } from "../../bridge/store/checkpoint-parts";
import { replyKind } from "../../bridge/store/memory-state";
import type { MemoryRecord } from "../../bridge/store/records";
import { findTexts, jsonStringUnits } from "../../bridge/store/text-pages";
import { openAt } from "./checkpoint-fixtures";
import { tempDir } from "./helpers";
import path from "node:path";

const record = (i: number, text: string): MemoryRecord => ({
  id: `r-${i}`,
  text,
  source_type: i % 2 ? "assistant_message" : "user_message",
  timestamp_ms: 1_700_000_000_000 + i,
  scope: "global",
  // Brackets, commas and quotes inside strings, nested arrays and objects: a line is parsed in groups cut at
  // the commas between records only.
  metadata: i % 3 ? (i % 3 === 1 ? {} : { where: "],[{\\\"}", nested: [[{ a: ["}", ","] }], {}] }) : { note: `"${text.slice(0, 3)}"`, list: [1, "二"] },
  content_hash: `sha256:${"0".repeat(64)}`,
});

// Quotes, backslashes, control characters, CJK, astral characters (two units) and lone surrogates.
const textArbitrary = fc.string({ unit: fc.oneof(fc.constantFrom('"', "\\", "\n", "\u0000", "\u001f", "钥", "匙", "😀", "\ud800", "\udfff", "é", "text"), fc.string({ unit: "grapheme" })), minLength: 1 });

/** Past several lines of RECORDS_PER_LINE (512), with forgotten docs at a line's ends. */
const severalLines = () => Array.from({ length: 4500 }, (_, i) => (i % 7 === 0 || i === 2047 || i === 2048 ? undefined : record(i, `${i} 钥匙 "${"\\".repeat(i % 3)}" 😀`)));

describe("record parts decoded without their texts", () => {
  it("measures each text's UTF-16 length on its JSON bytes", () => {
    fc.assert(
      fc.property(textArbitrary, (text) => {
        const bytes = Buffer.from(JSON.stringify(text), "utf8");
        expect(jsonStringUnits(bytes, 0, bytes.length)).toBe(text.length);
      }),
      { numRuns: 500 },
    );
  });

  it("decodes the same records with each text left empty, across lines and forgotten docs", () => {
    fc.assert(
      fc.property(fc.array(fc.option(textArbitrary, { nil: undefined }), { minLength: 1, maxLength: 5000 }), (texts) => {
        const records = texts.map((text, i) => (text === undefined ? undefined : record(i, text)));
        const bytes = Buffer.concat([...encodeRecordPart(records)]);
        const ranges = findTexts(bytes, records.length);
        const elided = decodeRecordPart(bytes, records.length, undefined, ranges);
        expect(elided).toEqual(decodeRecordPart(bytes, records.length).map((r) => r && { ...r, text: "" }));
        records.forEach((r, i) => {
          if (r) expect(jsonStringUnits(bytes, ranges.start[i], ranges.end[i])).toBe(r.text.length);
        });
      }),
      { numRuns: 30 },
    );
    const records = severalLines();
    const bytes = Buffer.concat([...encodeRecordPart(records)]);
    const elided = decodeRecordPart(bytes, records.length, undefined, findTexts(bytes, records.length));
    expect(elided).toEqual(records.map((r) => r && { ...r, text: "" }));
  });

  it("writes each line as JSON.stringify writes its records, through a reused buffer too, growing it past its first megabyte", () => {
    const records = severalLines();
    const bytes = Buffer.concat([...encodeRecordPart(records)]);
    // Each line is the JSON array JSON.stringify makes of its records (a forgotten doc null), written a
    // record at a time; through a scratch each line is the same bytes, valid until the next is asked for.
    const lines = Array.from({ length: Math.ceil(records.length / RECORDS_PER_LINE) }, (_, l) => `${JSON.stringify(records.slice(l * RECORDS_PER_LINE, (l + 1) * RECORDS_PER_LINE))}\n`);
    expect(lines).toHaveLength(9);
    expect(bytes.toString("utf8")).toBe(lines.join(""));
    let line = 0;
    for (const chunk of encodeRecordPart(records, new PartBuffer())) expect(chunk.toString("utf8")).toBe(lines[line++]);
    expect(line).toBe(lines.length);
    // A line past the scratch's first megabyte grows it, the bytes before kept.
    const large = Array.from({ length: 7 }, (_, i) => (i === 3 ? undefined : record(i, `${i}${"长".repeat(100_000 + i)}`)));
    const [grown, ...more] = [...encodeRecordPart(large, new PartBuffer())];
    expect(more).toHaveLength(0);
    expect(grown.length).toBeGreaterThan(1 << 20);
    expect(grown.toString("utf8")).toBe(`${JSON.stringify(large)}\n`);
  });

  it("restores the same reply kinds whether the texts are read back or kept", () => {
    const dataDir = tempDir("records-without-texts-");
    const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    const turns = [
      ["我的钥匙在哪里？", "我不知道，你没跟我说过。"],
      ["Where did I park?", "I don't know, you haven't told me."],
      ["我的车停在B2。", "好的，记住了。"],
      ["My bike is in the shed.", "Got it."],
      ["What's my sister's name?", "Your sister is Anna."],
    ];
    store.importRecords(turns.flatMap(([user, reply], turn) => [
      { id: `u-${turn}`, text: user, source_type: "user_message", session_id: "s", turn },
      { id: `a-${turn}`, text: reply, source_type: "assistant_message", session_id: "s", turn },
    ]));
    store.checkpoint();
    store.close();
    const load = (textInMemoryMax: number) => {
      const loaded = loadCheckpoint(path.join(dataDir, "checkpoint"), path.join(dataDir, "journal.jsonl"), { k1: 1.2, b: 0.75 }, { textInMemoryMax });
      if (!loaded.state) throw new Error(loaded.reason);
      try {
        return { replies: [...loaded.state.replies], texts: loaded.state.records.map((r) => r?.text), paged: loaded.state.texts !== undefined };
      } finally {
        loaded.state.texts?.dispose();
        loaded.state.vectors.dispose();
      }
    };
    const paged = load(0);
    const kept = load(Infinity);
    expect(paged.paged).toBe(true);
    expect(kept.paged).toBe(false);
    expect(paged).toEqual({ ...kept, paged: true });
    // Non-answers, an acknowledgement that is not one, and answers: each kind as replyKind gives it.
    const expected = turns.flatMap(([user, reply], turn) => [
      replyKind(record(0, user)),
      replyKind({ ...record(1, reply), id: `a-${turn}` }),
    ]);
    expect(expected).toEqual([0, 2, 0, 2, 0, 1, 0, 1, 0, 1]);
    expect(paged.replies).toEqual(expected);
  });
});

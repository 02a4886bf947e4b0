import fc from "fast-check";
import { collapseConflicts, type ConflictCandidate } from "../../bridge/store/conflicts";
import { extractSlots } from "../../bridge/statements/slot-reader";
import type { StateSlot } from "../../bridge/statements/slots";

const at = (id: string, timestampMs: number, text: string, lexical = true): ConflictCandidate => ({ id, timestampMs, text, lexical });

describe("collapseConflicts", () => {
  it("collapses a direct location change to the newest place (zh)", () => {
    const result = collapseConflicts([at("t1", 1000, "钥匙放在鞋柜里"), at("t2", 2000, "我把钥匙放到了花盆里")]);
    expect(result.kept).toEqual(["t2"]);
    expect(result.suppressed).toEqual([
      { id: "t1", supersededBy: "t2", slot: { kind: "location", subject: "钥匙", value: "鞋柜" }, by: { kind: "location", subject: "钥匙", value: "花盆" }, byTimestampMs: 2000 },
    ]);
  });

  it("collapses a direct location change to the newest place (en)", () => {
    const result = collapseConflicts([at("t1", 1000, "My keys are in the shoe cabinet."), at("t2", 2000, "I moved the keys to the flower pot.")]);
    expect(result.kept).toEqual(["t2"]);
    expect(result.suppressed.map((s) => [s.id, s.supersededBy])).toEqual([["t1", "t2"]]);
  });

  it.each([
    ["zh", ["今天逛街买了一个星巴克的蓝色马克杯。", "不小心把蓝色马克杯摔碎了，好可惜。", "又买了一个新的蓝色马克杯作为替代。"]],
    ["en", ["I bought a blue mug at the mall.", "I broke the blue mug.", "I bought a replacement blue mug."]],
  ])("keeps every step of the bought → broke → replaced sequence (%s)", (_lang, texts) => {
    const result = collapseConflicts(texts.map((text, i) => at(`t${i + 1}`, (i + 1) * 1000, text)));
    expect(result).toEqual({ kept: ["t1", "t2", "t3"], suppressed: [] });
  });

  it("collapses the key change while keeping the mug sequence around it, in input order", () => {
    const result = collapseConflicts([
      at("mug3", 6000, "又买了一个新的蓝色马克杯作为替代。"),
      at("key2", 5000, "钥匙现在在花盆里"),
      at("mug1", 1000, "今天逛街买了一个星巴克的蓝色马克杯。"),
      at("key1", 2000, "钥匙放在鞋柜里"),
      at("mug2", 3000, "不小心把蓝色马克杯摔碎了，好可惜。"),
    ]);
    expect(result.kept).toEqual(["mug3", "key2", "mug1", "mug2"]);
    expect(result.suppressed.map((s) => s.id)).toEqual(["key1"]);
  });

  it("keeps only the last of a chain A → B → C and names the newest as superseder", () => {
    const result = collapseConflicts([at("a", 1, "钥匙在鞋柜里"), at("b", 2, "钥匙挪到了抽屉里"), at("c", 3, "钥匙在花盆里")]);
    expect(result.kept).toEqual(["c"]);
    expect(result.suppressed.map((s) => [s.id, s.supersededBy])).toEqual([["a", "c"], ["b", "c"]]);
  });

  it("never lets a dense-only candidate suppress a lexical one", () => {
    const result = collapseConflicts([at("lex", 1000, "钥匙放在鞋柜里", true), at("dense", 2000, "钥匙放在花盆里", false)]);
    expect(result).toEqual({ kept: ["lex", "dense"], suppressed: [] });
  });

  it("lets a lexical candidate suppress a dense-only one, and dense-only suppress dense-only", () => {
    const lexicalWins = collapseConflicts([at("dense", 1000, "钥匙放在鞋柜里", false), at("lex", 2000, "钥匙放在花盆里", true)]);
    expect(lexicalWins.kept).toEqual(["lex"]);
    const denseWins = collapseConflicts([at("d1", 1000, "钥匙放在鞋柜里", false), at("d2", 2000, "钥匙放在花盆里", false)]);
    expect(denseWins.kept).toEqual(["d2"]);
  });

  it("lets a newer lexical candidate suppress a lexical one even past a dense-only middle link", () => {
    const result = collapseConflicts([at("a", 1, "钥匙在鞋柜里", true), at("b", 2, "钥匙在抽屉里", false), at("c", 3, "钥匙在花盆里", true)]);
    expect(result.kept).toEqual(["c"]);
    expect(result.suppressed.map((s) => [s.id, s.supersededBy])).toEqual([["a", "c"], ["b", "c"]]);
  });

  it("keeps both candidates when their timestamps are equal", () => {
    const result = collapseConflicts([at("x", 5000, "钥匙在鞋柜里"), at("y", 5000, "钥匙在花盆里")]);
    expect(result).toEqual({ kept: ["x", "y"], suppressed: [] });
  });

  it("keeps both candidates when a later one restates the same value", () => {
    const result = collapseConflicts([at("x", 1000, "钥匙在鞋柜里"), at("y", 2000, "我把钥匙放回了鞋柜里")]);
    expect(result).toEqual({ kept: ["x", "y"], suppressed: [] });
  });

  it("keeps unrelated things that share a place word", () => {
    const zh = collapseConflicts([at("key", 1000, "钥匙在鞋柜里"), at("umbrella", 2000, "雨伞在鞋柜里")]);
    expect(zh.kept).toEqual(["key", "umbrella"]);
    const en = collapseConflicts([at("key", 1000, "The keys are in the drawer"), at("mug", 2000, "The mug is in the cupboard")]);
    expect(en.kept).toEqual(["key", "mug"]);
  });

  it("does not collapse on a negation, which asserts no new place", () => {
    const zh = collapseConflicts([at("x", 1000, "钥匙在鞋柜里"), at("y", 2000, "钥匙不在鞋柜里")]);
    expect(zh.kept).toEqual(["x", "y"]);
    const en = collapseConflicts([at("x", 1000, "The key is in the drawer"), at("y", 2000, "The key is not in the drawer")]);
    expect(en.kept).toEqual(["x", "y"]);
  });

  it("reads CRLF text like any other", () => {
    const result = collapseConflicts([at("x", 1000, "备忘：\r\n钥匙放在鞋柜里\r\n"), at("y", 2000, "更新\r\n钥匙放在花盆里\r\n")]);
    expect(result.kept).toEqual(["y"]);
  });

  it("collapses state changes and English time-of-event changes", () => {
    const phone = collapseConflicts([at("old", 1, "我的手机号是13800000000"), at("new", 2, "我的手机号改成了13900000000")]);
    expect(phone.kept).toEqual(["new"]);
    const meeting = collapseConflicts([at("mon", 1, "The meeting is on Monday"), at("fri", 2, "The meeting is now on Friday")]);
    expect(meeting.kept).toEqual(["fri"]);
  });

  it("keeps a candidate while any of its slots is still current", () => {
    const partly = collapseConflicts([at("both", 1, "钥匙在鞋柜里，雨伞在门后面"), at("key", 2, "钥匙在花盆里")]);
    expect(partly.kept).toEqual(["both", "key"]);
    const fully = collapseConflicts([at("both", 1, "钥匙在鞋柜里，雨伞在门后面"), at("key", 2, "钥匙在花盆里"), at("umbrella", 3, "雨伞挂在车里")]);
    expect(fully.kept).toEqual(["key", "umbrella"]);
    expect(fully.suppressed).toEqual([
      { id: "both", supersededBy: "key", slot: { kind: "location", subject: "钥匙", value: "鞋柜" }, by: { kind: "location", subject: "钥匙", value: "花盆" }, byTimestampMs: 2 },
    ]);
  });

  it("uses precomputed slots instead of reading the text", () => {
    const slots = [{ kind: "location" as const, subject: "widget", value: "shelf" }];
    const moved = [{ kind: "location" as const, subject: "widget", value: "bin" }];
    const result = collapseConflicts([
      { id: "x", timestampMs: 1, text: "no pattern here", lexical: true, slots },
      { id: "y", timestampMs: 2, text: "钥匙放在鞋柜里", lexical: true, slots: moved },
    ]);
    expect(result.kept).toEqual(["y"]);
  });

  it("never lets a question, an acknowledgement or another subject supersede a fact", () => {
    const zh = collapseConflicts([at("fact", 1, "钥匙放在鞋柜里了。"), at("q", 2, "钥匙在哪里？"), at("ack", 3, "好的，记下了。"), at("other", 4, "车钥匙在抽屉里")]);
    expect(zh).toEqual({ kept: ["fact", "q", "ack", "other"], suppressed: [] });
    const en = collapseConflicts([at("fact", 1, "My passport is in the desk drawer."), at("q", 2, "Where is my passport?"), at("q2", 3, "Is my passport still in the safe?")]);
    expect(en).toEqual({ kept: ["fact", "q", "q2"], suppressed: [] });
  });

  it("lets an assistant's restatement be superseded but never supersede", () => {
    const restated = { ...at("reply", 2, "好的，你的钥匙在鞋柜里。"), authoritative: false };
    const stale = collapseConflicts([at("user", 1, "钥匙放在花盆里"), restated]);
    expect(stale.kept).toEqual(["user", "reply"]);
    const corrected = collapseConflicts([restated, at("user", 3, "钥匙放在花盆里")]);
    expect(corrected.kept).toEqual(["user"]);
  });

  it("supersedes a candidate by a newer statement the caller knows outside the candidates", () => {
    const newer: StateSlot = { kind: "location", subject: "钥匙", value: "抽屉" };
    const known = { newestReplacing: (slot: StateSlot, afterMs: number) => (slot.subject === "钥匙" && afterMs < 9 ? { id: "idx", timestampMs: 9, slot: newer } : undefined) };
    const result = collapseConflicts([at("a", 1, "钥匙放在鞋柜里"), at("b", 2, "钥匙放在花盆里"), at("mug", 3, "我买了一个马克杯")], known);
    expect(result.kept).toEqual(["mug"]);
    expect(result.suppressed.map((s) => [s.id, s.supersededBy, s.by.value])).toEqual([["a", "idx", "抽屉"], ["b", "idx", "抽屉"]]);
  });

  it("retracts only the preference it names, and two retractions never conflict", () => {
    const retract = collapseConflicts([at("tea", 1, "我最喜欢的饮料是茶。"), at("coffee", 2, "我最喜欢的饮料是咖啡。"), at("no-coffee", 3, "我不再喜欢咖啡了，现在最喜欢的饮料是茶。")]);
    expect(retract.kept).toEqual(["no-coffee"]);
    expect(retract.suppressed.map((s) => [s.id, s.supersededBy])).toEqual([["tea", "coffee"], ["coffee", "no-coffee"]]);
    const both = collapseConflicts([
      at("no-nuts", 1, "I don't like nuts any more; my favourite snack is seaweed now."),
      at("no-crisps", 2, "I don't like crisps any more; my favourite snack is seaweed now."),
    ]);
    expect(both).toEqual({ kept: ["no-nuts", "no-crisps"], suppressed: [] });
  });

  it("breaks a tie between equally new superseders by input order", () => {
    const input = [at("old", 1, "钥匙在鞋柜里"), at("p", 2, "钥匙在花盆里"), at("q", 2, "钥匙在抽屉里")];
    const result = collapseConflicts(input);
    expect(result.suppressed.map((s) => [s.id, s.supersededBy])).toEqual([["old", "p"]]);
    expect(result.kept).toEqual(["p", "q"]);
    expect(collapseConflicts(input)).toEqual(result);
  });

  const pool = [
    "钥匙放在鞋柜里", "钥匙放在花盆里", "我把钥匙放到了抽屉里", "钥匙不在鞋柜里", "雨伞在鞋柜里",
    "今天逛街买了一个星巴克的蓝色马克杯。", "不小心把蓝色马克杯摔碎了，好可惜。", "我的手机号是138", "我的手机号改成了139",
    "My keys are in the shoe cabinet.", "I moved the keys to the flower pot.", "I broke the blue mug.", "The meeting is on Monday",
  ];
  const candidates = fc
    .array(fc.record({ text: fc.constantFrom(...pool), timestampMs: fc.integer({ min: 0, max: 5 }), lexical: fc.boolean() }), { maxLength: 12 })
    .map((rows) => rows.map((row, i): ConflictCandidate => ({ id: `m${i}`, ...row })));

  it("accounts for every input id exactly once and never drops a candidate without slots", () => {
    fc.assert(
      fc.property(candidates, (input) => {
        const { kept, suppressed } = collapseConflicts(input);
        const ids = input.map((c) => c.id);
        expect([...kept, ...suppressed.map((s) => s.id)].sort()).toEqual([...ids].sort());
        expect(kept).toEqual(ids.filter((id) => kept.includes(id)));
        for (const c of input) if (extractSlots(c.text).length === 0) expect(kept).toContain(c.id);
      }),
    );
  });

  it("only suppresses in favour of a strictly newer candidate that is allowed to suppress it", () => {
    fc.assert(
      fc.property(candidates, (input) => {
        const byId = new Map(input.map((c) => [c.id, c]));
        for (const s of collapseConflicts(input).suppressed) {
          const [older, newer] = [byId.get(s.id)!, byId.get(s.supersededBy)!];
          expect(newer.timestampMs).toBeGreaterThan(older.timestampMs);
          expect(older.lexical && !newer.lexical).toBe(false);
        }
      }),
    );
  });
});

import fc from "fast-check";
import { headsOf, SlotIndex, slotKey, type SlotEntry } from "../../bridge/store/slot-index";
import { SELF, type StateSlot } from "../../bridge/statements/slots";
import { recallSlots } from "../../bridge/store/slot-recall";

const at = (subject: string, value: string, kind: StateSlot["kind"] = "location"): StateSlot => ({ kind, subject, value });
const chainOf = (index: SlotIndex, slot: StateSlot) => index.chain(slotKey(slot)).map((e) => [e.doc, e.slot.value]);

describe("SlotIndex", () => {
  it("keeps each slot's statements in time order, whatever order they arrive in", () => {
    const index = new SlotIndex();
    index.add(3, 300, [at("钥匙", "花盆")]);
    index.add(1, 100, [at("钥匙", "鞋柜")]);
    index.add(2, 200, [at("钥匙", "抽屉"), at("雨伞", "门后")]);
    index.add(4, 200, [at("钥匙", "书包")]);
    expect(chainOf(index, at("钥匙", ""))).toEqual([[1, "鞋柜"], [2, "抽屉"], [4, "书包"], [3, "花盆"]]);
    expect(index.size).toBe(5);
    expect(index.slotCount).toBe(2);
  });

  it("files where someone lives under where something is, one predicate", () => {
    expect(slotKey({ kind: "residence", subject: "弟" })).toBe(slotKey({ kind: "location", subject: "弟" }));
    expect(slotKey({ kind: "schedule", subject: "弟" })).not.toBe(slotKey({ kind: "location", subject: "弟" }));
  });

  it("finds a slot by any head of its subject and forgets heads with the last statement", () => {
    const index = new SlotIndex();
    index.add(1, 1, [at("蓝色马克杯", "柜子"), at("car key", "bag")]);
    expect([...index.keysWithSubjectHead("马克杯")]).toEqual([slotKey(at("蓝色马克杯", ""))]);
    expect([...index.keysWithSubjectHead("key")]).toEqual([slotKey(at("car key", ""))]);
    expect(index.keysWithSubjectHead("杯").size).toBe(0);
    index.remove(1);
    expect(index.keysWithSubjectHead("马克杯").size).toBe(0);
    expect(index.size).toBe(0);
    expect(index.has(1)).toBe(false);
  });

  it("names the heads isHead accepts: two Han characters or whole English words", () => {
    expect(headsOf("蓝色马克杯")).toEqual(["蓝色马克杯", "色马克杯", "马克杯", "克杯"]);
    expect(headsOf("spare car key")).toEqual(["spare car key", "car key", "key"]);
  });

  it("equals an index rebuilt from the statements that remain, after any adds and removes", () => {
    const op = fc.oneof(
      fc.record({ add: fc.integer({ min: 0, max: 20 }), ts: fc.integer({ min: 0, max: 5 }), subject: fc.constantFrom("钥匙", "车钥匙", "key"), value: fc.constantFrom("a", "b", "c") }),
      fc.record({ remove: fc.integer({ min: 0, max: 20 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const live = new SlotIndex();
        const kept = new Map<number, SlotEntry>();
        for (const o of ops) {
          if ("add" in o) {
            if (live.has(o.add)) continue;
            live.add(o.add, o.ts, [at(o.subject, o.value)]);
            kept.set(o.add, { doc: o.add, timestampMs: o.ts, slot: at(o.subject, o.value) });
          } else {
            live.remove(o.remove);
            kept.delete(o.remove);
          }
        }
        const rebuilt = new SlotIndex();
        for (const e of [...kept.values()].sort((a, b) => a.doc - b.doc)) rebuilt.add(e.doc, e.timestampMs, [e.slot]);
        for (const subject of ["钥匙", "车钥匙", "key"]) {
          expect(chainOf(live, at(subject, ""))).toEqual(chainOf(rebuilt, at(subject, "")));
          expect([...live.keysWithSubjectHead(subject)].sort()).toEqual([...rebuilt.keysWithSubjectHead(subject)].sort());
        }
        expect(live.size).toBe(rebuilt.size);
      }),
    );
  });
});

describe("recallSlots", () => {
  const pref = (attribute: string, value: string): StateSlot => ({ kind: "preference", subject: SELF, attribute, value });

  it("lets a liking of unknown category be replaced only by a value of its own named category, never by another liking", () => {
    const index = new SlotIndex();
    index.add(1, 100, [pref("instrument", "piano")]);
    index.add(2, 200, [pref("~", "olives")]);
    index.add(3, 300, [pref("~", "piano")]);
    index.add(4, 400, [pref("instrument", "violin")]);
    const recall = recallSlots(index, "What's my favourite instrument?", () => true);
    expect(recall.asked.map((a) => a.attribute)).toEqual(["instrument"]);
    // "piano" (weak) belongs to the instrument chain because that chain held piano: violin replaces it.
    expect(recall.newestReplacing(pref("~", "piano"), 300)?.doc).toBe(4);
    // "olives" was never an instrument: nothing in the instrument chain replaces it.
    expect(recall.newestReplacing(pref("~", "olives"), 200)).toBeUndefined();
  });
});

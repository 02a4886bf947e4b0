import fc from "fast-check";
import { extractSlots, sameSlot, sameThing, type StateSlot } from "../../bridge/store/slots";

const location = (subject: string, value: string): StateSlot => ({ kind: "location", subject, value });
const state = (subject: string, attribute: string, value: string): StateSlot => ({ kind: "state", subject, attribute, value });

describe("extractSlots", () => {
  it.each([
    ["钥匙放在鞋柜里", location("钥匙", "鞋柜")],
    ["我把钥匙放到了花盆里", location("钥匙", "花盆")],
    ["钥匙现在在花盆里", location("钥匙", "花盆")],
    ["现在钥匙在花盆里了", location("钥匙", "花盆")],
    ["今天把车停在了B2车库", location("车", "b2车库")],
    ["我将护照锁进了保险箱里面", location("护照", "保险箱")],
    ["这把钥匙在抽屉里", location("钥匙", "抽屉")],
    ["我买了一个杯子放在桌子上", location("杯子", "桌子")],
  ])("reads the Chinese location in %s", (text, slot) => {
    expect(extractSlots(text)).toEqual([slot]);
  });

  it.each([
    ["My keys are in the shoe cabinet.", location("key", "shoe cabinet")],
    ["I moved the keys to the flower pot.", location("key", "flower pot")],
    ["I put my keys in the drawer", location("key", "drawer")],
    ["The keys were moved back to the drawer", location("key", "drawer")],
    ["Put the passport inside the safe", location("passport", "safe")],
    ["My office moved to the 5th floor", location("office", "5th floor")],
    ["The meeting is now on Friday", location("meeting", "friday")],
  ])("reads the English location in %s", (text, slot) => {
    expect(extractSlots(text)).toEqual([slot]);
  });

  it.each([
    ["我的手机号是13800000000", state("手机号", "手机号", "13800000000")],
    ["我的手机号改成了13900000000", state("手机号", "手机号", "13900000000")],
    ["小明的手机号现在是123", state("小明", "手机号", "123")],
    ["现在例会是周五", state("例会", "例会", "周五")],
    ["把默认语言换成了英文", state("默认语言", "默认语言", "英文")],
    ["My phone number is 555-0100", state("phone number", "phone number", "555-0100")],
    ["I changed my phone number to 555-0199", state("phone number", "phone number", "555-0199")],
    ["Tom's address changed to 12 Elm Street", state("tom", "address", "12 elm street")],
    ["The printer is now broken", state("printer", "printer", "broken")],
  ])("reads the state change in %s", (text, slot) => {
    expect(extractSlots(text)).toEqual([slot]);
  });

  it.each([
    "今天逛街买了一个星巴克的蓝色马克杯。",
    "不小心把蓝色马克杯摔碎了，好可惜。",
    "又买了一个新的蓝色马克杯作为替代。",
    "I bought a blue mug at the mall.",
    "I broke the blue mug.",
    "I bought a replacement blue mug.",
    "我在公园跑步",
    "小狗在公园跑步",
    "小狗在公园里追球",
    "他是老师",
    "I am in a good mood today",
    "I put it in the drawer",
  ])("finds no slot in the action or pronoun clause %s", (text) => {
    expect(extractSlots(text)).toEqual([]);
  });

  it.each([
    "钥匙不在鞋柜里",
    "钥匙已经不在鞋柜里了",
    "钥匙不是在鞋柜里",
    "我没把钥匙放在鞋柜里",
    "钥匙没放在花盆里",
    "我的手机号没有改成13900000000",
    "The key is not in the drawer.",
    "The keys aren't in the drawer anymore",
    "I never put the keys in the drawer",
    "My keys are no longer in the car",
  ])("asserts nothing for the negated clause %s", (text) => {
    expect(extractSlots(text)).toEqual([]);
  });

  it("keeps a negation word that does not negate the placement", () => {
    expect(extractSlots("不小心把钥匙落在车里了")).toEqual([location("钥匙", "车里")]);
  });

  it("gives each clause its own slots, in order, across punctuation, 然后 and 'and then'", () => {
    expect(extractSlots("我把钥匙放在鞋柜里，然后把雨伞挂在门后面。出门了")).toEqual([
      location("钥匙", "鞋柜"),
      location("雨伞", "门后面"),
    ]);
    expect(extractSlots("I put the keys in the drawer and then moved the umbrella to the car; I left.")).toEqual([
      location("key", "drawer"),
      location("umbrella", "car"),
    ]);
  });

  it("splits CRLF lines and folds full-width text with NFKC", () => {
    expect(extractSlots("钥匙放在鞋柜里\r\nＫｅｙｓ ａｒｅ ｉｎ ｔｈｅ ｂｏｘ\r\n")).toEqual([location("钥匙", "鞋柜"), location("key", "box")]);
  });

  it("keeps a one-character place whole rather than cutting it to its localiser", () => {
    expect(extractSlots("钥匙在楼上")).toEqual([location("钥匙", "楼上")]);
    expect(extractSlots("钥匙在楼下")).toEqual([location("钥匙", "楼下")]);
  });

  it("is total on arbitrary text and only returns non-empty, lowercased, NFKC fields", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), (text) => {
        for (const slot of extractSlots(text)) {
          for (const field of [slot.subject, slot.value, slot.attribute ?? "x"]) {
            expect(field.length).toBeGreaterThan(0);
            expect(field).toBe(field.normalize("NFKC").toLowerCase());
          }
        }
      }),
    );
  });
});

describe("sameSlot", () => {
  const only = (text: string): StateSlot => {
    const slots = extractSlots(text);
    expect(slots).toHaveLength(1);
    return slots[0];
  };

  it("matches a head noun against a longer name for the same thing", () => {
    expect(sameSlot(only("蓝色马克杯放在柜子里"), only("马克杯在桌子上"))).toBe(true);
    expect(sameSlot(only("My car keys are in the bag"), only("I put the key in the drawer"))).toBe(true);
  });

  it("keeps different things apart even when they share a place", () => {
    expect(sameSlot(only("钥匙在鞋柜里"), only("雨伞在鞋柜里"))).toBe(false);
    expect(sameSlot(only("The car keys are in the bag"), only("The house keys are in the bag"))).toBe(false);
  });

  it("does not treat one Han character or a partial English word as a shared head", () => {
    expect(sameThing("车", "电车")).toBe(false);
    expect(sameThing("key", "monkey")).toBe(false);
    expect(sameThing("", "")).toBe(false);
  });

  it("requires the same attribute for state slots and the same kind of predicate", () => {
    expect(sameSlot(only("我的手机号是138"), only("我的手机号改成了139"))).toBe(true);
    expect(sameSlot(only("小明的手机号是138"), only("我的手机号改成了139"))).toBe(false);
    expect(sameSlot(only("小明的手机号是138"), only("小明的地址是北京"))).toBe(false);
    expect(sameSlot(only("The printer is now broken"), only("The printer is in the office"))).toBe(false);
  });
});

// How a statement the slot grammar could not read still names a slot (bridge/statements/mentions.ts).
import { holdsKnownValue, holdsNumber, mayBeSelf, mentionText, namesAttribute, namesOthers, namesSubject, searchPhrases, showsKind } from "../../bridge/statements/mentions";
import { SELF } from "../../bridge/statements/slots";

const known = (...names: string[]) => (phrase: string) => names.includes(phrase);

describe("mentionText", () => {
  it("writes text as subjects are written: kin folded, possessive 's dropped, NFKC lowercase", () => {
    expect(mentionText("我妈妈的航班改到周五了")).toBe("我妈的航班改到周五了");
    expect(mentionText("老爸的邮箱")).toBe("爸的邮箱");
    expect(mentionText("My Mum’s flight is on Friday")).toBe("my mom flight is on friday");
    expect(mentionText("ＡＢＣ")).toBe("abc");
  });
});

describe("namesSubject", () => {
  it.each([
    ["钥匙在花盆里", "钥匙", [], true],
    ["车钥匙在花盆里", "钥匙", ["车钥匙"], false],
    ["车钥匙在抽屉，钥匙在花盆里", "钥匙", ["车钥匙"], true],
    ["车钥匙在花盆里", "钥匙", [], true],
    ["我妈的航班改到周五了", "妈的航班", [], true],
    ["阳台的绿植现在一共11盆", "阳台绿植", [], true],
    ["车的钥匙在花盆里", "钥匙", ["车钥匙"], false],
    ["航班改到周五了", "妈的航班", [], false],
    ["my car key is in the bowl", "key", ["car key"], false],
    ["my key is in the bowl", "key", ["car key"], true],
    ["my keys are in the bowl", "key", [], true],
    ["the monkeys are loud", "key", [], false],
    ["my mom flight moved", "mom flight", [], true],
    ["anything at all", SELF, [], true],
  ])("%s names %s: %s", (text, subject, others, expected) => {
    expect(namesSubject(text, subject as string, known(...(others as string[])))).toBe(expected);
  });
});

describe("namesAttribute", () => {
  it("accepts any word of a contact field or category, in either language, and a plain attribute itself", () => {
    expect(namesAttribute("换了新号码 13900001111", "phone")).toBe(true);
    expect(namesAttribute("my new number is 555 0101", "phone")).toBe(true);
    expect(namesAttribute("my phones are old", "phone")).toBe(true);
    expect(namesAttribute("my microphone broke", "phone")).toBe(false);
    expect(namesAttribute("体重又回到66公斤", "体重")).toBe(true);
    expect(namesAttribute("现在每天喝水的目标：2.5升", "喝水目标")).toBe(true);
    expect(namesAttribute("身高一米八", "体重")).toBe(false);
  });
});

describe("who a statement is about", () => {
  it("takes first-person statements and statements naming nobody as the speaker's, others' as not", () => {
    expect(mayBeSelf("我现在头发是粉色的")).toBe(true);
    expect(mayBeSelf("头发是粉色的")).toBe(true);
    expect(mayBeSelf("我妹最喜欢的颜色是蓝色")).toBe(false);
    expect(mayBeSelf("朋友说她也很喜欢蓝色，我也是")).toBe(false);
    expect(mayBeSelf("my weight is 70 kg")).toBe(true);
    expect(mayBeSelf("my sister weighs 50 kg")).toBe(false);
    expect(namesOthers("同事说他的钥匙坏了")).toBe(true);
    expect(namesOthers("A coworker said her keys broke")).toBe(true);
    expect(namesOthers("钥匙放回抽屉了")).toBe(false);
  });
});

describe("evidence of a slot's kind", () => {
  it("needs a time for a schedule, a word of the kind otherwise, and nothing for an attribute of state", () => {
    expect(showsKind("about the dentist, it's friday at 3pm after all", "schedule")).toBe(true);
    expect(showsKind("about the dentist, it went fine", "schedule")).toBe(false);
    expect(showsKind("牙医那边改成下周一了", "schedule")).toBe(true);
    expect(showsKind("牙医那边说挺顺利", "schedule")).toBe(false);
    expect(showsKind("钥匙最后回到了花盆", "location")).toBe(true);
    expect(showsKind("my passport went back into the safe", "location")).toBe(true);
    expect(showsKind("anything", "state")).toBe(true);
    expect(showsKind("房东的新号码：13633334444", "contact")).toBe(true);
    expect(showsKind("房东人不错", "contact")).toBe(false);
  });

  it("finds numbers in digits and words, and known values as Han substrings or English word runs", () => {
    expect(holdsNumber("现在有三只猫")).toBe(true);
    expect(holdsNumber("一起去吃饭")).toBe(false);
    expect(holdsNumber("i have two cats now")).toBe(true);
    expect(holdsNumber("i have cats")).toBe(false);
    expect(holdsKnownValue("钥匙最后回到了花盆", known("花盆"))).toBe(true);
    expect(holdsKnownValue("钥匙最后回到了花园", known("花盆"))).toBe(false);
    expect(holdsKnownValue("it's back in the top drawer now", known("top drawer"))).toBe(true);
    expect(holdsKnownValue("it's back in the drawer now", known("top drawer"))).toBe(false);
  });
});

describe("searchPhrases", () => {
  it("looks a subject up by its thing, a relative by the ways people say them, the speaker's slot by the attribute's words", () => {
    expect(searchPhrases("钥匙", undefined)).toEqual(["钥匙"]);
    expect(searchPhrases("妈的航班", undefined)).toEqual(["航班"]);
    expect(searchPhrases("爸", "email")).toEqual(["我爸", "爸爸", "老爸", "爸的"]);
    expect(searchPhrases(SELF, "snack")).toEqual(["零食", "小吃", "snack"]);
    expect(searchPhrases(SELF, undefined)).toEqual([]);
  });
});

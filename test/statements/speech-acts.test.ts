import fc from "fast-check";
import { extractSlots } from "../../bridge/statements/slot-reader";
import { readClauses, speechActOf, type Speaker } from "../../bridge/statements/speech-acts";
import { analyseRecord } from "../../bridge/store/record-statements";

const actOf = (text: string, speaker: Speaker = "user") => speechActOf(readClauses(text, speaker));

describe("speech acts", () => {
  it.each([
    ["钥匙放在鞋柜里了。", "statement"],
    ["钥匙在哪里？", "question"],
    ["钥匙在哪里", "question"],
    ["钥匙呢？", "question"],
    ["你还记得我把护照放哪儿了吗", "question"],
    ["我家有几辆车", "question"],
    ["Where is my passport?", "question"],
    ["Do you know where my passport is", "question"],
    ["What's my phone number again?", "question"],
    ["my keys are in the drawer, right?", "question"],
    ["钥匙在鞋柜里，对吧？", "question"],
    ["请帮我查一下明天的天气", "request"],
    ["推荐一家附近的火锅店", "request"],
    ["Remind me to call mom at 5.", "request"],
    ["Set an alarm for 3pm", "request"],
    ["好的，谢谢！", "acknowledgement"],
    ["嗯嗯", "acknowledgement"],
    ["OK, thanks.", "acknowledgement"],
    ["Noted.", "acknowledgement"],
  ] as const)("reads %s as a %s", (text, act) => {
    expect(actOf(text)).toBe(act);
  });

  it("reads an assistant's reply that only acknowledges or knows nothing as an acknowledgement", () => {
    for (const reply of ["好的，记下了。", "抱歉，我不知道。", "这个我不清楚。", "我暂时查不到这个信息。", "Noted.", "Sorry, I don't know where your passport is.", "I don't have any record of that."]) {
      expect(actOf(reply, "assistant")).toBe("acknowledgement");
    }
  });

  it("keeps a user's own 'I don't know' as a statement, since it may be the point", () => {
    expect(actOf("我不知道他今天会来", "user")).toBe("statement");
    expect(actOf("我不知道他今天会来", "assistant")).toBe("acknowledgement");
  });

  it("reads an assistant reply that restates a fact as a statement, with the fact's slot", () => {
    expect(actOf("好的，记住了：蓝色马克杯在书房的窗台上。", "assistant")).toBe("statement");
    expect(extractSlots("好的，记住了：蓝色马克杯在书房的窗台上。", "assistant")).toEqual([{ kind: "location", subject: "蓝色马克杯", value: "书房的窗台" }]);
    expect(actOf("在书桌抽屉里。", "assistant")).toBe("statement");
    expect(actOf("It's on level 3.", "assistant")).toBe("statement");
  });

  it("reads a request to remember as the statement it carries", () => {
    expect(actOf("请记住我的新手机号是13912345678")).toBe("statement");
    expect(extractSlots("帮我记一下，护照在书桌抽屉里")).toEqual([{ kind: "location", subject: "护照", value: "书桌抽屉" }]);
    expect(extractSlots("Remember that my keys are in the drawer")).toEqual([{ kind: "location", subject: "key", value: "drawer" }]);
    expect(actOf("帮我记一下")).toBe("request");
  });

  it("takes the statement out of a message that also asks something", () => {
    expect(actOf("我把钥匙放在鞋柜里了，你记住了吗？")).toBe("statement");
    expect(extractSlots("我把钥匙放在鞋柜里了，你记住了吗？")).toEqual([{ kind: "location", subject: "钥匙", value: "鞋柜" }]);
  });

  it.each([
    "I forgot where I put my passport.",
    "I can't remember when the dentist appointment is.",
    "Not sure where my passport is.",
    "My passport, where is it?",
    "护照，放哪了？",
    "钥匙还在鞋柜里不",
    "我记得护照在抽屉里，现在还在吗？",
    "I think my passport is in the drawer, is it still there?",
  ])("reads a question said as a statement, a topic or a guess as a question: %s", (text) => {
    expect(actOf(text)).toBe("question");
    expect(extractSlots(text)).toEqual([]);
  });

  it.each([
    "I forgot again, where did I put my keys?",
    "Sorry to bother you, what's my mum's number?",
    "I can't remember, what's dad's email?",
    "My memory is terrible, where are the keys?",
    "I need to call mum, what's her number?",
    "I lost track, which day is the meeting?",
    "I keep forgetting, what's Tom's email?",
    "我又忘了，钥匙放哪了？",
    "我记性太差了，护照在哪？",
    "突然想不起来了，会议是几号？",
    "我有点糊涂了，我现在住哪？",
    "Any clue what my dad's phone number is",
    "You know what my mum's email is",
  ])("reads why the speaker asks as part of the question: %s", (text) => {
    expect(actOf(text)).toBe("question");
    expect(extractSlots(text)).toEqual([]);
  });

  it.each(["Busy day. By the way, when is the swimming lesson?", "Heading out and just remembered, what is my boss's phone number?", "今天好忙。话说钥匙放哪了？"])(
    "reads small talk around a question as asking: %s",
    (text) => {
      expect(analyseRecord(text, "user_message")).toEqual({ act: "question", slots: [] });
    },
  );

  it("keeps a real statement before a question a statement", () => {
    expect(actOf("I moved it, where is the charger?")).toBe("statement");
    expect(actOf("今天很冷，不过没事")).toBe("statement");
    // A reason-like opening that states something is not a preamble.
    expect(actOf("I have moved the keys to the drawer, did you get that?")).toBe("statement");
    expect(extractSlots("I have moved the keys to the drawer, did you get that?")).toEqual([{ kind: "location", subject: "key", value: "drawer" }]);
    expect(actOf("I forgot my keys at the office.")).toBe("statement");
    expect(actOf("钥匙放抽屉了，记住了吗？")).toBe("statement");
    expect(actOf("You know I moved to Paris.")).toBe("statement");
    expect(actOf("Can't beat tulips as a flower right now.")).toBe("statement");
    expect(actOf("Can't you remember?")).toBe("question");
    expect(analyseRecord("I moved the keys. Where's my wallet?", "user_message").act).toBe("statement");
  });

  const statements = ["钥匙放在鞋柜里", "我把护照放在书桌抽屉里", "My keys are in the drawer", "I moved my passport to the safe", "我的手机号是13800000000"];

  it("never reads a slot out of a statement turned into a question", () => {
    fc.assert(
      fc.property(fc.constantFrom(...statements), fc.constantFrom("？", "?", "吗？", "吗"), (statement, mark) => {
        const asked = /\p{Script=Han}/u.test(statement) ? statement + mark : `Is it true that ${statement.toLowerCase()}${mark.includes("?") || mark.includes("？") ? "?" : ""}`;
        expect(extractSlots(asked)).toEqual([]);
        expect(actOf(asked)).toBe("question");
      }),
    );
  });

  it("classifies any text without throwing, and an empty or punctuation-only text as an acknowledgement", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), fc.constantFrom<Speaker>("user", "assistant"), (text, speaker) => {
        const clauses = readClauses(text, speaker);
        expect(["statement", "question", "request", "acknowledgement"]).toContain(speechActOf(clauses));
      }),
    );
    expect(actOf("")).toBe("acknowledgement");
    expect(actOf("。！？…")).toBe("acknowledgement");
  });
});

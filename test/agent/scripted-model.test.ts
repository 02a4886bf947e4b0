// The offline scripted model: deterministic replies in the message's language; statements acknowledged,
// questions answered from the retrieved memories, small talk answered briefly.
import { scriptedReply, type ScriptedInput } from "../../bridge/agent/scripted-model";

const memory = (id: string, text: string, source_type = "user_message", timestamp_ms = 1) => ({ id, text, source_type, timestamp_ms });
const reply = (message: string, act: ScriptedInput["act"], memories: ScriptedInput["memories"] = [], intent: ScriptedInput["intent"] = "latest") =>
  scriptedReply({ message, memories, intent, act });

describe("scriptedReply", () => {
  it("acknowledges a statement in the user's language, saying it back in the second person", () => {
    expect(reply("My passport is in the desk drawer.", "statement")).toBe("Got it, I'll remember: your passport is in the desk drawer.");
    expect(reply("我把护照放在书桌抽屉里了。", "statement")).toBe("好的，我记住了：你把护照放在书桌抽屉里了。");
    expect(reply("I'm allergic to peanuts. My sister Anna is too.", "statement")).toBe("Got it, I'll remember: you're allergic to peanuts. Your sister Anna is too.");
  });

  it("acknowledges a statement with the memories it was given without quoting them", () => {
    expect(reply("I moved my passport to the safe.", "statement", [memory("a", "My passport is in the desk drawer.")])).toBe("Got it, I'll remember: you moved your passport to the safe.");
  });

  it("restates what a request to remember holds, not the request", () => {
    expect(reply("Remember that I parked on level 3.", "statement")).toBe("Got it, I'll remember: you parked on level 3.");
    expect(reply("记住：钥匙在鞋柜里", "statement")).toBe("好的，我记住了：钥匙在鞋柜里");
  });

  it("answers thanks, other acknowledgements and greetings briefly, never as a failed recall", () => {
    expect(reply("thanks!", "acknowledgement")).toBe("You're welcome.");
    expect(reply("谢谢", "acknowledgement")).toBe("不客气。");
    expect(reply("ok", "acknowledgement")).toBe("OK.");
    expect(reply("好的", "acknowledgement")).toBe("好的。");
    expect(reply("你好", "statement")).toBe("你好！告诉我需要记住的事，或者问我记得什么。");
    expect(reply("Hello there!", "statement")).toBe("Hello! Tell me something to remember, or ask me what I remember.");
  });

  it("answers a question with the most relevant statement the user made", () => {
    const memories = [memory("a", "My passport is in the safe."), memory("b", "My passport was in the drawer.")];
    expect(reply("Where is my passport?", "question", memories)).toBe("I remember: your passport is in the safe.");
  });

  it("answers in Chinese when the question is Chinese, and says so when nothing was recalled", () => {
    expect(reply("钥匙在哪里？", "question", [memory("a", "钥匙放在花盆里了。")])).toBe("我记得：钥匙放在花盆里了。");
    expect(reply("钥匙在哪里？", "question")).toBe("我还没有关于这件事的记忆。");
    expect(reply("Where is my passport?", "question")).toBe("I don't have a memory about that yet.");
  });

  it("never quotes its own earlier replies, earlier questions (with or without a question mark) or requests", () => {
    const memories = [memory("r", "I remember: the mug is blue.", "assistant_message"), memory("q", "Where is my mug?"), memory("u", "where is my mug"), memory("p", "please find my mug")];
    expect(reply("Where is my mug?", "question", memories)).toBe("I don't have a memory about that yet.");
  });

  it("lists timeline memories in the order they arrive (oldest first)", () => {
    const memories = [memory("1", "I bought a blue mug."), memory("2", "I broke the blue mug."), memory("3", "I bought a new blue mug.")];
    expect(reply("blue mug history", "question", memories, "timeline")).toBe("I remember, oldest first: 1) you bought a blue mug.; 2) you broke the blue mug.; 3) you bought a new blue mug.");
  });
});

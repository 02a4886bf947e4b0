// The offline scripted model: deterministic replies from retrieved memories, in the message's language.
import { scriptedReply } from "../../bridge/agent/scripted-model";

const memory = (id: string, text: string, source_type = "user_message", timestamp_ms = 1) => ({ id, text, source_type, timestamp_ms });

describe("scriptedReply", () => {
  it("quotes the most relevant statement the user made", () => {
    const memories = [memory("a", "My passport is in the safe."), memory("b", "My passport was in the drawer.")];
    expect(scriptedReply("Where is my passport?", memories, "latest")).toBe("I remember: My passport is in the safe.");
  });

  it("answers in Chinese when the message is Chinese", () => {
    expect(scriptedReply("钥匙在哪里？", [memory("a", "钥匙放在花盆里了。")], "latest")).toBe("我记得：钥匙放在花盆里了。");
    expect(scriptedReply("钥匙在哪里？", [], "latest")).toBe("我还没有关于这件事的记忆。");
  });

  it("never quotes its own earlier replies or earlier questions", () => {
    const memories = [memory("r", "I remember: the mug is blue.", "assistant_message"), memory("q", "Where is my mug?")];
    expect(scriptedReply("Where is my mug?", memories, "latest")).toBe("I don't have a memory about that yet.");
  });

  it("lists timeline memories in the order they arrive (oldest first)", () => {
    const memories = [memory("1", "I bought a blue mug."), memory("2", "I broke the blue mug."), memory("3", "I bought a new blue mug.")];
    expect(scriptedReply("blue mug history", memories, "timeline")).toBe("I remember, oldest first: 1) I bought a blue mug.; 2) I broke the blue mug.; 3) I bought a new blue mug.");
  });
});

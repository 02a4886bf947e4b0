// The memory tools as the model uses them, in the real DSH agent loop: the scripted model calls a
// tool, the tool talks to the real bridge, and its result reaches the model's next request.
import { BridgeClient } from "../../bridge/client/bridge-client";
import type { DshHost, ModelRequest } from "./dsh-host-driver";
import { bridgeClient, bridgeRecords, closePluginHome, newPluginHome, waitFor, type PluginHome } from "./plugin-helpers";

/** The text of the tool result the model was sent in `request` (the last tool-result message). */
function toolResult(request: ModelRequest): string {
  const message = [...request.messages].reverse().find((m) => m.text.startsWith("[tool-result"));
  if (!message) throw new Error(`no tool result in ${JSON.stringify(request.messages)}`);
  return message.text;
}

describe("the memory tools in the real DSH agent loop", () => {
  let home: PluginHome;
  let host: DshHost;
  let client: BridgeClient;

  beforeEach(async () => {
    home = newPluginHome();
    host = home.host;
    await host.boot({ enabled: true, holographic: true, embedding: { provider: "off" }, recall: { timeBudgetMs: 5000 } });
    await host.createAgent("s-1");
    // Three memories of the mug over time, the newest a state change of the oldest.
    await host.turn("s-1", "今天买了一个蓝色马克杯，放在书房的窗台上。", [{ text: "好的。" }]);
    await host.turn("s-1", "蓝色马克杯摔碎了。", [{ text: "真可惜。" }]);
    await host.turn("s-1", "又买了一个蓝色马克杯，放在厨房的架子上。", [{ text: "记住了。" }]);
    client = await bridgeClient(home.dataDir);
    await waitFor(() => bridgeRecords(client), (r) => r.length === 6);
    await host.createAgent("s-2");
  });

  afterEach(() => closePluginHome(home));

  it("holo_timeline gives the mug's history oldest first, and holo_search gives its memories with a receipt id", async () => {
    const timeline = await host.turn("s-2", "蓝色马克杯的完整历史是什么？", [{ tool: "holo_timeline", args: { query: "蓝色马克杯", top_k: 3 } }, { text: "先买了，摔碎了，又买了一个。" }]);
    const history = toolResult(timeline.requests[1]!);
    const order = ["今天买了一个蓝色马克杯", "蓝色马克杯摔碎了", "又买了一个蓝色马克杯"].map((text) => history.indexOf(text));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(history).toContain("Timeline, oldest first");

    const search = await host.turn("s-2", "马克杯现在在哪里？", [{ tool: "holo_search", args: { query: "蓝色马克杯 放在" } }, { text: "在厨房的架子上。" }]);
    const found = toolResult(search.requests[1]!);
    expect(found).toContain("又买了一个蓝色马克杯，放在厨房的架子上。");
    expect(found).toMatch(/receipt rcpt_[0-9a-f-]{36}/);
  });

  it("holo_forget removes one memory and answers with exactly what was removed", async () => {
    const forget = await host.turn("s-2", "忘掉我说过马克杯摔碎的事。", [{ tool: "holo_forget", args: { id: "turn:s-1:2:user" } }, { text: "已经忘掉了。" }]);
    expect(toolResult(forget.requests[1]!)).toContain("Forgot turn:s-1:2:user (user_message");
    expect(toolResult(forget.requests[1]!)).toContain("蓝色马克杯摔碎了。");
    const ids = (await bridgeRecords(client)).map((r) => r.id);
    expect(ids).not.toContain("turn:s-1:2:user");
    expect(ids).toContain("turn:s-1:2:assistant");

    const missing = await host.turn("s-2", "再忘掉一次。", [{ tool: "holo_forget", args: { id: "turn:s-1:2:user" } }, { text: "没有这条记忆。" }]);
    expect(toolResult(missing.requests[1]!)).toBe('[tool-result error] Error: no memory with id "turn:s-1:2:user"');
  });

  it("holo_receipt explains the last recall of the conversation: what was retrieved, how it ranked, and what was injected", async () => {
    const asked = await host.turn("s-2", "蓝色马克杯在哪里？", [{ tool: "holo_receipt", args: {} }, { text: "这是回执。" }]);
    const recalled = asked.requests[0]!.messages.find((m) => m.source === "dsh-dream");
    expect(recalled?.text).toContain("蓝色马克杯");
    const shown = toolResult(asked.requests[1]!);
    expect(shown).toMatch(/^\[tool-result\] Receipt rcpt_[0-9a-f-]{36} \(/);
    expect(shown).toContain('query: "蓝色马克杯在哪里？" · mode latest · top_k 5');
    expect(shown).toContain("Recall: FTS fallback (runtime missing");
    expect(shown).toMatch(/  ✓ turn:s-1:\d:(user|assistant): lexical #1 \(\d+\.\d{4}\)/);
    expect(shown).toMatch(/injected into turn 1 \(latest\): turn:s-1:/);
  });
});

// The plugin inside the real DSH agent loop from npm (test/dsh-host), with a scripted model, a real
// bridge process, real Chroma and a generated tiny embedding model: capture, recall, highlights,
// errored and sub-agent turns.
import fs from "node:fs";
import path from "node:path";
import { ChromaCollections } from "../../bridge/chroma/chroma-collections";
import { writeTinyModel } from "../embed/tiny-model";
import { generateFakeSecrets } from "../fixtures/fake-secrets";
import { recallMessage, type DshHost } from "./dsh-host-driver";
import { bridgeClient, bridgeRecords, closePluginHome, newPluginHome, waitFor, type ExportedRecord, type PluginHome } from "./plugin-helpers";
import { filesHolding } from "../privacy/files-holding";

const MODEL = "dream-test/tiny-bert-32";


describe("the plugin in the real DSH agent loop", () => {
  let home: PluginHome;
  let dataDir: string;
  let host: DshHost;

  beforeEach(() => {
    home = newPluginHome();
    ({ dataDir, host } = home);
    writeTinyModel(path.join(dataDir, "models"), MODEL, 32);
  });

  afterEach(() => closePluginHome(home));

  const config = (extra: Record<string, unknown> = {}) => ({
    enabled: true,
    holographic: true,
    embedding: { provider: "local", model: MODEL },
    recall: { timeBudgetMs: 8000 },
    ...extra,
  });

  it("captures two turns in full into the bridge and Chroma, and recalls the first in a later conversation", async () => {
    await host.boot(config());
    await host.createAgent("s-a");
    await host.turn("s-a", "我把蓝色马克杯放在书房的窗台上了。", [{ text: "好的，记住了：蓝色马克杯在书房的窗台上。" }]);
    await host.turn("s-a", "My favourite tea is oolong, remember that too.", [{ text: "Noted: oolong is your favourite tea." }]);

    const client = await bridgeClient(dataDir);
    const records = await waitFor(() => bridgeRecords(client), (r) => r.length === 4);
    expect(records.map((r) => [r.id, r.source_type, r.session_id, r.turn, r.text])).toEqual([
      ["turn:s-a:1:user", "user_message", "s-a", 1, "我把蓝色马克杯放在书房的窗台上了。"],
      ["turn:s-a:1:assistant", "assistant_message", "s-a", 1, "好的，记住了：蓝色马克杯在书房的窗台上。"],
      ["turn:s-a:2:user", "user_message", "s-a", 2, "My favourite tea is oolong, remember that too."],
      ["turn:s-a:2:assistant", "assistant_message", "s-a", 2, "Noted: oolong is your favourite tea."],
    ]);
    expect(records[0]!.metadata).toMatchObject({ captured_by: "dsh-plugin", capture: "holographic", provider: "scripted" });

    const status = await waitFor(
      () => client.call<Record<string, any>>("status", {}),
      (s) => s.embedding.coverage.current_vectors === 4 && s.chroma.pending_bytes === 0 && s.chroma.collections[0]?.chroma_rows === 4,
    );
    const chroma = new ChromaCollections({ url: status.chroma.url });
    const rows = await chroma.get(status.chroma.collections[0].name, ["turn:s-a:1:user", "turn:s-a:2:assistant"]);
    expect(rows.map((r) => r.document)).toEqual(["我把蓝色马克杯放在书房的窗台上了。", "Noted: oolong is your favourite tea."]);

    await host.createAgent("s-b");
    const later = await host.turn("s-b", "蓝色马克杯在哪里？", [{ text: "在书房的窗台上。" }]);
    const recalled = recallMessage(later.requests[0]!);
    expect(recalled?.text).toContain("我把蓝色马克杯放在书房的窗台上了。");
    expect(recalled?.text).toMatch(/<retrieved-memories-([0-9a-f]{12}) mode="latest"[\s\S]*<memory-\1 n="1"[\s\S]*<\/retrieved-memories-\1>/);
    // Our message follows the user's own, and the model sees it as the user's turn context.
    const sources = later.requests[0]!.messages.map((m) => m.source);
    expect(sources.slice(-2)).toEqual(["user", "dsh-dream"]);
  });

  it("still recalls a fact first in session 3 after session 2 asked about it and was told 'I don't know'", async () => {
    await host.boot(config());
    await host.createAgent("s-1");
    await host.turn("s-1", "我把护照放在书桌抽屉里了。", [{ text: "好的，记下了。" }]);
    await host.createAgent("s-2");
    await host.turn("s-2", "护照在哪里？", [{ text: "抱歉，我不知道。" }]);
    const client = await bridgeClient(dataDir);
    await waitFor(() => bridgeRecords(client), (r) => r.length === 4);

    await host.createAgent("s-3");
    const third = await host.turn("s-3", "我的护照在哪里？", [{ text: "在书桌抽屉里。" }]);
    const recalled = recallMessage(third.requests[0]!)?.text ?? "";
    const first = /<memory-([0-9a-f]{12}) n="1"[^>]*>([\s\S]*?)<\/memory-\1>/.exec(recalled);
    expect(first?.[2]).toContain("我把护照放在书桌抽屉里了。");
    // The bare replies carry nothing: neither the acknowledgement nor the non-answer reaches the model.
    expect(recalled).not.toContain("抱歉，我不知道。");
    expect(recalled).not.toContain("好的，记下了。");
    const { receipt } = await client.call<{ receipt: Record<string, any> }>("receipt", {});
    expect(receipt.conflicts).toEqual([]);
    expect(receipt.slots).toEqual([expect.objectContaining({ kind: "location", subject: "护照", current_id: "turn:s-1:1:user" })]);
  });

  it("does not repeat memories already in the conversation, and says so in the receipt", async () => {
    await host.boot(config());
    await host.createAgent("s-a");
    await host.turn("s-a", "我把蓝色马克杯放在书房的窗台上了。", [{ text: "好的。" }]);
    const client = await bridgeClient(dataDir);
    await waitFor(() => bridgeRecords(client), (r) => r.length === 2);

    const again = await host.turn("s-a", "蓝色马克杯在哪里？", [{ text: "在书房的窗台上。" }]);
    expect(recallMessage(again.requests[0]!)?.text ?? "").not.toContain("我把蓝色马克杯放在书房的窗台上了。");
    const { receipt } = await client.call<{ receipt: Record<string, any> }>("receipt", {});
    expect(receipt.withheld).toEqual(
      expect.arrayContaining([
        { id: "turn:s-a:1:user", reason: "in recent window" },
        { id: "turn:s-a:1:assistant", reason: "in recent window" },
      ]),
    );
    expect(receipt.window_hash).toMatch(/^window:[0-9a-f]{16}$/);
  });

  it("writes a remembered fact as a highlight of its turn, and with holographic mode off writes only that turn", async () => {
    await host.boot(config({ holographic: false }));
    await host.createAgent("s-f");
    await host.turn("s-f", "顺便说一下，钥匙放在鞋柜里。", [{ tool: "holo_remember", args: { fact: "钥匙放在鞋柜里" } }, { text: "记住了，钥匙在鞋柜里。" }]);
    await host.turn("s-f", "今天天气不错。", [{ text: "是的。" }]);

    const client = await bridgeClient(dataDir);
    await waitFor(() => bridgeRecords(client), (r) => r.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 500)); // the second turn, were it written, would be there by now
    const records = await bridgeRecords(client);
    expect(records.map((r) => [r.id.replace(/:[0-9a-f]{12}$/, ":<hash>"), r.source_type, r.turn, r.tags ?? []])).toEqual([
      ["fact:s-f:1:<hash>", "system_fact", 1, ["highlight"]],
      ["turn:s-f:1:user", "user_message", 1, ["highlight"]],
      ["turn:s-f:1:assistant", "assistant_message", 1, ["highlight"]],
    ]);
    expect(records[2]!.text).toBe("记住了，钥匙在鞋柜里。");
    expect(records[1]!.metadata).toMatchObject({ capture: "highlight", tools: ["holo_remember"] });
  });

  it("stores no secret from a captured conversation: every kind, in the user's words and the reply, redacted before the disk", async () => {
    await host.boot(config());
    await host.createAgent("s-secrets");
    // One fake secret of each kind the redactor knows (real formats, generated), half in Chinese sentences.
    const cases = generateFakeSecrets(16, 1);
    for (let i = 0; i < cases.length; i += 2) {
      await host.turn("s-secrets", cases[i]!.text, [{ text: cases[i + 1]?.text ?? "好的。" }]);
    }
    const client = await bridgeClient(dataDir);
    const records = await waitFor(() => bridgeRecords(client), (r) => r.length === Math.ceil(cases.length / 2) * 2);
    expect(records.filter((r) => r.text.includes("[redacted: ")).length).toBe(records.length - (cases.length % 2));
    await waitFor(
      () => client.call<Record<string, any>>("status", {}),
      (s) => s.chroma.pending_bytes === 0 && s.embedding.coverage.current_vectors === records.length,
    );
    const leaked = cases.flatMap((c) =>
      c.values.flatMap((value) => {
        const holding = value.length >= 6 ? filesHolding(dataDir, value) : [];
        return holding.length > 0 ? [`${c.kind}: ${value.slice(0, 4)}… in ${holding.join(", ")}`] : [];
      }),
    );
    expect(leaked).toEqual([]);
  });

  it("captures a turn that ends in an error, and never a sub-agent's turn", async () => {
    await host.boot(config());
    await host.createAgent("s-e");
    await host.turn("s-e", "请总结一下我的会议安排。", [{ throw: "provider exploded" }]);
    await host.createAgent("sub-1", { parentSession: "s-e" });
    const sub = await host.turn("sub-1", "子任务：列出会议。", [{ text: "子任务完成。" }]);
    expect(recallMessage(sub.requests[0]!)).toBeUndefined();

    const client = await bridgeClient(dataDir);
    const records = await waitFor(() => bridgeRecords(client), (r) => r.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const all: ExportedRecord[] = await bridgeRecords(client);
    expect(all.map((r) => [r.id, r.source_type, r.metadata.turn_end])).toEqual([["turn:s-e:1:user", "user_message", "error"]]);
    expect(records[0]!.text).toBe("请总结一下我的会议安排。");
  });

  it("exports exactly name, inject, Config and apply, and refuses a bad config naming the field", async () => {
    const booted = await host.boot(config());
    expect(booted.exports).toEqual(["Config", "apply", "inject", "name"]);
    await expect(host.send("load", { config: { enabled: "yes" } })).rejects.toThrow(/invalid config:[\s\S]*must be true or false \(got "yes"\) \(at enabled\)/);
    expect(fs.existsSync(path.join(dataDir, "bridge-config.json"))).toBe(true);
  });
});

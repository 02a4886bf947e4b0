// MemoryAgent over a real MemoryStore (the bridge's RPC shapes, in process): the four context layers
// kept apart, the full turn written whatever the reply, and a session continued from what is stored.
import type { ChatMessage } from "../../bridge/agent/chat-model";
import { MemoryAgent, messageAct, SYSTEM_PROMPT, type MemoryApi, type Responder, type ResponderInput } from "../../bridge/agent/memory-agent";
import { readSessionHistory } from "../../bridge/agent/session-history";
import type { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { openStore } from "../store/helpers";

function storeApi(store: MemoryStore): MemoryApi {
  const methods: Record<string, (params: Record<string, unknown>) => unknown> = {
    search: (params) => store.search(parseSearchRequest(params)),
    import: (params) => store.importRecords(params.records as unknown[]),
    export: (params) => store.exportPage((params.after as number | undefined) ?? 0, 2, false),
  };
  return { call: async <T>(method: string, params: Record<string, unknown>) => methods[method]!(params) as T };
}

/** Replies with a fixed text and keeps what it was given. */
function recordingResponder(text: string): Responder & { seen: Array<readonly ChatMessage[]> } {
  const seen: Array<readonly ChatMessage[]> = [];
  return { seen, reply: async ({ messages }) => (seen.push(messages), text) };
}

describe("MemoryAgent", () => {
  let store: MemoryStore;
  let clock: number;
  const agentFor = (responder: Responder, nextTurn = 1, recent: ChatMessage[] = []) =>
    new MemoryAgent({ memory: storeApi(store), responder, sessionId: "s", nextTurn, recent, nowMs: () => (clock += 1000), recentTurns: 1 });
  beforeEach(() => {
    store = openStore();
    clock = 1_700_000_000_000;
  });
  afterEach(() => store.close());

  it("writes the user message and the full reply as one turn with session, turn and ids", async () => {
    const outcome = await agentFor(recordingResponder("A long reply, kept whole.")).turn("My blue mug is on the shelf.");
    expect(outcome.turn).toBe(1);
    const records = store.exportPage(0, 10, false).records;
    expect(records).toEqual([
      expect.objectContaining({ id: "chat:s:1:user", text: "My blue mug is on the shelf.", source_type: "user_message", session_id: "s", turn: 1, timestamp_ms: 1_700_000_001_000 }),
      expect.objectContaining({ id: "chat:s:1:assistant", text: "A long reply, kept whole.", source_type: "assistant_message", session_id: "s", turn: 1, timestamp_ms: 1_700_000_002_000 }),
    ]);
  });

  it("keeps system prompt, recent window and retrieved evidence apart, and the receipt id out of the prompt", async () => {
    const first = agentFor(recordingResponder("Noted."));
    await first.turn("My blue mug is on the kitchen shelf.");
    await first.turn("I also like green tea.");
    const responder = recordingResponder("On the shelf.");
    const agent = agentFor(responder, 3, [{ role: "user", content: "I also like green tea." }, { role: "assistant", content: "Noted." }]);
    const outcome = await agent.turn("Where is my blue mug?");
    const messages = responder.seen[0]!;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "user"]);
    expect(messages[0]!.content).toBe(SYSTEM_PROMPT);
    expect(messages.slice(1, 3).map((m) => m.content)).toEqual(["I also like green tea.", "Noted."]);
    const evidence = messages[3]!.content;
    const nonce = /<retrieved-memories-([0-9a-f]{12}) mode="latest"/.exec(evidence)?.[1];
    expect(nonce).toBeDefined();
    expect(evidence).toMatch(new RegExp(`<memory-${nonce} n="1"[^>]*kind="the user said">\\nMy blue mug is on the kitchen shelf\\.\\n</memory-${nonce}>`));
    expect(evidence).toContain("untrusted background evidence");
    expect(messages[4]).toEqual({ role: "user", content: "Where is my blue mug?" });
    expect(outcome.audit.injectedIds).toContain("chat:s:1:user");
    expect(outcome.recall).toMatch(/^Recall: /);
    expect(JSON.stringify(messages)).not.toContain(outcome.audit.receiptId);
  });

  it("tells the responder what the message does, and reports it with what the search returned", async () => {
    const seen: ResponderInput[] = [];
    const agent = agentFor({ reply: async (input) => (seen.push(input), "ok") });
    const stated = await agent.turn("My passport is in the desk drawer.");
    const asked = await agent.turn("Where is my passport?");
    expect(seen.map((input) => input.act)).toEqual(["statement", "question"]);
    expect([stated.act, asked.act]).toEqual(["statement", "question"]);
    expect(asked.memories.map((m) => m.id)).toEqual(["chat:s:1:user"]);
    expect(asked.memories[0]!.text).toBe("My passport is in the desk drawer.");
    expect(asked.fallback).toBe(store.receipts.require(asked.audit.receiptId).fallback_reason);
  });

  it("reads a message's act as the store reads a user memory, and a verbless history request as a question", () => {
    expect(messageAct("我把护照放在书桌抽屉里了。")).toBe("statement");
    expect(messageAct("My passport is in the desk drawer.")).toBe("statement");
    expect(messageAct("我的护照在哪？")).toBe("question");
    expect(messageAct("where is my passport")).toBe("question");
    expect(messageAct("谢谢")).toBe("acknowledgement");
    expect(messageAct("ok")).toBe("acknowledgement");
    expect(messageAct("蓝色马克杯的完整历史")).toBe("question");
    expect(messageAct("blue mug history")).toBe("question");
    // A timeline word in a statement that sets a slot does not make it a question.
    expect(messageAct("后来我把钥匙放到了花盆里")).toBe("statement");
  });

  it("searches in timeline mode when the intent is timeline", async () => {
    const outcome = await agentFor(recordingResponder("ok")).turn("What happened with my keys over time?");
    expect(outcome.plan).toEqual({ query: "What happened with my keys over time?", intent: "timeline", source: "heuristic" });
    expect(store.receipts.require(outcome.audit.receiptId).mode).toBe("timeline");
  });

  it("reports a turn the store refuses with its code, naming the record", async () => {
    store.importRecords([{ id: "chat:s:1:user", text: "something else", source_type: "user_message" }]);
    await expect(agentFor(recordingResponder("ok")).turn("hello")).rejects.toMatchObject({ code: "ID_CONFLICT", message: expect.stringContaining("turn 1 was not stored: chat:s:1:user") });
  });

  it("reads the next turn and the last exchanges of a session from every export page", async () => {
    const agent = agentFor(recordingResponder("ok"));
    for (const text of ["one", "two", "three"]) await agent.turn(text);
    store.importRecords([{ id: "chat:other:9:user", text: "elsewhere", source_type: "user_message", session_id: "other", turn: 9 }]);
    const history = await readSessionHistory(storeApi(store), "s", 2);
    expect(history.nextTurn).toBe(4);
    expect(history.recent.map((m) => m.content)).toEqual(["two", "ok", "three", "ok"]);
    await expect(readSessionHistory(storeApi(store), "new", 2)).resolves.toEqual({ nextTurn: 1, recent: [] });
  });
});

import { createHash } from "node:crypto";
import { TurnBuffer } from "../../../plugin/capture/turn-buffer";
import { DEFAULT_CONFIG, type PluginConfig } from "../../../plugin/config";
import type { HostSession, PreStepDecision, PreStepPayload, UserMessage } from "../../../plugin/host-types";
import { anchorVersion, type RecalledMemory } from "../../../plugin/recall/context-message";
import { Recall, type RecallBridge, type SearchAnswer } from "../../../plugin/recall/recall";
import { MemoryLog } from "./memory-writer";
import { EventLog, hostSession, message } from "./session-events";

const NOW_MS = 1_700_000_000_000;

/** Answers searches from a script and, like the real bridge call, gives up after the timeoutMs it is handed. */
class MemoryBridge implements RecallBridge {
  readonly searches: Array<{ params: Record<string, unknown>; timeoutMs: number }> = [];
  readonly drains: number[] = [];
  answer: (params: Record<string, unknown>) => Promise<SearchAnswer> = async () => ({ results: [], receipt: { receipt_id: "rcpt-empty" } });

  search(params: Record<string, unknown>, timeoutMs: number): Promise<SearchAnswer> {
    this.searches.push({ params, timeoutMs });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the bridge did not answer search within ${timeoutMs} ms`)), timeoutMs);
      timer.unref(); // a search abandoned by an aborted turn must not hold the test process open
      this.answer(params).then(
        (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  async drainWrites(timeoutMs: number): Promise<boolean> {
    this.drains.push(timeoutMs);
    return true;
  }
}

function config(overrides: Partial<PluginConfig> = {}, recall: Partial<PluginConfig["recall"]> = {}): PluginConfig {
  return { ...DEFAULT_CONFIG, enabled: true, ...overrides, recall: { ...DEFAULT_CONFIG.recall, ...recall } };
}

function setup(settings: PluginConfig = config()) {
  const buffer = new TurnBuffer();
  const bridge = new MemoryBridge();
  const log = new MemoryLog();
  const recall = new Recall(buffer, bridge, () => settings, log, () => NOW_MS);
  return { buffer, bridge, log, recall };
}

function payload(session: HostSession, turn: number, signal = new AbortController().signal): PreStepPayload {
  return { agent: { id: "agent-1", session }, messages: [], turn, step: 1, signal };
}

function enter(...messages: UserMessage[]): PreStepDecision {
  return { kind: "enter", messages };
}

/** next() as the host hands it: counted, resolving with a fixed decision. */
function nextReturning(decision: PreStepDecision) {
  return jest.fn(async () => decision);
}

const MUG: RecalledMemory = { id: "turn:old:3:user", text: "My mug is on the second shelf.", source_type: "user_message", timestamp_ms: Date.UTC(2024, 0, 2) };
const TEA: RecalledMemory = { id: "fact:tea", text: "prefers green tea", source_type: "system_fact", timestamp_ms: Date.UTC(2024, 0, 3) };

describe("Recall.onPreStep passing the decision through", () => {
  const session = hostSession("s");

  it.each<[string, PluginConfig, PreStepDecision, HostSession]>([
    ["memory is disabled", config({ enabled: false }), enter(message("Where is my mug?", { kind: "user" })), session],
    ["the step was rejected", config(), { kind: "reject" }, session],
    ["the session is a sub-agent's", config(), enter(message("Where is my mug?", { kind: "user" })), hostSession("child", { origin: "subagent" })],
    ["the session has a parent", config(), enter(message("Where is my mug?", { kind: "user" })), hostSession("child", { parentSession: "s" })],
    ["the step carries no user text (a tool step)", config(), enter(message("file contents", { kind: "tool", callId: "c1" })), session],
    ["the user message is only whitespace", config(), enter(message("  \n ", { kind: "user" })), session],
    ["the only text is a plugin's", config(), enter(message("<runtime-context/>", { kind: "plugin", form: "snapshot" })), session],
  ])("calls next() once and returns its decision unchanged without searching when %s", async (_label, settings, decision, host) => {
    const { bridge, log, recall } = setup(settings);
    const next = nextReturning(decision);
    expect(await recall.onPreStep(payload(host, 1), next)).toBe(decision);
    expect(next).toHaveBeenCalledTimes(1);
    expect(bridge.searches).toEqual([]);
    expect(recall.lastNote(host.header.id)).toBeUndefined();
    expect(log.warnings).toEqual([]);
  });

  it("returns the original decision without searching when the turn is already aborted", async () => {
    const { bridge, recall } = setup();
    const controller = new AbortController();
    controller.abort();
    const decision = enter(message("Where is my mug?", { kind: "user" }));
    expect(await recall.onPreStep(payload(session, 1, controller.signal), nextReturning(decision))).toBe(decision);
    expect(bridge.searches).toEqual([]);
  });

  it("returns the original decision, without the anchors, when the turn is aborted while the search runs", async () => {
    const { bridge, log, recall } = setup(config({ anchors: ["Be brief."] }));
    const controller = new AbortController();
    bridge.answer = () => new Promise(() => undefined);
    const decision = enter(message("Where is my mug?", { kind: "user" }));
    const result = recall.onPreStep(payload(session, 1, controller.signal), nextReturning(decision));
    await new Promise((resolve) => setImmediate(resolve));
    expect(bridge.searches).toHaveLength(1);
    controller.abort();
    expect(await result).toBe(decision);
    expect(log.warnings).toEqual(["recall for session s turn 1 went without memories: the turn was cancelled"]);
  });

  it("returns the decision unchanged when the search finds nothing and no anchors are set", async () => {
    const { recall } = setup();
    const decision = enter(message("Where is my mug?", { kind: "user" }));
    expect(await recall.onPreStep(payload(session, 1), nextReturning(decision))).toBe(decision);
    expect(recall.lastNote("s")).toMatchObject({ receipt_id: "rcpt-empty", injected_ids: [] });
  });
});

describe("Recall.onPreStep with memories", () => {
  it("appends exactly one recall message after the claimed messages, sourced dsh-dream with the receipt", async () => {
    const { bridge, recall } = setup();
    bridge.answer = async () => ({ results: [MUG, TEA], receipt: { receipt_id: "rcpt-42", recall: "Recall: 2 memories" } });
    const user = message("Where is my mug?", { kind: "user" });
    const snapshot = message("<runtime-context/>", { kind: "plugin", form: "snapshot" });
    const next = nextReturning(enter(user, snapshot));

    const result = await recall.onPreStep(payload(hostSession("s"), 1), next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(result.kind).toBe("enter");
    const messages = (result as Extract<PreStepDecision, { kind: "enter" }>).messages;
    expect(messages).toHaveLength(3);
    expect(messages[0]).toBe(user);
    expect(messages[1]).toBe(snapshot);
    const added = messages[2]!;
    expect(added.role).toBe("user");
    expect(added.source).toEqual({ kind: "dsh-dream", form: "recall", receipt: "rcpt-42" });
    expect(added.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(added.content).toHaveLength(1);
    const text = added.content[0]!.text!;
    expect(text.indexOf("My mug is on the second shelf.")).toBeLessThan(text.indexOf("prefers green tea"));
    expect(text).toContain('mode="latest" order="most relevant first"');
    expect(Object.isFrozen(added)).toBe(true);
  });

  it("searches with the query, topK, the session's earlier turns as exclude_ids, their window hash and the anchor version", async () => {
    const anchors = ["Answer in English."];
    const { buffer, bridge, recall } = setup(config({ anchors }, { topK: 7 }));
    const session = hostSession("s");
    const events = new EventLog();
    for (const turn of [1, 2]) events.simpleTurn(turn, `q${turn}`, `a${turn}`);
    events.turnStart(3);
    for (const event of events.events) buffer.observe(session, event);

    await recall.onPreStep(payload(session, 3), nextReturning(enter(message("  Where is my mug?\n", { kind: "user" }))));
    const excludeIds = ["turn:s:1:user", "turn:s:1:assistant", "turn:s:2:user", "turn:s:2:assistant"];
    const windowHash = "window:" + createHash("sha256").update(excludeIds.join("\n")).digest("hex").slice(0, 16);
    expect(bridge.searches).toEqual([
      {
        params: { query: "Where is my mug?", top_k: 7, timeline: false, exclude_ids: excludeIds, window_hash: windowHash, anchor_version: anchorVersion(anchors) },
        timeoutMs: DEFAULT_CONFIG.recall.timeBudgetMs,
      },
    ]);
    expect(bridge.drains).toEqual([Math.floor(DEFAULT_CONFIG.recall.timeBudgetMs * 0.3)]);
  });

  it("sends no exclude_ids, window_hash or anchor_version on a session's first turn without anchors", async () => {
    const { bridge, recall } = setup();
    await recall.onPreStep(payload(hostSession("s"), 1), nextReturning(enter(message("hello", { kind: "user" }))));
    expect(bridge.searches.map((s) => s.params)).toEqual([{ query: "hello", top_k: 5, timeline: false }]);
  });

  it("joins the text of every user message of the step, and only those, into the query", async () => {
    const { bridge, recall } = setup();
    const decision = enter(
      message("first part", { kind: "user" }),
      message("[DSH-DREAM long-term memory] old", { kind: "dsh-dream", form: "recall" }),
      message("second part", { kind: "user" }),
    );
    await recall.onPreStep(payload(hostSession("s"), 1), nextReturning(decision));
    expect(bridge.searches[0]!.params.query).toBe("first part\nsecond part");
  });

  it("caps the query at 8192 characters", async () => {
    const { bridge, recall } = setup();
    await recall.onPreStep(payload(hostSession("s"), 1), nextReturning(enter(message("q".repeat(10_000), { kind: "user" }))));
    expect(bridge.searches[0]!.params.query).toBe("q".repeat(8192));
  });

  it("searches with timeline: true for a history question and labels the memories oldest first", async () => {
    const { bridge, recall } = setup();
    bridge.answer = async () => ({ results: [MUG, TEA], receipt: { receipt_id: "rcpt-t" } });
    const result = await recall.onPreStep(payload(hostSession("s"), 1), nextReturning(enter(message("我的杯子的历史", { kind: "user" }))));
    expect(bridge.searches[0]!.params.timeline).toBe(true);
    const added = (result as Extract<PreStepDecision, { kind: "enter" }>).messages[1]!;
    expect(added.content[0]!.text).toContain('mode="timeline" order="oldest first"');
    expect(recall.lastNote("s")!.intent).toBe("timeline");
  });
});

describe("Recall.onPreStep when the bridge fails", () => {
  const anchors = ["Never delete files without asking."];

  it("adds an anchors-only message without a receipt and warns when the search rejects", async () => {
    const { bridge, log, recall } = setup(config({ anchors }));
    bridge.answer = async () => {
      throw new Error("BRIDGE_UNAVAILABLE: connection refused");
    };
    const user = message("Where is my mug?", { kind: "user" });
    const result = await recall.onPreStep(payload(hostSession("s"), 2), nextReturning(enter(user)));
    const messages = (result as Extract<PreStepDecision, { kind: "enter" }>).messages;
    expect(messages).toHaveLength(2);
    expect(messages[0]).toBe(user);
    expect(messages[1]!.source).toEqual({ kind: "dsh-dream", form: "recall" });
    const text = messages[1]!.content[0]!.text!;
    expect(text).toContain("1. Never delete files without asking.");
    expect(text).not.toContain("<retrieved-memories-");
    expect(log.warnings).toEqual(["recall for session s turn 2 went without memories: BRIDGE_UNAVAILABLE: connection refused"]);
    expect(recall.lastNote("s")).toMatchObject({ receipt_id: null, injected_ids: [], recall: "Recall: unavailable (BRIDGE_UNAVAILABLE: connection refused)" });
  });

  it("shows a memory whose time no Date can hold, instead of dropping the whole message", async () => {
    const { bridge, recall } = setup(config({ anchors }));
    const farFuture: RecalledMemory = { ...MUG, id: "far", timestamp_ms: 9e15 };
    bridge.answer = async () => ({ results: [farFuture], receipt: { receipt_id: "rcpt-far" } });
    const result = await recall.onPreStep(payload(hostSession("s"), 2), nextReturning(enter(message("Where is my mug?", { kind: "user" }))));
    const text = (result as Extract<PreStepDecision, { kind: "enter" }>).messages[1]!.content[0]!.text!;
    expect(text).toContain("1. Never delete files without asking.");
    expect(text).toContain('time="(time 9000000000000000 out of range)"');
    expect(text).toContain("My mug is on the second shelf.");
  });

  it("still sends the anchors, and says why, when a memory cannot be shown at all", async () => {
    const { bridge, log, recall } = setup(config({ anchors }));
    const broken = { ...MUG, id: "broken", text: null } as unknown as RecalledMemory;
    bridge.answer = async () => ({ results: [broken, TEA], receipt: { receipt_id: "rcpt-broken" } });
    const result = await recall.onPreStep(payload(hostSession("s"), 2), nextReturning(enter(message("Where is my mug?", { kind: "user" }))));
    const messages = (result as Extract<PreStepDecision, { kind: "enter" }>).messages;
    expect(messages).toHaveLength(2);
    const text = messages[1]!.content[0]!.text!;
    expect(text).toContain("1. Never delete files without asking.");
    expect(text).not.toContain("<retrieved-memories-");
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0]).toMatch(/^recall for session s turn 2 left its memories out: /);
    expect(recall.lastNote("s")).toMatchObject({ receipt_id: "rcpt-broken", injected_ids: [], recall: expect.stringMatching(/^Recall: memories left out \(/) });
  });

  it("returns the decision unchanged and warns when the search rejects and no anchors are set", async () => {
    const { bridge, log, recall } = setup();
    bridge.answer = async () => {
      throw new Error("connection refused");
    };
    const decision = enter(message("Where is my mug?", { kind: "user" }));
    expect(await recall.onPreStep(payload(hostSession("s"), 2), nextReturning(decision))).toBe(decision);
    expect(log.warnings).toEqual(["recall for session s turn 2 went without memories: connection refused"]);
  });

  it("gives a search that never answers only the time budget, then goes on with the anchors", async () => {
    const { bridge, log, recall } = setup(config({ anchors }, { timeBudgetMs: 60 }));
    bridge.answer = () => new Promise(() => undefined);
    const user = message("Where is my mug?", { kind: "user" });
    const result = await recall.onPreStep(payload(hostSession("s"), 1), nextReturning(enter(user)));
    expect(bridge.searches.map((s) => s.timeoutMs)).toEqual([60]);
    expect(bridge.drains).toEqual([18]);
    const messages = (result as Extract<PreStepDecision, { kind: "enter" }>).messages;
    expect(messages.map((m) => m.source)).toEqual([{ kind: "user" }, { kind: "dsh-dream", form: "recall" }]);
    expect(log.warnings).toEqual(["recall for session s turn 1 went without memories: the bridge did not answer search within 60 ms"]);
  });

  it("gives a search that never answers only the time budget and returns the decision when no anchors are set", async () => {
    const { bridge, log, recall } = setup(config({}, { timeBudgetMs: 50 }));
    bridge.answer = () => new Promise(() => undefined);
    const decision = enter(message("Where is my mug?", { kind: "user" }));
    expect(await recall.onPreStep(payload(hostSession("s"), 1), nextReturning(decision))).toBe(decision);
    expect(log.warnings).toEqual(["recall for session s turn 1 went without memories: the bridge did not answer search within 50 ms"]);
  });

  it("passes the search only the budget left after waiting for queued writes", async () => {
    let now = NOW_MS;
    const buffer = new TurnBuffer();
    const bridge = new MemoryBridge();
    bridge.drainWrites = async (timeoutMs) => {
      bridge.drains.push(timeoutMs);
      now += 400;
      return false;
    };
    const recall = new Recall(buffer, bridge, () => config({}, { timeBudgetMs: 1_000 }), new MemoryLog(), () => now);
    await recall.onPreStep(payload(hostSession("s"), 1), nextReturning(enter(message("hi", { kind: "user" }))));
    expect(bridge.drains).toEqual([300]);
    expect(bridge.searches.map((s) => s.timeoutMs)).toEqual([600]);
  });
});

describe("Recall.lastNote", () => {
  it("records the injected and truncated ids, window hash, anchor version and receipt of the session's last recall", async () => {
    const anchors = ["Be brief."];
    const { buffer, bridge, recall } = setup(config({ anchors }, { maxTokens: 100 }));
    const session = hostSession("s");
    for (const event of [{ type: "turn/start", seq: 0, time: 1, data: { turn: 1 } }, { type: "turn/start", seq: 1, time: 2, data: { turn: 2 } }]) buffer.observe(session, event);
    const long: RecalledMemory = { id: "turn:old:9:assistant", text: "记".repeat(300), source_type: "assistant_message", timestamp_ms: Date.UTC(2024, 0, 1) };
    bridge.answer = async () => ({ results: [MUG, long], receipt: { receipt_id: "rcpt-7", recall: "Recall: 2 memories (hybrid)" } });

    await recall.onPreStep(payload(session, 2), nextReturning(enter(message("Where is my mug?", { kind: "user" }))));
    const excludeIds = ["turn:s:1:user", "turn:s:1:assistant"];
    expect(recall.lastNote("s")).toEqual({
      session_id: "s",
      turn: 2,
      at_ms: NOW_MS,
      intent: "latest",
      receipt_id: "rcpt-7",
      injected_ids: ["turn:old:3:user", "turn:old:9:assistant"],
      truncated_ids: ["turn:old:9:assistant"],
      anchor_version: anchorVersion(anchors),
      window_hash: "window:" + createHash("sha256").update(excludeIds.join("\n")).digest("hex").slice(0, 16),
      recall: "Recall: 2 memories (hybrid)",
    });
    expect(recall.lastNote("other")).toBeUndefined();
  });

  it("says 'Recall: done' when the receipt has no recall line, and keeps one note per session, the latest", async () => {
    const { bridge, recall } = setup();
    bridge.answer = async () => ({ results: [MUG], receipt: { receipt_id: "rcpt-1" } });
    await recall.onPreStep(payload(hostSession("s"), 1), nextReturning(enter(message("one", { kind: "user" }))));
    bridge.answer = async () => ({ results: [TEA], receipt: { receipt_id: "rcpt-2" } });
    await recall.onPreStep(payload(hostSession("s"), 2), nextReturning(enter(message("two", { kind: "user" }))));
    expect(recall.lastNote("s")).toMatchObject({ turn: 2, receipt_id: "rcpt-2", injected_ids: ["fact:tea"], truncated_ids: [], anchor_version: null, window_hash: null, recall: "Recall: done" });
  });
});

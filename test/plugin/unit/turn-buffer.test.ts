import { MAX_TURN_TEXT_CHARS, TurnBuffer } from "../../../plugin/capture/turn-buffer";
import type { HostSession, SessionEvent } from "../../../plugin/host-types";
import { EventLog, MODEL, PROVIDER, hostSession } from "./session-events";

const CUT_MARKER = "\n…[cut: the turn was longer]";

function feed(buffer: TurnBuffer, session: HostSession, events: readonly SessionEvent[]): void {
  for (const event of events) buffer.observe(session, event);
}

describe("TurnBuffer.snapshot", () => {
  it("joins only the human's text and every step's assistant text of a tool turn (A.3)", () => {
    const session = hostSession("session-1");
    const log = new EventLog(5_000);
    log.turnStart(1); // 5000
    log.stepStart(1, 1);
    log.userMessage("  What is in README.md?  "); // 5002
    log.pluginSnapshot();
    log.ownRecall("[DSH-DREAM long-term memory] the user said: README is short");
    log.assistantToolCall(1, 1, "read");
    log.toolCall(1, 1, "read");
    log.toolResult(1, 1, "# Project\nshort readme");
    log.stepEnd(1, 1);
    log.stepStart(1, 2);
    log.assistantText(1, 2, "It has a title."); // 5010
    log.toolCall(1, 2, "grep");
    log.assistantText(1, 2, "And one line of text."); // 5012
    log.stepEnd(1, 2);
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);

    expect(buffer.snapshot("session-1", 1)).toEqual({
      sessionId: "session-1",
      turn: 1,
      cwd: "/home/ada/project",
      userText: "What is in README.md?",
      assistantText: "It has a title.\n\nAnd one line of text.",
      startedMs: 5_000,
      userMs: 5_002,
      assistantMs: 5_012,
      model: { provider: PROVIDER, model: MODEL },
      toolNames: ["read", "grep"],
    });
  });

  it("joins several user messages of one turn (a steer) in order and keeps the first one's time", () => {
    const session = hostSession("s");
    const log = new EventLog(100);
    log.turnStart(2); // 100
    log.userMessage("first"); // 101
    log.assistantText(2, 1, "partial"); // 102
    log.userMessage("and also this"); // 103
    log.assistantText(2, 2, "done"); // 104
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);
    expect(buffer.snapshot("s", 2)).toMatchObject({ userText: "first\n\nand also this", assistantText: "partial\n\ndone", userMs: 101, assistantMs: 104 });
  });

  it("joins the text blocks of one message without a separator and skips non-text blocks", () => {
    const session = hostSession("s");
    const buffer = new TurnBuffer();
    buffer.observe(session, { type: "turn/start", seq: 0, time: 1, data: { turn: 1 } });
    buffer.observe(session, {
      type: "user/message",
      seq: 1,
      time: 2,
      data: { id: "m", role: "user", source: { kind: "user" }, content: [{ type: "text", text: "look at " }, { type: "image", data: "…" }, { type: "text", text: "this" }] },
    });
    expect(buffer.snapshot("s", 1)?.userText).toBe("look at this");
  });

  it("has empty texts and no times for a turn with no user or assistant text yet", () => {
    const session = hostSession("s", { cwd: undefined });
    const log = new EventLog(7);
    log.turnStart(3);
    log.pluginSnapshot();
    log.assistantToolCall(3, 1, "read");
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);
    expect(buffer.snapshot("s", 3)).toEqual({
      sessionId: "s",
      turn: 3,
      cwd: undefined,
      userText: "",
      assistantText: "",
      startedMs: 7,
      model: { provider: PROVIDER, model: MODEL },
      toolNames: [],
    });
  });

  it("is undefined for another turn number, an unknown session, and after forget", () => {
    const session = hostSession("s");
    const log = new EventLog();
    log.simpleTurn(1, "hi", "hello");
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);
    expect(buffer.snapshot("s", 2)).toBeUndefined();
    expect(buffer.snapshot("other", 1)).toBeUndefined();
    buffer.forget("s");
    expect(buffer.snapshot("s", 1)).toBeUndefined();
    expect(buffer.size).toBe(0);
  });

  it("replaces the open turn when the next turn starts", () => {
    const session = hostSession("s");
    const log = new EventLog();
    log.simpleTurn(1, "one", "uno");
    log.turnEnd(1);
    log.simpleTurn(2, "two", "dos");
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);
    expect(buffer.snapshot("s", 1)).toBeUndefined();
    expect(buffer.snapshot("s", 2)).toMatchObject({ userText: "two", assistantText: "dos" });
    expect(buffer.openTurn("s")).toBe(2);
  });

  it("returns copies, so a later event does not change a snapshot already taken", () => {
    const session = hostSession("s");
    const log = new EventLog();
    log.turnStart(1);
    log.toolCall(1, 1, "read");
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);
    const before = buffer.snapshot("s", 1)!;
    buffer.observe(session, log.toolCall(1, 2, "write"));
    expect(before.toolNames).toEqual(["read"]);
    expect(buffer.snapshot("s", 1)!.toolNames).toEqual(["read", "write"]);
  });

  it("keeps text of exactly MAX_TURN_TEXT_CHARS whole and cuts longer text with the marker", () => {
    const session = hostSession("s");
    const log = new EventLog();
    log.turnStart(1);
    log.userMessage("u".repeat(MAX_TURN_TEXT_CHARS));
    log.assistantText(1, 1, "a".repeat(MAX_TURN_TEXT_CHARS + 5));
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);
    const snapshot = buffer.snapshot("s", 1)!;
    expect(snapshot.userText).toBe("u".repeat(MAX_TURN_TEXT_CHARS));
    expect(snapshot.assistantText).toBe("a".repeat(MAX_TURN_TEXT_CHARS) + CUT_MARKER);
  });
});

describe("TurnBuffer.windowTurns", () => {
  it("lists the session's turns newest last, excluding the current one", () => {
    const session = hostSession("s");
    const log = new EventLog();
    for (const turn of [1, 2, 3]) log.simpleTurn(turn, `q${turn}`, `a${turn}`);
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);
    expect(buffer.windowTurns("s", 3)).toEqual([1, 2]);
    expect(buffer.windowTurns("s", 4)).toEqual([1, 2, 3]);
    expect(buffer.windowTurns("unknown", 1)).toEqual([]);
  });

  it("lists a turn started twice in a row once", () => {
    const session = hostSession("s");
    const log = new EventLog();
    log.turnStart(1);
    log.turnStart(1);
    log.turnStart(2);
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);
    expect(buffer.windowTurns("s", 2)).toEqual([1]);
  });

  it("keeps only the newest 100 turns", () => {
    const session = hostSession("s");
    const log = new EventLog();
    for (let turn = 1; turn <= 105; turn++) log.turnStart(turn);
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);
    expect(buffer.windowTurns("s", 105)).toEqual(Array.from({ length: 99 }, (_, i) => i + 6));
  });
});

describe("TurnBuffer.observe with malformed input", () => {
  const malformed: Array<[string, unknown, unknown]> = [
    ["an undefined event", hostSession("s"), undefined],
    ["an event without a type", hostSession("s"), { seq: 1, time: 1, data: {} }],
    ["a session without a header", {}, { type: "turn/start", seq: 1, time: 1, data: { turn: 9 } }],
    ["an undefined session", undefined, { type: "turn/start", seq: 1, time: 1, data: { turn: 9 } }],
    ["a user message without data", hostSession("s"), { type: "user/message", seq: 1, time: 1, data: undefined }],
    ["a user message whose content is a string", hostSession("s"), { type: "user/message", seq: 1, time: 1, data: { source: { kind: "user" }, content: "hi" } }],
    ["a user message without a source", hostSession("s"), { type: "user/message", seq: 1, time: 1, data: { content: [{ type: "text", text: "x" }] } }],
    ["a user message with null blocks", hostSession("s"), { type: "user/message", seq: 1, time: 1, data: { source: { kind: "user" }, content: [null, { type: "text", text: 5 }] } }],
    ["an assistant message without a message", hostSession("s"), { type: "assistant/message", seq: 1, time: 1, data: { turn: 1 } }],
    ["an assistant message with a null source", hostSession("s"), { type: "assistant/message", seq: 1, time: 1, data: { message: { content: null, source: null } } }],
    ["a tool call without a name", hostSession("s"), { type: "tool/call", seq: 1, time: 1, data: { name: 42 } }],
  ];

  it.each(malformed)("ignores %s without throwing or changing the open turn", (_label, session, event) => {
    const good = hostSession("s");
    const log = new EventLog(50);
    log.turnStart(1);
    log.userMessage("real question");
    log.assistantText(1, 1, "real answer");
    const buffer = new TurnBuffer();
    feed(buffer, good, log.events);
    const before = buffer.snapshot("s", 1);
    expect(() => buffer.observe(session as HostSession, event as SessionEvent)).not.toThrow();
    expect(buffer.snapshot("s", 1)).toEqual(before);
  });

  it("ignores messages that arrive before any turn/start", () => {
    const session = hostSession("s");
    const log = new EventLog();
    log.userMessage("queued before the turn");
    log.assistantText(1, 1, "stray");
    log.toolCall(1, 1, "read");
    log.turnStart(1);
    log.userMessage("the turn's own");
    const buffer = new TurnBuffer();
    feed(buffer, session, log.events);
    expect(buffer.snapshot("s", 1)).toMatchObject({ userText: "the turn's own", assistantText: "", toolNames: [] });
  });
});

describe("TurnBuffer session eviction", () => {
  function startTurn(buffer: TurnBuffer, id: string, timeMs: number): void {
    buffer.observe(hostSession(id), { type: "turn/start", seq: 0, time: timeMs, data: { turn: 1 } });
  }

  it("holds at most 256 sessions and drops the least recently used one for the 257th", () => {
    const buffer = new TurnBuffer();
    for (let i = 0; i < 256; i++) startTurn(buffer, `s${i}`, 1_000 + i);
    // s0 is the oldest by start, but an event at 5000 makes it the most recently used.
    buffer.observe(hostSession("s0"), { type: "tool/call", seq: 1, time: 5_000, data: { name: "read" } });
    startTurn(buffer, "s256", 5_001);

    expect(buffer.size).toBe(256);
    expect(buffer.snapshot("s1", 1)).toBeUndefined();
    expect(buffer.snapshot("s0", 1)).toMatchObject({ sessionId: "s0", toolNames: ["read"] });
    expect(buffer.snapshot("s2", 1)).toMatchObject({ sessionId: "s2" });
    expect(buffer.snapshot("s256", 1)).toMatchObject({ sessionId: "s256" });
  });

  it("does not evict when an event arrives for a session it already holds", () => {
    const buffer = new TurnBuffer();
    for (let i = 0; i < 256; i++) startTurn(buffer, `s${i}`, 1_000 + i);
    startTurn(buffer, "s10", 9_000);
    expect(buffer.size).toBe(256);
    expect(buffer.snapshot("s0", 1)).toMatchObject({ sessionId: "s0" });
  });
});

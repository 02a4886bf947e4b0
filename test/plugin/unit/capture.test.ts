import { CaptureQueue } from "../../../plugin/capture/capture-queue";
import { TurnCapture, isSubagentSession, turnKey, type CaptureSettings } from "../../../plugin/capture/capture";
import { TurnBuffer } from "../../../plugin/capture/turn-buffer";
import type { HostSession, SessionEvent, TurnStoppingPayload } from "../../../plugin/host-types";
import { MemoryLog, MemoryWriter } from "./memory-writer";
import { EventLog, MODEL, PROVIDER, hostSession } from "./session-events";

function setup(initial: CaptureSettings = { enabled: true, holographic: true }) {
  const settings = { ...initial };
  const writer = new MemoryWriter();
  const log = new MemoryLog();
  const queue = new CaptureQueue(writer, log);
  const buffer = new TurnBuffer();
  const capture = new TurnCapture(buffer, queue, () => settings, log);
  const feed = (session: HostSession, events: readonly SessionEvent[]) => {
    for (const event of events) capture.onSessionEvent(session, event);
  };
  const stopping = (session: HostSession, turn: number) => capture.onTurnStopping(stoppingPayload(session, turn));
  return { settings, writer, log, queue, buffer, capture, feed, stopping };
}

function stoppingPayload(session: HostSession, turn: number): TurnStoppingPayload {
  return { agent: { id: "agent-1", session }, turn, signal: new AbortController().signal };
}

const ids = (sessionId: string, turn: number) => [`turn:${sessionId}:${turn}:user`, `turn:${sessionId}:${turn}:assistant`];

describe("isSubagentSession", () => {
  it("is true for origin subagent or a parentSession, false for a top-level or missing session", () => {
    expect(isSubagentSession(hostSession("c", { origin: "subagent" }))).toBe(true);
    expect(isSubagentSession(hostSession("c", { parentSession: "session-parent" }))).toBe(true);
    expect(isSubagentSession(hostSession("p"))).toBe(false);
    expect(isSubagentSession(hostSession("p", { origin: "user" }))).toBe(false);
    expect(isSubagentSession(undefined)).toBe(false);
  });
});

describe("TurnCapture of completed turns", () => {
  it("writes a completed turn once: at turn-stopping, not again at turn/end", async () => {
    const { writer, log, queue, feed, stopping } = setup();
    const session = hostSession("s");
    const events = new EventLog(10_000);
    events.simpleTurn(1, "Where is my mug?", "On the shelf.");
    feed(session, events.events);
    stopping(session, 1);
    feed(session, [events.turnEnd(1)]);

    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([ids("s", 1)]);
    const metadata = { captured_by: "dsh-plugin", capture: "holographic", cwd: "/home/ada/project", provider: PROVIDER, model: MODEL };
    expect([...writer.stored.values()]).toEqual([
      { id: "turn:s:1:user", text: "Where is my mug?", source_type: "user_message", timestamp_ms: 10_002, session_id: "s", turn: 1, metadata },
      { id: "turn:s:1:assistant", text: "On the shelf.", source_type: "assistant_message", timestamp_ms: 10_004, session_id: "s", turn: 1, metadata },
    ]);
    expect(log.warnings).toEqual([]);
  });

  it("keeps one record per part with the latest text when turn-stopping fires twice for a turn", async () => {
    const { writer, queue, feed, stopping } = setup();
    const session = hostSession("s");
    const events = new EventLog();
    events.turnStart(1);
    events.userMessage("Plan the trip.");
    events.assistantText(1, 1, "Day one: Kyoto.");
    feed(session, events.events);
    stopping(session, 1);
    // A listener steered the turn: it goes on with another message and step.
    feed(session, [events.userMessage("Add a day in Nara."), events.assistantText(1, 2, "Day two: Nara.")]);
    stopping(session, 1);
    feed(session, [events.turnEnd(1)]);

    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.texts()).toEqual({
      "turn:s:1:user": "Plan the trip.\n\nAdd a day in Nara.",
      "turn:s:1:assistant": "Day one: Kyoto.\n\nDay two: Nara.",
    });
  });

  it("writes turns of several sessions under their own ids", async () => {
    const { writer, queue, feed, stopping } = setup();
    const a = hostSession("a");
    const b = hostSession("b");
    const logA = new EventLog();
    const logB = new EventLog();
    logA.simpleTurn(1, "qa", "ra");
    logB.simpleTurn(1, "qb", "rb");
    feed(a, logA.events);
    feed(b, logB.events);
    stopping(b, 1);
    stopping(a, 1);
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.accepted).toEqual([...ids("b", 1), ...ids("a", 1)]);
  });
});

describe("TurnCapture of turns that end without turn-stopping", () => {
  it.each(["error", "aborted"])("writes a turn that ended with reason %s, naming the reason in metadata.turn_end", async (kind) => {
    const { writer, queue, feed } = setup();
    const session = hostSession("s");
    const events = new EventLog();
    events.turnStart(1);
    events.userMessage("Summarise the logs.");
    events.assistantText(1, 1, "Reading them now.");
    events.turnEnd(1, kind);
    feed(session, events.events);

    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([ids("s", 1)]);
    expect([...writer.stored.values()].map((r) => r.metadata.turn_end)).toEqual([kind, kind]);
  });

  it("names an end without a reason 'unknown'", async () => {
    const { writer, queue, feed } = setup();
    const session = hostSession("s");
    const events = new EventLog();
    events.turnStart(1);
    events.userMessage("hi");
    events.add("turn/end", { turn: 1 });
    feed(session, events.events);
    expect(await queue.drain(1_000)).toBe(true);
    expect([...writer.stored.values()].map((r) => r.metadata.turn_end)).toEqual(["unknown"]);
  });

  it("writes nothing for a turn/end without a turn number or for a turn it never saw", async () => {
    const { writer, log, queue, feed } = setup();
    const session = hostSession("s");
    const events = new EventLog();
    events.turnStart(1);
    events.userMessage("hi");
    events.add("turn/end", { reason: { kind: "error" } });
    events.turnEnd(7, "error");
    feed(session, events.events);
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([]);
    expect(log.warnings).toEqual([]);
  });
});

describe("TurnCapture refusals", () => {
  it.each([
    ["origin subagent", { origin: "subagent" }],
    ["a parentSession", { parentSession: "session-parent" }],
  ])("never writes a sub-agent session's turns (header with %s)", async (_label, header) => {
    const { writer, queue, buffer, feed, stopping } = setup();
    const session = hostSession("child", header);
    const events = new EventLog();
    events.simpleTurn(1, "sub-task", "sub-result");
    feed(session, events.events);
    stopping(session, 1);
    const from = events.events.length;
    events.simpleTurn(2, "sub-task 2", "sub-result 2");
    events.turnEnd(2, "error");
    feed(session, events.events.slice(from));
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([]);
    expect(buffer.size).toBe(0);
  });

  it("writes nothing while memory is disabled, on either path", async () => {
    const { writer, queue, feed, stopping } = setup({ enabled: false, holographic: true });
    const session = hostSession("s");
    const events = new EventLog();
    events.simpleTurn(1, "q1", "a1");
    feed(session, events.events);
    stopping(session, 1);
    feed(session, [events.turnEnd(1), events.turnStart(2), events.userMessage("q2"), events.turnEnd(2, "error")]);
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([]);
  });

  it("reads the settings at each turn's end, so enabling memory mid-session captures the next turn", async () => {
    const { settings, writer, queue, feed, stopping } = setup({ enabled: false, holographic: true });
    const session = hostSession("s");
    const events = new EventLog();
    events.simpleTurn(1, "q1", "a1");
    feed(session, events.events);
    stopping(session, 1);
    settings.enabled = true;
    feed(session, [events.turnEnd(1)]);
    const from = events.events.length;
    events.simpleTurn(2, "q2", "a2");
    feed(session, events.events.slice(from));
    stopping(session, 2);
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.accepted).toEqual(ids("s", 2));
  });
});

describe("TurnCapture highlights outside holographic mode", () => {
  it("writes only the turns marked with markHighlight, tagged highlight", async () => {
    const { writer, queue, capture, feed, stopping } = setup({ enabled: true, holographic: false });
    const session = hostSession("s");
    const events = new EventLog();
    events.simpleTurn(1, "chit-chat", "sure");
    feed(session, events.events);
    stopping(session, 1);
    feed(session, [events.turnEnd(1), events.turnStart(2), events.userMessage("Remember: I am allergic to nuts.")]);
    expect(capture.markHighlight("s")).toBe(2);
    feed(session, [events.assistantText(2, 1, "Noted.")]);
    stopping(session, 2);
    feed(session, [events.turnEnd(2)]);
    const from = events.events.length;
    events.simpleTurn(3, "more chit-chat", "ok");
    feed(session, events.events.slice(from));
    stopping(session, 3);

    expect(await queue.drain(1_000)).toBe(true);
    expect([...writer.stored.values()].map((r) => [r.id, r.tags, r.metadata.capture])).toEqual([
      ["turn:s:2:user", ["highlight"], "highlight"],
      ["turn:s:2:assistant", ["highlight"], "highlight"],
    ]);
  });

  it("tags a marked turn in holographic mode too, with capture holographic", async () => {
    const { writer, queue, capture, feed, stopping } = setup({ enabled: true, holographic: true });
    const session = hostSession("s");
    const events = new EventLog();
    events.simpleTurn(1, "Remember my birthday is May 2.", "Saved.");
    feed(session, events.events);
    capture.markHighlight("s");
    stopping(session, 1);
    expect(await queue.drain(1_000)).toBe(true);
    expect([...writer.stored.values()].map((r) => [r.tags, r.metadata.capture])).toEqual([
      [["highlight"], "holographic"],
      [["highlight"], "holographic"],
    ]);
  });

  it("returns undefined from markHighlight for a session with no open turn", () => {
    const { capture } = setup();
    expect(capture.markHighlight("nobody")).toBeUndefined();
  });

  it("writes a marked turn that ended in error", async () => {
    const { writer, queue, capture, feed } = setup({ enabled: true, holographic: false });
    const session = hostSession("s");
    const events = new EventLog();
    events.turnStart(4);
    events.userMessage("Remember the door code is 4711.");
    feed(session, events.events);
    capture.markHighlight("s");
    feed(session, [events.turnEnd(4, "error")]);
    expect(await queue.drain(1_000)).toBe(true);
    expect([...writer.stored.values()].map((r) => [r.id, r.tags, r.metadata.turn_end])).toEqual([["turn:s:4:user", ["highlight"], "error"]]);
  });
});

describe("TurnCapture when a session is disposed", () => {
  it("drops the session's marks, so a session resumed under the same id does not inherit a highlight", async () => {
    const { writer, queue, capture, feed, stopping } = setup({ enabled: true, holographic: false });
    const session = hostSession("s");
    const before = new EventLog();
    before.turnStart(1);
    before.userMessage("Remember the door code is 4711.");
    feed(session, before.events);
    capture.markHighlight("s"); // the session is disposed before this turn ever ends
    capture.forgetSession("s");

    const after = new EventLog();
    after.simpleTurn(1, "chit-chat after the restart", "sure");
    feed(session, after.events);
    stopping(session, 1);
    expect(await queue.drain(1_000)).toBe(true);
    expect([...writer.stored.keys()]).toEqual([]);
  });
});

describe("TurnCapture of a turn whose start it missed", () => {
  function loggedTurns(): EventLog {
    const events = new EventLog(20_000);
    events.simpleTurn(1, "first question", "first answer");
    events.turnEnd(1);
    events.simpleTurn(2, "second question", "second answer");
    return events;
  }

  it("replays the turn from session.snapshotEvents() and writes only that turn", async () => {
    const { writer, log, queue, feed, stopping } = setup();
    const events = loggedTurns();
    const session: HostSession = { ...hostSession("s"), snapshotEvents: () => events.events };
    stopping(session, 2);
    feed(session, [events.turnEnd(2)]);

    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([ids("s", 2)]);
    expect(writer.texts()).toEqual({ "turn:s:2:user": "second question", "turn:s:2:assistant": "second answer" });
    expect(log.warnings).toEqual([]);
  });

  it("replays the turn from a 0.1.x session's events list", async () => {
    const { writer, queue, stopping } = setup();
    const events = new EventLog();
    events.simpleTurn(1, "first question", "first answer");
    stopping({ ...hostSession("s"), events: events.events }, 1);
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.texts()).toEqual({ "turn:s:1:user": "first question", "turn:s:1:assistant": "first answer" });
  });

  it.each([
    ["offers no reader", () => hostSession("s")],
    ["has a reader that throws", () => ({ ...hostSession("s"), snapshotEvents: () => { throw new Error("gone in 0.3"); } })],
    ["has a log without that turn's start", () => ({ ...hostSession("s"), snapshotEvents: () => loggedTurns().events.slice(0, 3) })],
  ])("warns and writes nothing when the session %s", async (_label, makeSession) => {
    const { writer, log, queue, stopping } = setup();
    stopping(makeSession() as HostSession, 2);
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([]);
    expect(log.warnings).toEqual(["turn 2 of session s closed before the plugin saw it start; not captured"]);
  });

  it("ignores a turn-stopping without a session", () => {
    const { log, capture } = setup();
    expect(() => capture.onTurnStopping({ turn: 1, signal: new AbortController().signal } as unknown as TurnStoppingPayload)).not.toThrow();
    expect(log.warnings).toEqual([]);
  });
});

describe("turnKey", () => {
  it("joins session and turn with a NUL character", () => {
    expect(turnKey("s", 12)).toBe("s\u000012");
  });
});

import type { TurnSnapshot } from "../../../plugin/capture/turn-buffer";
import { HIGHLIGHT_TAG, turnRecordId, turnRecords } from "../../../plugin/capture/turn-records";

function snapshot(overrides: Partial<TurnSnapshot> = {}): TurnSnapshot {
  return {
    sessionId: "session-7",
    turn: 4,
    cwd: "/home/ada/project",
    userText: "Where did I put my mug?",
    assistantText: "On the second shelf.",
    startedMs: 1_000.9,
    userMs: 1_002.5,
    assistantMs: 1_050.75,
    model: { provider: "deepseek-official", model: "deepseek-v4-flash" },
    toolNames: ["read", "grep", "read"],
    ...overrides,
  };
}

describe("turnRecordId", () => {
  it("derives the id from session, turn and part", () => {
    expect(turnRecordId("session-7", 4, "user")).toBe("turn:session-7:4:user");
    expect(turnRecordId("s", 0, "assistant")).toBe("turn:s:0:assistant");
  });
});

describe("turnRecords", () => {
  it("writes a user and an assistant record with truncated timestamps and the turn's metadata", () => {
    const metadata = {
      captured_by: "dsh-plugin",
      capture: "holographic",
      cwd: "/home/ada/project",
      provider: "deepseek-official",
      model: "deepseek-v4-flash",
      tools: ["read", "grep"],
    };
    expect(turnRecords(snapshot(), { highlighted: false, holographic: true })).toEqual([
      { id: "turn:session-7:4:user", text: "Where did I put my mug?", source_type: "user_message", timestamp_ms: 1_002, session_id: "session-7", turn: 4, metadata },
      { id: "turn:session-7:4:assistant", text: "On the second shelf.", source_type: "assistant_message", timestamp_ms: 1_050, session_id: "session-7", turn: 4, metadata },
    ]);
  });

  it("tags both records as highlight and names the capture mode when a fact was remembered outside holographic mode", () => {
    const records = turnRecords(snapshot(), { highlighted: true, holographic: false });
    expect(records.map((r) => [r.id, r.tags, r.metadata.capture])).toEqual([
      ["turn:session-7:4:user", [HIGHLIGHT_TAG], "highlight"],
      ["turn:session-7:4:assistant", [HIGHLIGHT_TAG], "highlight"],
    ]);
    expect(HIGHLIGHT_TAG).toBe("highlight");
  });

  it("has no tags key on records of an unhighlighted turn", () => {
    for (const record of turnRecords(snapshot(), { highlighted: false, holographic: true })) expect(Object.keys(record)).not.toContain("tags");
  });

  it("records how a turn ended when it closed without turn-stopping", () => {
    const records = turnRecords(snapshot(), { endReason: "error", highlighted: false, holographic: true });
    expect(records.map((r) => r.metadata.turn_end)).toEqual(["error", "error"]);
  });

  it("leaves out cwd, provider, model and tools when the snapshot has none", () => {
    const records = turnRecords(snapshot({ cwd: undefined, model: undefined, toolNames: [] }), { highlighted: false, holographic: true });
    expect(records.map((r) => r.metadata)).toEqual([
      { captured_by: "dsh-plugin", capture: "holographic" },
      { captured_by: "dsh-plugin", capture: "holographic" },
    ]);
  });

  it("keeps at most 32 distinct tool names in first-use order", () => {
    const toolNames = Array.from({ length: 40 }, (_, i) => `tool_${i % 35}`);
    const [user] = turnRecords(snapshot({ toolNames }), { highlighted: false, holographic: true });
    expect(user!.metadata.tools).toEqual(Array.from({ length: 32 }, (_, i) => `tool_${i}`));
  });

  it("writes no user record for an empty user text and no assistant record for an empty reply", () => {
    expect(turnRecords(snapshot({ userText: "" }), { highlighted: false, holographic: true }).map((r) => r.id)).toEqual(["turn:session-7:4:assistant"]);
    expect(turnRecords(snapshot({ assistantText: "" }), { highlighted: false, holographic: true }).map((r) => r.id)).toEqual(["turn:session-7:4:user"]);
    expect(turnRecords(snapshot({ userText: "", assistantText: "" }), { highlighted: true, holographic: false })).toEqual([]);
  });

  it("falls back to the user message time, then the turn start, for records without their own time", () => {
    const noAssistantTime = turnRecords(snapshot({ assistantMs: undefined }), { highlighted: false, holographic: true });
    expect(noAssistantTime.map((r) => r.timestamp_ms)).toEqual([1_002, 1_002]);
    const noTimes = turnRecords(snapshot({ userMs: undefined, assistantMs: undefined }), { highlighted: false, holographic: true });
    expect(noTimes.map((r) => r.timestamp_ms)).toEqual([1_000, 1_000]);
  });
});

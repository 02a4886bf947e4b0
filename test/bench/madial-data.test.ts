import { checkEvidence, loadDialogues, loadMemories, parseJsonLines } from "../../bench/madial-data";

describe("MADial-Bench loader", () => {
  it("parses one JSON value per line, tolerating CRLF line ends and blank lines", () => {
    expect(parseJsonLines('{"a":1}\r\n\r\n{"b":2}\r\n')).toEqual([{ a: 1 }, { b: 2 }]);
    expect(parseJsonLines('{"a":1}\n{"b":2}')).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("names the 1-based line of a line that is not JSON", () => {
    expect(() => parseJsonLines('{"a":1}\n{oops}\n')).toThrow(/line 2 is not JSON/);
  });

  it("reads memories keyed by id with their user and event text", () => {
    const text = '{"7": {"time": "2023-12-25", "scene": "活动类", "emotion": "开心", "event": "Bart在圣诞节晚会上跳舞。", "user-id": 1, "id": "7"}}\n';
    expect(loadMemories(text)).toEqual([{ id: "7", userId: 1, event: "Bart在圣诞节晚会上跳舞。", time: "2023-12-25" }]);
  });

  it("builds the query from every dialogue line before the first test turn, whatever the order of test turns", () => {
    const line = JSON.stringify({ dialogue: ["<BOD>\n", '<Bart>:"嘿"\n', '<Assistant>:"你好"\n', '<Bart>:"魔术"\n', '<Assistant>:"棒"\n', "<EOD>\n"], "test-turn": [4, 2], "relevant-id": [7, 9], "user-id": 1, id: 0 });
    expect(loadDialogues(`${line}\r\n`)).toEqual([{ id: "0", userId: 1, query: '<BOD>\n<Bart>:"嘿"\n', evidence: ["7", "9"] }]);
  });

  it("rejects evidence that names another user's memory", () => {
    const memories = [{ id: "7", userId: 2, event: "x", time: "" }];
    expect(() => checkEvidence([{ id: "0", userId: 1, query: "q", evidence: ["7"] }], memories)).toThrow(/evidence 7 is not a memory of user 1/);
  });
});

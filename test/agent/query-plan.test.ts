// Query planning: the strict validation of a model's rewrite, and the honest fallback to the heuristic.
import { ChatModelError, type ChatMessage, type ChatModel } from "../../bridge/agent/chat-model";
import { parseRewrite, planQuery, REWRITE_PROMPT } from "../../bridge/agent/query-plan";

function modelAnswering(answer: string | Error): ChatModel & { calls: Array<{ messages: readonly ChatMessage[]; json?: boolean }> } {
  const calls: Array<{ messages: readonly ChatMessage[]; json?: boolean }> = [];
  return {
    model: "stub",
    calls,
    complete: async (messages, options) => {
      calls.push({ messages, json: options?.json });
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

describe("parseRewrite", () => {
  it("accepts exactly a non-empty query and a known intent, trimming the query", () => {
    expect(parseRewrite('{"query":"  blue mug ","intent":"timeline"}')).toEqual({ query: "blue mug", intent: "timeline" });
  });

  it.each([
    ["not json", "not a JSON object"],
    ['```json\n{"query":"x","intent":"latest"}\n```', "not a JSON object"],
    ['["x"]', "not a JSON object"],
    ['{"query":"x","intent":"latest","why":"y"}', 'unexpected field "why"'],
    ['{"query":"","intent":"latest"}', "query must be a non-empty string"],
    ['{"query":"x","intent":"recent"}', 'intent must be "latest" or "timeline"'],
  ])("refuses %j, saying why", (answer, why) => {
    expect(parseRewrite(answer)).toBe(why);
  });
});

describe("planQuery", () => {
  it("uses the message and the zh/en heuristic when no model is given", async () => {
    await expect(planQuery("蓝色马克杯的完整历史", [], undefined)).resolves.toEqual({ query: "蓝色马克杯的完整历史", intent: "timeline", source: "heuristic" });
  });

  it("asks the model for a JSON object, with the earlier turns, and takes its rewrite", async () => {
    const model = modelAnswering('{"query":"blue mug history","intent":"timeline"}');
    const recent: ChatMessage[] = [{ role: "user", content: "I bought a blue mug" }, { role: "assistant", content: "Nice!" }];
    await expect(planQuery("what happened to it?", recent, model)).resolves.toEqual({ query: "blue mug history", intent: "timeline", source: "llm" });
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]!.json).toBe(true);
    expect(model.calls[0]!.messages[0]).toEqual({ role: "system", content: REWRITE_PROMPT });
    expect(model.calls[0]!.messages[1]!.content).toBe("Earlier turns:\nuser: I bought a blue mug\nassistant: Nice!\n\nLatest message:\nwhat happened to it?");
  });

  it("falls back to the heuristic and says why when the answer is unusable", async () => {
    const plan = await planQuery("Where is my passport?", [], modelAnswering('{"query":"passport","intent":"current"}'));
    expect(plan).toEqual({ query: "Where is my passport?", intent: "latest", source: "heuristic", fallback: 'query rewrite unusable: intent must be "latest" or "timeline"' });
  });

  it("falls back to the heuristic and says why when the model fails", async () => {
    const plan = await planQuery("history of my keys", [], modelAnswering(new ChatModelError("rate limited (HTTP 429) by x after 4 attempts", "wait")));
    expect(plan).toEqual({ query: "history of my keys", intent: "timeline", source: "heuristic", fallback: "query rewrite failed: rate limited (HTTP 429) by x after 4 attempts" });
  });
});

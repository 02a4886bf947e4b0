// holo_timeline: every relevant memory about something, oldest first, with nothing collapsed, for
// questions about how it went ("bought a mug → broke it → bought another").
import { defineMemoryTool, optionalTopK, renderHits, requireText, shortHit, TOOL_TIMEOUT_MS, type MemoryHit, type ToolDeps } from "./tool-kit";
import type { ToolDefinition } from "../host-types";

export function holoTimelineTool(deps: ToolDeps): ToolDefinition {
  return defineMemoryTool({
    name: "holo_timeline",
    description:
      "Search DSH-DREAM long-term memory for the history of something: the relevant memories in time order (oldest first), " +
      "including earlier states that holo_search would collapse.",
    properties: {
      query: { type: "string", description: "Whose history to trace, in the user's words." },
      top_k: { type: "integer", minimum: 1, maximum: 50, description: "How many memories to return (default 10)." },
    },
    required: ["query"],
    async run(args) {
      const query = requireText(args, "query", 8192);
      const answer = await deps.call<{ results: MemoryHit[]; receipt: { receipt_id: string; recall: string } }>(
        "search",
        { query, top_k: optionalTopK(args, 10), timeline: true },
        TOOL_TIMEOUT_MS,
      );
      return { results: answer.results.map(shortHit), receipt_id: answer.receipt.receipt_id, recall: answer.receipt.recall };
    },
    render: (value) => `${renderHits(value.results as MemoryHit[], "Timeline, oldest first")}\n${String(value.recall)} · receipt ${String(value.receipt_id)}`,
  });
}

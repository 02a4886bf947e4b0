// holo_search: the model asks long-term memory directly, newest state of each thing (conflicting
// older states collapse), with the receipt id that explains the ranking.
import { defineMemoryTool, optionalTopK, renderHits, requireText, shortHit, TOOL_TIMEOUT_MS, type MemoryHit, type ToolDeps } from "./tool-kit";
import type { ToolDefinition } from "../host-types";

export function holoSearchTool(deps: ToolDeps): ToolDefinition {
  return defineMemoryTool({
    name: "holo_search",
    description:
      "Search DSH-DREAM long-term memory (every earlier conversation turn and remembered fact) for what is true now. " +
      "Superseded states (e.g. an object's old location) collapse to the newest. Use holo_timeline for how something changed over time.",
    properties: {
      query: { type: "string", description: "What to look for, in the user's words (Chinese or English)." },
      top_k: { type: "integer", minimum: 1, maximum: 50, description: "How many memories to return (default 5)." },
    },
    required: ["query"],
    async run(args) {
      const query = requireText(args, "query", 8192);
      const answer = await deps.call<{ results: MemoryHit[]; receipt: { receipt_id: string; recall: string } }>(
        "search",
        { query, top_k: optionalTopK(args, 5) },
        TOOL_TIMEOUT_MS,
      );
      return { results: answer.results.map(shortHit), receipt_id: answer.receipt.receipt_id, recall: answer.receipt.recall };
    },
    render: (value) => `${renderHits(value.results as MemoryHit[], "Memories")}\n${String(value.recall)} · receipt ${String(value.receipt_id)}`,
  });
}

// holo_forget: removes one memory by id and answers with a receipt of exactly what was removed,
// so the user can see (and, from the receipt, restore) what left long-term memory.
import { defineMemoryTool, requireText, TOOL_TIMEOUT_MS, type ToolDeps } from "./tool-kit";
import type { MemoryRecord } from "../../bridge/store/records";
import type { ToolDefinition } from "../host-types";
import { isoTime } from "../../bridge/protocol/time";

export function holoForgetTool(deps: ToolDeps): ToolDefinition {
  return defineMemoryTool({
    name: "holo_forget",
    description: "Forget one memory in DSH-DREAM long-term memory by its id (ids come from holo_search / holo_timeline). Answers with what was removed.",
    properties: { id: { type: "string", description: "The memory id to forget." } },
    required: ["id"],
    async run(args) {
      const id = requireText(args, "id", 256);
      const answer = await deps.call<{ forgotten: MemoryRecord }>("forget", { id }, TOOL_TIMEOUT_MS);
      const r = answer.forgotten;
      return {
        removed: { id: r.id, text: r.text, source_type: r.source_type, timestamp_ms: r.timestamp_ms, session_id: r.session_id ?? null, turn: r.turn ?? null },
        at_ms: deps.nowMs(),
      };
    },
    render: (value) => {
      const r = value.removed as MemoryRecord;
      return `Forgot ${r.id} (${r.source_type}, ${isoTime(r.timestamp_ms)}): ${r.text.slice(0, 500)}`;
    },
  });
}

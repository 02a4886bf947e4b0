// holo_search: the model asks long-term memory directly, newest state of each thing (conflicting
// older states collapse), with the receipt id that explains the ranking.
import { defineSearchTool, type ToolDeps } from "./tool-kit";
import type { ToolDefinition } from "../host-types";

export function holoSearchTool(deps: ToolDeps): ToolDefinition {
  return defineSearchTool(deps, {
    name: "holo_search",
    description:
      "Search DSH-DREAM long-term memory (every earlier conversation turn and remembered fact) for what is true now. " +
      "Superseded states (e.g. an object's old location) collapse to the newest. Use holo_timeline for how something changed over time.",
    queryHint: "What to look for, in the user's words (Chinese or English).",
    timeline: false,
    defaultTopK: 5,
    header: "Memories",
  });
}

// holo_timeline: every relevant memory about something, oldest first, with nothing collapsed, for
// questions about how it went ("bought a mug → broke it → bought another").
import { defineSearchTool, type ToolDeps } from "./tool-kit";
import type { ToolDefinition } from "../host-types";

export function holoTimelineTool(deps: ToolDeps): ToolDefinition {
  return defineSearchTool(deps, {
    name: "holo_timeline",
    description:
      "Search DSH-DREAM long-term memory for the history of something: the relevant memories in time order (oldest first), " +
      "including earlier states that holo_search would collapse.",
    queryHint: "Whose history to trace, in the user's words.",
    timeline: true,
    defaultTopK: 10,
    header: "Timeline, oldest first",
  });
}

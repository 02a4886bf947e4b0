// The memory tools, registered together while long-term memory is enabled.
import type { ToolDefinition } from "../host-types";
import { holoForgetTool } from "./holo-forget";
import { holoReceiptTool } from "./holo-receipt";
import { holoRememberTool } from "./holo-remember";
import { holoSearchTool } from "./holo-search";
import { holoTimelineTool } from "./holo-timeline";
import type { ToolDeps } from "./tool-kit";

export function memoryTools(deps: ToolDeps): ToolDefinition[] {
  return [holoSearchTool(deps), holoTimelineTool(deps), holoRememberTool(deps), holoForgetTool(deps), holoReceiptTool(deps)];
}

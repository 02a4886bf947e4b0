// holo_receipt: why memories came back — the bridge's receipt (ranks, scores, fusion, fallback) for
// the last recall of this session or a given receipt id, with the plugin's half of the audit
// snapshot (what was injected, truncated, the window hash and anchor version).
import { defineMemoryTool, sessionOf, TOOL_TIMEOUT_MS, type ToolDeps } from "./tool-kit";
import type { ToolDefinition } from "../host-types";

export function holoReceiptTool(deps: ToolDeps): ToolDefinition {
  return defineMemoryTool({
    name: "holo_receipt",
    description: "Show the receipt of the last DSH-DREAM memory recall (or of a given receipt id): which memories were retrieved and why.",
    properties: { receipt_id: { type: "string", description: "A receipt id (rcpt_…); default: the last recall of this conversation." } },
    required: [],
    async run(args, exec) {
      if (args.receipt_id !== undefined && (typeof args.receipt_id !== "string" || args.receipt_id === "")) throw new Error("receipt_id must be a non-empty string");
      const sessionId = sessionOf(exec);
      const note = sessionId === undefined ? undefined : deps.lastRecall(sessionId);
      const receiptId = (args.receipt_id as string | undefined) ?? note?.receipt_id ?? undefined;
      const answer = await deps.call<{ receipt: Record<string, unknown> }>("receipt", receiptId ? { receipt_id: receiptId } : {}, TOOL_TIMEOUT_MS);
      const injection = note && note.receipt_id === answer.receipt.receipt_id ? note : null;
      return { receipt: answer.receipt, injection };
    },
    render: (value) => JSON.stringify(value, null, 1).slice(0, 12_000),
  });
}

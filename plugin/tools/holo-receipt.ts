// holo_receipt: why memories came back — the bridge's receipt (ranks, scores, fusion, fallback) for
// the last recall of this session or a given receipt id, with the plugin's half of the audit
// snapshot (what was injected, truncated, the window hash and anchor version).
import { collapsedSlotLines, redactionLines, withheldLines } from "../../bridge/store/receipt-lines";
import { defineMemoryTool, sessionOf, TOOL_TIMEOUT_MS, type ToolDeps } from "./tool-kit";
import type { ToolDefinition } from "../host-types";
import type { RecallNote } from "../recall/recall";
import { isoTime } from "../../bridge/protocol/time";

const MAX_CANDIDATES_SHOWN = 20;

/** The receipt as the model reads it: what was asked, how, and why each memory ranked where it did. */
function renderReceipt(receipt: Record<string, any>, injection: RecallNote | null): string {
  const lines = [
    `Receipt ${receipt.receipt_id} (${isoTime(receipt.created_at_ms)})`,
    `query: ${JSON.stringify(receipt.query)} · mode ${receipt.mode} · top_k ${receipt.top_k}`,
    `${receipt.recall}${receipt.dense ? ` · ${receipt.dense.provider}/${receipt.dense.model} (${receipt.dense.dim}d)` : ""}`,
    `retrieved: ${(receipt.retrieved_chunk_ids as string[]).join(", ") || "nothing"}`,
    `lexical recall preserved: ${receipt.lexical_recall_preserved} · dense-only: ${(receipt.dense_only_candidates as string[]).join(", ") || "none"}`,
    `window hash: ${receipt.window_hash ?? "none"} · anchor version: ${receipt.anchor_version ?? "none"}`,
  ];
  for (const c of (receipt.candidates as any[]).slice(0, MAX_CANDIDATES_SHOWN)) {
    lines.push(`  ${c.selected ? "✓" : "·"} ${c.id}: lexical #${c.lexical_rank ?? "-"} (${fixed(c.lexical_score)}), dense #${c.dense_rank ?? "-"} (${fixed(c.dense_score)}), rrf ${fixed(c.rrf_score)}`);
  }
  for (const line of [...collapsedSlotLines(receipt.collapsed_slots ?? []), ...withheldLines(receipt.withheld), ...redactionLines(receipt.redactions)]) lines.push(`  ${line}`);
  if (injection) {
    lines.push(`injected into turn ${injection.turn} (${injection.intent}): ${injection.injected_ids.join(", ") || "nothing"}${injection.truncated_ids.length ? ` · truncated: ${injection.truncated_ids.join(", ")}` : ""}`);
  }
  return lines.join("\n");
}

function fixed(value: unknown): string {
  return typeof value === "number" ? value.toFixed(4) : "-";
}

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
    render: (value) => renderReceipt(value.receipt as Record<string, any>, value.injection as RecallNote | null),
  });
}

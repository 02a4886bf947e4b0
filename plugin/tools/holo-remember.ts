// holo_remember: stores a fact as a `system_fact` tagged as a highlight of the turn it came from,
// and marks that turn so it is written in full even when holographic mode is off.
import { createHash, randomUUID } from "node:crypto";
import { HIGHLIGHT_TAG } from "../capture/turn-records";
import { defineMemoryTool, requireText, sessionOf, TOOL_TIMEOUT_MS, type ToolDeps } from "./tool-kit";
import type { ToolDefinition } from "../host-types";
import { redactSecrets } from "../../bridge/store/redact";

const FACT_CHARS = 4_000;

export function holoRememberTool(deps: ToolDeps): ToolDefinition {
  return defineMemoryTool({
    name: "holo_remember",
    description:
      "Remember one fact in DSH-DREAM long-term memory (a preference, a decision, where something is). " +
      "Every turn is already kept in full when holographic mode is on; this marks the fact as a highlight of the current turn.",
    properties: { fact: { type: "string", description: "The fact, as one self-contained sentence." } },
    required: ["fact"],
    async run(args, exec) {
      const fact = requireText(args, "fact", FACT_CHARS);
      const sessionId = sessionOf(exec);
      const turn = sessionId === undefined ? undefined : deps.markHighlight(sessionId);
      // Derived from (session, turn, text) so a retried call stores the fact once; from the text as the
      // bridge stores it (secrets redacted), since 48 bits of hash over "my PIN is 4821" is a lookup away.
      const id =
        sessionId !== undefined && turn !== undefined
          ? `fact:${sessionId}:${turn}:${createHash("sha256").update(redactSecrets(fact).text).digest("hex").slice(0, 12)}`
          : `fact:${randomUUID()}`;
      const record: Record<string, unknown> = {
        id,
        text: fact,
        source_type: "system_fact",
        timestamp_ms: deps.nowMs(),
        tags: [HIGHLIGHT_TAG],
        metadata: { captured_by: "holo_remember" },
      };
      if (sessionId !== undefined) record.session_id = sessionId;
      if (turn !== undefined) record.turn = turn;
      const answer = await deps.call<{ record: { id: string }; status: string }>("add", record, TOOL_TIMEOUT_MS);
      return { id: answer.record.id, status: answer.status, session_id: sessionId ?? null, turn: turn ?? null };
    },
    render: (value) => `Remembered (${String(value.status)}) as ${String(value.id)}; highlighted on turn ${String(value.turn)}.`,
  });
}

// Recall at `agent/pre-step`: after the loop has claimed the user's message, search the bridge
// within the time budget and add one bounded message of our own source kind. A slow, absent or
// failing bridge costs at most the budget; the step always goes ahead.
import { createHash, randomUUID } from "node:crypto";
import type { PreStepDecision, PreStepPayload, UserMessage } from "../host-types";
import { isSubagentSession } from "../capture/capture";
import { OWN_SOURCE_KIND, type TurnBuffer } from "../capture/turn-buffer";
import { turnRecordId } from "../capture/turn-records";
import type { PluginConfig } from "../config";
import { anchorVersion, buildContextMessage, type ContextMessage, type RecalledMemory } from "./context-message";
import { detectIntent, type RecallIntent } from "./intent";

export interface SearchAnswer {
  results: RecalledMemory[];
  receipt: { receipt_id: string; recall?: string; fallback_reason?: string | null };
}

export interface RecallBridge {
  search(params: Record<string, unknown>, timeoutMs: number): Promise<SearchAnswer>;
  /** Waits up to `timeoutMs` for captured turns still on their way to the bridge. */
  drainWrites(timeoutMs: number): Promise<boolean>;
}

export interface RecallLog {
  warn(message: string): void;
}

/** What the last recall of a session did: the plugin's half of the audit snapshot. */
export interface RecallNote {
  session_id: string;
  turn: number;
  at_ms: number;
  intent: RecallIntent;
  receipt_id: string | null;
  injected_ids: string[];
  truncated_ids: string[];
  anchor_version: string | null;
  window_hash: string | null;
  recall: string;
}

const MAX_QUERY_CHARS = 8192;
const MAX_WINDOW_IDS = 200;
/** At most this share of the budget waits for the session's own last turn to reach the bridge. */
const DRAIN_SHARE = 0.3;

export class Recall {
  private readonly notes = new Map<string, RecallNote>();

  constructor(
    private readonly buffer: TurnBuffer,
    private readonly bridge: RecallBridge,
    private readonly settings: () => PluginConfig,
    private readonly log: RecallLog,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async onPreStep(payload: PreStepPayload, next: () => Promise<PreStepDecision>): Promise<PreStepDecision> {
    const decision = await next();
    try {
      return await this.extend(payload, decision);
    } catch (error) {
      this.log.warn(`recall skipped: ${(error as Error).message}`);
      return decision;
    }
  }

  lastNote(sessionId: string): RecallNote | undefined {
    return this.notes.get(sessionId);
  }

  /** The newest recall of any session (the Memories page cannot tell which session the user is in). */
  newestNote(): RecallNote | undefined {
    let newest: RecallNote | undefined;
    for (const note of this.notes.values()) if (newest === undefined || note.at_ms >= newest.at_ms) newest = note;
    return newest;
  }

  private async extend(payload: PreStepPayload, decision: PreStepDecision): Promise<PreStepDecision> {
    const config = this.settings();
    if (decision.kind !== "enter" || !config.enabled || payload.signal?.aborted) return decision;
    const session = payload.agent?.session;
    if (!session || isSubagentSession(session)) return decision;
    const query = userText(decision.messages);
    if (query === "") return decision; // a tool-result step: recall ran when the turn began
    const sessionId = session.header.id;
    const started = this.nowMs();
    const remaining = () => config.recall.timeBudgetMs - (this.nowMs() - started);
    const intent = detectIntent(query);
    const excludeIds = this.windowIds(sessionId, payload.turn);
    const windowHash = excludeIds.length > 0 ? "window:" + createHash("sha256").update(excludeIds.join("\n")).digest("hex").slice(0, 16) : null;
    const anchors = anchorVersion(config.anchors);
    let memories: RecalledMemory[] = [];
    let receiptId: string | null = null;
    let recallLine: string;
    try {
      await this.bridge.drainWrites(Math.max(0, Math.floor(config.recall.timeBudgetMs * DRAIN_SHARE)));
      const answer = await abortable(
        this.bridge.search(
          {
            query: query.slice(0, MAX_QUERY_CHARS),
            top_k: config.recall.topK,
            timeline: intent === "timeline",
            ...(excludeIds.length > 0 ? { exclude_ids: excludeIds } : {}),
            ...(windowHash ? { window_hash: windowHash } : {}),
            ...(anchors ? { anchor_version: anchors } : {}),
          },
          Math.max(1, remaining()),
        ),
        payload.signal,
      );
      memories = answer.results;
      receiptId = answer.receipt.receipt_id;
      recallLine = answer.receipt.recall ?? "Recall: done";
    } catch (error) {
      recallLine = `Recall: unavailable (${(error as Error).message})`;
      this.log.warn(`recall for session ${sessionId} turn ${payload.turn} went without memories: ${(error as Error).message}`);
    }
    if (payload.signal?.aborted) return decision;
    let message: ContextMessage | undefined;
    try {
      message = buildContextMessage({ anchors: config.anchors, memories, intent, maxTokens: config.recall.maxTokens });
    } catch (error) {
      // One memory that cannot be shown must not cost the step its anchors: they go out alone.
      this.log.warn(`recall for session ${sessionId} turn ${payload.turn} left its memories out: ${(error as Error).message}`);
      recallLine = `Recall: memories left out (${(error as Error).message})`;
      message = buildContextMessage({ anchors: config.anchors, memories: [], intent, maxTokens: config.recall.maxTokens });
    }
    this.notes.set(sessionId, {
      session_id: sessionId,
      turn: payload.turn,
      at_ms: this.nowMs(),
      intent,
      receipt_id: receiptId,
      injected_ids: message?.injectedIds ?? [],
      truncated_ids: message?.truncatedIds ?? [],
      anchor_version: anchors,
      window_hash: windowHash,
      recall: recallLine,
    });
    if (!message) return decision;
    return { kind: "enter", messages: [...decision.messages, recallMessage(message.text, receiptId)] };
  }

  /** Ids of this session's turns already in the conversation, newest kept when there are many. */
  private windowIds(sessionId: string, turn: number): string[] {
    const ids = this.buffer
      .windowTurns(sessionId, turn)
      .flatMap((t) => [turnRecordId(sessionId, t, "user"), turnRecordId(sessionId, t, "assistant")]);
    return ids.slice(-MAX_WINDOW_IDS);
  }
}

function userText(messages: readonly UserMessage[]): string {
  return messages
    .filter((m) => m?.source?.kind === "user")
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b?.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n")
    .trim();
}

function recallMessage(text: string, receiptId: string | null): UserMessage {
  const source = receiptId ? { kind: OWN_SOURCE_KIND, form: "recall", receipt: receiptId } : { kind: OWN_SOURCE_KIND, form: "recall" };
  return Object.freeze({ id: randomUUID(), role: "user" as const, content: [{ type: "text", text }], source });
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error("the turn was cancelled"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

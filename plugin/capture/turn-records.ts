// A finished turn as store records: the full user message and the full assistant reply, with ids
// derived from (session, turn) so a repeated turn-stopping writes the same records, not new ones.
import type { TurnSnapshot } from "./turn-buffer";

export const HIGHLIGHT_TAG = "highlight";

export interface TurnRecord {
  id: string;
  text: string;
  source_type: "user_message" | "assistant_message" | "system_fact";
  timestamp_ms: number;
  session_id: string;
  turn: number;
  tags?: string[];
  metadata: Record<string, unknown>;
}

export interface TurnEnd {
  /** Set when the turn closed without turn-stopping (error, aborted, …). */
  endReason?: string;
  /** A fact was remembered during the turn. */
  highlighted: boolean;
  /** Written because holographic mode is on (else only because of a highlight). */
  holographic: boolean;
}

export function turnRecordId(sessionId: string, turn: number, part: "user" | "assistant"): string {
  return `turn:${sessionId}:${turn}:${part}`;
}

export function turnRecords(snapshot: TurnSnapshot, end: TurnEnd): TurnRecord[] {
  const metadata: Record<string, unknown> = { captured_by: "dsh-plugin", capture: end.holographic ? "holographic" : "highlight" };
  if (snapshot.cwd) metadata.cwd = snapshot.cwd;
  if (snapshot.model?.provider) metadata.provider = snapshot.model.provider;
  if (snapshot.model?.model) metadata.model = snapshot.model.model;
  if (snapshot.toolNames.length > 0) metadata.tools = [...new Set(snapshot.toolNames)].slice(0, 32);
  if (end.endReason) metadata.turn_end = end.endReason;
  const tags = end.highlighted ? [HIGHLIGHT_TAG] : undefined;
  const base = { session_id: snapshot.sessionId, turn: snapshot.turn, metadata, ...(tags ? { tags } : {}) };
  const records: TurnRecord[] = [];
  if (snapshot.userText !== "") {
    records.push({
      ...base,
      id: turnRecordId(snapshot.sessionId, snapshot.turn, "user"),
      text: snapshot.userText,
      source_type: "user_message",
      timestamp_ms: Math.trunc(snapshot.userMs ?? snapshot.startedMs),
    });
  }
  if (snapshot.assistantText !== "") {
    records.push({
      ...base,
      id: turnRecordId(snapshot.sessionId, snapshot.turn, "assistant"),
      text: snapshot.assistantText,
      source_type: "assistant_message",
      timestamp_ms: Math.trunc(snapshot.assistantMs ?? snapshot.userMs ?? snapshot.startedMs),
    });
  }
  return records;
}

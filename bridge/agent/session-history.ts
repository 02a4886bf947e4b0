// Where a stored chat session left off: its highest turn and its last exchanges, read exactly from
// the bridge's `export` pages (a search would rank, and might miss, turns).
import { exportPages } from "../client/export-pages";
import type { ChatMessage } from "./chat-model";
import type { MemoryApi } from "./memory-agent";

export interface SessionHistory {
  /** The turn number the next exchange gets: one past the highest stored, or 1. */
  nextTurn: number;
  /** The last `keepTurns` stored turns, oldest first, as chat messages. */
  recent: ChatMessage[];
}

export async function readSessionHistory(memory: MemoryApi, sessionId: string, keepTurns: number): Promise<SessionHistory> {
  const prefix = `chat:${sessionId}:`;
  const turns = new Map<number, { user?: string; assistant?: string }>();
  for await (const records of exportPages(memory)) {
    for (const r of records) {
      if (r.session_id !== sessionId || r.turn === undefined || !r.id.startsWith(prefix)) continue;
      const entry = turns.get(r.turn) ?? {};
      if (r.source_type === "user_message") entry.user = r.text;
      if (r.source_type === "assistant_message") entry.assistant = r.text;
      turns.set(r.turn, entry);
    }
  }
  const numbers = [...turns.keys()].sort((a, b) => a - b);
  const recent = numbers.slice(-keepTurns).flatMap((n) => {
    const { user, assistant } = turns.get(n)!;
    return [
      ...(user === undefined ? [] : [{ role: "user" as const, content: user }]),
      ...(assistant === undefined ? [] : [{ role: "assistant" as const, content: assistant }]),
    ];
  });
  return { nextTurn: (numbers.at(-1) ?? 0) + 1, recent };
}

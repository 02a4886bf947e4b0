// Our own per-session copy of the current turn, fed by `session/event`. Reading the session's log
// moved between DSH versions (`events` → `snapshotEvents()` → gone), the event stream did not.
// Only what capture and recall need is kept: the open turn's texts and the recent turn numbers.
import type { HostSession, SessionEvent } from "../host-types";

/** The plugin's own injected messages carry this source kind; capture never stores them. */
export const OWN_SOURCE_KIND = "dsh-dream";

export interface TurnSnapshot {
  sessionId: string;
  turn: number;
  cwd?: string;
  userText: string;
  assistantText: string;
  startedMs: number;
  userMs?: number;
  assistantMs?: number;
  model?: { provider?: string; model?: string };
  toolNames: string[];
}

interface OpenTurn extends TurnSnapshot {
  userParts: string[];
  assistantParts: string[];
}

interface SessionState {
  header: HostSession["header"];
  open?: OpenTurn;
  /** Turn numbers seen in this session, newest last (bounded). */
  recentTurns: number[];
  lastUsed: number;
}

const MAX_SESSIONS = 256;
const MAX_RECENT_TURNS = 100;
/** A turn's text beyond this is cut (the store's record limit is 200,000 characters). */
export const MAX_TURN_TEXT_CHARS = 190_000;

export class TurnBuffer {
  private readonly sessions = new Map<string, SessionState>();
  /** Use order for eviction (event times may be missing or out of order). */
  private tick = 0;

  /** Feeds one committed session event; never throws on unexpected shapes. */
  observe(session: HostSession, event: SessionEvent): void {
    const id = session?.header?.id;
    if (typeof id !== "string" || !event || typeof event.type !== "string") return;
    const state = this.stateFor(id, session.header);
    const data = (event.data ?? {}) as Record<string, unknown>;
    switch (event.type) {
      case "turn/start":
        state.open = newTurn(id, session.header.cwd, numberOr(data.turn, 0), event.time);
        pushRecent(state.recentTurns, state.open.turn);
        break;
      case "user/message":
        if (state.open) addUserMessage(state.open, data, event.time);
        break;
      case "assistant/message":
        if (state.open) addAssistantMessage(state.open, data, event.time);
        break;
      case "tool/call":
        if (state.open && typeof data.name === "string") state.open.toolNames.push(data.name);
        break;
    }
  }

  /** The open turn of a session if it is `turn`, as plain texts. */
  snapshot(sessionId: string, turn: number): TurnSnapshot | undefined {
    const open = this.sessions.get(sessionId)?.open;
    if (!open || open.turn !== turn) return undefined;
    const { userParts, assistantParts, ...rest } = open;
    return {
      ...rest,
      toolNames: [...open.toolNames],
      userText: clip(userParts.join("\n\n")),
      assistantText: clip(assistantParts.join("\n\n")),
    };
  }

  /** The turn currently open in a session (for tools that run inside a turn). */
  openTurn(sessionId: string): number | undefined {
    return this.sessions.get(sessionId)?.open?.turn;
  }

  /** Turn numbers of this session already in the model's context, newest last, excluding `current`. */
  windowTurns(sessionId: string, current: number): number[] {
    return (this.sessions.get(sessionId)?.recentTurns ?? []).filter((t) => t !== current);
  }

  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  get size(): number {
    return this.sessions.size;
  }

  private stateFor(id: string, header: HostSession["header"]): SessionState {
    let state = this.sessions.get(id);
    if (!state) {
      if (this.sessions.size >= MAX_SESSIONS) this.evictOldest();
      state = { header, recentTurns: [], lastUsed: 0 };
      this.sessions.set(id, state);
    }
    state.lastUsed = ++this.tick;
    return state;
  }

  private evictOldest(): void {
    let oldest: string | undefined;
    let oldestUse = Infinity;
    for (const [id, state] of this.sessions) {
      if (state.lastUsed < oldestUse) {
        oldest = id;
        oldestUse = state.lastUsed;
      }
    }
    if (oldest !== undefined) this.sessions.delete(oldest);
  }
}

function newTurn(sessionId: string, cwd: string | undefined, turn: number, timeMs: number): OpenTurn {
  return { sessionId, turn, cwd, userText: "", assistantText: "", startedMs: timeMs, toolNames: [], userParts: [], assistantParts: [] };
}

// Only the human's own words: runtime-context snapshots, plugin injections (ours included) and tool
// results also arrive as user-role messages, with other source kinds.
function addUserMessage(open: OpenTurn, data: Record<string, unknown>, timeMs: number): void {
  const source = data.source as { kind?: unknown } | undefined;
  if (source?.kind !== "user") return;
  const text = joinText(data.content);
  if (text === "") return;
  open.userParts.push(text);
  open.userMs ??= timeMs;
}

function addAssistantMessage(open: OpenTurn, data: Record<string, unknown>, timeMs: number): void {
  const message = data.message as { content?: unknown; source?: { provider?: unknown; model?: unknown } } | undefined;
  const text = joinText(message?.content);
  const source = message?.source;
  if (source && (typeof source.provider === "string" || typeof source.model === "string")) {
    open.model = { provider: stringOr(source.provider), model: stringOr(source.model) };
  }
  if (text === "") return; // a tool-call step has no text
  open.assistantParts.push(text);
  open.assistantMs = timeMs;
}

function joinText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .filter((block): block is { type: string; text: string } => block?.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("")
    .trim();
}

function pushRecent(list: number[], turn: number): void {
  if (list.at(-1) !== turn) list.push(turn);
  if (list.length > MAX_RECENT_TURNS) list.splice(0, list.length - MAX_RECENT_TURNS);
}

function clip(text: string): string {
  return text.length > MAX_TURN_TEXT_CHARS ? text.slice(0, MAX_TURN_TEXT_CHARS) + "\n…[cut: the turn was longer]" : text;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

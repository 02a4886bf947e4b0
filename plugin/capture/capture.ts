// Holographic capture: hands every finished turn of a top-level session to the capture queue.
// turn-stopping closes completed turns (it is serial and awaited, so we return at once); turn/end
// closes the ones that end in error or abort, which never see turn-stopping.
import type { HostSession, SessionEvent, TurnStoppingPayload } from "../host-types";
import { readSessionEvents } from "../host-features";
import type { CaptureQueue } from "./capture-queue";
import type { TurnBuffer, TurnSnapshot } from "./turn-buffer";
import { turnRecords } from "./turn-records";

export interface CaptureSettings {
  enabled: boolean;
  holographic: boolean;
}

export interface CaptureLog {
  warn(message: string): void;
}

/** Sub-agent sessions are the parent's work in progress; the parent's turn holds what matters. */
export function isSubagentSession(session: HostSession | undefined): boolean {
  const header = session?.header;
  return header?.origin === "subagent" || typeof header?.parentSession === "string";
}

export class TurnCapture {
  /** "session\0turn" of turns where a fact was remembered. */
  private readonly highlights = new Set<string>();
  /** Turns already handed over, so turn/end after turn-stopping does not write again. */
  private readonly closed = new Set<string>();

  constructor(
    private readonly buffer: TurnBuffer,
    private readonly queue: CaptureQueue,
    private readonly settings: () => CaptureSettings,
    private readonly log: CaptureLog,
  ) {}

  onSessionEvent(session: HostSession, event: SessionEvent): void {
    if (isSubagentSession(session)) return;
    this.buffer.observe(session, event);
    if (event?.type !== "turn/end") return;
    const data = (event.data ?? {}) as { turn?: unknown; reason?: { kind?: unknown } };
    const turn = typeof data.turn === "number" ? data.turn : undefined;
    if (turn === undefined) return;
    const key = turnKey(session.header.id, turn);
    if (this.closed.has(key)) {
      this.forgetTurn(key);
      return;
    }
    const reason = typeof data.reason?.kind === "string" ? data.reason.kind : "unknown";
    this.handOver(this.buffer.snapshot(session.header.id, turn), reason);
    this.forgetTurn(key);
  }

  /** Returns synchronously: the host awaits this listener before the turn may close. */
  onTurnStopping(payload: TurnStoppingPayload): void {
    const session = payload?.agent?.session;
    if (!session || isSubagentSession(session)) return;
    const snapshot = this.buffer.snapshot(session.header.id, payload.turn) ?? this.replay(session, payload.turn);
    if (!snapshot) {
      this.log.warn(`turn ${payload.turn} of session ${session.header.id} closed before the plugin saw it start; not captured`);
      return;
    }
    this.handOver(snapshot, undefined);
    this.closed.add(turnKey(snapshot.sessionId, snapshot.turn));
  }

  // The plugin started (or was reloaded) mid-turn, so its buffer missed turn/start: read the turn
  // from the session's own log where this host generation still offers a reader.
  private replay(session: HostSession, turn: number): TurnSnapshot | undefined {
    const events = readSessionEvents(session);
    if (!events) return undefined;
    let start = -1;
    events.forEach((e, i) => {
      if (e?.type === "turn/start" && (e.data as { turn?: unknown } | undefined)?.turn === turn) start = i;
    });
    if (start < 0) return undefined;
    for (const event of events.slice(start)) this.buffer.observe(session, event);
    return this.buffer.snapshot(session.header.id, turn);
  }

  /** Marks the open turn of a session as holding a remembered fact; returns its number. */
  markHighlight(sessionId: string): number | undefined {
    const turn = this.buffer.openTurn(sessionId);
    if (turn !== undefined) this.highlights.add(turnKey(sessionId, turn));
    return turn;
  }

  private handOver(snapshot: TurnSnapshot | undefined, endReason: string | undefined): void {
    if (!snapshot) return;
    const { enabled, holographic } = this.settings();
    const key = turnKey(snapshot.sessionId, snapshot.turn);
    const highlighted = this.highlights.has(key);
    if (!enabled || (!holographic && !highlighted)) return;
    this.queue.enqueue(key, turnRecords(snapshot, { endReason, highlighted, holographic }));
  }

  /** A disposed session's bookkeeping goes with it (a turn that never saw turn/end would stay forever). */
  forgetSession(sessionId: string): void {
    this.buffer.forget(sessionId);
    const prefix = turnKey(sessionId, 0).slice(0, -1);
    for (const set of [this.highlights, this.closed]) {
      for (const key of set) if (key.startsWith(prefix)) set.delete(key);
    }
  }

  private forgetTurn(key: string): void {
    this.closed.delete(key);
    this.highlights.delete(key);
  }
}

export function turnKey(sessionId: string, turn: number): string {
  return `${sessionId}\u0000${turn}`;
}

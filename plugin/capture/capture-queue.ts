// The write path from the host to the bridge: a bounded, deduplicating queue drained in the
// background, so a slow or absent bridge never holds up a turn. Durability starts when the bridge
// acknowledges (its journal is fsync'd); until then a turn lives only here, and the queue says so.
import type { TurnRecord } from "./turn-records";

export interface RecordWriter {
  /** Writes records in one call; resolves with the bridge's import report. */
  importRecords(records: TurnRecord[]): Promise<{ rejected: Array<{ index: number; code: string; message: string }> }>;
  /** Removes one record (used to replace a turn whose text grew after it was written). */
  forget(id: string): Promise<void>;
}

export interface CaptureLog {
  warn(message: string): void;
}

export interface QueueStats {
  pending: number;
  written: number;
  dropped: number;
  lastError: string | null;
}

interface Pending {
  key: string;
  records: TurnRecord[];
}

export const MAX_PENDING_TURNS = 1000;
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

export class CaptureQueue {
  private readonly pending = new Map<string, Pending>();
  private readonly waiters = new Set<(drained: boolean) => void>();
  private inFlight: Pending | undefined;
  private running = false;
  private closed = false;
  private retryMs = RETRY_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly stats: QueueStats = { pending: 0, written: 0, dropped: 0, lastError: null };

  constructor(private readonly writer: RecordWriter, private readonly log: CaptureLog) {}

  /** Queues a turn's records under its key; a newer version of a queued turn replaces the older. */
  enqueue(key: string, records: TurnRecord[]): void {
    if (this.closed || records.length === 0) return;
    this.pending.delete(key); // re-insert at the back: the newest version is written last
    this.pending.set(key, { key, records });
    if (this.pending.size > MAX_PENDING_TURNS) {
      // The turn being written right now is about to be acknowledged: drop the next-oldest instead.
      const oldest = [...this.pending.values()].find((p) => p !== this.inFlight)!.key;
      this.pending.delete(oldest);
      this.stats.dropped++;
      this.log.warn(`capture queue full (${MAX_PENDING_TURNS} turns waiting for the bridge): dropped the oldest turn ${oldest}`);
    }
    this.kick();
  }

  /** Resolves once nothing is queued or in flight, or after `timeoutMs`; true when drained. */
  drain(timeoutMs: number): Promise<boolean> {
    if (!this.running && this.pending.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (drained: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(drained);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      timer.unref?.();
      this.waiters.add(done);
    });
  }

  status(): QueueStats {
    return { ...this.stats, pending: this.pending.size };
  }

  /** Stops retrying; whatever is still queued is reported and left unwritten. */
  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pending.size > 0) this.log.warn(`${this.pending.size} captured turn(s) were not yet written when the plugin stopped`);
    for (const wake of [...this.waiters]) wake(this.pending.size === 0);
  }

  private kick(): void {
    if (this.running || this.closed || this.retryTimer) return;
    this.running = true;
    void this.run();
  }

  private async run(): Promise<void> {
    try {
      while (!this.closed && this.pending.size > 0) {
        const next = this.pending.values().next().value as Pending;
        this.inFlight = next;
        try {
          await this.write(next.records);
          this.retryMs = RETRY_MIN_MS;
          this.stats.lastError = null;
          // A newer version may have arrived while this one was in flight: keep that one queued.
          if (this.pending.get(next.key) === next) this.pending.delete(next.key);
          this.stats.written++;
        } catch (error) {
          this.stats.lastError = (error as Error).message;
          this.scheduleRetry();
          return;
        }
      }
    } finally {
      this.running = false;
      this.inFlight = undefined;
      if (this.pending.size === 0) for (const wake of [...this.waiters]) wake(true);
    }
  }

  private async write(records: TurnRecord[]): Promise<void> {
    const report = await this.writer.importRecords(records);
    // ID_CONFLICT: the turn was written before and has grown since (turn-stopping fired again after
    // a steer). The newer, longer text replaces the older record.
    const conflicts = report.rejected.filter((r) => r.code === "ID_CONFLICT").map((r) => records[r.index]!);
    for (const record of conflicts) await this.writer.forget(record.id);
    if (conflicts.length > 0) {
      const again = await this.writer.importRecords(conflicts);
      if (again.rejected.length > 0) throw new Error(`the bridge refused a replaced turn record: ${again.rejected[0]!.message}`);
    }
    const other = report.rejected.filter((r) => r.code !== "ID_CONFLICT");
    // A record the bridge refuses as invalid will never be accepted: report it, do not retry forever.
    for (const r of other) this.log.warn(`the bridge refused captured record ${records[r.index]?.id}: ${r.code} ${r.message}`);
  }

  private scheduleRetry(): void {
    if (this.closed) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.kick();
    }, delay);
    this.retryTimer.unref?.();
  }
}

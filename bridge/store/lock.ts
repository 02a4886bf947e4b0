// One writer per data directory: an exclusive lock file holding the owner's pid, whose modification
// time the owner refreshes every few seconds (a heartbeat). A pid alone cannot say who holds a lock:
// Windows reuses pids within minutes and a reboot reuses them all, so a lock left by kill -9 or a
// power loss could name a live stranger and block the directory for good. A lock is live only while
// its pid exists, its heartbeat is recent and it was written since this boot; any other lock is
// taken over. The takeover itself runs under a second, short-lived lock file, so two processes that
// find the same stale lock cannot both remove it and both believe they own the directory.
import fs from "node:fs";
import os from "node:os";
import { DreamError } from "../protocol/errors";

/** The lock file of a data directory (memory-store.ts takes it on open). */
export const LOCK_FILE = "store.lock";

/** How often the owner refreshes its lock's modification time. */
export const LOCK_HEARTBEAT_MS = 5_000;
/**
 * A lock whose heartbeat is older than this is stale even if its pid exists (a reused pid). The
 * heartbeat runs on the owner's event loop, and the store's long synchronous work (a journal replayed
 * whole, a checkpoint or a compaction run in one go) refreshes it as it goes (`refreshIfDue`): a replay of
 * a million memories without a checkpoint took 131 s on the bench VM, and before it refreshed the lock a
 * second bridge, started meanwhile, took the lock over and opened the same directory (2026-12-05).
 */
export const LOCK_STALE_MS = 90_000;
// The takeover lock is held for a few file operations; one older than this was left by a crash.
const TAKEOVER_STALE_MS = 10_000;

export type LockHolder =
  | { state: "none" }
  | { state: "live"; pid: number }
  | { state: "stale"; pid: number | undefined; why: string };

export interface LockClock {
  nowMs(): number;
  /** When this machine booted (ms since the epoch); locks written before it are from a previous boot. */
  bootMs(): number;
  isProcessAlive(pid: number): boolean;
}

const systemClock: LockClock = {
  nowMs: () => Date.now(),
  bootMs: () => Date.now() - os.uptime() * 1000,
  isProcessAlive: (pid) => isProcessAlive(pid),
};

// The lock files this process holds: a lock naming our own pid that is not in here was left by an
// earlier process that had the same pid (after a reboot, for instance).
const heldHere = new Set<string>();

export class DirectoryLock {
  private readonly heartbeat: NodeJS.Timeout;
  private refreshedMs = Date.now();

  private constructor(
    private readonly lockPath: string,
    /** Why the lock found there was taken over, if one was. */
    readonly tookOver?: string,
  ) {
    heldHere.add(lockPath);
    this.heartbeat = setInterval(() => this.refresh(), LOCK_HEARTBEAT_MS);
    // The lock must never be what keeps a process alive.
    this.heartbeat.unref();
  }

  static acquire(lockPath: string, clock: LockClock = systemClock): DirectoryLock {
    if (tryCreate(lockPath)) return new DirectoryLock(lockPath);
    const holder = lockHolder(lockPath, clock);
    if (holder.state === "live") throw lockedBy(holder.pid, lockPath);
    const takeoverPath = `${lockPath}.takeover`;
    if (!tryTakeoverLock(takeoverPath, clock)) {
      throw new DreamError("DATA_DIR_LOCKED", `another process is taking over the stale lock ${lockPath}; try again in a moment`);
    }
    try {
      // Judged again under the takeover lock: while the lock file exists only a takeover removes it.
      const now = lockHolder(lockPath, clock);
      if (now.state === "live") throw lockedBy(now.pid, lockPath);
      fs.rmSync(lockPath, { force: true });
      if (tryCreate(lockPath)) return new DirectoryLock(lockPath, now.state === "stale" ? now.why : undefined);
      // Someone created a fresh lock between the removal and our create: it is theirs.
      const winner = lockOwner(lockPath);
      throw lockedBy(winner ?? 0, lockPath);
    } finally {
      fs.rmSync(takeoverPath, { force: true });
    }
  }

  /** Marks the lock as held now. */
  refresh(): void {
    this.refreshedMs = Date.now();
    const now = new Date(this.refreshedMs);
    try {
      fs.utimesSync(this.lockPath, now, now);
    } catch {
      // A lock file removed by hand cannot be refreshed; the next open judges what is there then.
    }
  }

  /**
   * For long synchronous work, where the heartbeat's timer cannot run: refreshes the lock when a heartbeat
   * is due (or the clock went back), else costs a clock read.
   */
  refreshIfDue(): void {
    const now = Date.now();
    if (now - this.refreshedMs >= LOCK_HEARTBEAT_MS || now < this.refreshedMs) this.refresh();
  }

  release(): void {
    clearInterval(this.heartbeat);
    heldHere.delete(this.lockPath);
    if (lockOwner(this.lockPath) === process.pid) fs.rmSync(this.lockPath, { force: true });
  }
}

/** Who holds the lock: nobody, a live owner, or a stale lock and why it is stale. */
export function lockHolder(lockPath: string, clock: LockClock = systemClock): LockHolder {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(lockPath);
  } catch {
    return { state: "none" };
  }
  const pid = lockOwner(lockPath);
  // Unreadable or half-written lock: its writer died before finishing, so it is stale.
  if (pid === undefined) return { state: "stale", pid, why: "the lock file names no process" };
  if (pid === process.pid) {
    return heldHere.has(lockPath) ? { state: "live", pid } : { state: "stale", pid, why: `an earlier process with this process's id (${pid}) left it` };
  }
  if (!clock.isProcessAlive(pid)) return { state: "stale", pid, why: `process ${pid} is not running` };
  const heartbeatMs = stat.mtimeMs;
  if (heartbeatMs < clock.bootMs()) return { state: "stale", pid, why: `the lock was written before this machine started; process ${pid} is another program` };
  const silentMs = clock.nowMs() - heartbeatMs;
  if (silentMs > LOCK_STALE_MS) {
    return { state: "stale", pid, why: `process ${pid} has not refreshed the lock for ${Math.round(silentMs / 1000)} s; it is another program using a reused process id` };
  }
  return { state: "live", pid };
}

/** The pid recorded in a lock file, or undefined when there is none (the process may be dead). */
export function lockOwner(lockPath: string): number | undefined {
  try {
    const pid = JSON.parse(fs.readFileSync(lockPath, "utf8")).pid;
    return Number.isSafeInteger(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Signal 0 tests for existence on POSIX and Windows alike; EPERM means the pid exists but belongs to
 * someone else. Existence is all a pid can say: lockHolder adds the heartbeat for "and it is ours".
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function tryCreate(lockPath: string): boolean {
  try {
    fs.writeFileSync(lockPath, JSON.stringify({ pid: process.pid, started_ms: Date.now() }), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new DreamError("IO_ERROR", `could not create the lock ${lockPath}: ${(error as Error).message}`, { cause: error });
  }
}

function tryTakeoverLock(takeoverPath: string, clock: LockClock): boolean {
  if (tryCreate(takeoverPath)) return true;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(takeoverPath);
  } catch {
    return tryCreate(takeoverPath); // released between our create and stat
  }
  const owner = lockOwner(takeoverPath);
  const abandoned = clock.nowMs() - stat.mtimeMs > TAKEOVER_STALE_MS || (owner !== undefined && !clock.isProcessAlive(owner));
  if (!abandoned) return false;
  fs.rmSync(takeoverPath, { force: true });
  return tryCreate(takeoverPath);
}

function lockedBy(pid: number, lockPath: string): DreamError {
  return pid === process.pid
    ? new DreamError("DATA_DIR_LOCKED", `the data directory is already open in this process (${lockPath})`)
    : new DreamError("DATA_DIR_LOCKED", `the data directory is in use by process ${pid} (${lockPath})`);
}

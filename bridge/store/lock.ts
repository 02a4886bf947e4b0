// One writer per data directory: an exclusive lock file holding the owner's pid. A lock left by a
// dead process (kill -9, power loss) is taken over. Works on Windows: `wx` open and signal 0 both do.
import fs from "node:fs";
import { DreamError } from "../protocol/errors";

/** The lock file of a data directory (memory-store.ts takes it on open). */
export const LOCK_FILE = "store.lock";

export class DirectoryLock {
  private constructor(private readonly lockPath: string) {}

  static acquire(lockPath: string): DirectoryLock {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.writeFileSync(lockPath, JSON.stringify({ pid: process.pid, started_ms: Date.now() }), { flag: "wx" });
        return new DirectoryLock(lockPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
          throw new DreamError("IO_ERROR", `could not create the lock ${lockPath}: ${(error as Error).message}`, { cause: error });
        }
        const owner = lockOwner(lockPath);
        if (owner !== undefined && owner !== process.pid && isProcessAlive(owner)) {
          throw new DreamError("DATA_DIR_LOCKED", `the data directory is in use by process ${owner} (${lockPath})`);
        }
        if (owner === process.pid) {
          throw new DreamError("DATA_DIR_LOCKED", `the data directory is already open in this process (${lockPath})`);
        }
        fs.rmSync(lockPath, { force: true });
      }
    }
    throw new DreamError("DATA_DIR_LOCKED", `could not take the lock ${lockPath}`);
  }

  release(): void {
    if (lockOwner(this.lockPath) === process.pid) fs.rmSync(this.lockPath, { force: true });
  }
}

/** The pid recorded in a lock file, or undefined when there is none (the process may be dead). */
export function lockOwner(lockPath: string): number | undefined {
  try {
    const pid = JSON.parse(fs.readFileSync(lockPath, "utf8")).pid;
    return Number.isSafeInteger(pid) ? pid : undefined;
  } catch {
    // Unreadable or half-written lock: its writer died before finishing, so it is stale.
    return undefined;
  }
}

/** Signal 0 tests for existence on POSIX and Windows alike; EPERM means alive but someone else's. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

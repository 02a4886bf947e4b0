// Renames that survive Windows: antivirus scanners, the search indexer or a `Get-Content -Wait`
// reader hold a file open for a moment, and Windows then refuses to rename or replace it (EPERM,
// EACCES, EBUSY). Such a refusal is retried with a short backoff (about 1.3 s in all) before it is
// reported. On POSIX, EPERM and EACCES are permanent (permissions) and fail at once; EBUSY is retried.
import fs from "node:fs";

const ATTEMPTS = 8;
const FIRST_DELAY_MS = 10;

export function retryableRenameError(code: string | undefined, platform: NodeJS.Platform = process.platform): boolean {
  if (code === "EBUSY") return true;
  return platform === "win32" && (code === "EPERM" || code === "EACCES");
}

export function renameWithRetry(from: string, to: string, platform: NodeJS.Platform = process.platform): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      fs.renameSync(from, to);
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS || !retryableRenameError((error as NodeJS.ErrnoException).code, platform)) throw error;
      Atomics.wait(pause, 0, 0, FIRST_DELAY_MS * 2 ** (attempt - 1));
    }
  }
}

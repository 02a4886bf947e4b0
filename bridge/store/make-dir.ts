// Creates a directory and its missing parents in a bounded number of steps. Node 20's
// mkdirSync(dir, { recursive: true }) never returns where mkdir says ENOENT under a parent that
// exists (/proc/nope: it creates the parent, finds it there and tries again, forever, ignoring
// SIGTERM); this walks up once to the nearest existing ancestor, then creates each level below it
// with one plain mkdir, so a refusal is reported instead of retried.
import fs from "node:fs";
import path from "node:path";

/**
 * Makes `dir` and any missing parents; a directory that already exists (or that another process
 * creates meanwhile) is fine. A drop-in for the recursive mkdirSync: it throws the system error of
 * the level that could not be made (EEXIST for a file in the way, ENOTDIR for one higher up, ENOENT
 * under /proc), which protocol/os-errors.ts turns into words where it reaches a user.
 */
export function makeDirectory(dir: string): void {
  const target = path.resolve(dir);
  const missing = missingLevels(target);
  // Nothing missing: `target` exists; a plain mkdir reports a file in its way as EEXIST.
  for (const level of missing.length > 0 ? missing : [target]) createLevel(level);
}

/** The levels of `target` that do not exist, outermost first; at most one per path component. */
function missingLevels(target: string): string[] {
  const missing: string[] = [];
  for (let current = target; !exists(current); ) {
    missing.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break; // a root that does not exist (a drive letter with no drive)
    current = parent;
  }
  return missing;
}

function exists(entry: string): boolean {
  try {
    fs.statSync(entry);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a file higher up; the walk reaches it and the mkdir below it reports it.
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw error;
  }
}

function createLevel(level: string): void {
  try {
    fs.mkdirSync(level);
  } catch (error) {
    // A concurrent creator made it first, or it was there all along: fine if it is a directory.
    if ((error as NodeJS.ErrnoException).code === "EEXIST" && isDirectory(level)) return;
    throw error;
  }
}

function isDirectory(entry: string): boolean {
  try {
    return fs.statSync(entry).isDirectory();
  } catch {
    return false;
  }
}

// Makes the data directory readable by its user alone: mode 0700 on POSIX; on Windows, where modes
// mean nothing, an explicit ACL set with icacls, since a folder outside the profile (-DshHome D:\dsh)
// inherits "Authenticated Users: Modify" from its drive. Never throws: what it cannot do is a warning.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { systemRoot, windowsEnv } from "../protocol/vc-runtime";

export interface DataDirAccess {
  /** True when the folder is now (or already was) owner-only. */
  applied: boolean;
  /** What was done or found, for the bridge log. */
  how: string;
  /** For the user when it could not be done: names the folder, the risk and the command that fixes it. */
  warning?: string;
}

export interface ProgramOptions {
  encoding: "utf8";
  shell: false;
  windowsHide: true;
  timeout: number;
}

export interface ProgramResult {
  status: number | null;
  stdout: string | null;
  stderr: string | null;
  error?: Error;
}

export type RunProgram = (file: string, args: readonly string[], options: ProgramOptions) => ProgramResult;

export interface OwnerOnlyDeps {
  platform?: NodeJS.Platform;
  env?: Readonly<Record<string, string | undefined>>;
  run?: RunProgram;
}

// SYSTEM keeps full control, as in every user profile: it can take any file anyway (backup and
// take-ownership privileges), so leaving it out protects nothing and breaks backup, indexing and
// antivirus services that run as SYSTEM. Administrators are left out: another admin account then has
// to take ownership first, a deliberate act that changes the folder's owner, instead of reading in passing.
const SYSTEM_SID = "S-1-5-18";
const WHOAMI_TIMEOUT_MS = 10_000;
// icacls also rewrites the inherited entries of every file below the folder; a data directory holds
// hundreds of files at most, so this is seconds only on a disk that is failing anyway.
const ICACLS_TIMEOUT_MS = 30_000;
const OWNER_ONLY_MODE = 0o700;
const OWNER_ONLY_FILE_MODE = 0o600;

/** Folders to 0700 and files to 0600 below `dir` (links are left alone); returns how many changed. */
function tightenEntries(dir: string): number {
  let changed = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    try {
      if (entry.isDirectory()) changed += tightenEntries(full);
      const target = entry.isDirectory() ? OWNER_ONLY_MODE : OWNER_ONLY_FILE_MODE;
      const mode = fs.statSync(full).mode & 0o777;
      if ((mode & 0o077) !== 0) {
        fs.chmodSync(full, mode & target);
        changed++;
      }
    } catch {
      // A file removed while we walk (Chroma's compaction, a rotated log) needs nothing.
    }
  }
  return changed;
}

const runSpawnSync: RunProgram = (file, args, options) => spawnSync(file, [...args], options);

/**
 * Restricts `dir` (which must exist) to the current user. Runs at every bridge start and install, no
 * marker: one stat on POSIX, two short programs on Windows; a marker could not see an ACL changed since.
 */
export function protectDataDir(dir: string, deps: OwnerOnlyDeps = {}): DataDirAccess {
  const platform = deps.platform ?? process.platform;
  if (platform === "win32") return protectOnWindows(dir, deps.env ?? process.env, deps.run ?? runSpawnSync);
  return protectOnPosix(dir);
}

function protectOnPosix(dir: string): DataDirAccess {
  try {
    const mode = fs.statSync(dir).mode & 0o777;
    // What an earlier version (or another tool) left readable inside: the journal, audit log, Chroma's files.
    const tightened = tightenEntries(dir);
    const inside = tightened > 0 ? `; ${tightened} file(s) and folder(s) inside made owner-only` : "";
    if ((mode & 0o077) === 0) return { applied: true, how: `mode already ${octal(mode)}${inside}` };
    fs.chmodSync(dir, OWNER_ONLY_MODE);
    return { applied: true, how: `mode set to ${octal(OWNER_ONLY_MODE)} (was ${octal(mode)})${inside}` };
  } catch (error) {
    const why = `chmod failed: ${(error as Error).message}`;
    const fix = `chmod 700 '${dir.replace(/'/g, "'\\''")}'`;
    return { applied: false, how: why, warning: `${exposedWarning(dir, why, fix)}.` };
  }
}

// The user is named by SID, read from whoami.exe: %USERDOMAIN%\%USERNAME% can be stale or absent
// (runas, services, Microsoft and Entra ID accounts), and icacls resolves a name through the domain,
// which can fail offline; the SID of the running token is the account the bridge itself runs as.
function protectOnWindows(dir: string, env: Readonly<Record<string, string | undefined>>, run: RunProgram): DataDirAccess {
  const system32 = path.win32.join(systemRoot(env), "System32");
  const whoami = runProgram(run, path.win32.join(system32, "whoami.exe"), ["/user", "/fo", "csv", "/nh"], WHOAMI_TIMEOUT_MS);
  const sid = whoami.failure === undefined ? parseUserSid(whoami.stdout) : undefined;
  if (sid === undefined) {
    const why = `could not read your account's SID with whoami: ${whoami.failure ?? `no SID in its output ${JSON.stringify(whoami.stdout.trim())}`}`;
    return { applied: false, how: why, warning: windowsWarning(dir, why, userName(env)) };
  }
  const args = [dir, "/inheritance:r", "/grant:r", `*${sid}:(OI)(CI)F`, `*${SYSTEM_SID}:(OI)(CI)F`];
  const icacls = runProgram(run, path.win32.join(system32, "icacls.exe"), args, ICACLS_TIMEOUT_MS);
  if (icacls.failure !== undefined) {
    const why = `icacls ${icacls.failure}`;
    return { applied: false, how: why, warning: windowsWarning(dir, why, `*${sid}`) };
  }
  return { applied: true, how: `ACL set by icacls: inherited entries removed, full control granted to ${sid} and SYSTEM` };
}

/** The SID field of `whoami /user /fo csv /nh`: `"host\name","S-1-5-21-…"`, any line ending. */
function parseUserSid(output: string): string | undefined {
  const sids = [...output.matchAll(/"(S-1-\d+(?:-\d+)+)"/g)].map((match) => match[1]);
  return sids.at(-1);
}

function runProgram(run: RunProgram, file: string, args: readonly string[], timeoutMs: number): { stdout: string; failure?: string } {
  let result: ProgramResult;
  try {
    result = run(file, args, { encoding: "utf8", shell: false, windowsHide: true, timeout: timeoutMs });
  } catch (error) {
    return { stdout: "", failure: `could not run ${file}: ${(error as Error).message}` };
  }
  const stdout = result.stdout ?? "";
  const code = (result.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ETIMEDOUT") return { stdout, failure: `timed out after ${timeoutMs / 1000} s` };
  if (result.error) return { stdout, failure: `could not run ${file}: ${result.error.message}` };
  if (result.status !== 0) {
    // icacls names the failing file and the reason on stderr; stdout only has its file counts.
    const said = lines(result.stderr ?? "")[0] ?? lines(stdout).at(-1);
    return { stdout, failure: `exited with code ${result.status}${said ? `: ${said}` : ""}` };
  }
  return { stdout };
}

function lines(text: string): string[] {
  return text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
}

// A copied or test environment is an ordinary object, not Windows' case-insensitive process.env.
function userName(env: Readonly<Record<string, string | undefined>>): string {
  const user = windowsEnv(env, "USERNAME") ?? "YOUR-USER-NAME";
  const domain = windowsEnv(env, "USERDOMAIN");
  return domain ? `${domain}\\${user}` : user;
}

function exposedWarning(dir: string, why: string, fix: string): string {
  return (
    `The memory folder ${dir} could not be made private to you (${why}), so other users of this computer may be able to read ` +
    `your memories, the bridge token and any API key kept there. To fix it, run: ${fix}`
  );
}

// Double quotes read the same in cmd.exe and PowerShell, whose parser would otherwise take the
// parentheses of (OI)(CI) as an expression.
function windowsWarning(dir: string, why: string, who: string): string {
  const fix = `icacls "${dir}" /inheritance:r /grant:r "${who}:(OI)(CI)F" "*${SYSTEM_SID}:(OI)(CI)F"`;
  return `${exposedWarning(dir, why, fix)} (a FAT32 or exFAT drive keeps no permissions at all: move the folder to an NTFS drive or into your user profile).`;
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}

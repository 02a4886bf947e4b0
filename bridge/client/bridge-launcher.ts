// Finds the bridge that serves a data directory or starts one (`<execPath> <cli> serve` as a child,
// no shell, no npx), and stops one; shared by the CLI and the DSH plugin host.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chromaStartTimeoutMs } from "../chroma/chroma-process";
import { DreamError, ERROR_CODES, isDreamError, type ErrorCode } from "../protocol/errors";
import { osErrorToDreamError } from "../protocol/os-errors";
import { isProcessAlive, LOCK_FILE, LOCK_STALE_MS, lockHolder } from "../store/lock";
import { makeDirectory } from "../store/make-dir";
import { BridgeClient } from "./bridge-client";

export interface LaunchOptions {
  dataDir: string;
  /** Path of the built CLI (dist/cli.cjs). */
  cliPath: string;
  /** Runtime that runs the CLI; default process.execPath (which may be an Electron binary, see below). */
  execPath?: string;
  /** The bridge's whole environment (it reads secrets such as the embedding API key from it). */
  env: Readonly<Record<string, string | undefined>>;
  /** The bridge exits once this process is gone. */
  ownerPid?: number;
  /** The bridge exits after this long without a request. */
  idleExitMs?: number;
  startTimeoutMs?: number;
  /** Default true: the bridge outlives its starter's console and process group (the CLI's case). */
  detached?: boolean;
}

export interface LaunchedBridge {
  client: BridgeClient;
  /** Set only when this call started the bridge that answered; undefined when it attached to one. */
  started: { pid: number } | undefined;
}

/**
 * A bridge answers once its store is open and its embedder started (its embedded Chroma starts after that);
 * the first load of its native modules on Windows is scanned as Chroma's is, so the wait keeps Chroma's allowance.
 */
export function bridgeStartTimeoutMs(platform: NodeJS.Platform = process.platform): number {
  return chromaStartTimeoutMs(platform) + 15_000;
}

/** glibc's tunable that has malloc ask the kernel for transparent huge pages (madvise) for what it maps (glibc 2.35+). */
const HUGE_PAGES_TUNABLE = "glibc.malloc.hugetlb";

/**
 * The environment a bridge is started with: `env`, and on Linux glibc's malloc told to use transparent huge pages
 * (`GLIBC_TUNABLES`), unless `env` already sets that tunable (the user's choice stands). A bridge opening a large
 * store fills the arrays malloc maps (the BM25 snapshot's arrays, the term dictionary, the vectors' heads: ~0.5 GB
 * at 1M) in fresh memory, a page fault each 4 KiB page; with 2 MiB pages, 115k fewer faults at 1M. The int8 codes
 * are WebAssembly memory, V8's own mapping, which this does not reach. Kernels whose THP is "never", older glibc
 * and musl ignore it; Windows and macOS have no such setting.
 */
export function bridgeEnv(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform = process.platform): Record<string, string | undefined> {
  const tunables = env.GLIBC_TUNABLES;
  if (platform !== "linux" || tunables?.split(":").some((tunable) => tunable.split("=")[0] === HUGE_PAGES_TUNABLE)) return { ...env };
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${HUGE_PAGES_TUNABLE}=1` : `${HUGE_PAGES_TUNABLE}=1` };
}

const POLL_MS = 100;
const SHUTDOWN_CALL_TIMEOUT_MS = 5_000;
const KILL_WAIT_MS = 5_000;
const LOCK_STALE_S = LOCK_STALE_MS / 1000;

export async function launchOrAttachBridge(options: LaunchOptions): Promise<LaunchedBridge> {
  const { dataDir } = options;
  const existing = await attachBridge(dataDir);
  if (existing) return { client: existing.client, started: undefined };
  try {
    makeDirectory(dataDir);
  } catch (error) {
    // Put into words here: the DSH plugin host starts bridges too, and has no CLI to do it.
    throw osErrorToDreamError(error) ?? error;
  }
  const args = [options.cliPath, "serve", "--data-dir", dataDir];
  const owned = options.ownerPid !== undefined;
  if (owned) args.push("--owner-pid", String(options.ownerPid), "--owner-pipe");
  if (options.idleExitMs !== undefined) args.push("--idle-exit-ms", String(options.idleExitMs));
  const spawnedMs = Date.now();
  const child = spawn(options.execPath ?? process.execPath, args, {
    detached: options.detached ?? true,
    // An owned bridge reads stdin to its end: the pipe closes when this process dies, by any means.
    stdio: [owned ? "pipe" : "ignore", "ignore", "ignore"],
    windowsHide: true,
    shell: false,
    // Not the caller's folder: on Windows a process's working directory cannot be deleted or renamed.
    cwd: dataDir,
    // An Electron host binary runs the CLI as plain Node only with this set; Node ignores it.
    env: { ...bridgeEnv(options.env), ELECTRON_RUN_AS_NODE: "1" } as NodeJS.ProcessEnv,
  });
  let exited: number | null = null;
  let spawnError: Error | undefined;
  child.on("exit", (code) => (exited = code ?? 1));
  child.on("error", (error) => (spawnError = error));
  child.unref();
  if (child.stdin) holdOwnerPipe(child);
  const timeoutMs = options.startTimeoutMs ?? bridgeStartTimeoutMs();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const found = await attachBridge(dataDir);
    if (found) return { client: found.client, started: found.pid === child.pid ? { pid: found.pid } : undefined };
    if (spawnError) throw new DreamError("BRIDGE_UNAVAILABLE", `could not start the bridge for ${dataDir}: ${spawnError.message}`, { cause: spawnError });
    // A child that exits because another live process holds the directory lost the race to a bridge that
    // is still starting (embedded Chroma takes seconds): keep polling for that one.
    if (exited !== null && exited !== 0 && !anotherBridgeStarting(dataDir, child.pid)) {
      const why = lastLogLine(dataDir, spawnedMs) ?? `exit code ${exited}`;
      // "start failed [JOURNAL_CORRUPT]: …" keeps its own code, whose hint says what to do.
      const code = /^start failed \[([A-Z_]+)\]: /.exec(why)?.[1];
      throw new DreamError(code && code in ERROR_CODES ? (code as ErrorCode) : "BRIDGE_UNAVAILABLE", `the bridge for ${dataDir} did not start: ${why}`);
    }
  }
  const holder = lockHolder(path.join(dataDir, LOCK_FILE));
  if (holder.state === "live" && holder.pid !== child.pid) {
    throw new DreamError(
      "BRIDGE_UNAVAILABLE",
      `the data directory ${dataDir} is held by process ${holder.pid}, which has not started serving within ${timeoutMs / 1000} s; ` +
        `if that is not a DSH-DREAM bridge or command, end it (or wait ${LOCK_STALE_S} s after it stops refreshing the lock)`,
    );
  }
  throw new DreamError("BRIDGE_UNAVAILABLE", `the bridge for ${dataDir} did not answer within ${timeoutMs / 1000} s: ${lastLogLine(dataDir, spawnedMs) ?? "nothing in bridge.log"}`);
}

/** The healthy bridge serving `dataDir` and its pid, or undefined when none answers. */
export async function attachBridge(dataDir: string): Promise<{ client: BridgeClient; pid: number } | undefined> {
  let client: BridgeClient;
  try {
    client = BridgeClient.fromDataDir(dataDir);
  } catch {
    return undefined; // no bridge file yet: nobody serves this directory
  }
  try {
    return { client, pid: (await client.health()).pid };
  } catch {
    return undefined; // a stale bridge file from a bridge that died; a new one will replace it
  }
}

/**
 * Asks the bridge to shut down and waits up to `waitMs` for its process to go; a bridge that does not
 * is killed. "stopped" also covers a bridge that was already gone. Throws only if it cannot be ended.
 */
export async function stopBridge(client: BridgeClient, pid: number, waitMs: number): Promise<"stopped" | "killed"> {
  try {
    await client.call("shutdown", {}, { timeoutMs: Math.min(waitMs, SHUTDOWN_CALL_TIMEOUT_MS) });
  } catch (error) {
    // Not answering is expected of a bridge that is gone or hung; anything else from a live one is the caller's to see.
    const unreachable = isDreamError(error) && error.code === "BRIDGE_UNAVAILABLE";
    if (!unreachable && isProcessAlive(pid)) throw error;
  }
  if (await waitForExit(pid, waitMs)) return "stopped";
  try {
    process.kill(pid, "SIGKILL");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
  if (await waitForExit(pid, KILL_WAIT_MS)) return "killed";
  throw new DreamError("BRIDGE_UNAVAILABLE", `the bridge (pid ${pid}) did not stop within ${waitMs / 1000} s, nor when killed`);
}

async function waitForExit(pid: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (isProcessAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

// The write ends of owned bridges' stdin pipes, held for this process's lifetime (or the bridge's).
const ownerPipes = new Set<NodeJS.WritableStream>();

function holdOwnerPipe(child: ReturnType<typeof spawn>): void {
  const pipe = child.stdin!;
  ownerPipes.add(pipe);
  // Never what keeps this process alive; never an uncaught error when the bridge goes first.
  (pipe as unknown as { unref?: () => void }).unref?.();
  pipe.on("error", () => undefined);
  child.on("exit", () => {
    ownerPipes.delete(pipe);
    pipe.destroy();
  });
}

/** A live process other than our child holds the lock: a bridge that is opening (or another user of the store). */
function anotherBridgeStarting(dataDir: string, childPid: number | undefined): boolean {
  const holder = lockHolder(path.join(dataDir, LOCK_FILE));
  return holder.state === "live" && holder.pid !== childPid;
}

/**
 * Why a start failed: the newest error line bridge.log gained since `sinceMs` (a failed start ends
 * with "stopped", which says nothing), else the newest line since then.
 */
function lastLogLine(dataDir: string, sinceMs = 0): string | undefined {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8").trim().split(/\r?\n/).slice(-200);
  } catch {
    return undefined;
  }
  const recent = lines.filter((line) => Date.parse(line.slice(0, line.indexOf(" "))) >= sinceMs - 1_000);
  let chosen = recent.at(-1);
  for (let i = recent.length - 1; i >= 0; i--) {
    if (/^\S+ error /.test(recent[i]!)) {
      chosen = recent[i];
      break;
    }
  }
  return chosen?.replace(/^\S+ (error|info) /, "");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

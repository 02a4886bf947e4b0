// Finds the bridge that owns a data directory, or starts one: `node <this cli> serve` as a detached
// child (no shell, no npx), then waits for its bridge file and a healthy answer.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BridgeClient } from "../client/bridge-client";
import { DreamError } from "../protocol/errors";
import type { CliIo } from "./io";

const START_TIMEOUT_MS = 30_000;
const POLL_MS = 100;
/** A bridge started on demand exits after this long without requests; `dsh-dream serve` runs until stopped. */
export const ON_DEMAND_IDLE_EXIT_MS = 10 * 60_000;

export async function connectBridge(dataDir: string, io: CliIo, options: { start: boolean }): Promise<BridgeClient> {
  const existing = await tryConnect(dataDir);
  if (existing) return existing;
  if (!options.start) throw new DreamError("BRIDGE_UNAVAILABLE", `no bridge is running for ${dataDir}`);
  fs.mkdirSync(dataDir, { recursive: true });
  const child = spawn(process.execPath, [io.selfPath, "serve", "--data-dir", dataDir, "--idle-exit-ms", String(ON_DEMAND_IDLE_EXIT_MS)], {
    detached: true,
    stdio: "ignore",
    windowsHide: true,
    shell: false,
    env: io.env as NodeJS.ProcessEnv,
  });
  let exited: number | null = null;
  child.on("exit", (code) => (exited = code ?? 1));
  child.unref();
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const client = await tryConnect(dataDir);
    if (client) return client;
    // Exit code 0 here means another process won the race to serve this directory: keep polling for it.
    if (exited !== null && exited !== 0) {
      throw new DreamError("BRIDGE_UNAVAILABLE", `the bridge for ${dataDir} did not start: ${lastLogLine(dataDir) ?? `exit code ${exited}`}`);
    }
  }
  throw new DreamError("BRIDGE_UNAVAILABLE", `the bridge for ${dataDir} did not answer within ${START_TIMEOUT_MS / 1000} s`);
}

async function tryConnect(dataDir: string): Promise<BridgeClient | undefined> {
  let client: BridgeClient;
  try {
    client = BridgeClient.fromDataDir(dataDir);
  } catch {
    return undefined; // no bridge file yet: nobody serves this directory
  }
  try {
    await client.health();
    return client;
  } catch {
    return undefined; // a stale bridge file from a bridge that died; a new one will replace it
  }
}

function lastLogLine(dataDir: string): string | undefined {
  try {
    const lines = fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8").trim().split(/\r?\n/);
    return lines.at(-1);
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Shared pieces of the plugin's integration tests: reading what reached the bridge, polling for
// background work, and making sure no bridge outlives its test.
import fs from "node:fs";
import path from "node:path";
import { BridgeClient } from "../../bridge/client/bridge-client";
import { stopBridge } from "../../bridge/client/bridge-launcher";
import { exportPages, type ExportedRecord } from "../../bridge/client/export-pages";
import { isProcessAlive, LOCK_FILE, lockOwner } from "../../bridge/store/lock";
import { tempDir } from "../store/helpers";
import { DshHost } from "./dsh-host-driver";

export interface PluginHome {
  dshHome: string;
  /** Where the plugin keeps its memory by default: $DSH_HOME/dsh-dream. */
  dataDir: string;
  host: DshHost;
}

/** A fresh DSH home and a DSH host process pointed at it (not booted yet). */
export function newPluginHome(env: Record<string, string> = {}): PluginHome {
  const dshHome = tempDir("dsh-home-");
  return { dshHome, dataDir: path.join(dshHome, "dsh-dream"), host: new DshHost({ ...process.env, DSH_HOME: dshHome, ...env }) };
}

/** Kills the host if it is still running and stops any bridge left in its data directory. */
export async function closePluginHome(home: PluginHome | undefined): Promise<void> {
  if (!home) return;
  // The bridge the plugin owns stops by itself once the host is gone (its stdin pipe closes), and may
  // already have removed its bridge file while it still checkpoints and stops Chroma: wait for its
  // process, named by the lock it holds, so that nothing writes the folder when the test removes it.
  const owner = lockOwner(path.join(home.dataDir, LOCK_FILE));
  home.host.kill();
  await stopPluginBridge(home.dataDir);
  if (owner !== undefined) {
    const deadline = Date.now() + 30_000;
    while (isProcessAlive(owner) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export type { ExportedRecord };

/** Every live record in the bridge, in insertion order. */
export async function bridgeRecords(client: BridgeClient): Promise<ExportedRecord[]> {
  const out: ExportedRecord[] = [];
  for await (const records of exportPages(client)) out.push(...records);
  return out;
}

/** Polls `read` until `done` holds (background capture, embedding and Chroma sync take a moment). */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (done(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out; last value ${JSON.stringify(last)?.slice(0, 2000)}; last error ${String(lastError)}`);
}

/**
 * A client for the bridge the plugin started for `dataDir`, once its bridge file is there: the plugin starts
 * the bridge in the background, and on a loaded machine the first turn can return before it is up.
 */
export function bridgeClient(dataDir: string): Promise<BridgeClient> {
  return waitFor(async () => BridgeClient.fromDataDir(dataDir), () => true);
}

/** Stops a bridge left running in a test's data directory (the plugin normally stops its own). */
export async function stopPluginBridge(dataDir: string): Promise<void> {
  const file = path.join(dataDir, "bridge.json");
  let client: BridgeClient;
  let pid: number;
  // The plugin may be stopping its own bridge meanwhile: bridge.json can go at any moment, and then there is nothing left to stop.
  try {
    client = BridgeClient.fromDataDir(dataDir);
    ({ pid } = JSON.parse(fs.readFileSync(file, "utf8")) as { pid: number });
  } catch {
    return;
  }
  await stopBridge(client, pid, 10_000);
}

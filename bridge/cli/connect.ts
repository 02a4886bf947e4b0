// How a memory command reaches its bridge: the one serving the data directory, or one started on
// demand from this very CLI that exits again after a quiet spell (bridge-launcher.ts does the work).
import type { BridgeClient } from "../client/bridge-client";
import { launchOrAttachBridge } from "../client/bridge-launcher";
import type { CliIo } from "./io";

/** A bridge started on demand exits after this long without requests; `dsh-dream serve` runs until stopped. */
export const ON_DEMAND_IDLE_EXIT_MS = 10 * 60_000;

export async function connectBridge(dataDir: string, io: CliIo): Promise<BridgeClient> {
  const { client } = await launchOrAttachBridge({ dataDir, cliPath: io.selfPath, env: io.env, idleExitMs: ON_DEMAND_IDLE_EXIT_MS });
  return client;
}

// `dsh-dream serve` runs the bridge in this process until SIGTERM/SIGINT, `dsh-dream stop`, or (for a
// bridge started on demand) an idle timeout. `dsh-dream stop` asks the running bridge to shut down.
import { DreamError } from "../protocol/errors";
import { isProcessAlive } from "../store/lock";
import { loadBridgeConfig, parseUrl, type BridgeConfig } from "../server/bridge-config";
import { startBridge } from "../server/daemon";
import { flagInt, flagString, type ParsedArgs } from "./args";
import { connectBridge } from "./connect";
import type { CliIo } from "./io";

const STOP_WAIT_MS = 20_000;

export async function serveCommand(dataDir: string, args: ParsedArgs, io: CliIo): Promise<number> {
  const config = withFlags(loadBridgeConfig(dataDir), args);
  const idleExitMs = flagInt(args, "idle-exit-ms");
  if (idleExitMs !== undefined && idleExitMs < 1000) throw new DreamError("BAD_ARGUMENTS", "--idle-exit-ms must be at least 1000");
  const bridge = await startBridge({ dataDir, config, version: io.version, idleExitMs, env: io.env });
  io.onShutdownSignal((signal) => void bridge.stop(`signal ${signal}`));
  io.out(`dsh-dream bridge serving ${dataDir} on 127.0.0.1:${bridge.port} (pid ${process.pid})\n`);
  await bridge.stopped;
  return 0;
}

export async function stopCommand(dataDir: string, io: CliIo): Promise<number> {
  let client;
  try {
    client = await connectBridge(dataDir, io, { start: false });
  } catch (error) {
    if (error instanceof DreamError && error.code === "BRIDGE_UNAVAILABLE") {
      io.out(`no bridge is running for ${dataDir}\n`);
      return 0;
    }
    throw error;
  }
  const { pid } = await client.health();
  await client.call("shutdown", {});
  const deadline = Date.now() + STOP_WAIT_MS;
  while (Date.now() < deadline && isProcessAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isProcessAlive(pid)) throw new DreamError("BRIDGE_UNAVAILABLE", `the bridge (pid ${pid}) did not stop within ${STOP_WAIT_MS / 1000} s`);
  io.out(`stopped the bridge for ${dataDir} (pid ${pid})\n`);
  return 0;
}

function withFlags(config: BridgeConfig, args: ParsedArgs): BridgeConfig {
  const url = flagString(args, "chroma-url");
  if (args.flags.has("no-chroma")) return { ...config, chroma: { mode: "off" } };
  if (url === undefined) return config;
  const base = config.chroma.mode === "external" ? config.chroma : {};
  return { ...config, chroma: { ...base, mode: "external", url: parseUrl(url, "--chroma-url") } };
}

// `dsh-dream serve` runs the bridge in this process until SIGTERM/SIGINT, `dsh-dream stop`, (for a
// bridge started on demand) an idle timeout, the exit of its --owner-pid, or (--owner-pipe) stdin closing. `dsh-dream stop` asks the
// running bridge to shut down.
import { DreamError } from "../protocol/errors";
import { attachBridge, stopBridge } from "../client/bridge-launcher";
import { loadBridgeConfig, parseUrl, type BridgeConfig } from "../server/bridge-config";
import { BridgeLog, startFailure } from "../server/bridge-log";
import { startBridge } from "../server/daemon";
import { flagInt, flagString, type ParsedArgs } from "./args";
import type { CliIo } from "./io";

const STOP_WAIT_MS = 20_000;

export async function serveCommand(dataDir: string, args: ParsedArgs, io: CliIo): Promise<number> {
  let config: BridgeConfig;
  try {
    config = withFlags(loadBridgeConfig(dataDir), args);
  } catch (error) {
    // A bridge started on demand has no stderr anyone reads: bridge.log is where its starter looks.
    new BridgeLog(dataDir).error(startFailure(error));
    throw error;
  }
  const idleExitMs = flagInt(args, "idle-exit-ms");
  if (idleExitMs !== undefined && idleExitMs < 1000) throw new DreamError("BAD_ARGUMENTS", "--idle-exit-ms must be at least 1000");
  const ownerPid = flagInt(args, "owner-pid");
  if (ownerPid !== undefined && !(ownerPid > 0 && Number.isSafeInteger(ownerPid))) {
    throw new DreamError("BAD_ARGUMENTS", `--owner-pid must be a positive process id (got ${ownerPid})`);
  }
  const ownerPipe = args.flags.has("owner-pipe");
  if (ownerPipe && !io.watchInput) throw new DreamError("BAD_ARGUMENTS", "--owner-pipe needs the process's stdin, which this caller does not give");
  const bridge = await startBridge({ dataDir, config, version: io.version, idleExitMs, ownerPid, env: io.env });
  io.onShutdownSignal((signal) => void bridge.stop(`signal ${signal}`));
  // The pipe ends when its owner dies, by any means, and cannot be fooled by a reused pid as a poll can.
  const unwatch = ownerPipe ? io.watchInput?.(() => void bridge.stop("the owner's pipe closed (the owner process ended)")) : undefined;
  io.out(`dsh-dream bridge serving ${dataDir} on 127.0.0.1:${bridge.port} (pid ${process.pid})\n`);
  await bridge.stopped;
  unwatch?.();
  return 0;
}

export async function stopCommand(dataDir: string, io: CliIo): Promise<number> {
  const running = await attachBridge(dataDir);
  if (!running) {
    io.out(`no bridge is running for ${dataDir}\n`);
    return 0;
  }
  const { pid } = running;
  const outcome = await stopBridge(running.client, pid, STOP_WAIT_MS);
  io.out(
    outcome === "stopped"
      ? `stopped the bridge for ${dataDir} (pid ${pid})\n`
      : `killed the bridge for ${dataDir} (pid ${pid}): it did not stop within ${STOP_WAIT_MS / 1000} s\n`,
  );
  return 0;
}

function withFlags(config: BridgeConfig, args: ParsedArgs): BridgeConfig {
  const url = flagString(args, "chroma-url");
  if (args.flags.has("no-chroma")) return { ...config, chroma: { mode: "off" } };
  if (url === undefined) return config;
  const base = config.chroma.mode === "external" ? config.chroma : {};
  return { ...config, chroma: { ...base, mode: "external", url: parseUrl(url, "--chroma-url") } };
}

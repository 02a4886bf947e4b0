// Starting and stopping a real bridge process (dist/cli.cjs serve) for the benchmark commands.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import path from "node:path";
import { BridgeClient } from "../bridge/client/bridge-client";
import { bridgeEnv } from "../bridge/client/bridge-launcher";

export interface BenchBridge {
  child: ChildProcess;
  client: BridgeClient;
  /** From spawn until the bridge answered its health check (and the optional first search). */
  startMs: number;
}

export async function serveBridge(dataDir: string, options: { firstSearch?: boolean } = {}): Promise<BenchBridge> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(__dirname, "cli.cjs"), "--data-dir", dataDir, "serve"], { stdio: "ignore", env: bridgeEnv(process.env) });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bridge exited with ${child.exitCode}`);
    try {
      const client = BridgeClient.fromDataDir(dataDir);
      if ((await client.health()).pid === child.pid) {
        if (options.firstSearch) await client.call("search", { query: "warm up 启动" });
        return { child, client, startMs: performance.now() - started };
      }
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function stopBridge(bridge: BenchBridge): Promise<void> {
  const exited = new Promise((resolve) => bridge.child.on("exit", resolve));
  await bridge.client.call("shutdown", {});
  await exited;
}

/**
 * For a benchmark that runs a store in its own process: runs this script again, with its Node flags and
 * arguments, in the environment a bridge is started with (`bridgeEnv`: on Linux, glibc's huge pages), unless it
 * already has it. Returns the child's exit code, or undefined when this process is the one to measure.
 */
export function rerunAsBridgeProcess(): number | undefined {
  const env = bridgeEnv(process.env);
  if (env.GLIBC_TUNABLES === process.env.GLIBC_TUNABLES) return undefined;
  const child = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit", env });
  if (child.error) throw child.error;
  return child.status ?? 1;
}

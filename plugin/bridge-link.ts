// The plugin's connection to the bridge process: attach to the one serving the data directory, or
// start one (owned by this host process: it stops when the plugin is disposed or the host dies).
// Calls are bounded by the caller's time budget, and a lost bridge is found or restarted again
// on the next call, never by a timer of its own.
import { attachBridge, launchOrAttachBridge, stopBridge } from "../bridge/client/bridge-launcher";
import type { BridgeClient } from "../bridge/client/bridge-client";
import { DreamError } from "../bridge/protocol/errors";
import type { RpcMethod } from "../bridge/protocol/wire";

export interface BridgeLinkOptions {
  dataDir: string;
  /** dist/cli.cjs of this package. */
  cliPath: string;
  /** The bridge's environment, read when it is started (it may carry a saved API key). */
  env(): Record<string, string | undefined>;
  /** Runs before a bridge is started or attached (writes bridge-config.json). */
  prepare(): void;
}

const STOP_WAIT_MS = 10_000;
/** After a failed start, calls fail fast with that error for this long instead of spawning again. */
const START_RETRY_MS = 5_000;

export class BridgeLink {
  private connecting: Promise<BridgeClient> | undefined;
  private client: BridgeClient | undefined;
  private ownedPid: number | undefined;
  /** Every bridge this plugin started; one found again after a hiccup is still ours to stop. */
  private readonly startedPids = new Set<number>();
  private disposed = false;
  private lastFailure: { error: unknown; atMs: number } | undefined;

  constructor(private readonly options: BridgeLinkOptions) {}

  get dataDir(): string {
    return this.options.dataDir;
  }

  /** Whether the bridge in use was started by this plugin (and is stopped with it). */
  get owned(): boolean {
    return this.ownedPid !== undefined;
  }

  async call<T>(method: RpcMethod, params: Record<string, unknown>, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    const client = await withTimeout(this.connect(), timeoutMs, `the bridge for ${this.options.dataDir} is still starting`);
    try {
      return await client.call<T>(method, params, { timeoutMs: Math.max(1, deadline - Date.now()) });
    } catch (error) {
      // The bridge went away (killed, idle exit, restarted elsewhere): look for it afresh next time.
      if (error instanceof DreamError && error.code === "BRIDGE_UNAVAILABLE" && this.client === client) this.client = undefined;
      throw error;
    }
  }

  /** Like call, but never starts a bridge: for status while long-term memory is off. */
  async callIfRunning<T>(method: RpcMethod, params: Record<string, unknown>, timeoutMs: number, whyNot: string): Promise<T> {
    if (this.client || this.connecting) return this.call<T>(method, params, timeoutMs);
    const found = await attachBridge(this.options.dataDir);
    if (!found) throw new DreamError("BRIDGE_UNAVAILABLE", `no bridge is running for ${this.options.dataDir} (${whyNot})`);
    return found.client.call<T>(method, params, { timeoutMs });
  }

  /**
   * Writes the configuration again and restarts a bridge this plugin started, so the next call
   * starts one with the new settings (and key). A bridge started elsewhere is left running:
   * returns false so the caller can tell the user it must be restarted.
   */
  async reconfigure(): Promise<boolean> {
    // A start in flight read the old config and environment: let it finish, then replace it, so no
    // bridge ever runs the new config with the old environment (a provider without its key).
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.options.prepare();
    if (!client) return true;
    if (this.ownedPid === undefined) return false;
    await this.stop(client);
    return true;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    if (client && this.ownedPid !== undefined) await this.stop(client);
    this.client = undefined;
  }

  private connect(): Promise<BridgeClient> {
    if (this.disposed) return Promise.reject(new DreamError("BRIDGE_UNAVAILABLE", "the DSH-DREAM plugin has been stopped"));
    if (this.client) return Promise.resolve(this.client);
    if (this.lastFailure && Date.now() - this.lastFailure.atMs < START_RETRY_MS) return Promise.reject(this.lastFailure.error);
    this.connecting ??= this.launch()
      .then(
        (client) => {
          this.lastFailure = undefined;
          return client;
        },
        (error: unknown) => {
          this.lastFailure = { error, atMs: Date.now() };
          throw error;
        },
      )
      .finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async launch(): Promise<BridgeClient> {
    this.options.prepare();
    const { client, started } = await launchOrAttachBridge({
      dataDir: this.options.dataDir,
      cliPath: this.options.cliPath,
      env: this.options.env(),
      ownerPid: process.pid,
    });
    if (this.disposed) {
      if (started) await stopBridge(client, started.pid, STOP_WAIT_MS);
      throw new DreamError("BRIDGE_UNAVAILABLE", "the DSH-DREAM plugin has been stopped");
    }
    if (started) this.startedPids.add(started.pid);
    const pid = started?.pid ?? (await client.health()).pid;
    this.ownedPid = this.startedPids.has(pid) ? pid : undefined;
    this.client = client;
    return client;
  }

  private async stop(client: BridgeClient): Promise<void> {
    const pid = this.ownedPid ?? (await client.health().then((h) => h.pid, () => undefined));
    this.client = undefined;
    this.ownedPid = undefined;
    if (pid !== undefined) await stopBridge(client, pid, STOP_WAIT_MS);
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DreamError("BRIDGE_UNAVAILABLE", `${what} (waited ${timeoutMs} ms)`)), timeoutMs);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

// The bridge's handle on one local embedding worker process: starts it, matches replies to requests,
// and turns a worker that stops (killed, crashed) into EmbeddingUnavailable for every caller.
import { spawn, type ChildProcess } from "node:child_process";
import { LOCAL_WORKER_SOURCE, type LocalWorkerData, type LocalWorkerReply, type LocalWorkerRequest } from "./local-worker-source";
import { EmbeddingUnavailable } from "./provider";

export interface WorkerVectors {
  dims: number[];
  data: Float32Array;
}

interface Pending {
  resolve(vectors: WorkerVectors): void;
  reject(error: Error): void;
}

export class LocalWorker {
  /** Settles once the model is loaded in the worker; rejects with the worker's own reason otherwise. */
  readonly ready: Promise<void>;
  /** Settles when the process has exited, whatever the cause. */
  readonly exited: Promise<void>;
  private readonly worker: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private loading = true;
  private stopReason?: string;

  constructor(data: LocalWorkerData) {
    // Node's own flags only: jest's or the bridge's arguments mean nothing to the worker.
    this.worker = spawn(process.execPath, ["-e", LOCAL_WORKER_SOURCE, JSON.stringify(data)], {
      // Piped, not inherited: a detached bridge on Windows has no console to lend, and an inherited
      // one opened a window for node.exe that closed embeddings when the user closed it.
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      windowsHide: true,
      shell: false,
      // Structured clone rather than JSON, so vectors travel as Float32Array.
      serialization: "advanced",
    });
    // What the runtime prints (onnxruntime's warnings) still reaches this process's stderr.
    this.worker.stdout?.pipe(process.stderr, { end: false });
    this.worker.stderr?.pipe(process.stderr, { end: false });
    let settleReady!: { resolve(): void; reject(error: Error): void };
    this.ready = new Promise<void>((resolve, reject) => (settleReady = { resolve, reject }));
    this.exited = new Promise<void>((resolve) => this.worker.once("close", () => resolve()));
    this.worker.on("message", (reply: LocalWorkerReply) => {
      if (reply.kind === "ready" || reply.kind === "failed") {
        this.loading = false;
        this.updateRef();
        if (reply.kind === "ready") settleReady.resolve();
        else settleReady.reject(new EmbeddingUnavailable(reply.reason, reply.message));
        return;
      }
      const request = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      this.updateRef();
      if (reply.kind === "vectors") request?.resolve({ dims: reply.dims, data: reply.data });
      else request?.reject(new EmbeddingUnavailable(reply.reason, reply.message));
    });
    let ioError: string | undefined;
    this.worker.on("error", (error: unknown) => (ioError ??= `it failed: ${messageOf(error)}`));
    this.worker.on("close", (code, signal) => {
      // A signal is the cause; an I/O error seen just before (EPIPE on the request being sent) is only its symptom.
      this.stopReason ??= signal ? `it was killed by ${signal}` : (ioError ?? `it exited with code ${code}`);
      const failure = new EmbeddingUnavailable("provider_error", `The local embedding worker stopped: ${this.stopReason}`);
      this.loading = false;
      settleReady.reject(failure);
      for (const request of this.pending.values()) request.reject(failure);
      this.pending.clear();
    });
    this.updateRef();
  }

  /** False once the process has stopped; a provider then starts a fresh worker. */
  get running(): boolean {
    return this.stopReason === undefined;
  }

  run(texts: string[]): Promise<WorkerVectors> {
    if (this.stopReason !== undefined) {
      return Promise.reject(new EmbeddingUnavailable("provider_error", `The local embedding worker stopped: ${this.stopReason}`));
    }
    const id = this.nextId++;
    const answer = new Promise<WorkerVectors>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.worker.send({ id, texts } satisfies LocalWorkerRequest);
    this.updateRef();
    return answer;
  }

  /** Kills the process; calls still waiting fail with provider_error. Resolves once it has exited. */
  async close(): Promise<void> {
    this.stopReason ??= "the provider was closed";
    this.worker.kill();
    await this.exited;
  }

  /** An idle worker must not keep the process alive; one with callers waiting on it must. */
  private updateRef(): void {
    const busy = this.loading || this.pending.size > 0;
    // The output pipes are sockets too: an idle worker's must not keep the bridge (or a test) running either.
    const pipes = [this.worker.stdout, this.worker.stderr] as Array<{ ref?(): void; unref?(): void } | null>;
    for (const handle of [this.worker, this.worker.channel, ...pipes]) {
      if (busy) handle?.ref?.();
      else handle?.unref?.();
    }
  }
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : String(error);
}

// fsync on another thread, for checkpoints written in steps between requests. A part's flush (fsync of the
// last 4 MiB written) took 3 ms (p50) on the benchmark VM, but in full checkpoints at 1M (3.5 GB written) single
// ones took 36.8, 47.2, 80.4, 99.5 and 131.5 ms: each a pause of the bridge when made on its own thread. Here the thread
// asks a worker to fsync a file and goes on; a part is closed, and its checkpoint committed, only once the
// worker says its flushes are done. Completion is read from shared memory, not from an event, so steps
// driven in a loop that never lets the event loop run (a close, a benchmark) see it too.
import fs from "node:fs";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";

/** A flush under way: done() is true once the file is on disk, and throws the fsync's error if it failed. */
export interface FlushTicket {
  done(): boolean;
}

/** What writePartSteps flushes a part through instead of fsync on its own thread. */
export interface Flusher {
  start(fd: number): FlushTicket;
}

// Per request: its number once done (the worker writes it last), then 0 or the failure's slot.
const DONE = 0;
const FAILED = 1;
/** A flush the worker has not answered in this long is made here (a worker that died says nothing). */
const STALL_MS = 60_000;

const WORKER_SOURCE = `
const fs = require("node:fs");
const { workerData } = require("node:worker_threads");
const { state, port } = workerData;
port.on("message", ({ id, fd }) => {
  let failure;
  try {
    fs.fsyncSync(fd);
  } catch (error) {
    failure = { code: typeof error.code === "string" ? error.code : "EIO", message: String(error.message) };
  }
  if (failure) port.postMessage({ id, failure });
  Atomics.store(state, ${FAILED}, failure ? id : 0);
  Atomics.store(state, ${DONE}, id);
});
`;

/**
 * One worker that fsyncs files, one request at a time (a checkpoint writes one part at a time), for a store's
 * life; dispose() ends it. Falls back to fsync on this thread when the worker cannot be started.
 */
export class WorkerFlusher implements Flusher {
  private readonly state = new Int32Array(new SharedArrayBuffer(8));
  private readonly port: MessagePort;
  private readonly worker: Worker | undefined;
  private next = 0;
  private disposed = false;

  constructor() {
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.port.unref();
    let worker: Worker | undefined;
    try {
      worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { state: this.state, port: channel.port2 }, transferList: [channel.port2] });
      // A worker that fails is seen as a stall (below): an 'error' left unheard would end the process.
      worker.on("error", () => undefined);
      worker.unref();
    } catch {
      worker = undefined;
    }
    this.worker = worker;
  }

  start(fd: number): FlushTicket {
    if (!this.worker || this.disposed) {
      fs.fsyncSync(fd);
      return { done: () => true };
    }
    const id = ++this.next;
    this.port.postMessage({ id, fd });
    const started = performance.now();
    let settled = false;
    return {
      done: () => {
        if (settled) return true;
        if (Atomics.load(this.state, DONE) < id) {
          if (performance.now() - started < STALL_MS) return false;
          // Not answered: made here, so that the part is on disk however the worker fares.
          fs.fsyncSync(fd);
        } else if (Atomics.load(this.state, FAILED) === id) {
          throw this.failure(id);
        }
        settled = true;
        return true;
      },
    };
  }

  /** The fsync error the worker reported for request `id`, as fs.fsyncSync would have thrown it. */
  private failure(id: number): Error {
    for (let message = receiveMessageOnPort(this.port); message; message = receiveMessageOnPort(this.port)) {
      const { id: of, failure } = message.message as { id: number; failure: { code: string; message: string } };
      if (of !== id) continue;
      return Object.assign(new Error(failure.message), { code: failure.code, syscall: "fsync" });
    }
    return Object.assign(new Error("EIO: the fsync failed, reason not given, fsync"), { code: "EIO", syscall: "fsync" });
  }

  /** Ends the worker; later flushes are made on this thread. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.port.close();
    void this.worker?.terminate();
  }
}

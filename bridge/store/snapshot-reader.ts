// A checkpoint's BM25 snapshot read on another thread while the opening thread decodes the records: at a
// million memories each is a few seconds, and a laptop has a core to spare at start. The open stays
// synchronous: take() blocks on a shared flag, then picks the worker's result off its port. A worker that
// cannot start, or stops making progress, costs a wait and nothing else: the part is read here instead.
import fs from "node:fs";
import path from "node:path";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { Bm25Index } from "../index/bm25";
import { SNAPSHOT_HEADER_BYTES, type SnapshotArrays, type SnapshotLayout, snapshotArrays, snapshotLayout, snapshotSize } from "../index/bm25-snapshot";
import { TermDictionary } from "../index/term-dictionary";
import { readPartStreaming } from "./checkpoint-files";
import { CheckpointRejected, type PartRef } from "./checkpoint-format";
import { PROGRESS_DONE, PROGRESS_READS, type SnapshotReadJob, type SnapshotReadResult } from "./snapshot-read-job";
import { SNAPSHOT_READER_WORKER_SOURCE } from "./snapshot-reader-worker.generated";

/** A worker that has read nothing for this long is taken for stopped (a read is at most a few MB). */
const STALL_MS = 10_000;

/** The index a BM25 snapshot part holds, read on this thread. */
export function readSnapshot(dir: string, part: PartRef): Bm25Index {
  return readPartStreaming(dir, part, "BM25", (source) => Bm25Index.deserialize(source));
}

export interface SnapshotRead {
  /**
   * The index, once the worker has it (read here instead when it did not start or stalled); throws what
   * readSnapshot would. `inWorker` says which.
   */
  take(): { bm25: Bm25Index; inWorker: boolean };
  /** Stops the worker, if it is still running: the open failed before it needed the snapshot. */
  cancel(): void;
}

/** Starts reading the snapshot part on a worker thread. `workerSource` and `stallMs` are for tests. */
export function startSnapshotRead(dir: string, part: PartRef, { workerSource = SNAPSHOT_READER_WORKER_SOURCE, stallMs = STALL_MS } = {}): SnapshotRead {
  const progress = new Int32Array(new SharedArrayBuffer(8));
  const { port1, port2 } = new MessageChannel();
  let worker: Worker | undefined;
  try {
    const job: SnapshotReadJob = { dir, part, arrays: sharedArrays(dir, part), port: port2, progress };
    worker = new Worker(workerSource, { eval: true, workerData: job, transferList: [port2] });
    // Its failure is seen as a stall (take() cannot wait for events): an 'error' left unheard would end the process.
    worker.on("error", () => undefined);
    worker.unref();
  } catch {
    worker = undefined;
  }
  const stop = () => {
    void worker?.terminate();
    worker = undefined;
    port1.close();
  };
  return {
    take() {
      const result = worker ? waitFor(progress, port1, stallMs) : undefined;
      stop();
      if (!result) return { bm25: readSnapshot(dir, part), inWorker: false };
      if ("error" in result) throw result.rejected ? new CheckpointRejected(result.error) : new Error(result.error);
      return { bm25: Bm25Index.fromSnapshot(result.snapshot, TermDictionary.fromImage(result.terms)), inWorker: true };
    },
    cancel: stop,
  };
}

/** The worker's result, or undefined if it made no read for `stallMs`. */
function waitFor(progress: Int32Array, port: MessagePort, stallMs: number): SnapshotReadResult | undefined {
  let reads = -1;
  while (Atomics.load(progress, PROGRESS_DONE) === 0) {
    const now = Atomics.load(progress, PROGRESS_READS);
    if (now === reads) return undefined;
    reads = now;
    Atomics.wait(progress, PROGRESS_DONE, 0, stallMs);
  }
  return receiveMessageOnPort(port)?.message as SnapshotReadResult | undefined;
}

/**
 * Arrays in shared memory for the snapshot, made now (see SnapshotArrays), if its header reads and gives the
 * size the manifest recorded; else undefined, and the worker makes its own (or reports what is wrong).
 */
function sharedArrays(dir: string, part: PartRef): SnapshotArrays | undefined {
  let layout: SnapshotLayout;
  try {
    const header = new Uint8Array(SNAPSHOT_HEADER_BYTES);
    const fd = fs.openSync(path.join(dir, part.file), "r");
    try {
      if (fs.readSync(fd, header, 0, header.length, 0) !== header.length) return undefined;
    } finally {
      fs.closeSync(fd);
    }
    layout = snapshotLayout(header);
  } catch {
    return undefined;
  }
  return snapshotSize(layout) === part.bytes ? snapshotArrays(layout, (bytes) => new SharedArrayBuffer(bytes)) : undefined;
}

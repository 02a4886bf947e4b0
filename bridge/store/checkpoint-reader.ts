// Parts of a checkpoint read on another thread while the opening thread decodes the records: at a million
// memories the records, the BM25 snapshot and the vector parts' heads were each seconds, and a laptop has a
// core to spare at start. The open stays synchronous: a take blocks on a shared flag, then picks the
// worker's result off its port. A worker that cannot start, or stops making progress, costs a wait and
// nothing else: what it did not give is read on the opening thread instead.
import fs from "node:fs";
import path from "node:path";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { Bm25Index, type Bm25Params } from "../index/bm25";
import { withHeadroom } from "../index/capacity";
import { drawCheckSeed, PostingCheck, SNAPSHOT_HEADER_BYTES, type SnapshotArrays, type SnapshotLayout, snapshotArrays, snapshotLayout, snapshotSize } from "../index/bm25-snapshot";
import { TermDictionary } from "../index/term-dictionary";
import { hashPart, PartBuffer, readPartStreaming } from "./checkpoint-files";
import { CheckpointRejected, type PartRef } from "./checkpoint-format";
import { upgradeSum } from "./part-sum";
import { type CheckpointReadJob, type HashJob, type HashResult, type PostingCheckResult, PROGRESS_CHECK_NEXT, PROGRESS_CHECKED, PROGRESS_DECODED, PROGRESS_HASH_NEXT, PROGRESS_HASHED, PROGRESS_READS, PROGRESS_SLOTS, PROGRESS_SNAPSHOT, PROGRESS_VECTORS, type SnapshotImageResult, type SnapshotTermsResult, type VectorHead, type VectorHeadsJob, type VectorHeadsResult } from "./checkpoint-read-job";
import { CHECKPOINT_READER_WORKER_SOURCE } from "./checkpoint-reader-worker.generated";

/** A worker that has read nothing for this long is taken for stopped (a read is at most a few MB). */
const STALL_MS = 10_000;

/** The index a BM25 snapshot part holds, read on this thread. */
export function readSnapshot(dir: string, part: PartRef): Bm25Index {
  return readPartStreaming(dir, part, "BM25", (source) => Bm25Index.deserialize(source));
}

export interface CheckpointRead {
  /**
   * The heads of the vector parts asked for, by job space and segment, their codes written into the
   * indexes' memory; undefined if the worker did not give them (read them here). Throws what reading them
   * here would.
   */
  takeVectors(): Array<Map<number, VectorHead>> | undefined;
  /** The index, once the worker has it (read here instead when it did not start or stalled); `inWorker` says which. */
  takeSnapshot(): { bm25: Bm25Index; inWorker: boolean };
  /**
   * Returns once every part of `hashed` was found whole (its checksum what the manifest says), by the worker
   * or here, each found by its SHA-256 given its CRC-32 instead (part-sum.ts); throws the first damage found,
   * as reading the part here would. What the worker has not taken when this thread would wait for it (here
   * or in another take) is hashed here; when the worker stops, all that this thread did not hash.
   */
  takeHashed(): void;
  /** Stops the worker, if it is still running: the open failed, or has what it needs. */
  cancel(): void;
}

/**
 * Starts reading, on a worker thread, the heads of `vectors` (their indexes reserved for every doc they
 * hold) and the snapshot part, then hashing the parts of `hashed`. `workerSource` and `stallMs` are for tests.
 */
export function startCheckpointRead(
  dir: string,
  snapshot: PartRef,
  vectors: VectorHeadsJob[],
  { hashed = [] as HashJob[], bm25 = undefined as Bm25Params | undefined, workerSource = CHECKPOINT_READER_WORKER_SOURCE, stallMs = STALL_MS } = {},
): CheckpointRead {
  const progress = new Int32Array(new SharedArrayBuffer(4 * PROGRESS_SLOTS));
  const checkSeed = drawCheckSeed();
  const arrays = sharedArrays(dir, snapshot);
  // The index the snapshot goes into, its room made now, before the records (Bm25Index.reserveForSnapshot).
  const into = arrays && bm25 ? new Bm25Index(bm25).reserveForSnapshot(withHeadroom(arrays.termLengths.length), withHeadroom(arrays.docLengths.length)) : undefined;
  const vectorsChannel = new MessageChannel();
  const snapshotChannel = new MessageChannel();
  const hashedChannel = new MessageChannel();
  let worker: Worker | undefined;
  try {
    const ports = { vectorsPort: vectorsChannel.port2, snapshotPort: snapshotChannel.port2, hashedPort: hashedChannel.port2 };
    const snapshotUnhashed = hashed.some((job) => job.part === snapshot && job.head === undefined);
    const job: CheckpointReadJob = { dir, snapshot, snapshotUnhashed, arrays, checkSeed, vectors, hashed, ...ports, progress };
    worker = new Worker(workerSource, { eval: true, workerData: job, transferList: Object.values(ports) });
    // Its failure is seen as a stall (a take cannot wait for events): an 'error' left unheard would end the process.
    worker.on("error", () => undefined);
    worker.unref();
  } catch {
    worker = undefined;
  }
  let stalled = false;
  const buffer = new PartBuffer();
  const hashedHere = new Set<number>();
  // The next part no thread has taken, hashed here: what this thread does rather than wait for the worker.
  const hashNext = (): boolean => {
    const next = Atomics.add(progress, PROGRESS_HASH_NEXT, 1);
    if (next >= hashed.length) return false;
    hashedHere.add(next);
    hashPart(dir, hashed[next], buffer);
    return true;
  };
  const wait = <T>(slot: number, port: MessagePort): T | undefined => {
    if (!worker || stalled) return undefined;
    const result = waitFor<T>(progress, slot, port, stallMs, hashNext);
    stalled = result === undefined;
    return result;
  };
  const cancel = () => {
    void worker?.terminate();
    worker = undefined;
    vectorsChannel.port1.close();
    snapshotChannel.port1.close();
    hashedChannel.port1.close();
  };
  return {
    takeVectors() {
      const result = wait<VectorHeadsResult>(PROGRESS_VECTORS, vectorsChannel.port1);
      if (result && "error" in result) throw result.rejected ? new CheckpointRejected(result.error) : new Error(result.error);
      return result?.heads;
    },
    takeSnapshot() {
      const decoded = wait<SnapshotImageResult>(PROGRESS_DECODED, snapshotChannel.port1);
      if (!decoded) return { bm25: readSnapshot(dir, snapshot), inWorker: false };
      if ("error" in decoded) throw decoded.rejected ? new CheckpointRejected(decoded.error) : new Error(decoded.error);
      // In the arrays made here, the postings' check is shared: this thread takes the pieces left (while the
      // worker builds the term dictionary, or after it), the worker too once the dictionary is built.
      const check = decoded.bounds ? undefined : new PostingCheck(decoded.image, arrays!, checkSeed);
      const here = check?.checkTaken(() => Atomics.add(progress, PROGRESS_CHECK_NEXT, 1));
      const named = wait<SnapshotTermsResult>(PROGRESS_SNAPSHOT, snapshotChannel.port1);
      if (!named) return { bm25: readSnapshot(dir, snapshot), inWorker: false };
      if ("error" in named) throw named.rejected ? new CheckpointRejected(named.error) : new Error(named.error);
      let bounds = decoded.bounds;
      if (check && here) {
        const theirs = wait<PostingCheckResult>(PROGRESS_CHECKED, snapshotChannel.port1);
        if (theirs && "error" in theirs) throw theirs.rejected ? new CheckpointRejected(theirs.error) : new Error(theirs.error);
        // A worker that stopped may have taken pieces it never checked: every one not checked here is, now.
        const left = Array.from({ length: check.pieces }, (_, k) => k).filter((k) => !here.done.includes(k));
        const rest = theirs ?? check.checkTaken(() => left.shift() ?? check.pieces);
        bounds = check.finish((here.owed + rest.owed) | 0, [...here.unordered, ...rest.unordered]);
      }
      return { bm25: Bm25Index.fromSnapshot({ image: decoded.image, bounds: bounds! }, TermDictionary.fromImage(named.terms), into), inWorker: true };
    },
    takeHashed() {
      const result = wait<HashResult>(PROGRESS_HASHED, hashedChannel.port1);
      if (result && "error" in result) throw result.rejected ? new CheckpointRejected(result.error) : new Error(result.error);
      if (result) {
        for (const [i, crc] of result.upgraded) upgradeSum(hashed[i].head ?? hashed[i].part, crc);
        return;
      }
      // No word from the worker: it may have taken parts it never hashed.
      hashed.forEach((job, i) => hashedHere.has(i) || hashPart(dir, job, buffer));
    },
    cancel,
  };
}

/**
 * What the worker posted once `slot` is set, or undefined if it read nothing for `stallMs`; `meanwhile` does
 * some work at a time until it says there is none left.
 */
function waitFor<T>(progress: Int32Array, slot: number, port: MessagePort, stallMs: number, meanwhile: () => boolean): T | undefined {
  let reads = -1;
  while (Atomics.load(progress, slot) === 0) {
    if (meanwhile()) continue;
    const now = Atomics.load(progress, PROGRESS_READS);
    if (now === reads) return undefined;
    reads = now;
    Atomics.wait(progress, slot, 0, stallMs);
  }
  return receiveMessageOnPort(port)?.message as T | undefined;
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

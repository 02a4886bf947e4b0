// A worker thread's program (started by snapshot-reader.ts from the string scripts/build.mjs bundles it
// into): reads a checkpoint's BM25 snapshot part, checks it against its SHA-256, decodes and checks its
// postings, and builds its term dictionary, while the opening thread decodes the records. At a million
// memories that is ~4-5 s of the open off the opening thread. The arrays are transferred, not copied.
import { workerData } from "node:worker_threads";
import { decodeSnapshot, snapshotTerms } from "../index/bm25-snapshot";
import { readPartStreaming } from "./checkpoint-files";
import { CheckpointRejected } from "./checkpoint-format";
import { PROGRESS_DONE, PROGRESS_READS, type SnapshotReadJob, type SnapshotReadResult } from "./snapshot-read-job";

function read({ dir, part, arrays, progress }: SnapshotReadJob): { result: SnapshotReadResult; transfer: ArrayBuffer[] } {
  try {
    const snapshot = readPartStreaming(dir, part, "BM25", (source) =>
      decodeSnapshot(
        {
          size: source.size,
          read(into: Uint8Array): void {
            source.read(into);
            Atomics.add(progress, PROGRESS_READS, 1);
          },
        },
        arrays,
      ),
    );
    const terms = snapshotTerms(snapshot.image).image();
    const image = { ...snapshot.image, termText: new Uint8Array(0) };
    const { bounds } = snapshot;
    const made = [image.termLengths, image.offsets, image.docs, image.tfs, image.docLengths, bounds.maxTf, bounds.minLength, terms.slots, terms.codes];
    // What is not in shared memory already (the opening thread's arrays) goes over without a copy.
    const transfer = new Set(made.flatMap((array) => (array.buffer instanceof ArrayBuffer ? [array.buffer] : [])));
    return { result: { snapshot: { image, bounds }, terms }, transfer: [...transfer] };
  } catch (error) {
    return { result: { error: (error as Error).message, rejected: error instanceof CheckpointRejected }, transfer: [] };
  }
}

const job = workerData as SnapshotReadJob;
const { result, transfer } = read(job);
job.port.postMessage(result, transfer);
Atomics.store(job.progress, PROGRESS_DONE, 1);
Atomics.notify(job.progress, PROGRESS_DONE);

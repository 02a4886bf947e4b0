// What a checkpoint's BM25 snapshot reader (snapshot-reader.ts) and its worker thread
// (snapshot-reader-worker.ts) pass each other.
import type { MessagePort } from "node:worker_threads";
import type { DecodedSnapshot, SnapshotArrays } from "../index/bm25-snapshot";
import type { TermsImage } from "../index/term-dictionary";
import type { PartRef } from "./checkpoint-format";

export interface SnapshotReadJob {
  dir: string;
  part: PartRef;
  /** Arrays in shared memory, of the sizes the part's header gives, to decode into (else the worker makes its own). */
  arrays?: SnapshotArrays;
  /** Where the worker posts its SnapshotReadResult, once. */
  port: MessagePort;
  /** Shared Int32Array: PROGRESS_DONE becomes 1 once the result is posted; PROGRESS_READS counts the reads so far. */
  progress: Int32Array;
}

export const PROGRESS_DONE = 0;
export const PROGRESS_READS = 1;

/** The snapshot decoded and checked, with its term dictionary built (the term text is not sent again), or why not. */
export type SnapshotReadResult = { snapshot: DecodedSnapshot; terms: TermsImage } | { error: string; rejected: boolean };

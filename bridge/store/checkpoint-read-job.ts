// What a checkpoint's reader (checkpoint-reader.ts) and its worker thread (checkpoint-reader-worker.ts)
// pass each other.
import type { MessagePort } from "node:worker_threads";
import type { Bm25Image, PostingBounds, SnapshotArrays } from "../index/bm25-snapshot";
import type { CodesTarget } from "../index/quantize";
import type { TermsImage } from "../index/term-dictionary";
import type { PartHead, PartRef } from "./checkpoint-format";

/** The vector parts of one space whose heads the worker reads, writing their codes into the index's memory. */
export interface VectorHeadsJob {
  dim: number;
  target: CodesTarget;
  parts: Array<{ segment: number; part: PartRef; head: PartHead; vectors: number; from: number; count: number }>;
}

export interface CheckpointReadJob {
  dir: string;
  snapshot: PartRef;
  /** Whether the snapshot part is one of `hashed`: read unhashed then (its checksum checked only if it does not decode). */
  snapshotUnhashed: boolean;
  /** Arrays in shared memory, of the sizes the snapshot's header gives, to decode into (else the worker makes its own). */
  arrays?: SnapshotArrays;
  /** The seed of the check of the snapshot's postings that both threads share (PostingCheck), in `arrays`. */
  checkSeed: number;
  vectors: VectorHeadsJob[];
  /**
   * Parts the opening thread reads without hashing them: the worker reads and hashes them last, the opening
   * thread too instead of waiting for the worker, each taking the next one left (PROGRESS_HASH_NEXT).
   */
  hashed: HashJob[];
  /**
   * Where the worker posts its VectorHeadsResult; its SnapshotImageResult, SnapshotTermsResult and (in `arrays`)
   * PostingCheckResult, in that order; then its HashResult (once each).
   */
  vectorsPort: MessagePort;
  snapshotPort: MessagePort;
  hashedPort: MessagePort;
  /**
   * Shared Int32Array: PROGRESS_VECTORS, PROGRESS_DECODED, PROGRESS_SNAPSHOT, PROGRESS_CHECKED and PROGRESS_HASHED
   * become 1 once posted; PROGRESS_READS counts the reads (and pieces of the check) so far.
   */
  progress: Int32Array;
}

export const PROGRESS_VECTORS = 0;
export const PROGRESS_SNAPSHOT = 1;
export const PROGRESS_READS = 2;
export const PROGRESS_HASHED = 3;
/** The next part of `hashed` no thread has taken to hash (each takes one with Atomics.add). */
export const PROGRESS_HASH_NEXT = 4;
export const PROGRESS_DECODED = 5;
/** The next piece of the postings' check (PostingCheck) no thread has taken (each takes one with Atomics.add). */
export const PROGRESS_CHECK_NEXT = 6;
export const PROGRESS_CHECKED = 7;
export const PROGRESS_SLOTS = 8;

/**
 * A part to hash, or only its head (a vector part whose head the worker read unhashed), and its name in what a
 * damaged one is reported as ("the record part ...", "the vector part's head ...").
 */
export interface HashJob {
  part: PartRef;
  head?: PartHead;
  name: string;
}

/**
 * The snapshot decoded (its term text not sent), posted first: with its postings' bounds when the worker made
 * the arrays and checked them itself, else for the opening thread to check (in the shared arrays it made)
 * while the worker builds the term dictionary. Or why not.
 */
export type SnapshotImageResult = { image: Bm25Image; bounds?: PostingBounds } | { error: string; rejected: boolean };

/** The snapshot's term dictionary, posted second, or why not. */
export type SnapshotTermsResult = { terms: TermsImage } | { error: string; rejected: boolean };

/**
 * Posted third, when the image is in the opening thread's arrays: what the pieces of the postings' check that
 * the worker took (after the dictionary) owe, added up, and their terms out of doc order (PostingCheck.piece);
 * or the first corruption one of them found.
 */
export type PostingCheckResult = { owed: number; unordered: number[] } | { error: string; rejected: boolean };

/**
 * How many parts the worker found whole (all it took), with the CRC-32 of each it found whole by its SHA-256
 * (by index in `hashed`: the opening thread gives them the CRC-32, as a find there does, part-sum.ts); or the
 * first one that was not whole, or was not there.
 */
export type HashResult = { hashed: number; upgraded: Array<[number, string]> } | { error: string; rejected: boolean };

/** What a vector part's head holds but its codes, which are in the index's memory already. */
export interface VectorHead {
  docs: Int32Array;
  digests: Uint8Array;
  crcs: Uint32Array;
  scales: Float64Array;
  errors: Float64Array;
  rowsAt: number;
}

/** By job space, by segment: the heads read. */
export type VectorHeadsResult = { heads: Array<Map<number, VectorHead>> } | { error: string; rejected: boolean };

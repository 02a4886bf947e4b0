// A worker thread's program (started by checkpoint-reader.ts from the string scripts/build.mjs bundles it
// into), run while the opening thread decodes the records. First the heads of the vector parts whose rows
// stay in their files: each read unhashed (its checksum is checked with the parts of `hashed`), its codes
// written straight into the index's (shared) WebAssembly memory; then the BM25 snapshot part: decoded (checked
// as it is read unless it is one of `hashed`) and its term dictionary built, its postings checked (in arrays
// the opening thread made, by both threads: each takes the next piece left); then the parts of `hashed` no
// thread has taken yet. At a million memories that is ~6-7 s of the open off the opening thread (much of it
// first touches of fresh memory). What it makes for the opening thread is in shared memory (below).
import { workerData } from "node:worker_threads";
import { type Bm25Image, checkSnapshotPostings, decodeSnapshotImage, PostingCheck, type SnapshotArrays, snapshotTerms } from "../index/bm25-snapshot";
import type { TermDictionary } from "../index/term-dictionary";
import { writeCodes } from "../index/quantize";
import { hashPart, PartBuffer, readPartHeadUnhashed, readPartStreaming } from "./checkpoint-files";
import { CheckpointRejected } from "./checkpoint-format";
import { decodeVectorPart } from "./checkpoint-parts";
import { type CheckpointReadJob, type HashResult, type PostingCheckResult, PROGRESS_CHECK_NEXT, PROGRESS_CHECKED, PROGRESS_DECODED, PROGRESS_HASH_NEXT, PROGRESS_HASHED, PROGRESS_READS, PROGRESS_SNAPSHOT, PROGRESS_VECTORS, type VectorHead, type VectorHeadsResult } from "./checkpoint-read-job";

type Posted<T> = { result: T; transfer: ArrayBuffer[] };

const failure = (error: unknown) => ({ result: { error: (error as Error).message, rejected: error instanceof CheckpointRejected }, transfer: [] });

// What is not in shared memory already goes over without a copy.
const transferable = (arrays: ArrayBufferView[]) => [...new Set(arrays.flatMap((array) => (array.buffer instanceof ArrayBuffer ? [array.buffer] : [])))];

/**
 * What this thread makes for the opening thread is made in shared memory. An ArrayBuffer transferred there
 * counts in its heap as new external memory, and each 64 MB of that since V8's last full collection starts
 * another one: taking the vector heads and the term dictionary (~90 MB at 1M) did twice, pauses of 125 and
 * 141 ms marking the million records decoded by then. A SharedArrayBuffer's clone counts as nothing new.
 */
const shared = (bytes: number): SharedArrayBuffer => new SharedArrayBuffer(bytes);

function sharedCopy<T extends Int32Array | Uint8Array>(array: ArrayLike<number>, Type: { new (buffer: ArrayBufferLike): T; BYTES_PER_ELEMENT: number }): T {
  const copy = new Type(shared(array.length * Type.BYTES_PER_ELEMENT));
  copy.set(array);
  return copy;
}

function readVectorHeads({ dir, vectors, progress }: CheckpointReadJob): Posted<VectorHeadsResult> {
  try {
    const buffer = new PartBuffer();
    const heads = vectors.map(({ dim, target, parts }) => {
      const bySegment = new Map<number, VectorHead>();
      for (const { segment, part, head, vectors: count, from, count: docsIn } of parts) {
        // Unhashed: each head is a part of `hashed` (below), which the opening thread hashes while it waits
        // for the snapshot (~0.35 s of hashing at 1M that the snapshot no longer waits behind).
        const bytes = readPartHeadUnhashed(dir, part, head, "vector", buffer);
        Atomics.add(progress, PROGRESS_READS, 1);
        const decoded = decodeVectorPart(bytes, dim, count, { headOnly: true, memory: shared });
        // Copies: the part's bytes are reused for the next one.
        const docs = sharedCopy(decoded.docs, Int32Array);
        if (docs[0] < from || docs[docs.length - 1] >= from + docsIn) throw new CheckpointRejected(`a vector part of segment ${segment} holds docs outside it`);
        writeCodes(target, docs, decoded.codes!.codes);
        bySegment.set(segment, { docs, digests: sharedCopy(decoded.digests, Uint8Array), crcs: decoded.crcs!, scales: decoded.codes!.scales, errors: decoded.codes!.errors, rowsAt: decoded.rowsAt });
      }
      return bySegment;
    });
    return { result: { heads }, transfer: transferable(heads.flatMap((bySegment) => [...bySegment.values()].flatMap(({ docs, digests, crcs, scales, errors }) => [docs, digests, crcs, scales, errors]))) };
  } catch (error) {
    return failure(error);
  }
}

/**
 * Reads the snapshot part and posts its image (PROGRESS_DECODED), then builds and posts its term dictionary
 * (PROGRESS_SNAPSHOT). In arrays the opening thread made (shared), the image is posted before the dictionary
 * is built; the postings' check (~0.3 s at 1M) is shared: this thread takes pieces of it after the
 * dictionary, the opening thread once its records are decoded, and this thread posts what its pieces found
 * (PROGRESS_CHECKED). Which thread is free first differs by machine (here the codes' fresh pages made this
 * one's path the longer; elsewhere the records'). In arrays made here, the postings are checked here and
 * image and dictionary go over once built.
 */
function readSnapshot(job: CheckpointReadJob): void {
  const { dir, snapshot: part, snapshotUnhashed, arrays, progress, snapshotPort } = job;
  let terms: TermDictionary;
  let decoded: Bm25Image;
  try {
    const { image, arrays: decodedInto } = readPartStreaming(
      dir,
      part,
      "BM25",
      (source) =>
        decodeSnapshotImage(
          {
            size: source.size,
            read(into: Uint8Array): void {
              source.read(into);
              Atomics.add(progress, PROGRESS_READS, 1);
            },
          },
          arrays,
        ),
      { unhashed: snapshotUnhashed },
    );
    decoded = image;
    const sent = { ...image, termText: new Uint8Array(0) };
    if (arrays) {
      post(job, snapshotPort, PROGRESS_DECODED, { result: { image: sent }, transfer: [] });
      terms = snapshotTerms(image, shared);
    } else {
      const bounds = checkSnapshotPostings(image, decodedInto);
      terms = snapshotTerms(image, shared);
      const made = [sent.termLengths, sent.offsets, sent.docs, sent.tfs, sent.docLengths, bounds.maxTf, bounds.minLength];
      post(job, snapshotPort, PROGRESS_DECODED, { result: { image: sent, bounds }, transfer: transferable(made) });
    }
  } catch (error) {
    if (Atomics.load(progress, PROGRESS_DECODED) === 0) post(job, snapshotPort, PROGRESS_DECODED, failure(error));
    post(job, snapshotPort, PROGRESS_SNAPSHOT, failure(error));
    return;
  }
  post(job, snapshotPort, PROGRESS_SNAPSHOT, { result: { terms: terms.image() }, transfer: [] });
  if (arrays) post(job, snapshotPort, PROGRESS_CHECKED, checkPieces(job, decoded, arrays));
}

/** The pieces of the postings' check left, taken one at a time: what they owe and their unordered terms. */
function checkPieces({ progress, checkSeed }: CheckpointReadJob, image: Bm25Image, arrays: SnapshotArrays): Posted<PostingCheckResult> {
  try {
    const { owed, unordered } = new PostingCheck(image, arrays, checkSeed).checkTaken(() => {
      Atomics.add(progress, PROGRESS_READS, 1);
      return Atomics.add(progress, PROGRESS_CHECK_NEXT, 1);
    });
    return { result: { owed, unordered }, transfer: [] };
  } catch (error) {
    return failure(error);
  }
}

// The parts the opening thread decodes unhashed (its records, ~450 MB at 1M: ~0.3 s of hashing it need not
// wait for), read again and hashed, those the opening thread has not taken first. The files are a committed
// checkpoint's: written once, never changed.
function hashParts({ dir, hashed, progress }: CheckpointReadJob): Posted<HashResult> {
  try {
    const buffer = new PartBuffer();
    let done = 0;
    const upgraded: Array<[number, string]> = [];
    for (let next = Atomics.add(progress, PROGRESS_HASH_NEXT, 1); next < hashed.length; next = Atomics.add(progress, PROGRESS_HASH_NEXT, 1), done++) {
      // This thread's copy of the sum: one found whole by its SHA-256 becomes its CRC-32 (PartHasher.matches).
      const sum = hashed[next].head ?? hashed[next].part;
      const bySha = sum.sha256 !== undefined;
      hashPart(dir, hashed[next], buffer);
      if (bySha) upgraded.push([next, sum.crc32!]);
      Atomics.add(progress, PROGRESS_READS, 1);
    }
    return { result: { hashed: done, upgraded }, transfer: [] };
  } catch (error) {
    return failure(error);
  }
}

function post<T>(job: CheckpointReadJob, port: CheckpointReadJob["snapshotPort"], slot: number, { result, transfer }: Posted<T>): void {
  port.postMessage(result, transfer);
  Atomics.store(job.progress, slot, 1);
  Atomics.notify(job.progress, slot);
}

// The heads first: the opening thread needs the snapshot as soon as the records are decoded, the heads
// just after, and the heads take about half as long. The hashes last: wanted only once all is decoded.
const job = workerData as CheckpointReadJob;
post(job, job.vectorsPort, PROGRESS_VECTORS, readVectorHeads(job));
readSnapshot(job);
post(job, job.hashedPort, PROGRESS_HASHED, hashParts(job));

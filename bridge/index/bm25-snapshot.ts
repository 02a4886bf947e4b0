// Binary snapshot format of the BM25 index (magic + version + packed postings), and its strict decoder:
// unknown magic or version, truncation and inconsistent postings are refused with a message saying which.
import { TF_BIG } from "./bm25-maxscore";
import { withHeadroom } from "./capacity";
import { TermDictionary } from "./term-dictionary";
import { unzeroedInt32s } from "./run-steps";

/** A packed, tombstone-free image of a Bm25Index. */
export interface Bm25Image {
  k1: number;
  b: number;
  /** Each term's length in UTF-16 units, by term id. */
  termLengths: Int32Array;
  /** The terms' UTF-16 units, little-endian, one term after the other in id order. */
  termText: Uint8Array;
  /** CSR: postings of term t are [offsets[t], offsets[t + 1]). */
  offsets: Int32Array;
  docs: Int32Array;
  /** A byte a posting; TF_BIG there means the tf is in `bigTfs` by posting. */
  tfs: Uint8Array;
  bigTfs: Map<number, number>;
  /** Token count by doc number, -1 where no doc is live. */
  docLengths: Int32Array;
}

/** What the decoder checks of the postings, kept: each term's largest tf and shortest doc, and whether every list is in doc order. */
export interface PostingBounds {
  maxTf: Int32Array;
  /** 0x7fffffff for a term without postings. */
  minLength: Int32Array;
  sorted: boolean;
}

/** A snapshot decoded: its image, and the bounds its postings were checked against. */
export interface DecodedSnapshot {
  image: Bm25Image;
  bounds: PostingBounds;
}

export const BM25_SNAPSHOT_VERSION = 1;
const MAGIC = "DSHBM25\0";
// magic(8) version termCount termUnits postingCount docCount reserved (u32 each) k1 b (f64 each)
const HEADER_BYTES = 48;
const PREFIX = "Bm25Index.deserialize:";
// Bulk byte copies on little-endian hosts (all mainstream ones); DataView keeps big-endian hosts correct.
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

// Layout after the header, all little-endian: u32 term lengths (UTF-16 units), i32 offsets, i32 docs,
// i32 tfs, i32 doc lengths, u16 term text. UTF-16 units keep any term exact, lone surrogates included.
/** What a snapshot is written from: the first `termCount` terms by id (terms are only ever added), the CSR offsets, doc lengths. */
export interface PostingsHeader {
  k1: number;
  b: number;
  termCount: number;
  /** The terms by id (below termCount): each one's UTF-16 length, and its units written little-endian. */
  terms: { termLength(id: number): number; writeTerm(id: number, view: DataView, at: number): number };
  offsets: Int32Array;
  docLengths: Int32Array;
}

/** A snapshot's postings in file order (by term, each term's list whole), one field at a time. */
export interface PostingsStream {
  /** Writes the next docs (field "docs") or tfs (field "tfs") into `out` from 0; returns how many (0: none left). */
  fill(out: Int32Array): number;
}

/**
 * A snapshot as chunks of at most CHUNK_BYTES, each made when the previous one has been used (so one scratch
 * serves them all): what a checkpoint writes and hashes a chunk a step. `postings(field)` streams the docs,
 * then the tfs. Before, the whole snapshot (~400 MB at 1M) was one allocation, and V8 answered that much new
 * memory outside its heap with a full collection of a heap holding a million records (150-200 ms). The term
 * lengths are counted in steps first (TERMS_PER_STEP); the chunks follow from the returned iterable.
 */
export function* snapshotChunksInSteps(image: PostingsHeader, postings: (field: "docs" | "tfs") => PostingsStream): Generator<void, Iterable<Uint8Array>> {
  const { termCount } = image;
  // Every length is written below, a step at a time: not zeroed when made (11 MB at 1M, a step of its own).
  const lengths = unzeroedInt32s(termCount);
  let termUnits = 0;
  for (let id = 0; id < termCount; ) {
    lengths[id] = image.terms.termLength(id);
    termUnits += lengths[id];
    if (++id % TERMS_PER_STEP === 0) yield;
  }
  return snapshotChunks(image, lengths, termUnits, postings);
}

function* snapshotChunks(image: PostingsHeader, lengths: Int32Array, termUnits: number, postings: (field: "docs" | "tfs") => PostingsStream): Generator<Uint8Array> {
  const { termCount } = image;
  const count = image.offsets[termCount];
  const header = new Uint8Array(HEADER_BYTES);
  const view = new DataView(header.buffer);
  for (let i = 0; i < MAGIC.length; i++) header[i] = MAGIC.charCodeAt(i);
  [BM25_SNAPSHOT_VERSION, termCount, termUnits, count, image.docLengths.length, 0].forEach((value, i) => view.setUint32(8 + 4 * i, value, true));
  view.setFloat64(32, image.k1, true);
  view.setFloat64(40, image.b, true);
  yield header;
  const scratch = new Uint8Array(CHUNK_BYTES);
  const values = new Int32Array(CHUNK_BYTES / 4);
  yield* int32Chunks(lengths, scratch);
  yield* int32Chunks(image.offsets.subarray(0, termCount + 1), scratch);
  for (const field of ["docs", "tfs"] as const) {
    const stream = postings(field);
    let written = 0;
    for (let n = stream.fill(values); n > 0; n = stream.fill(values)) {
      written += n;
      yield* int32Chunks(values.subarray(0, n), scratch);
    }
    if (written !== count) throw new Error(`snapshotChunks: the ${field} of ${written} postings were written, the offsets say ${count}`);
  }
  yield* int32Chunks(image.docLengths, scratch);
  // The terms' units, as many whole terms a chunk as fit (a longer one gets a buffer of its own).
  const termView = new DataView(scratch.buffer);
  let at = 0;
  for (let id = 0; id < termCount; id++) {
    const bytes = 2 * lengths[id];
    if (at + bytes > CHUNK_BYTES) {
      if (at > 0) yield scratch.subarray(0, at);
      at = 0;
      if (bytes > CHUNK_BYTES) {
        const own = new Uint8Array(bytes);
        checkTermWritten(id, image.terms.writeTerm(id, new DataView(own.buffer), 0), bytes);
        yield own;
        continue;
      }
    }
    at = checkTermWritten(id, image.terms.writeTerm(id, termView, at) - at, bytes) + at;
  }
  if (at > 0) yield scratch.subarray(0, at);
}

function checkTermWritten(id: number, wrote: number, bytes: number): number {
  if (wrote !== bytes) throw new Error(`snapshotChunks: term ${id} wrote ${wrote / 2} units, its length is ${bytes / 2}`);
  return wrote;
}

/** `array`'s values little-endian, CHUNK_BYTES at a time: views of it on a little-endian host, else through `scratch`. */
function* int32Chunks(array: Int32Array, scratch: Uint8Array): Generator<Uint8Array> {
  const per = CHUNK_BYTES / 4;
  for (let from = 0; from < array.length; from += per) {
    const part = array.subarray(from, Math.min(array.length, from + per));
    if (LITTLE_ENDIAN) yield new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
    else yield scratch.subarray(0, putInt32s(scratch, 0, part) );
  }
}

// A chunk of the snapshot: 256Ki postings' docs or tfs, a step of a checkpoint's writing.
const CHUNK_BYTES = 1 << 20;

// About 5 ms of terms per step.
const TERMS_PER_STEP = 1 << 16;

/**
 * Where a snapshot is read from, front to back: `read` fills `into` with the next bytes. A checkpoint reads
 * its part this way, straight into the index's arrays (checkpoint-files.ts), so a snapshot of a million
 * memories (~400 MB) is neither held whole in memory nor copied a second time.
 */
export interface SnapshotSource {
  /** Bytes in all. */
  size: number;
  read(into: Uint8Array): void;
}

/** A snapshot held in memory as a source. */
export function bytesSource(bytes: Uint8Array): SnapshotSource {
  let at = 0;
  return {
    size: bytes.length,
    read(into: Uint8Array): void {
      into.set(bytes.subarray(at, at + into.length));
      at += into.length;
    },
  };
}

/**
 * The term dictionary of a decoded snapshot, its arrays made in `memory`; a term twice, or lengths that do not
 * cover the text, are refused as corruption.
 */
export function snapshotTerms(image: Bm25Image, memory?: (bytes: number) => ArrayBufferLike): TermDictionary {
  const terms = new TermDictionary(memory);
  try {
    terms.addSnapshotTerms(image.termText, image.termLengths);
  } catch (error) {
    throw new Error(`${PREFIX} corrupt snapshot: ${(error as Error).message}`);
  }
  return terms;
}

// Tfs are read this many postings at a time, through a scratch of 4 bytes each, into a byte each.
const TF_CHUNK = 1 << 20;

/** The sizes a snapshot's header gives. */
export interface SnapshotLayout {
  termCount: number;
  termUnits: number;
  postings: number;
  docCount: number;
}

export const SNAPSHOT_HEADER_BYTES = HEADER_BYTES;

/** The layout a snapshot's header (its first SNAPSHOT_HEADER_BYTES) gives; a wrong magic or version is refused, as decodeSnapshot refuses it. */
export function snapshotLayout(header: Uint8Array): SnapshotLayout {
  if (header.length < HEADER_BYTES) throw new Error(`${PREFIX} snapshot is truncated: ${header.length} bytes, the header alone needs ${HEADER_BYTES}`);
  const magic = String.fromCharCode(...header.subarray(0, MAGIC.length));
  if (magic !== MAGIC) throw new Error(`${PREFIX} not a BM25 snapshot (bad magic ${JSON.stringify(magic)})`);
  const view = new DataView(header.buffer, header.byteOffset, HEADER_BYTES);
  const [version, termCount, termUnits, postings, docCount] = [8, 12, 16, 20, 24].map((at) => view.getUint32(at, true));
  if (version !== BM25_SNAPSHOT_VERSION) {
    throw new Error(`${PREFIX} unsupported snapshot version ${version} (this build reads version ${BM25_SNAPSHOT_VERSION})`);
  }
  return { termCount, termUnits, postings, docCount };
}

/**
 * The arrays a decoded snapshot and its bounds are read into, by size. A checkpoint's open makes them before it
 * decodes the records, in memory shared with the worker that decodes the snapshot (checkpoint-reader.ts): V8
 * collects as memory outside its heap grows, and such a collection cost ~200 ms with the records in the heap.
 */
export interface SnapshotArrays {
  termLengths: Int32Array;
  offsets: Int32Array;
  docs: Int32Array;
  tfs: Uint8Array;
  docLengths: Int32Array;
  maxTf: Int32Array;
  minLength: Int32Array;
}

function arrayLengths({ termCount, postings, docCount }: SnapshotLayout): Record<keyof SnapshotArrays, number> {
  return { termLengths: termCount, offsets: termCount + 1, docs: postings, tfs: postings, docLengths: docCount, maxTf: termCount, minLength: termCount };
}

/**
 * Arrays for a snapshot of `layout`, in buffers `buffer` makes (fresh ArrayBuffers by default). The terms'
 * bounds, which the index keeps, lie in buffers with room for more terms (withHeadroom; views of the
 * snapshot's length): the index grows into it without a copy (bm25.ts, grow).
 */
export function snapshotArrays(layout: SnapshotLayout, buffer: (bytes: number) => ArrayBufferLike = (bytes) => new ArrayBuffer(bytes)): SnapshotArrays {
  const lengths = arrayLengths(layout);
  const int32s = (length: number, room = length) => new Int32Array(buffer(4 * room), 0, length);
  return {
    termLengths: int32s(lengths.termLengths),
    offsets: int32s(lengths.offsets),
    docs: int32s(lengths.docs),
    tfs: new Uint8Array(buffer(lengths.tfs)),
    docLengths: int32s(lengths.docLengths),
    maxTf: int32s(lengths.maxTf, withHeadroom(lengths.maxTf)),
    minLength: int32s(lengths.minLength, withHeadroom(lengths.minLength)),
  };
}

/** Decodes and checks a snapshot, into `into` when given (arrays of its layout, snapshotArrays). */
export function decodeSnapshot(input: Uint8Array | SnapshotSource, into?: SnapshotArrays): DecodedSnapshot {
  const { image, arrays } = decodeSnapshotImage(input, into);
  return { image, bounds: checkSnapshotPostings(image, arrays) };
}

/**
 * decodeSnapshot without the check of its postings (checkSnapshotPostings, ~0.4 s at 1M): the image, and the
 * arrays it was decoded into (`into`, or made), whose bounds the check fills. A worker that reads a snapshot
 * hands the image over for the check and builds the term dictionary meanwhile (checkpoint-reader-worker.ts).
 */
export function decodeSnapshotImage(input: Uint8Array | SnapshotSource, into?: SnapshotArrays): { image: Bm25Image; arrays: SnapshotArrays } {
  if (!(input instanceof Uint8Array) && !(typeof input === "object" && input !== null && typeof (input as SnapshotSource).read === "function")) throw new Error(`${PREFIX} expected a Uint8Array, got ${typeof input}`);
  const source = input instanceof Uint8Array ? bytesSource(input) : input;
  if (source.size < HEADER_BYTES) throw new Error(`${PREFIX} snapshot is truncated: ${source.size} bytes, the header alone needs ${HEADER_BYTES}`);
  const header = new Uint8Array(HEADER_BYTES);
  source.read(header);
  const layout = snapshotLayout(header);
  const { termCount, termUnits, postings, docCount } = layout;
  const expected = snapshotBytes(termCount, termUnits, postings, docCount);
  if (source.size < expected) throw new Error(`${PREFIX} snapshot is truncated: ${source.size} bytes, expected ${expected}`);
  if (source.size > expected) throw new Error(`${PREFIX} snapshot has ${source.size - expected} trailing bytes after the expected ${expected}`);
  const arrays = into ?? snapshotArrays(layout);
  const lengths = arrayLengths(layout);
  for (const name of Object.keys(lengths) as Array<keyof SnapshotArrays>) {
    if (arrays[name].length !== lengths[name]) throw new Error(`${PREFIX} the arrays given hold ${arrays[name].length} ${name}; this snapshot has ${lengths[name]}`);
  }
  const readInt32s = (array: Int32Array): Int32Array => {
    source.read(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    if (!LITTLE_ENDIAN) {
      const words = new DataView(array.buffer, array.byteOffset, array.byteLength);
      for (let i = 0; i < array.length; i++) array[i] = words.getInt32(4 * i, true);
    }
    return array;
  };
  const termLengths = readInt32s(arrays.termLengths);
  const offsets = readInt32s(arrays.offsets);
  const docs = readInt32s(arrays.docs);
  // A byte a tf; one of TF_BIG or more keeps TF_BIG there and its value in `bigTfs` (as Bm25Index holds them).
  const { tfs } = arrays;
  const bigTfs = new Map<number, number>();
  const chunk = new Int32Array(Math.min(TF_CHUNK, postings));
  const chunkBytes = new Uint8Array(chunk.buffer);
  const chunkView = new DataView(chunk.buffer);
  for (let from = 0; from < postings; from += chunk.length) {
    const count = Math.min(chunk.length, postings - from);
    source.read(chunkBytes.subarray(0, 4 * count));
    for (let i = 0; i < count; i++) {
      const tf = LITTLE_ENDIAN ? chunk[i] : chunkView.getInt32(4 * i, true);
      if (tf < 1) throw new Error(`${PREFIX} corrupt snapshot: posting ${from + i} has term frequency ${tf}`);
      if (tf >= TF_BIG) {
        tfs[from + i] = TF_BIG;
        bigTfs.set(from + i, tf);
      } else tfs[from + i] = tf;
    }
  }
  const docLengths = readInt32s(arrays.docLengths);
  const termText = new Uint8Array(2 * termUnits);
  source.read(termText);
  const view = new DataView(header.buffer);
  const image: Bm25Image = { k1: view.getFloat64(32, true), b: view.getFloat64(40, true), termLengths, offsets, docs, tfs, bigTfs, docLengths, termText };
  checkTermLengths(termLengths, termUnits);
  return { image, arrays };
}


/** The bytes a snapshot of `layout` takes. */
export function snapshotSize({ termCount, termUnits, postings, docCount }: SnapshotLayout): number {
  return snapshotBytes(termCount, termUnits, postings, docCount);
}

function snapshotBytes(termCount: number, termUnits: number, postings: number, docCount: number): number {
  return HEADER_BYTES + 4 * termCount + 4 * (termCount + 1) + 8 * postings + 4 * docCount + 2 * termUnits;
}

function putInt32s(bytes: Uint8Array, at: number, array: Int32Array): number {
  if (LITTLE_ENDIAN) bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
  else {
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    for (let i = 0; i < array.length; i++) view.setInt32(at + 4 * i, array[i], true);
  }
  return at + array.byteLength;
}

// The terms themselves are read into the index's term dictionary (Bm25Index.fromImage), which finds duplicates.
function checkTermLengths(lengths: Int32Array, termUnits: number): void {
  let units = 0;
  for (const length of lengths) {
    if (length < 0 || units + length > termUnits) throw new Error(`${PREFIX} corrupt snapshot: term lengths exceed the term text`);
    units += length;
  }
  if (units !== termUnits) throw new Error(`${PREFIX} corrupt snapshot: term lengths do not cover the term text`);
}

// Every posting must name a live doc once per term (tfs >= 1 are checked as they are read), and each doc's
// tfs must add up to its length. The sums are checked as one fingerprint: each doc has an odd weight (a hash
// of its number and a seed drawn for this check), and the postings' tfs, weighted, must add up to the
// lengths, weighted (mod 2^32). One doc whose tfs disagree with its length is always caught (an odd weight
// times a nonzero difference under 2^31 is not 0 mod 2^32); several whose differences cancel exactly slip
// through about once in 2^32 seeds. A posting reads its doc's length and nothing else by doc: a second array
// by doc (what each doc's postings still owed it, 8 MB with the lengths at 1M) made each posting a miss
// in the TLB, ~1.7 s at 45M postings on the reader thread against ~0.5 s now. On a mismatch, an exact pass
// finds the doc to name. A doc twice in a term shows as postings out of order: the terms whose postings are
// not in doc order (rare) are sorted and looked at again. The bounds an index keeps of its main postings are
// taken in the same pass (a second one cost ~0.75 s at 1M), into `maxTf` and `minLength`. Throws "corrupt
// snapshot: ..." on the first disagreement. The pass is a PostingCheck of one piece.
export function checkSnapshotPostings(image: Bm25Image, bounds: Pick<SnapshotArrays, "maxTf" | "minLength">, seed = drawCheckSeed()): PostingBounds {
  const check = new PostingCheck(image, bounds, seed, 1);
  const { owed, unordered } = check.piece(0);
  return check.finish(owed, unordered);
}

/** A seed for a check of the postings' sums (checkSnapshotPostings): each check draws its own. */
export function drawCheckSeed(): number {
  return (Math.random() * 0x100000000) | 0;
}

/** How many pieces a shared check cuts the postings into: a piece is ~1.5 % of them (~10 ms at 1M). */
export const CHECK_PIECES = 64;

/**
 * checkSnapshotPostings in pieces of about equal postings (whole terms each), which threads can share: a
 * checkpoint's reader and its worker each take the next piece left (checkpoint-reader.ts), each with a
 * PostingCheck of its own over the same image, bounds (shared memory: each piece writes its own terms') and
 * seed. What each piece owes is added up (mod 2^32), its terms out of doc order gathered, and both given to
 * finish() once every piece is checked. A piece throws "corrupt snapshot: ..." as the whole check would.
 */
export class PostingCheck {
  /** Piece k holds terms [firstTerms[k], firstTerms[k + 1]). */
  private readonly firstTerms: Int32Array;
  /** Where the postings whose tf is in `bigTfs` lie, in order. */
  private readonly bigAt: Int32Array;

  constructor(
    private readonly image: Bm25Image,
    private readonly bounds: Pick<SnapshotArrays, "maxTf" | "minLength">,
    private readonly seed: number,
    pieces = CHECK_PIECES,
  ) {
    const { termLengths, offsets, docs } = image;
    const termCount = termLengths.length;
    if (offsets[0] !== 0 || offsets[termCount] !== docs.length) corrupt("term offsets do not span the postings");
    this.firstTerms = new Int32Array(pieces + 1);
    for (let k = 1; k < pieces; k++) this.firstTerms[k] = firstTermFrom(offsets, this.firstTerms[k - 1], termCount, Math.floor((k * docs.length) / pieces));
    this.firstTerms[pieces] = termCount;
    this.bigAt = Int32Array.from(image.bigTfs.keys()).sort();
  }

  get pieces(): number {
    return this.firstTerms.length - 1;
  }

  /**
   * Checks the postings of piece `k` and writes its terms' bounds; returns what its tfs owe, weighted (to be
   * added to every other piece's), and its terms whose postings are not in doc order.
   */
  piece(k: number): { owed: number; unordered: number[] } {
    const { offsets, docs, tfs, bigTfs, docLengths } = this.image;
    const { maxTf, minLength } = this.bounds;
    const { seed } = this;
    const from = this.firstTerms[k];
    const to = this.firstTerms[k + 1];
    const docCount = docLengths.length;
    const unordered: number[] = [];
    let owed = 0;
    for (let t = from; t < to; t++) {
      const start = offsets[t];
      const end = offsets[t + 1];
      if (end < start) corrupt(`term offsets decrease at term ${t}`);
      // Only where an offset after this term decreases (found there too).
      if (end > docs.length) corrupt(`term offsets exceed the postings at term ${t}`);
      let termMaxTf = 0;
      let termMinLength = 0x7fffffff;
      let previous = -1;
      let ordered = true;
      // The loop of ~45M postings at 1M: a tf of TF_BIG is counted as TF_BIG here and its rest after it.
      for (let p = start; p < end; p++) {
        const doc = docs[p];
        if (doc >>> 0 >= docCount) corrupt(`posting ${p} names doc ${doc}, which is not live`);
        const length = docLengths[doc];
        const tf = tfs[p];
        owed = (owed - Math.imul(docWeight(doc, seed), tf)) | 0;
        if (tf > termMaxTf) termMaxTf = tf;
        if (length < termMinLength) termMinLength = length;
        if (doc <= previous) ordered = false;
        previous = doc;
      }
      if (termMinLength < 0) {
        const p = docs.subarray(start, end).findIndex((doc) => docLengths[doc] < 0);
        corrupt(`posting ${start + p} names doc ${docs[start + p]}, which is not live`);
      }
      if (!ordered) unordered.push(t);
      maxTf[t] = termMaxTf;
      minLength[t] = termMinLength;
    }
    // The tfs of TF_BIG and more (rare): what they owe beyond TF_BIG, and their terms' largest tf.
    const { bigAt } = this;
    for (let i = lowerBound(bigAt, offsets[from]); i < bigAt.length && bigAt[i] < offsets[to]; i++) {
      const p = bigAt[i];
      const tf = bigTfs.get(p)!;
      owed = (owed - Math.imul(docWeight(docs[p], seed), tf - TF_BIG)) | 0;
      const t = lastTermAt(offsets, from, to, p);
      if (tf > maxTf[t]) maxTf[t] = tf;
    }
    return { owed, unordered };
  }

  /**
   * Checks each piece `take` gives (taken from a counter threads share, say) until it gives none left (a
   * number from `pieces` up): what they owe, added up, their terms out of doc order, and which pieces they were.
   */
  checkTaken(take: () => number): { owed: number; unordered: number[]; done: number[] } {
    let owed = 0;
    const unordered: number[] = [];
    const done: number[] = [];
    for (let k = take(); k < this.pieces; k = take()) {
      const piece = this.piece(k);
      owed = (owed + piece.owed) | 0;
      unordered.push(...piece.unordered);
      done.push(k);
    }
    return { owed, unordered, done };
  }

  /**
   * Once every piece is checked: the docs' lengths, weighted, against what the pieces owe (`owed`, their sum),
   * and the terms out of doc order (`unordered`, every piece's) for a doc twice. Returns the bounds.
   */
  finish(owed: number, unordered: number[]): PostingBounds {
    const { docs, offsets, docLengths } = this.image;
    const { seed } = this;
    for (let doc = 0; doc < docLengths.length; doc++) {
      const length = docLengths[doc];
      if (length < -1) corrupt(`doc ${doc} length ${length} disagrees with its postings`);
      if (length > 0) owed = (owed + Math.imul(docWeight(doc, seed), length)) | 0;
    }
    for (const t of [...unordered].sort((a, b) => a - b)) {
      const termDocs = docs.slice(offsets[t], offsets[t + 1]).sort();
      for (let i = 1; i < termDocs.length; i++) if (termDocs[i] === termDocs[i - 1]) corrupt(`doc ${termDocs[i]} appears twice in the postings of term ${t}`);
    }
    if (owed !== 0) {
      const doc = docDisagreeing(this.image);
      corrupt(`doc ${doc} length ${docLengths[doc]} disagrees with its postings`);
    }
    const { maxTf, minLength } = this.bounds;
    return { maxTf, minLength, sorted: unordered.length === 0 };
  }
}

/** The first term in [from, termCount] whose postings start at `posting` or after (offsets in order there). */
function firstTermFrom(offsets: Int32Array, from: number, termCount: number, posting: number): number {
  let [low, high] = [from, termCount];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (offsets[middle] < posting) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The last term in [from, to) whose postings start at or before `posting` (offsets in order there): its term. */
function lastTermAt(offsets: Int32Array, from: number, to: number, posting: number): number {
  return firstTermFrom(offsets, from, to, posting + 1) - 1;
}

/** The first index of the sorted `values` that holds `value` or more. */
function lowerBound(values: Int32Array, value: number): number {
  let [low, high] = [0, values.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function corrupt(what: string): never {
  throw new Error(`${PREFIX} corrupt snapshot: ${what}`);
}

/** An odd weight for `doc` (murmur3's finalizer of the doc and the seed). */
function docWeight(doc: number, seed: number): number {
  let h = doc ^ seed;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 1;
}

/** The first live doc whose postings' tfs do not add up to its length (the fingerprint said one does), by an exact pass. */
function docDisagreeing({ docs, tfs, bigTfs, docLengths }: Bm25Image): number {
  const owed = Int32Array.from(docLengths);
  for (let p = 0; p < docs.length; p++) owed[docs[p]] -= tfs[p] === TF_BIG ? bigTfs.get(p)! : tfs[p];
  // Not -1: when every doc's tfs add up, so do their weighted sums.
  return owed.findIndex((left, doc) => docLengths[doc] >= 0 && left !== 0);
}

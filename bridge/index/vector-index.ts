// Cosine top-k over dense vectors. Unit vectors are kept in f32 for exact scores (row-pages.ts: in memory,
// or read back from a checkpoint's file once one holds them); their int8 codes (quantize.ts) are scanned
// first to bound every score, and only docs whose upper bound can still reach the k-th exact score are
// re-scored, so results equal a full f32 scan of the docs scanned.
// Up to flatMaxRecords live vectors every doc is scanned (exact). Above it, once maintain() has built
// inverted lists (coarse-lists.ts), only the docs of the lists nearest the query are scanned: an
// approximate answer whose scores are still exact. lastSearch says which index answered.
import { FLAT_MAX_RECORDS, RECALL_TARGET } from "./ann-defaults";
import { CoarseLists, trainCentroids } from "./coarse-lists";
import { type CodesTarget, Int8Codes } from "./quantize";
import { DamagedRowError, type RowFile, RowPages } from "./row-pages";
import { seededRandom } from "./seeded-random";
import { Scored, TopK } from "./top-k";

export const MAX_DIM = 4096;
const MIN_CAPACITY = 64;
// Relative slack on the vector norms in the bound: stored components are f32-rounded (rel. error 2^-24 each)
// and error norms are summed in f64; 1e-6 dominates both with a wide margin.
const NORM_SLACK = 1e-6;
// Absolute slack for f64 rounding in the approximate and exact dots (at most dim * 2^-53 ≈ 5e-13 here).
const ROUND_SLACK = 1e-7;
// Rounding a unit vector's components to f32 moves its norm by at most 2^-24 ≈ 6e-8: a bulk-loaded row further
// from unit length did not come from set(), and the bound's NORM_SLACK would no longer cover it.
const UNIT_TOLERANCE = 1e-7;

export type VectorInput = Float32Array | number[];

export interface AnnOptions {
  /** Above this many live vectors the inverted lists answer, once built (default 200,000; the seed's limit). */
  flatMaxRecords?: number;
  /**
   * Recall@10 against exact the lists must reach on the build's probe queries (default 0.98): each build
   * gathers the smallest share of the index that reaches it.
   */
  recallTarget?: number;
}

// The shares of the live vectors a build tries, smallest first; the whole index is exact by construction.
const PROBE_SHARES = [0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.065, 0.08, 0.1, 0.12, 0.15, 0.2, 0.3, 0.5, 1];
// A search gathers at least this many docs per result wanted, so small k on a small index still probes widely.
const MIN_GATHER_PER_RESULT = 64;
const KMEANS_ITERATIONS = 6;
const SAMPLE_PER_LIST = 32;
// Stored vectors used as queries to estimate the lists' recall@10 after a build (their own doc excluded,
// so each asks for its neighbours, a harder query than a near-duplicate).
const RECALL_PROBES = 200;
const RECALL_K = 10;
// Work per build step, so no step (which cannot be cut short) pauses requests for long: about 4 ms
// each here. In int8 multiply-adds, for listing docs against every centroid and for k-means rounds;
// in gathered code bytes, for the exact scans of the recall estimate; in time, for copying the sample
// (its rows are read from checkpoint files at random once the rows are paged: 256 rows a step took 30-45 ms
// at 1M, reads that missed the page cache).
const STEP_MACS = 2 ** 26;
const GATHER_BYTES_PER_STEP = 2 ** 23;
const COPY_MS_PER_STEP = 4;

/** Which index answered the last search, and how much of it was read. */
export interface VectorSearchInfo {
  index: "flat" | "ivf";
  /** Docs whose codes were scanned. */
  scanned: number;
  /** ivf: lists read of lists in all, and the recall@10 estimated for this probe share when the lists were built. */
  probed?: number;
  lists?: number;
  recallEstimate?: number;
}

/** State of the inverted lists (status and tests). */
export interface AnnStatus {
  flatMaxRecords: number;
  /** "flat": at or under the limit; "building": over it, exact scan until the lists are ready; "ivf": lists answer. */
  mode: "flat" | "building" | "ivf";
  lists?: number;
  recallEstimate?: number;
  /** Share of the live vectors a search gathers, chosen by the build for the recall target. */
  probeShare?: number;
  /** Live vectors when the current lists were trained; they are retrained once the index doubles. */
  trainedAt?: number;
}

interface BuiltLists {
  lists: CoarseLists;
  recall: number;
  share: number;
  trainedAt: number;
}

/** The built lists as a checkpoint keeps them: centroids, and the list of each exported doc. */
export interface ListsImage {
  centroids: Float32Array;
  /** listOf[i] is the list of docs[i] of the exportRows() it goes with. */
  listOf: Int32Array;
  recall: number;
  share: number;
  trainedAt: number;
}

/** Candidate i is docs[order[i]] with upper bound uppers[order[i]], best bound first. */
interface Candidates {
  order: Int32Array;
  docs: Int32Array;
  uppers: Float64Array;
}

export class VectorIndex {
  private readonly rows: RowPages;
  private disposedFlag = false;
  private live = new Uint8Array(0);
  /**
   * Per-search scratch, sized to capacity: candidate docs and their upper bounds; the scales and error
   * norms of the docs gathered into codes.gatherRows(), in the same order.
   */
  private candidateDocs = new Int32Array(0);
  private candidateUppers = new Float64Array(0);
  private gatheredScales = new Float64Array(0);
  private gatheredErrors = new Float64Array(0);
  private capacity = 0;
  /** One past the highest live doc: the scan covers rows [0, end). */
  private end = 0;
  private count = 0;
  private overwritten = 0;
  private readonly codes: Int8Codes;
  private flatMaxRecords = FLAT_MAX_RECORDS;
  private recallTarget = RECALL_TARGET;
  private ann: BuiltLists | undefined;
  /** Counts the lists built or restored: which of them a checkpoint holds (see listsGeneration). */
  private listsMade = 0;
  /** The array lendLists() fills, kept between checkpoints. */
  private listsScratch: { array: Int32Array; lent: boolean } | undefined;
  /** The build in progress (maintain() steps it) and the lists it fills, kept current by set and remove. */
  private build: { steps: Generator<void, void>; lists?: CoarseLists; cursor: number } | undefined;
  lastSearch: VectorSearchInfo = { index: "flat", scanned: 0 };
  /**
   * Told of a doc whose row read back damaged (DamagedRowError): the index has dropped its vector. The owner
   * forgets what it bound to that vector and counts the change, so the next checkpoint leaves it out.
   */
  onDamagedRow: ((doc: number) => void) | undefined;
  private damaged = 0;

  constructor(
    private readonly dimension: number,
    options: AnnOptions = {},
  ) {
    if (!Number.isInteger(dimension) || dimension < 1 || dimension > MAX_DIM) {
      throw new Error(`dim must be an integer from 1 to ${MAX_DIM}, got ${String(dimension)}`);
    }
    this.codes = new Int8Codes(dimension);
    this.rows = new RowPages(dimension);
    this.configure(options);
  }

  /** Sets the ANN limits (validated); lists already built are kept and used by the new limit. */
  configure(options: AnnOptions): void {
    const { flatMaxRecords = FLAT_MAX_RECORDS, recallTarget = RECALL_TARGET } = options;
    if (!Number.isSafeInteger(flatMaxRecords) || flatMaxRecords < 0) throw new Error(`flat_max_records must be a non-negative integer, got ${String(flatMaxRecords)}`);
    if (!(recallTarget > 0 && recallTarget <= 1)) throw new Error(`recall_target must be a number in (0, 1], got ${String(recallTarget)}`);
    this.flatMaxRecords = flatMaxRecords;
    this.recallTarget = recallTarget;
  }

  annStatus(): AnnStatus {
    const over = this.count > this.flatMaxRecords;
    const mode = !over ? "flat" : this.ann ? "ivf" : "building";
    const status: AnnStatus = { flatMaxRecords: this.flatMaxRecords, mode };
    if (this.ann) Object.assign(status, { lists: this.ann.lists.count, recallEstimate: this.ann.recall, probeShare: this.ann.share, trainedAt: this.ann.trainedAt });
    return status;
  }

  /**
   * Which lists the index answers from: a number that changes with each build (or restore from a checkpoint),
   * undefined while it has none. Lists kept current by later adds and removes keep their number.
   */
  get listsGeneration(): number | undefined {
    return this.ann ? this.listsMade : undefined;
  }

  /** Whether maintain() has work: the index is over the limit and its lists are missing or outgrown. */
  needsMaintenance(): boolean {
    return this.build !== undefined || (this.count > this.flatMaxRecords && (this.ann === undefined || this.count > 2 * this.ann.trainedAt));
  }

  /**
   * Builds the inverted lists in steps of a few milliseconds until `budgetMs` is spent (Infinity: to the
   * end). Searches stay exact until a build completes; a rebuild replaces the old lists only when done.
   * Returns whether work is left.
   */
  maintain(budgetMs = Infinity): boolean {
    if (!this.needsMaintenance()) return false;
    this.build ??= { steps: this.buildSteps(), cursor: 0 };
    const started = performance.now();
    while (this.build) {
      if (this.build.steps.next().done) this.build = undefined;
      else if (performance.now() - started >= budgetMs) return true;
    }
    return this.needsMaintenance();
  }

  get dim(): number {
    return this.dimension;
  }

  /** Live vectors. */
  get size(): number {
    return this.count;
  }

  has(doc: number): boolean {
    return Number.isInteger(doc) && doc >= 0 && doc < this.end && this.live[doc] === 1;
  }

  /**
   * Rebuilds an index from what exportRows gave: the f32 unit rows are taken verbatim, because normalising
   * them again could move a last bit and change a score; their int8 codes are recomputed. `docs` must be
   * strictly increasing and every row of unit length.
   */
  static fromRows(dim: number, docs: Int32Array, rows: Float32Array | readonly Float32Array[]): VectorIndex {
    const index = new VectorIndex(dim);
    index.appendRows(docs, rows);
    return index;
  }

  /**
   * fromRows for an index being loaded a part at a time: `docs` must come after every doc it holds. With
   * `file` (the same rows, row i of it for docs[i]; closed on an error) the rows are read from it from now
   * on and never copied into memory. On an error nothing of this call is kept.
   */
  appendRows(docs: Int32Array, rows: Float32Array | readonly Float32Array[], file?: RowFile): void {
    try {
      this.appendChecked(docs, rows, file);
    } catch (error) {
      file?.close();
      throw error;
    }
  }

  private appendChecked(docs: Int32Array, rows: Float32Array | readonly Float32Array[], file: RowFile | undefined): void {
    const dim = this.dimension;
    const runs = Array.isArray(rows) ? rows : [rows as Float32Array];
    const values = runs.reduce((sum, run) => sum + run.length, 0);
    if (values !== docs.length * dim || runs.some((run) => run.length % dim !== 0)) throw new Error(`fromRows: ${values} values do not make ${docs.length} rows of ${dim}`);
    if (docs.length === 0) {
      file?.close();
      return;
    }
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i];
      if (!(doc >= (i === 0 ? this.end : docs[i - 1] + 1))) throw new Error(`fromRows: docs must be non-negative and strictly increasing (docs[${i}] = ${doc})`);
    }
    this.reserve(docs[docs.length - 1] + 1);
    for (let i = 0, run = 0, at = 0; i < docs.length; i++, at += dim) {
      const doc = docs[i];
      while (at === runs[run].length) [run, at] = [run + 1, 0];
      // The codes straight from the rows given, or from the copy in memory: the same values either way.
      const norm = Math.sqrt(file ? this.codes.encode(doc, runs[run], at) : this.codes.encode(doc, this.rows.write(doc, runs[run].subarray(at, at + dim)), 0));
      if (!(Math.abs(norm - 1) <= UNIT_TOLERANCE)) {
        if (!file) for (let j = 0; j <= i; j++) this.rows.forget(docs[j]);
        throw new Error(`fromRows: row ${i} (doc ${doc}) has norm ${norm}, not a stored unit vector`);
      }
    }
    if (file) this.rows.attach(file, docs);
    for (const doc of docs) this.live[doc] = 1;
    this.count += docs.length;
    this.end = docs[docs.length - 1] + 1;
  }

  /**
   * appendRows for a part whose codes were kept (readCodes): the codes are installed as they are and the rows
   * stay in `file`, read when a search re-scores them (never at open). `docs` must come after every doc the
   * index holds; `file` is closed on an error, and nothing of this call is kept.
   */
  appendCoded(docs: Int32Array, coded: { codes: Int8Array; scales: Float64Array; errors: Float64Array }, file: RowFile): void {
    this.appendLoaded(docs, file, "appendCoded", () => {
      this.reserve(docs[docs.length - 1] + 1);
      this.codes.load(docs, coded.codes, coded.scales, coded.errors);
    });
  }

  /**
   * Where another thread writes the codes of docs below the reserved count (reserveDocs), for
   * appendCodedInPlace: a restore has a worker write them while it decodes the records.
   */
  codesTarget(): CodesTarget {
    return this.codes.codesTarget();
  }

  /** appendCoded for a part whose codes were written through codesTarget() already: only their scales and error norms are given. */
  appendCodedInPlace(docs: Int32Array, coded: { scales: Float64Array; errors: Float64Array }, file: RowFile): void {
    this.appendLoaded(docs, file, "appendCodedInPlace", () => {
      if (docs[docs.length - 1] >= this.capacity) throw new Error(`appendCodedInPlace: doc ${docs[docs.length - 1]} is past the ${this.capacity} reserved`);
      this.codes.loadWritten(docs, coded.scales, coded.errors);
    });
  }

  private appendLoaded(docs: Int32Array, file: RowFile, name: string, load: () => void): void {
    try {
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i];
        if (!(doc >= (i === 0 ? this.end : docs[i - 1] + 1))) throw new Error(`${name}: docs must be non-negative and strictly increasing (docs[${i}] = ${doc})`);
      }
      if (docs.length === 0) {
        file.close();
        return;
      }
      load();
    } catch (error) {
      file.close();
      throw error;
    }
    this.rows.attach(file, docs);
    for (const doc of docs) this.live[doc] = 1;
    this.count += docs.length;
    this.end = docs[docs.length - 1] + 1;
  }

  /** The int8 codes of `docs` (each must have a vector), with their scales and error norms: a checkpoint keeps them. */
  readCodes(docs: Int32Array, into?: { codes: Int8Array; scales: Float64Array; errors: Float64Array }): { codes: Int8Array; scales: Float64Array; errors: Float64Array } {
    for (const doc of docs) if (!(doc >= 0 && doc < this.capacity && this.rows.has(doc))) throw new Error(`readCodes: doc ${doc} has no vector`);
    return this.codes.readCodes(docs, into);
  }

  /** Rows that read back damaged since the index was made (their vectors dropped, or their docs forgotten already). */
  get damagedRows(): number {
    return this.damaged;
  }

  /**
   * Reads the rows of `docs` from `file` from now on (row i of it is the row of docs[i], written from this
   * index), letting go of the memory they took: a checkpoint that holds them calls this once it is committed.
   * Nothing read before needs those rows in memory afterwards. `overwrites` is what `overwrites` was when the
   * file's rows were read: if a vector was replaced since, a row in memory may be newer than the file's, and
   * only the docs read from a file move (their rows were not replaced: a replaced row is in memory).
   */
  pageRows(file: RowFile, docs: Int32Array, overwrites = this.overwritten): void {
    this.rows.page(file, docs, overwrites === this.overwritten);
  }

  /** After pageRows: frees the memory and closes the files no live doc reads any more. */
  settleRows(): void {
    this.rows.settle(this.live, this.end);
  }

  /** Whether dispose() was called. */
  get disposed(): boolean {
    return this.disposedFlag;
  }

  /** Bytes of f32 rows held in memory, and how many files rows are read from. */
  rowFootprint(): { memoryBytes: number; files: number } {
    return this.rows.footprint();
  }

  /** Closes the files rows are read from; the index is not used after this. */
  dispose(): void {
    this.disposedFlag = true;
    this.rows.dispose();
    this.ann = undefined;
    this.build = undefined;
  }

  /** Live docs in increasing order and their stored unit rows (for fromRows), one array per run of consecutive live docs. */
  exportRows(): { docs: Int32Array; rows: Float32Array[] } {
    const docs = new Int32Array(this.count);
    const rows: Float32Array[] = [];
    for (let doc = 0, i = 0; doc < this.end; ) {
      if (this.live[doc] !== 1) {
        doc++;
        continue;
      }
      const start = doc;
      while (doc < this.end && this.live[doc] === 1) docs[i++] = doc++;
      rows.push(this.readRows(docs.subarray(i - (doc - start), i)));
    }
    return { docs, rows };
  }

  /** A copy of the stored rows of `docs`, joined in order (a checkpoint's vector part), in `out` if given. Each must have a row. */
  readRows(docs: Int32Array, out: Float32Array = new Float32Array(docs.length * this.dimension)): Float32Array {
    if (out.length !== docs.length * this.dimension) throw new Error(`readRows: ${out.length} floats for ${docs.length} rows of ${this.dimension}`);
    try {
      this.rows.readRows(docs, out);
    } catch (error) {
      if (!(error instanceof DamagedRowError)) throw error;
      // Row by row, to find (and drop) every damaged one; the caller learns which.
      const damaged = docs.filter((doc) => this.rows.has(doc) && this.rowOf(doc) === undefined);
      throw new DamagedRowError(error.slot, `the rows of docs ${[...damaged].join(", ")} are damaged (${error.message}); their vectors were dropped`);
    }
    return out;
  }

  /** Doc's row (see RowPages.row), or undefined when it read back damaged: then its vector is dropped. */
  private rowOf(doc: number): Float32Array | undefined {
    try {
      return this.rows.row(doc);
    } catch (error) {
      if (!(error instanceof DamagedRowError)) throw error;
      this.rows.forget(doc);
      // Counted even for a doc forgotten since (a checkpoint still reading its row): the count is what tells a
      // checkpoint that gave up for a damaged row that trying again will not meet it.
      this.damaged++;
      if (this.remove(doc)) this.onDamagedRow?.(doc);
      return undefined;
    }
  }

  /** The live docs from `from` to `to` - 1, in increasing order. */
  liveDocs(from = 0, to = this.end): Int32Array {
    const end = Math.min(to, this.end);
    let count = 0;
    for (let doc = from; doc < end; doc++) count += this.live[doc];
    const docs = new Int32Array(count);
    for (let doc = from, i = 0; doc < end; doc++) if (this.live[doc] === 1) docs[i++] = doc;
    return docs;
  }

  /** How many times set() replaced the vector of a doc that already had one. */
  get overwrites(): number {
    return this.overwritten;
  }

  /**
   * The built lists for a checkpoint (undefined when none are built): each live doc's list, in doc order (as
   * liveDocs() gives them), a run of live docs at a time. `listOf` is lent: the index keeps it from one
   * checkpoint to the next until release() (a fresh one, 4 MB at 1M, cost ~13 ms of first touches on the
   * bench VM, in a checkpoint's first step), sized to the index's capacity so that a growing index fills the
   * same one; lent already, a fresh one is made.
   */
  lendLists(): { image: ListsImage; release(): void } | undefined {
    if (!this.ann) return undefined;
    const { lists, recall, share, trainedAt } = this.ann;
    const kept = this.listsScratch;
    const own = kept !== undefined && !kept.lent && kept.array.length >= this.count;
    const scratch = own ? kept : { array: new Int32Array(Math.max(this.count, this.capacity)), lent: false };
    if (!own && (kept === undefined || !kept.lent)) this.listsScratch = scratch;
    const listOf = scratch.array.subarray(0, this.count);
    let at = 0;
    forEachRun(this.live, 0, this.end, (first, after) => {
      lists.copyListsOf(first, after, listOf, at);
      at += after - first;
    });
    if (at !== this.count) throw new Error(`lendLists: ${at} live docs found, ${this.count} counted`);
    scratch.lent = true;
    return {
      image: { centroids: lists.centroids, listOf, recall, share, trainedAt },
      release: () => void (scratch.lent = false),
    };
  }

  /**
   * Installs lists a checkpoint kept (after fromRows with the same `docs`): every live doc must be listed.
   * Docs set after this (the journal's tail) are listed as they come.
   */
  restoreLists(docs: Int32Array, image: ListsImage): void {
    if (image.listOf.length !== docs.length || docs.length !== this.count) throw new Error(`restoreLists: ${image.listOf.length} list entries for ${docs.length} docs and ${this.count} vectors`);
    const lists = new CoarseLists(this.dimension, image.centroids, this.codes);
    const members = new Int32Array(lists.count);
    let end = 0;
    image.listOf.forEach((list, i) => {
      // A list that is not one of them is refused by place(), below.
      if (list >= 0 && list < lists.count) members[list]++;
      end = Math.max(end, docs[i] + 1);
    });
    lists.reserve(end, members);
    docs.forEach((doc, i) => {
      if (this.live[doc] !== 1) throw new Error(`restoreLists: doc ${doc} has no vector`);
      lists.place(doc, image.listOf[i]);
    });
    this.ann = { lists, recall: image.recall, share: image.share, trainedAt: image.trainedAt };
    this.listsMade++;
  }

  /** Stores the unit vector of `vector` under `doc`, replacing any earlier vector for it. */
  set(doc: number, vector: VectorInput): void {
    if (!Number.isSafeInteger(doc) || doc < 0) throw new Error(`doc must be a non-negative integer, got ${String(doc)}`);
    const unit = normalise(vector, this.dimension, "vector");
    this.reserve(doc + 1);
    if (this.live[doc] === 1) this.overwritten++;
    const row = this.rows.write(doc, unit);
    this.codes.encode(doc, row, 0);
    if (this.live[doc] !== 1) {
      this.live[doc] = 1;
      this.count++;
    }
    this.end = Math.max(this.end, doc + 1);
    this.ann?.lists.add(doc, row, 0);
    // Docs at or past the build's cursor are listed when it gets there.
    if (this.build?.lists && doc < this.build.cursor) this.build.lists.add(doc, row, 0);
  }

  /** Returns whether `doc` was live. */
  remove(doc: number): boolean {
    if (!this.has(doc)) return false;
    this.live[doc] = 0;
    this.count--;
    this.rows.release(doc);
    this.ann?.lists.remove(doc);
    this.build?.lists?.remove(doc);
    while (this.end > 0 && this.live[this.end - 1] !== 1) this.end--;
    return true;
  }

  /** A copy of the stored unit vector. */
  vectorOf(doc: number): Float32Array | undefined {
    if (!this.has(doc)) return undefined;
    return this.rowOf(doc)?.slice();
  }

  /**
   * The k live docs with the highest cosine to `query` (restricted to docs with a non-zero `accept[doc]`
   * when a mask is given), best first, ties by lower doc.
   */
  search(query: VectorInput, k: number, accept?: Uint8Array): Scored[] {
    if (!Number.isInteger(k) || k < 0) throw new Error(`k must be a non-negative integer, got ${String(k)}`);
    const unit = normalise(query, this.dimension, "query");
    // A row that reads back damaged drops its doc mid-search, after the candidates were bounded with it:
    // the search runs again without it. Each run that drops one drops a doc, so the runs end.
    for (;;) {
      const damaged = this.damaged;
      const found = this.searchUnit(unit, k, accept);
      if (this.damaged === damaged) return found;
    }
  }

  private searchUnit(unit: Float64Array, k: number, accept: Uint8Array | undefined): Scored[] {
    const keep = Math.min(k, this.count);
    if (keep === 0) {
      this.lastSearch = { index: "flat", scanned: 0 };
      return [];
    }
    const ann = this.count > this.flatMaxRecords ? this.ann : undefined;
    if (!ann) {
      this.lastSearch = { index: "flat", scanned: this.count };
      return this.rescore(unit, keep, this.candidates(unit, keep, accept));
    }
    return this.searchLists(ann, unit, keep, accept);
  }

  /** The exact top k among the eligible docs of the lists nearest `unit`. */
  private searchLists({ lists, recall, share }: BuiltLists, unit: Float64Array, k: number, accept: Uint8Array | undefined): Scored[] {
    const rows = this.codes.gatherRows();
    const want = Math.max(MIN_GATHER_PER_RESULT * k, Math.ceil(share * this.count));
    const { gathered, probed } = lists.probe(unit, want, this.live, accept, { docs: rows, scales: this.gatheredScales, errors: this.gatheredErrors });
    this.lastSearch = { index: "ivf", scanned: gathered, probed, lists: lists.count, recallEstimate: recall };
    return this.rescore(unit, Math.min(k, gathered), this.candidates(unit, k, accept, gathered));
  }

  /**
   * One build: sample, train the centroids, list every live doc, then choose the probe share: the
   * smallest that reaches the recall target on probe queries whose exact neighbours are known. The
   * new lists replace the old ones (if any) at the end. Each yield is a few milliseconds.
   */
  private *buildSteps(): Generator<void, void> {
    const dim = this.dimension;
    const trainedAt = this.count;
    const listCount = Math.max(1, Math.min(4096, Math.round(Math.sqrt(trainedAt))));
    const sampleDocs = this.sampleLiveDocs(SAMPLE_PER_LIST * listCount, trainedAt);
    const sample = new Float32Array(sampleDocs.length * dim);
    let stepStarted = performance.now();
    for (let i = 0; i < sampleDocs.length; i++) {
      // A doc forgotten since it was drawn may have lost its row (a checkpoint let it go): the row before
      // it stands in, since the sample only has to be typical.
      const row = this.rows.has(sampleDocs[i]) ? this.rowOf(sampleDocs[i]) : undefined;
      if (row) sample.set(row, i * dim);
      else if (i > 0) sample.copyWithin(i * dim, (i - 1) * dim, i * dim);
      if (performance.now() - stepStarted >= COPY_MS_PER_STEP) {
        yield;
        stepStarted = performance.now();
      }
    }
    yield;
    const listsTrained = Math.min(listCount, sampleDocs.length);
    const centroids = yield* trainCentroids(sample, dim, listsTrained, KMEANS_ITERATIONS, Math.max(16, Math.floor(STEP_MACS / (listsTrained * dim))));
    const build = this.build!;
    const lists = new CoarseLists(dim, centroids, this.codes);
    build.lists = lists;
    while (build.cursor < this.end) {
      const stop = Math.min(this.end, build.cursor + Math.max(64, Math.floor(STEP_MACS / (lists.count * dim))));
      for (let doc = build.cursor; doc < stop; doc++) {
        const row = this.live[doc] === 1 ? this.rowOf(doc) : undefined;
        if (row) lists.add(doc, row, 0);
      }
      build.cursor = stop;
      yield;
    }
    build.cursor = Infinity;
    // Every gathered doc is scored exactly, so an exact neighbour is in the answer exactly when its list
    // is read: the recall of each share follows from where each neighbour's list falls in the probe
    // order (how many docs a probe gathers before reaching it), without searching.
    const placed: number[][] = [];
    const keep = Math.min(RECALL_K + 1, this.count);
    for (const doc of this.sampleLiveDocs(RECALL_PROBES, trainedAt + 1)) {
      const row = this.rows.has(doc) ? this.rowOf(doc) : undefined;
      if (!row) continue;
      const unit = Float64Array.from(row);
      const exact = (yield* this.exactInSteps(unit, keep)).filter((h) => h.doc !== doc).slice(0, RECALL_K);
      const before = lists.gatheredBefore(unit);
      // A neighbour forgotten during its scan (in no list) counts as missed.
      placed.push(exact.map((h) => before[lists.listOfDoc(h.doc)] ?? Infinity));
      yield;
    }
    let chosen = { share: 1, recall: 1 };
    for (const share of PROBE_SHARES) {
      const want = Math.max(MIN_GATHER_PER_RESULT * RECALL_K, Math.ceil(share * this.count));
      const recalls = placed.filter((p) => p.length > 0).map((p) => p.filter((before) => before < want).length / p.length);
      // The share must reach the target with two standard errors to spare.
      const { mean, error } = meanAndError(recalls);
      if (mean - 2 * error >= this.recallTarget || share === 1) {
        chosen = { share, recall: mean };
        break;
      }
    }
    this.ann = { lists, ...chosen, trainedAt };
    this.listsMade++;
  }

  /**
   * The exact top k of every live doc, a range of rows per step (a full scan at a million rows would be
   * one long pause): each range's exact top k, merged. Docs set or removed between steps may be missed
   * or kept; the build uses this only to estimate recall.
   */
  private *exactInSteps(unit: Float64Array, k: number): Generator<void, Scored[]> {
    const best = new TopK(k);
    const rowsPerStep = Math.max(1024, Math.floor(GATHER_BYTES_PER_STEP / this.dimension));
    for (let start = 0; start < this.end; start += rowsPerStep) {
      const rows = this.codes.gatherRows();
      const { scales, errors } = this.codes;
      let gathered = 0;
      for (let doc = start, stop = Math.min(this.end, start + rowsPerStep); doc < stop; doc++) {
        if (this.live[doc] !== 1) continue;
        rows[gathered] = doc;
        this.gatheredScales[gathered] = scales[doc];
        this.gatheredErrors[gathered++] = errors[doc];
      }
      if (gathered > 0) for (const hit of this.rescore(unit, Math.min(k, gathered), this.candidates(unit, k, undefined, gathered))) best.push(hit.doc, hit.score);
      yield;
    }
    return best.sorted();
  }

  /**
   * A uniform sample of min(n, size) live docs, in doc order (selection sampling), from a fixed seed so a
   * build is repeatable. Random rather than evenly spaced: docs written in a cycle (one topic every
   * thousandth memory) would otherwise all be drawn from one topic.
   */
  private sampleLiveDocs(n: number, seed: number): number[] {
    const docs: number[] = [];
    const random = seededRandom(seed);
    let left = this.count;
    for (let doc = 0; doc < this.end && docs.length < n; doc++) {
      if (this.live[doc] !== 1) continue;
      if (random() * left < n - docs.length) docs.push(doc);
      left--;
    }
    return docs;
  }

  /**
   * Bounds every eligible doc's cosine from its int8 code and returns, best bound first, the docs whose
   * upper bound reaches the k-th largest lower bound: at least k docs score at least that much, so no
   * other doc can enter the top k. Bounds are clamped to [-1, 1] like the scores they bound.
   *
   * Bound: with q, v the unit vectors and q', v' their dequantized codes,
   * |q·v - q'·v'| <= |(q - q')·v| + |q'·(v - v')| <= e_q ||v|| + ||q'|| e_v <= e_q + (1 + e_q) e_v (Cauchy-Schwarz),
   * and q'·v' = dot * s_q * s_v exactly because the kernel's integer dot does not overflow.
   *
   * Without `gathered`, every live doc `accept` allows is scanned. With it, the first `gathered` docs of
   * codes.gatherRows() (all eligible), with their scales and error norms at the same places in
   * gatheredScales and gatheredErrors.
   */
  private candidates(unit: Float64Array, k: number, accept: Uint8Array | undefined, gathered?: number): Candidates {
    const query = this.codes.encodeQuery(unit);
    // Flat: dots[doc] for every row. Gathered: dots[i] for the doc in gatherRows()[i].
    const rows = gathered === undefined ? undefined : this.codes.gatherRows();
    const dots = rows === undefined ? this.codes.scan(this.end) : this.codes.gather(gathered!);
    const scanned = rows === undefined ? this.end : gathered!;
    // By scan position too: a flat scan's position is its doc.
    const scales = rows === undefined ? this.codes.scales : this.gatheredScales;
    const errors = rows === undefined ? this.codes.errors : this.gatheredErrors;
    const marginBase = (1 + NORM_SLACK) * query.error + ROUND_SLACK;
    const marginPerError = (1 + NORM_SLACK) * (1 + NORM_SLACK + query.error);
    const { live, candidateDocs: docs, candidateUppers: uppers } = this;
    const lowest = new TopK(k);
    let lowestKept = -Infinity;
    // The running cut only rises, so filtering by it on the way leaves a superset of the final candidates.
    let cut = -1;
    let n = 0;
    for (let i = 0; i < scanned; i++) {
      let doc = i;
      if (rows !== undefined) doc = rows[i];
      else if (live[i] !== 1 || (accept !== undefined && !accept[i])) continue;
      const approx = dots[i] * scales[i] * query.scale;
      const margin = marginBase + marginPerError * errors[i];
      const lower = approx - margin;
      if (lower > lowestKept) {
        lowest.push(doc, lower);
        lowestKept = lowest.threshold;
        cut = clampCosine(lowestKept);
      }
      const upper = clampCosine(approx + margin);
      if (upper >= cut) {
        docs[n] = doc;
        uppers[n++] = upper;
      }
    }
    let kept = 0;
    for (let i = 0; i < n; i++) if (uppers[i] >= cut) kept++;
    const order = new Int32Array(kept);
    for (let i = 0, j = 0; i < n; i++) if (uppers[i] >= cut) order[j++] = i;
    order.sort((a, b) => uppers[b] - uppers[a] || docs[a] - docs[b]);
    return { order, docs, uppers };
  }

  /** Exact scores in bound order, stopping once no remaining bound can reach the k-th exact score. */
  private rescore(unit: Float64Array, k: number, { order, docs, uppers }: Candidates): Scored[] {
    const best = new TopK(k);
    const dim = this.dimension;
    for (const i of order) {
      if (best.size === k && uppers[i] < best.threshold) break;
      // A damaged row's exact score cannot be known: its doc is dropped, and the search goes on without it.
      const row = this.rowOf(docs[i]);
      if (row) best.push(docs[i], clampCosine(dotAt(unit, row, 0, dim)));
    }
    return best.sorted();
  }

  /**
   * Makes room for docs below `docs` at once, and for a quarter more. A restore knows how many it will append:
   * growing by doubling allocated again and again, outside the JS heap, and each +64 MB of that makes V8
   * collect. The room past them costs address space, not memory, until used: without it the first vector
   * stored after opening 1M grew every array to 2M, copying ~40 MB into fresh pages (an add of ~110 ms).
   */
  reserveDocs(docs: number): void {
    this.reserve(Math.max(docs, Math.min(docs + Math.ceil(docs / 4), this.codes.maxRows)));
  }

  private reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, Math.min(this.capacity * 2, this.codes.maxRows), MIN_CAPACITY);
    this.codes.reserve(capacity);
    this.rows.reserve(capacity);
    const live = new Uint8Array(capacity);
    live.set(this.live);
    this.live = live;
    this.candidateDocs = new Int32Array(capacity);
    this.candidateUppers = new Float64Array(capacity);
    this.gatheredScales = new Float64Array(capacity);
    this.gatheredErrors = new Float64Array(capacity);
    this.capacity = capacity;
  }
}

/** Validates `vector` and returns its unit vector in f64, scaling by max|x| first so huge or tiny inputs do not overflow. */
function normalise(vector: VectorInput, dim: number, name: string): Float64Array {
  if (!(vector instanceof Float32Array) && !Array.isArray(vector)) throw new Error(`${name} must be a Float32Array or an array of numbers`);
  if (vector.length !== dim) throw new Error(`${name} length ${vector.length} does not match the index dimension ${dim}`);
  let maxAbs = 0;
  for (let i = 0; i < dim; i++) {
    const x = vector[i];
    if (typeof x !== "number" || !Number.isFinite(x)) throw new Error(`${name}[${i}] is not a finite number (${String(x)})`);
    maxAbs = Math.max(maxAbs, Math.abs(x));
  }
  if (maxAbs === 0) throw new Error(`${name} is a zero vector, which has no cosine`);
  const unit = new Float64Array(dim);
  let normSquared = 0;
  for (let i = 0; i < dim; i++) {
    unit[i] = vector[i] / maxAbs;
    normSquared += unit[i] * unit[i];
  }
  const norm = Math.sqrt(normSquared);
  for (let i = 0; i < dim; i++) unit[i] /= norm;
  return unit;
}

function dotAt(query: Float64Array, vectors: Float32Array, at: number, dim: number): number {
  let sum = 0;
  for (let i = 0; i < dim; i++) sum += query[i] * vectors[at + i];
  return sum;
}

function meanAndError(values: number[]): { mean: number; error: number } {
  if (values.length === 0) return { mean: 1, error: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, values.length - 1);
  return { mean, error: Math.sqrt(variance / values.length) };
}

function clampCosine(score: number): number {
  return score > 1 ? 1 : score < -1 ? -1 : score;
}

/** Calls `run(first, after)` for each run of docs marked live (1) from `from` to `to` - 1, found by native scans. */
function forEachRun(live: Uint8Array, from: number, to: number, run: (first: number, after: number) => void): void {
  const range = live.subarray(0, Math.min(to, live.length));
  for (let at = from; at < range.length; ) {
    const first = range.indexOf(1, at);
    if (first === -1) return;
    const gap = range.indexOf(0, first);
    const after = gap === -1 ? range.length : gap;
    run(first, after);
    at = after;
  }
}

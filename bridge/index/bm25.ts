// Incremental BM25 serving index: a packed CSR main segment, an append-only delta segment for recent adds,
// tombstoned deletes with exact live statistics, and full-corpus top-k search. Snapshots live in bm25-snapshot.ts.
import { TopK, type Scored } from "./top-k";
import { decodeSnapshot, encodeSnapshot, type Bm25Image } from "./bm25-snapshot";

export interface Bm25Params {
  k1?: number;
  b?: number;
}

export interface Bm25SearchOptions {
  /** Count a repeated query term once. Default false: like wink-bm25-text-search, each occurrence adds its weight again. */
  dedupeQuery?: boolean;
}

const ABSENT = 0;
const LIVE = 1;
const DEAD = 2;
const MAX_DOC = 0x7ffffffe;
// The delta is re-packed once it outgrows half the main segment, so re-pack work stays linear overall.
const DELTA_MIN_POSTINGS = 4096;
const VACUUM_DEAD_FRACTION = 0.25;

export class Bm25Index {
  readonly k1: number;
  readonly b: number;
  private readonly termIds = new Map<string, number>();
  private df: Int32Array = new Int32Array(64);
  private mainTerms = 0;
  private mainOffsets: Int32Array = new Int32Array(1);
  private mainDocs: Int32Array = new Int32Array(0);
  private mainTfs: Int32Array = new Int32Array(0);
  // Delta postings in append order, chained newest-first per term through deltaNext.
  private deltaHead: Int32Array = new Int32Array(64).fill(-1);
  private deltaNext: Int32Array = new Int32Array(0);
  private deltaTerms: Int32Array = new Int32Array(0);
  private deltaDocs: Int32Array = new Int32Array(0);
  private deltaTfs: Int32Array = new Int32Array(0);
  private deltaCount = 0;
  // Per doc: state, token count, and its unique term ids in the forward pool, so remove() needs no tokens.
  private state: Uint8Array = new Uint8Array(0);
  private docLengths: Int32Array = new Int32Array(0);
  private fwdStart: Int32Array = new Int32Array(0);
  private fwdCount: Int32Array = new Int32Array(0);
  private fwdTerms: Int32Array = new Int32Array(0);
  private fwdUsed = 0;
  private liveDocs = 0;
  private deadDocs = 0;
  private lengthSum = 0;
  // Search and add scratch; all-zero between calls.
  private scores: Float64Array = new Float64Array(0);
  private touched: Int32Array = new Int32Array(0);
  private termTf: Int32Array = new Int32Array(64);

  constructor(params: Bm25Params = {}) {
    this.k1 = checkParam("k1", params.k1 ?? 1.2, Infinity);
    this.b = checkParam("b", params.b ?? 0.75, 1);
  }

  get size(): number {
    return this.liveDocs;
  }

  has(doc: number): boolean {
    return this.state[doc] === LIVE;
  }

  /** Index `tokens` as document `doc`; a doc number removed earlier may be reused, which forces a vacuum. */
  add(doc: number, tokens: readonly string[]): void {
    if (!Number.isInteger(doc) || doc < 0 || doc > MAX_DOC) throw new Error(`Bm25Index.add: doc must be an integer in [0, ${MAX_DOC}], got ${doc}`);
    if (this.state[doc] === LIVE) throw new Error(`Bm25Index.add: doc ${doc} is already indexed`);
    const bad = tokens.findIndex((token) => typeof token !== "string");
    if (bad >= 0) throw new Error(`Bm25Index.add: tokens must be strings, got ${typeof tokens[bad]} at ${bad}`);
    if (this.state[doc] === DEAD) this.vacuum();
    this.growDocs(doc + 1);
    const unique: number[] = [];
    for (const token of tokens) {
      const term = this.termId(token);
      if (this.termTf[term]++ === 0) unique.push(term);
    }
    this.fwdTerms = grow(this.fwdTerms, this.fwdUsed + unique.length);
    const deltaNeed = this.deltaCount + unique.length;
    [this.deltaNext, this.deltaTerms, this.deltaDocs, this.deltaTfs] = [this.deltaNext, this.deltaTerms, this.deltaDocs, this.deltaTfs].map((a) => grow(a, deltaNeed));
    this.fwdStart[doc] = this.fwdUsed;
    this.fwdCount[doc] = unique.length;
    for (const term of unique) {
      const p = this.deltaCount++;
      this.deltaTerms[p] = term;
      this.deltaDocs[p] = doc;
      this.deltaTfs[p] = this.termTf[term];
      this.deltaNext[p] = this.deltaHead[term];
      this.deltaHead[term] = p;
      this.termTf[term] = 0;
      this.df[term]++;
      this.fwdTerms[this.fwdUsed++] = term;
    }
    this.state[doc] = LIVE;
    this.docLengths[doc] = tokens.length;
    this.lengthSum += tokens.length;
    this.liveDocs++;
    if (this.deltaCount > Math.max(DELTA_MIN_POSTINGS, this.mainDocs.length >> 1)) this.vacuum();
  }

  /** Tombstone `doc`; returns whether it was live. Statistics change at once, postings go at the next vacuum. */
  remove(doc: number): boolean {
    if (this.state[doc] !== LIVE) return false;
    const start = this.fwdStart[doc];
    for (let i = start, end = start + this.fwdCount[doc]; i < end; i++) this.df[this.fwdTerms[i]]--;
    this.state[doc] = DEAD;
    this.lengthSum -= this.docLengths[doc];
    this.liveDocs--;
    this.deadDocs++;
    if (this.deadDocs > VACUUM_DEAD_FRACTION * (this.liveDocs + this.deadDocs)) this.vacuum();
    return true;
  }

  /**
   * The `limit` best live docs containing any query term (score desc, then doc asc); `accept[doc]` must be
   * non-zero for a doc to be scored, when a mask is given. Unknown query terms are ignored.
   */
  search(queryTokens: readonly string[], limit: number, accept?: Uint8Array, options: Bm25SearchOptions = {}): Scored[] {
    if (!Number.isInteger(limit) || limit < 0) throw new Error(`Bm25Index.search: limit must be a non-negative integer, got ${limit}`);
    const query = this.queryWeights(queryTokens, options.dedupeQuery ?? false);
    if (limit === 0 || query.size === 0) return [];
    const { scores, touched, state, docLengths } = this;
    const avgLength = this.lengthSum / this.liveDocs;
    // k1 * ((1 - b) + b * len / avgLength) split so the per-posting cost is one multiply-add.
    const normBase = this.k1 * (1 - this.b);
    const normPerToken = avgLength > 0 ? (this.k1 * this.b) / avgLength : 0;
    let count = 0;
    // wink-bm25-text-search's formula (one field of weight 1, k = 1) without its 4-decimal rounding of weights.
    // Every contribution is > 0 (idf > 0 even when df = N), so a zero score marks an untouched doc.
    for (const [term, repeats] of query) {
      const df = this.df[term];
      const idf = Math.log((this.liveDocs - df + 0.5) / (df + 0.5) + 1);
      const weight = repeats * idf * (this.k1 + 1);
      const inMain = term < this.mainTerms;
      for (let p = inMain ? this.mainOffsets[term] : 0, end = inMain ? this.mainOffsets[term + 1] : 0; p < end; p++) {
        const doc = this.mainDocs[p];
        if (state[doc] !== LIVE || (accept !== undefined && !accept[doc])) continue;
        const tf = this.mainTfs[p];
        if (scores[doc] === 0) touched[count++] = doc;
        scores[doc] += (weight * tf) / (tf + normBase + normPerToken * docLengths[doc]);
      }
      for (let p = this.deltaHead[term]; p >= 0; p = this.deltaNext[p]) {
        const doc = this.deltaDocs[p];
        if (state[doc] !== LIVE || (accept !== undefined && !accept[doc])) continue;
        const tf = this.deltaTfs[p];
        if (scores[doc] === 0) touched[count++] = doc;
        scores[doc] += (weight * tf) / (tf + normBase + normPerToken * docLengths[doc]);
      }
    }
    const top = new TopK(limit);
    let threshold = -Infinity;
    for (let i = 0; i < count; i++) {
      const doc = touched[i];
      if (scores[doc] >= threshold) {
        top.push(doc, scores[doc]);
        threshold = top.threshold;
      }
      scores[doc] = 0;
    }
    return top.sorted();
  }

  /**
   * For a query's `tokens`, which of them a live doc holds: bit i is set when it holds tokens[i] (the first 30
   * count). Term ids are looked up once; each doc is read from its forward list, so a call costs the doc's
   * distinct terms, not a posting scan.
   */
  termMasker(tokens: readonly string[]): (doc: number) => number {
    const bits = new Map<number, number>();
    tokens.slice(0, 30).forEach((token, i) => {
      const term = this.termIds.get(token);
      if (term !== undefined) bits.set(term, (bits.get(term) ?? 0) | (1 << i));
    });
    return (doc) => {
      if (this.state[doc] !== LIVE) return 0;
      let mask = 0;
      for (let i = this.fwdStart[doc], end = i + this.fwdCount[doc]; i < end; i++) mask |= bits.get(this.fwdTerms[i]) ?? 0;
      return mask;
    };
  }

  /**
   * The live docs that hold every one of `tokens` (a posting-list walk of the rarest, checked against each
   * doc's forward list), in no particular order; [] when any token is unknown or `tokens` is empty.
   */
  docsWithAll(tokens: readonly string[]): number[] {
    const terms = [...new Set(tokens)].map((token) => this.termIds.get(token));
    if (terms.length === 0 || terms.some((term) => term === undefined || this.df[term] === 0)) return [];
    const ids = terms as number[];
    const rarest = ids.reduce((best, term) => (this.df[term] < this.df[best] ? term : best));
    const others = new Set(ids.filter((term) => term !== rarest));
    const found: number[] = [];
    const holdsOthers = (doc: number): boolean => {
      if (others.size === 0) return true;
      let held = 0;
      for (let i = this.fwdStart[doc], end = i + this.fwdCount[doc]; i < end; i++) if (others.has(this.fwdTerms[i])) held++;
      return held === others.size;
    };
    const visit = (doc: number) => {
      if (this.state[doc] === LIVE && holdsOthers(doc)) found.push(doc);
    };
    if (rarest < this.mainTerms) for (let p = this.mainOffsets[rarest], end = this.mainOffsets[rarest + 1]; p < end; p++) visit(this.mainDocs[p]);
    for (let p = this.deltaHead[rarest]; p >= 0; p = this.deltaNext[p]) visit(this.deltaDocs[p]);
    return found;
  }

  /** A versioned binary snapshot; vacuums first so the snapshot holds one packed segment. */
  serialize(): Uint8Array {
    this.vacuum();
    return encodeSnapshot({
      k1: this.k1,
      b: this.b,
      terms: [...this.termIds.keys()],
      offsets: this.mainOffsets,
      docs: this.mainDocs,
      tfs: this.mainTfs,
      docLengths: this.liveDocLengths(),
    });
  }

  static deserialize(bytes: Uint8Array): Bm25Index {
    return Bm25Index.fromImage(decodeSnapshot(bytes));
  }

  private static fromImage(image: Bm25Image): Bm25Index {
    const index = new Bm25Index({ k1: image.k1, b: image.b });
    image.terms.forEach((term, id) => index.termIds.set(term, id));
    if (index.termIds.size !== image.terms.length) {
      const duplicate = image.terms.find((term, id) => index.termIds.get(term) !== id);
      throw new Error(`Bm25Index.deserialize: corrupt snapshot: duplicate term ${JSON.stringify(duplicate)}`);
    }
    index.growTerms(image.terms.length);
    index.growDocs(image.docLengths.length);
    for (let doc = 0; doc < image.docLengths.length; doc++) {
      if (image.docLengths[doc] < 0) continue;
      index.state[doc] = LIVE;
      index.docLengths[doc] = image.docLengths[doc];
      index.lengthSum += image.docLengths[doc];
      index.liveDocs++;
    }
    for (let term = 0; term < image.terms.length; term++) index.df[term] = image.offsets[term + 1] - image.offsets[term];
    for (const doc of image.docs) index.fwdCount[doc]++;
    index.installMain(image.terms.length, image.offsets, image.docs, image.tfs);
    return index;
  }

  // Token counts by doc up to the last live doc, -1 where no doc is live.
  private liveDocLengths(): Int32Array {
    let end = this.state.length;
    while (end > 0 && this.state[end - 1] !== LIVE) end--;
    return this.docLengths.slice(0, end).map((length, doc) => (this.state[doc] === LIVE ? length : -1));
  }

  private queryWeights(tokens: readonly string[], dedupe: boolean): Map<number, number> {
    const query = new Map<number, number>();
    for (const token of tokens) {
      const term = this.termIds.get(token);
      if (term === undefined || this.df[term] === 0) continue;
      query.set(term, dedupe ? 1 : (query.get(term) ?? 0) + 1);
    }
    return query;
  }

  private termId(token: string): number {
    let term = this.termIds.get(token);
    if (term === undefined) {
      term = this.termIds.size;
      this.termIds.set(token, term);
      this.growTerms(term + 1);
    }
    return term;
  }

  /** Drop tombstoned postings and fold the delta into the main segment; df already counts exactly what stays. */
  vacuum(): void {
    if (this.deltaCount === 0 && this.deadDocs === 0) return;
    const termCount = this.termIds.size;
    const offsets = new Int32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) offsets[t + 1] = offsets[t] + this.df[t];
    const docs = new Int32Array(offsets[termCount]);
    const tfs = new Int32Array(offsets[termCount]);
    const cursor = offsets.slice(0, termCount);
    for (let t = 0; t < this.mainTerms; t++) {
      for (let p = this.mainOffsets[t], end = this.mainOffsets[t + 1]; p < end; p++) {
        const doc = this.mainDocs[p];
        if (this.state[doc] !== LIVE) continue;
        docs[cursor[t]] = doc;
        tfs[cursor[t]++] = this.mainTfs[p];
      }
    }
    for (let p = 0; p < this.deltaCount; p++) {
      const doc = this.deltaDocs[p];
      if (this.state[doc] !== LIVE) continue;
      const t = this.deltaTerms[p];
      docs[cursor[t]] = doc;
      tfs[cursor[t]++] = this.deltaTfs[p];
    }
    if (this.deadDocs > 0) {
      for (let doc = 0; doc < this.state.length; doc++) if (this.state[doc] === DEAD) this.state[doc] = ABSENT;
      this.deadDocs = 0;
    }
    this.deltaHead.fill(-1);
    this.deltaCount = 0;
    // Release the delta's peak capacity; it regrows by doubling, which the next re-pack amortises anyway.
    [this.deltaNext, this.deltaTerms, this.deltaDocs, this.deltaTfs] = [0, 1, 2, 3].map(() => new Int32Array(0));
    this.installMain(termCount, offsets, docs, tfs);
  }

  // Make the packed postings the main segment and rebuild the forward pool from them (fwdCount must be set).
  private installMain(termCount: number, offsets: Int32Array, docs: Int32Array, tfs: Int32Array): void {
    this.mainTerms = termCount;
    this.mainOffsets = offsets;
    this.mainDocs = docs;
    this.mainTfs = tfs;
    const next = new Int32Array(this.state.length);
    let used = 0;
    for (let doc = 0; doc < this.state.length; doc++) {
      if (this.state[doc] !== LIVE) continue;
      this.fwdStart[doc] = next[doc] = used;
      used += this.fwdCount[doc];
    }
    const fwd = new Int32Array(used);
    for (let t = 0; t < termCount; t++) for (let p = offsets[t]; p < offsets[t + 1]; p++) fwd[next[docs[p]]++] = t;
    this.fwdTerms = fwd;
    this.fwdUsed = used;
  }

  private growTerms(need: number): void {
    this.df = grow(this.df, need);
    this.deltaHead = grow(this.deltaHead, need, -1);
    this.termTf = grow(this.termTf, need);
  }

  private growDocs(need: number): void {
    this.state = grow(this.state, need);
    this.docLengths = grow(this.docLengths, need);
    this.fwdStart = grow(this.fwdStart, need);
    this.fwdCount = grow(this.fwdCount, need);
    this.scores = grow(this.scores, need);
    this.touched = grow(this.touched, need);
  }
}

function checkParam(name: string, value: number, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > max) {
    const range = max === Infinity ? "a finite number >= 0" : `a number in [0, ${max}]`;
    throw new Error(`Bm25Index: ${name} must be ${range}, got ${String(value)}`);
  }
  return value;
}

type Growable = Int32Array | Uint8Array | Float64Array;

// Capacity doubles so that appends stay amortised O(1); new slots hold `fill`.
function grow<T extends Growable>(array: T, need: number, fill = 0): T {
  if (array.length >= need) return array;
  const next = new (array.constructor as new (length: number) => T)(Math.max(need, array.length * 2, 16));
  next.set(array);
  if (fill !== 0) next.fill(fill, array.length);
  return next;
}

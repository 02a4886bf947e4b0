// Incremental BM25 serving index: a packed CSR main segment, an append-only delta segment for recent adds,
// tombstoned deletes with exact live statistics, and full-corpus top-k search. Snapshots live in bm25-snapshot.ts.
import { TopK, type Scored } from "./top-k";
import { decodeSnapshot, type DecodedSnapshot, type PostingBounds, type PostingsStream, snapshotChunksInSteps, type SnapshotSource, snapshotTerms } from "./bm25-snapshot";
import { lowerBound, maxScoreTopK, TF_BIG, type TermPostings } from "./bm25-maxscore";
import { grownCapacity, withHeadroom } from "./capacity";
import { runToEnd, unzeroedInt32s, zeroedInSteps } from "./run-steps";
import { TermDictionary } from "./term-dictionary";

export interface Bm25Params {
  k1?: number;
  b?: number;
}

export interface Bm25Tuning {
  /** Postings one background re-pack step copies or checks (about a millisecond's work at the default). */
  repackStepPostings?: number;
  /**
   * A term with at least this many postings, met before term-at-a-time pruning can start, hands it and the
   * terms after it to document-at-a-time MaxScore (bm25-maxscore.ts). Tests lower it to exercise that path.
   */
  maxScoreMinPostings?: number;
}

export interface Bm25SearchOptions {
  /** Count a repeated query term once. Default false: like wink-bm25-text-search, each occurrence adds its weight again. */
  dedupeQuery?: boolean;
  /** Score every posting of every query term (no MaxScore pruning): the reference the pruned search must equal. */
  exhaustive?: boolean;
}

const ABSENT = 0;
const LIVE = 1;
const DEAD = 2;
const MAX_DOC = 0x7ffffffe;
// The delta is re-packed at once (blocking) once it outgrows half the main segment, so re-pack work stays
// linear overall. Long delta chains slow every search that reads a common term, so maintain() re-packs in
// steps, between requests, once the delta passes a sixteenth of the main segment (or a tenth of the docs are
// dead): with the store driving maintain(), the blocking re-pack is only the fallback.
const DELTA_MIN_POSTINGS = 4096;
const VACUUM_DEAD_FRACTION = 0.25;
const BACKGROUND_DELTA_SHIFT = 4;
const BACKGROUND_DEAD_FRACTION = 0.1;
const REPACK_STEP_POSTINGS = 1 << 16;
const MAX_SCORE_MIN_POSTINGS = 1 << 13;

/** A re-pack in progress: its steps left, and the docs added since it began. */
interface RepackJob {
  steps: Generator<void, void>;
  added: number[];
}

export class Bm25Index {
  readonly k1: number;
  readonly b: number;
  private termIds = new TermDictionary();
  private df: Int32Array = new Int32Array(64);
  private mainTerms = 0;
  private mainOffsets: Int32Array = new Int32Array(1);
  private mainDocs: Int32Array = new Int32Array(0);
  // Tfs in bytes; one of TF_BIG or more is in mainBigTfs, by posting (bm25-maxscore.ts).
  private mainTfs: Uint8Array = new Uint8Array(0);
  private mainBigTfs = new Map<number, number>();
  // Delta postings in append order, chained newest-first per term through deltaNext.
  private deltaHead: Int32Array = new Int32Array(64).fill(-1);
  private deltaNext: Int32Array = new Int32Array(0);
  private deltaTerms: Int32Array = new Int32Array(0);
  private deltaDocs: Int32Array = new Int32Array(0);
  private deltaTfs: Int32Array = new Int32Array(0);
  private deltaCount = 0;
  // Per doc: state and token count. No list of a doc's terms is kept (4 bytes a posting, 171 MiB at 1M):
  // remove() is given the doc's tokens again, and which terms a doc holds is read from the postings.
  private state: Uint8Array = new Uint8Array(0);
  private docLengths: Int32Array = new Int32Array(0);
  /** docLengths is lent to a snapshot under way for docs below this (snapshotInSteps); 0: not lent. */
  private lentLengthsEnd = 0;
  private liveDocs = 0;
  private deadDocs = 0;
  private lengthSum = 0;
  // Search scratch; all-zero between calls.
  private scores: Float64Array = new Float64Array(0);
  private touched: Int32Array = new Int32Array(0);
  // Per term, the largest tf and the shortest doc among its postings (kept exact at each re-pack, only
  // widened by adds): what bounds the term's contribution to any doc, tf / (tf + norm(len)).
  private maxTf: Int32Array = new Int32Array(64);
  private minLength: Int32Array = new Int32Array(64).fill(0x7fffffff);
  /** Whether every term's main postings are in doc order, so that a doc's posting can be found by bisection. */
  private mainSorted = true;
  /** Marks the docs a pruned search still scores; all-zero between calls. */
  private candidate: Uint8Array = new Uint8Array(0);
  /** The docs a pruned search still scores, as a list; scratch. */
  private candidateList: Int32Array = new Int32Array(0);
  /**
   * What the last search read: postings scored term at a time, whether it pruned (looked the common terms up,
   * or went on document at a time), the candidates a term-at-a-time finish kept, and the docs scored in full
   * document at a time.
   */
  lastSearch = { postingsScored: 0, pruned: false, candidates: 0, docsScored: 0 };
  private repack: RepackJob | undefined;
  private readonly repackStepPostings: number;
  private readonly maxScoreMinPostings: number;
  /** Re-packs finished: by maintain() in steps, and at once (add, remove, or vacuum()). */
  readonly repacks = { stepped: 0, blocking: 0 };

  constructor(params: Bm25Params = {}, tuning: Bm25Tuning = {}) {
    this.k1 = checkParam("k1", params.k1 ?? 1.2, Infinity);
    this.b = checkParam("b", params.b ?? 0.75, 1);
    const step = tuning.repackStepPostings ?? REPACK_STEP_POSTINGS;
    if (!Number.isInteger(step) || step < 1) throw new Error(`Bm25Index: repackStepPostings must be a positive integer, got ${String(step)}`);
    this.repackStepPostings = step;
    const daat = tuning.maxScoreMinPostings ?? MAX_SCORE_MIN_POSTINGS;
    if (!Number.isInteger(daat) || daat < 0) throw new Error(`Bm25Index: maxScoreMinPostings must be a non-negative integer, got ${String(daat)}`);
    this.maxScoreMinPostings = daat;
  }

  get size(): number {
    return this.liveDocs;
  }

  /** Postings in the packed main segment and in the delta, docs removed but not yet dropped, and whether a re-pack is under way. */
  get layout(): { mainPostings: number; deltaPostings: number; deadDocs: number; repacking: boolean } {
    return { mainPostings: this.mainOffsets[this.mainTerms], deltaPostings: this.deltaCount, deadDocs: this.deadDocs, repacking: this.repack !== undefined };
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
    // The doc's tf by term, in first-seen order (a scratch array by term cost 4 bytes a term: 11 MiB at 1M).
    const termTf = new Map<number, number>();
    for (const token of tokens) {
      const term = this.termId(token);
      termTf.set(term, (termTf.get(term) ?? 0) + 1);
    }
    const deltaNeed = this.deltaCount + termTf.size;
    [this.deltaNext, this.deltaTerms, this.deltaDocs, this.deltaTfs] = [this.deltaNext, this.deltaTerms, this.deltaDocs, this.deltaTfs].map((a) => grow(a, deltaNeed));
    for (const [term, tf] of termTf) {
      if (tf > this.maxTf[term]) this.maxTf[term] = tf;
      if (tokens.length < this.minLength[term]) this.minLength[term] = tokens.length;
      const p = this.deltaCount++;
      this.deltaTerms[p] = term;
      this.deltaDocs[p] = doc;
      this.deltaTfs[p] = tf;
      this.deltaNext[p] = this.deltaHead[term];
      this.deltaHead[term] = p;
      this.df[term]++;
    }
    this.repack?.added.push(doc);
    this.state[doc] = LIVE;
    // A doc added again below a snapshot's lent lengths (snapshotInSteps) gets a copy to write in.
    if (doc < this.lentLengthsEnd) {
      this.docLengths = this.docLengths.slice();
      this.lentLengthsEnd = 0;
    }
    this.docLengths[doc] = tokens.length;
    this.lengthSum += tokens.length;
    this.liveDocs++;
    if (this.deltaCount > Math.max(DELTA_MIN_POSTINGS, this.mainDocs.length >> 1)) this.vacuum();
  }

  /**
   * Tombstone `doc`, given the tokens it was added with; returns whether it was live. Statistics change at
   * once, postings go at the next vacuum. Tokens of another length than the doc's are refused.
   */
  remove(doc: number, tokens: readonly string[]): boolean {
    if (this.state[doc] !== LIVE) return false;
    if (tokens.length !== this.docLengths[doc]) throw new Error(`Bm25Index.remove: doc ${doc} was added with ${this.docLengths[doc]} tokens, got ${tokens.length}`);
    const terms = new Set<number>();
    for (const token of tokens) {
      const term = this.termIds.get(token);
      if (term === undefined) throw new Error(`Bm25Index.remove: doc ${doc} was not added with the token ${JSON.stringify(token)}`);
      terms.add(term);
    }
    for (const term of terms) this.df[term]--;
    this.tombstone(doc);
    return true;
  }

  /**
   * Tombstones every live doc of `docs` without their tokens, in one pass over all the postings (a
   * snapshot's catch-up, when the forgotten docs' texts are gone); returns how many were live.
   */
  removeDocs(docs: Iterable<number>): number {
    const gone = new Uint8Array(this.state.length);
    let count = 0;
    for (const doc of docs) if (this.state[doc] === LIVE && gone[doc] === 0) (gone[doc] = 1), count++;
    if (count === 0) return 0;
    for (let t = 0; t < this.mainTerms; t++) for (let p = this.mainOffsets[t], end = this.mainOffsets[t + 1]; p < end; p++) if (gone[this.mainDocs[p]] === 1) this.df[t]--;
    for (let p = 0; p < this.deltaCount; p++) if (gone[this.deltaDocs[p]] === 1) this.df[this.deltaTerms[p]]--;
    for (let doc = 0; doc < gone.length; doc++) if (gone[doc] === 1) this.tombstone(doc);
    return count;
  }

  private tombstone(doc: number): void {
    this.state[doc] = DEAD;
    this.lengthSum -= this.docLengths[doc];
    this.liveDocs--;
    this.deadDocs++;
    if (this.deadDocs > VACUUM_DEAD_FRACTION * (this.liveDocs + this.deadDocs)) this.vacuum();
  }

  /**
   * The `limit` best live docs containing any query term (score desc, then doc asc); `accept[doc]` must be
   * non-zero for a doc to be scored, when a mask is given. Unknown query terms are ignored.
   */
  search(queryTokens: readonly string[], limit: number, accept?: Uint8Array, options: Bm25SearchOptions = {}): Scored[] {
    if (!Number.isInteger(limit) || limit < 0) throw new Error(`Bm25Index.search: limit must be a non-negative integer, got ${limit}`);
    const query = this.queryWeights(queryTokens, options.dedupeQuery ?? false);
    if (limit === 0 || query.size === 0) return [];
    const { scores, touched } = this;
    const avgLength = this.lengthSum / this.liveDocs;
    // k1 * ((1 - b) + b * len / avgLength) split so the per-posting cost is one multiply-add.
    const norm: Norm = { base: this.k1 * (1 - this.b), perToken: avgLength > 0 ? (this.k1 * this.b) / avgLength : 0 };
    // wink-bm25-text-search's formula (one field of weight 1, k = 1) without its 4-decimal rounding of weights.
    // Every contribution is > 0 (idf > 0 even when df = N), so a zero score marks an untouched doc. A term's
    // contribution is weight * tf / (tf + norm) < weight: its weight bounds what it can add to any doc.
    const terms = [...query].map(([term, repeats]) => {
      const df = this.df[term];
      const weight = repeats * Math.log((this.liveDocs - df + 0.5) / (df + 0.5) + 1) * (this.k1 + 1);
      const tf = this.maxTf[term];
      const bound = tf > 0 ? (weight * tf) / (tf + norm.base + norm.perToken * this.minLength[term]) : weight;
      return { term, weight, bound };
    });
    // Highest bound first (rarest terms), and every doc's score is summed in this one order, pruned or not,
    // so a pruned search returns exactly the scores an exhaustive one would.
    // (A stable sort: equal weights keep the query's order, which does not depend on how the index was built.)
    terms.sort((a, b) => b.weight - a.weight);
    const remaining = new Float64Array(terms.length + 1);
    for (let i = terms.length - 1; i >= 0; i--) remaining[i] = remaining[i + 1] + terms[i].bound;
    let count = 0;
    let i = 0;
    this.lastSearch = { postingsScored: 0, pruned: false, candidates: 0, docsScored: 0 };
    // Term at a time while new docs could still reach the top `limit`: once the weights of the terms left add
    // up to less than the k-th best score so far (MaxScore), a doc none of the scored terms holds cannot enter,
    // and the common terms left are only looked up for the docs that still could.
    for (; i < terms.length; i++) {
      const postings = this.postingCount(terms[i].term);
      if (!options.exhaustive && this.mainSorted) {
        if (i > 0 && count >= limit && postings > count) {
          const threshold = kthBest(scores, touched, count, limit);
          // A margin against rounding: the bound must stay above anything the additions below can produce.
          if (remaining[i] * (1 + 1e-9) < threshold) {
            this.lastSearch.pruned = true;
            return this.finishPruned(terms, i, remaining, threshold, count, limit, norm);
          }
        }
        if (postings >= this.maxScoreMinPostings) {
          this.lastSearch.pruned = true;
          return this.finishMaxScore(terms, i, count, limit, accept, norm);
        }
      }
      this.lastSearch.postingsScored += postings;
      count = this.scoreTerm(terms[i].term, terms[i].weight, accept, norm, count);
    }
    return this.collect(count, limit);
  }

  /** Adds one term's contribution to every live, accepted doc that holds it; returns the new touched count. */
  private scoreTerm(term: number, weight: number, accept: Uint8Array | undefined, norm: Norm, count: number): number {
    const { scores, touched, state, docLengths } = this;
    const inMain = term < this.mainTerms;
    for (let p = inMain ? this.mainOffsets[term] : 0, end = inMain ? this.mainOffsets[term + 1] : 0; p < end; p++) {
      const doc = this.mainDocs[p];
      if (state[doc] !== LIVE || (accept !== undefined && !accept[doc])) continue;
      let tf = this.mainTfs[p];
      if (tf === TF_BIG) tf = this.mainBigTfs.get(p)!;
      if (scores[doc] === 0) touched[count++] = doc;
      scores[doc] += (weight * tf) / (tf + norm.base + norm.perToken * docLengths[doc]);
    }
    for (let p = this.deltaHead[term]; p >= 0; p = this.deltaNext[p]) {
      const doc = this.deltaDocs[p];
      if (state[doc] !== LIVE || (accept !== undefined && !accept[doc])) continue;
      const tf = this.deltaTfs[p];
      if (scores[doc] === 0) touched[count++] = doc;
      scores[doc] += (weight * tf) / (tf + norm.base + norm.perToken * docLengths[doc]);
    }
    return count;
  }

  /**
   * The rest of a pruned search: the docs scored so far that could still reach the k-th score get the terms
   * from `from` on, term by term in the same order, each looked up by bisection in the term's doc-ordered
   * postings (or read in a scan, when that is cheaper) and in its delta. After each term the k-th best score
   * among them rises (every partial score is a lower bound of the final one), and a doc whose bound falls
   * below it drops out. Every scratch score and mark is cleared on the way out.
   */
  private finishPruned(terms: Array<{ term: number; weight: number }>, from: number, remaining: Float64Array, threshold: number, count: number, limit: number, norm: Norm): Scored[] {
    const { scores, touched, docLengths, candidate } = this;
    // The candidates, compacted in place in a typed scratch list: a JS array of a few hundred thousand
    // numbers cost more to build than the whole exhaustive search (measured, 14 ms at 136k).
    const candidates = this.candidateList;
    let live = 0;
    const entry = remaining[from] * (1 + 1e-9);
    for (let i = 0; i < count; i++) {
      const doc = touched[i];
      if (scores[doc] + entry >= threshold) {
        candidates[live++] = doc;
        candidate[doc] = 1;
      } else scores[doc] = 0;
    }
    this.lastSearch.candidates = live;
    try {
      for (let i = from; i < terms.length && live > 0; i++) {
        const { term, weight } = terms[i];
        const inMain = term < this.mainTerms;
        const start = inMain ? this.mainOffsets[term] : 0;
        const end = inMain ? this.mainOffsets[term + 1] : 0;
        const { mainDocs, mainTfs, mainBigTfs } = this;
        if (live * Math.log2(end - start + 2) < end - start) {
          for (let c = 0; c < live; c++) {
            const doc = candidates[c];
            const p = lowerBound(mainDocs, start, end, doc);
            if (p < end && mainDocs[p] === doc) {
              const tf = mainTfs[p] === TF_BIG ? mainBigTfs.get(p)! : mainTfs[p];
              scores[doc] += (weight * tf) / (tf + norm.base + norm.perToken * docLengths[doc]);
            }
          }
        } else {
          for (let p = start; p < end; p++) {
            const doc = mainDocs[p];
            if (candidate[doc] === 1) {
              const tf = mainTfs[p] === TF_BIG ? mainBigTfs.get(p)! : mainTfs[p];
              scores[doc] += (weight * tf) / (tf + norm.base + norm.perToken * docLengths[doc]);
            }
          }
        }
        // Candidates are live and accepted already: whatever of theirs the delta holds counts.
        for (let p = this.deltaHead[term]; p >= 0; p = this.deltaNext[p]) {
          const doc = this.deltaDocs[p];
          if (candidate[doc] === 1) scores[doc] += (weight * this.deltaTfs[p]) / (this.deltaTfs[p] + norm.base + norm.perToken * docLengths[doc]);
        }
        threshold = Math.max(threshold, kthBest(scores, candidates, live, limit));
        const bound = remaining[i + 1] * (1 + 1e-9);
        let kept = 0;
        for (let c = 0; c < live; c++) {
          const doc = candidates[c];
          if (scores[doc] + bound >= threshold) candidates[kept++] = doc;
          else (scores[doc] = 0), (candidate[doc] = 0);
        }
        live = kept;
      }
      const top = new TopK(limit);
      for (let c = 0; c < live; c++) top.push(candidates[c], scores[candidates[c]]);
      return top.sorted();
    } finally {
      for (let i = 0; i < count; i++) (scores[touched[i]] = 0), (candidate[touched[i]] = 0);
    }
  }

  /**
   * The rest of a search document at a time (bm25-maxscore.ts), from term `from` on: the docs scored so far
   * carry their partial scores in, in doc order. Clears the scratch scores on the way out.
   */
  private finishMaxScore(terms: Array<{ term: number; weight: number; bound: number }>, from: number, count: number, limit: number, accept: Uint8Array | undefined, norm: Norm): Scored[] {
    const { scores, touched } = this;
    try {
      const prefixDocs = this.candidateList.subarray(0, count);
      prefixDocs.set(touched.subarray(0, count));
      prefixDocs.sort();
      const rest = terms.slice(from);
      const delta = this.sortedDelta(rest.map(({ term }) => term));
      const postings: TermPostings[] = rest.map(({ term, weight, bound }, i) => {
        const inMain = term < this.mainTerms;
        return { weight, bound, start: inMain ? this.mainOffsets[term] : 0, end: inMain ? this.mainOffsets[term + 1] : 0, deltaStart: delta.starts[i], deltaEnd: delta.starts[i + 1] };
      });
      const stats = { docsScored: 0 };
      const input = { terms: postings, mainDocs: this.mainDocs, mainTfs: this.mainTfs, mainBigTfs: this.mainBigTfs, deltaDocs: delta.docs, deltaTfs: delta.tfs, prefixDocs };
      const found = maxScoreTopK({ ...input, partial: scores, isLive: this.state, liveValue: LIVE, accept, docLengths: this.docLengths, norm, limit }, stats);
      this.lastSearch.docsScored = stats.docsScored;
      return found;
    } finally {
      for (let i = 0; i < count; i++) scores[touched[i]] = 0;
    }
  }

  /**
   * The delta postings of `terms`, one run per term in doc order. A chain runs newest first, which is
   * descending doc order when docs arrive in order (the usual case), so a run is only sorted when it is not.
   */
  private sortedDelta(terms: number[]): { docs: Int32Array; tfs: Int32Array; starts: Int32Array } {
    const starts = new Int32Array(terms.length + 1);
    terms.forEach((term, i) => {
      let length = 0;
      for (let p = this.deltaHead[term]; p >= 0; p = this.deltaNext[p]) length++;
      starts[i + 1] = starts[i] + length;
    });
    const docs = new Int32Array(starts[terms.length]);
    const tfs = new Int32Array(starts[terms.length]);
    terms.forEach((term, i) => {
      let at = starts[i + 1];
      let ordered = true;
      for (let p = this.deltaHead[term]; p >= 0; p = this.deltaNext[p]) {
        at--;
        docs[at] = this.deltaDocs[p];
        tfs[at] = this.deltaTfs[p];
        if (at + 1 < starts[i + 1] && docs[at] >= docs[at + 1]) ordered = false;
      }
      if (ordered) return;
      const run = Array.from({ length: starts[i + 1] - starts[i] }, (_, k) => starts[i] + k).sort((x, y) => docs[x] - docs[y]);
      const runDocs = Int32Array.from(run, (k) => docs[k]);
      const runTfs = Int32Array.from(run, (k) => tfs[k]);
      docs.set(runDocs, starts[i]);
      tfs.set(runTfs, starts[i]);
    });
    return { docs, tfs, starts };
  }

  private collect(count: number, limit: number): Scored[] {
    const { scores, touched } = this;
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

  private postingCount(term: number): number {
    // df counts live postings only; the dead ones a vacuum has not dropped yet are few by construction.
    return this.df[term];
  }

  /**
   * For a query's `tokens`, which of them a live doc holds: bit i is set when it holds tokens[i] (the first 30
   * count). The terms' delta postings are gathered once, at the first call; each call then looks the doc up
   * by bisection in each term's doc-ordered postings.
   */
  termMasker(tokens: readonly string[]): (doc: number) => number {
    const known = tokens.slice(0, 30).flatMap((token, i) => {
      const term = this.termIds.get(token);
      return term === undefined ? [] : [{ term, bit: 1 << i }];
    });
    let holds: Array<(doc: number) => boolean> | undefined;
    return (doc) => {
      if (this.state[doc] !== LIVE) return 0;
      holds ??= this.holders(known.map(({ term }) => term));
      let mask = 0;
      for (let i = 0; i < known.length; i++) if (holds[i](doc)) mask |= known[i].bit;
      return mask;
    };
  }

  /**
   * The live docs that hold every one of `tokens` (a posting-list walk of the rarest, each doc looked up in
   * the others' postings), in no particular order; [] when any token is unknown or `tokens` is empty.
   */
  docsWithAll(tokens: readonly string[]): number[] {
    const terms = [...new Set(tokens)].map((token) => this.termIds.get(token));
    if (terms.length === 0 || terms.some((term) => term === undefined || this.df[term] === 0)) return [];
    const ids = terms as number[];
    const rarest = ids.reduce((best, term) => (this.df[term] < this.df[best] ? term : best));
    const others = this.holders(ids.filter((term) => term !== rarest));
    const found: number[] = [];
    const visit = (doc: number) => {
      if (this.state[doc] === LIVE && others.every((holds) => holds(doc))) found.push(doc);
    };
    if (rarest < this.mainTerms) for (let p = this.mainOffsets[rarest], end = this.mainOffsets[rarest + 1]; p < end; p++) visit(this.mainDocs[p]);
    for (let p = this.deltaHead[rarest]; p >= 0; p = this.deltaNext[p]) visit(this.deltaDocs[p]);
    return found;
  }

  /**
   * For each of `terms`, whether a doc has a posting of it (live or not): a bisection in its main postings
   * (a set of them, in the rare index whose main postings are not in doc order) and in its delta, sorted.
   */
  private holders(terms: readonly number[]): Array<(doc: number) => boolean> {
    const delta = this.sortedDelta([...terms]);
    const { mainDocs, mainSorted } = this;
    return terms.map((term, i) => {
      const start = term < this.mainTerms ? this.mainOffsets[term] : 0;
      const end = term < this.mainTerms ? this.mainOffsets[term + 1] : 0;
      const [deltaStart, deltaEnd] = [delta.starts[i], delta.starts[i + 1]];
      const inDelta = (doc: number) => {
        const p = lowerBound(delta.docs, deltaStart, deltaEnd, doc);
        return p < deltaEnd && delta.docs[p] === doc;
      };
      if (!mainSorted) {
        const main = new Set(mainDocs.subarray(start, end));
        return (doc) => main.has(doc) || inDelta(doc);
      }
      return (doc) => {
        const p = lowerBound(mainDocs, start, end, doc);
        return (p < end && mainDocs[p] === doc) || inDelta(doc);
      };
    });
  }

  /**
   * A versioned binary snapshot of the live postings, packed as a vacuum would pack them (the same bytes),
   * written straight from the segments: a checkpoint leaves the index as it is, and a background re-pack under
   * way goes on. Packing first cost a blocking re-pack of the whole index (4-5 s at 1M) inside every checkpoint.
   */
  serialize(): Uint8Array {
    return runToEnd(this.serializeInSteps());
  }

  /** serialize() in steps (snapshotInSteps, then a chunk a step), joined. */
  *serializeInSteps(stepPostings = this.repackStepPostings): Generator<void, Uint8Array> {
    const chunks: Uint8Array[] = [];
    for (const chunk of yield* this.snapshotInSteps(stepPostings)) {
      chunks.push(chunk.slice());
      yield;
    }
    const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    chunks.reduce((at, chunk) => (bytes.set(chunk, at), at + chunk.length), 0);
    return bytes;
  }

  /**
   * The snapshot of the index as it is at the first step, whatever adds, removes and re-packs run between
   * steps (those replace the arrays read here rather than change them, the delta only grows past the count
   * taken now, and the live flags are copied): steps of about `stepPostings` postings, then chunks made one
   * at a time as they are taken (snapshotChunksInSteps), each valid until the next is.
   */
  *snapshotInSteps(stepPostings = this.repackStepPostings): Generator<void, Iterable<Uint8Array>> {
    // Terms are only ever added, in id order: the first termCount ids keep the terms they have now.
    const termIds = this.termIds;
    // The live flags copied now; the lengths read later, in steps, from the array as it is now (lent): a
    // doc's length is written when it is added, adds below the lent end copy the array first, and growing
    // copies it. Copying and masking the lengths at this step was ~29 ms of it at 1M (4 MB of fresh pages).
    const state = this.state.slice();
    const lengths = this.docLengths;
    this.lentLengthsEnd = lengths.length;
    const postings = this.postingsView(state);
    yield;
    const docLengths = yield* liveLengthsInSteps(lengths, state, 2 * stepPostings);
    // Where each term's live postings start, counted on the view in steps: df, which adds change, made into
    // offsets in the first step was ~30 ms of it at 1M (2.7M terms).
    const offsets = yield* liveOffsetsInSteps(postings, stepPostings);
    const delta = yield* deltaByTermInSteps(postings, stepPostings);
    const header = { k1: this.k1, b: this.b, termCount: postings.termCount, terms: termIds, offsets, docLengths };
    return yield* snapshotChunksInSteps(header, (field) => new PackedPostings(postings, delta, field));
  }

  /** The arrays a packing reads, as they are now; `state` is the live flags to go by. */
  private postingsView(state: Uint8Array): PostingsView {
    const { mainTerms, mainOffsets, mainDocs, mainTfs, mainBigTfs, deltaDocs, deltaTerms, deltaTfs, deltaCount } = this;
    return { termCount: this.termIds.size, state, mainTerms, mainOffsets, mainDocs, mainTfs, mainBigTfs, deltaDocs, deltaTerms, deltaTfs, deltaCount };
  }

  static deserialize(bytes: Uint8Array | SnapshotSource): Bm25Index {
    return Bm25Index.fromSnapshot(decodeSnapshot(bytes));
  }

  /**
   * Room, made now, for the snapshot of `terms` terms and `docs` docs this empty index will take in
   * (fromSnapshot's `into`, sized withHeadroom as it sizes them). At an open of 1M these arrays (~55 MB outside
   * V8's heap) made late, with the million records in the heap, made V8 collect it once more (~140 ms); made
   * before the records, that collection is of an almost empty heap.
   */
  reserveForSnapshot(terms: number, docs: number): this {
    if (this.liveDocs !== 0 || this.termIds.size !== 0) throw new Error("Bm25Index.reserveForSnapshot: the index is not empty");
    this.df = grow(this.df, terms);
    this.deltaHead = grow(this.deltaHead, terms, -1);
    this.growDocs(docs);
    return this;
  }

  /**
   * The index a decoded snapshot holds. `terms` is its term dictionary when another thread built it already
   * (snapshotTerms); the snapshot's term text is not read then. `into`, an empty index of the snapshot's k1 and
   * b (reserveForSnapshot), is filled instead of a new one.
   */
  static fromSnapshot({ image, bounds }: DecodedSnapshot, terms: TermDictionary = snapshotTerms(image), into?: Bm25Index): Bm25Index {
    const usable = into !== undefined && into.k1 === image.k1 && into.b === image.b && into.liveDocs === 0 && into.termIds.size === 0;
    const index = usable ? into : new Bm25Index({ k1: image.k1, b: image.b });
    const termCount = image.termLengths.length;
    if (terms.size !== termCount) throw new Error(`Bm25Index.fromSnapshot: a dictionary of ${terms.size} terms for a snapshot of ${termCount}`);
    index.termIds = terms;
    index.growDocs(withHeadroom(image.docLengths.length));
    for (let doc = 0; doc < image.docLengths.length; doc++) {
      if (image.docLengths[doc] < 0) continue;
      index.state[doc] = LIVE;
      index.docLengths[doc] = image.docLengths[doc];
      index.lengthSum += image.docLengths[doc];
      index.liveDocs++;
    }
    index.installMain(termCount, image.offsets, image.docs, image.tfs, image.bigTfs, bounds);
    for (let term = 0; term < termCount; term++) index.df[term] = image.offsets[term + 1] - image.offsets[term];
    return index;
  }

  // Token counts by doc up to the last live doc, -1 where no doc is live.


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
      term = this.termIds.add(token);
      this.growTerms(term + 1);
    }
    return term;
  }

  /** Whether maintain() has work: a re-pack in progress, a delta past a sixteenth of the main segment, or many dead docs. */
  needsMaintenance(): boolean {
    if (this.repack) return true;
    if (this.deltaCount > Math.max(DELTA_MIN_POSTINGS, this.mainDocs.length >> BACKGROUND_DELTA_SHIFT)) return true;
    return this.deadDocs > 0 && this.deadDocs > BACKGROUND_DEAD_FRACTION * (this.liveDocs + this.deadDocs);
  }

  /**
   * Re-packs in steps until `budgetMs` is spent (Infinity: to the end); returns whether work is left. Adds,
   * removes and searches may run between calls: the packed segment is built beside the serving one from what
   * was there when the re-pack began, and swapped in by a last step that costs about one pass over the docs.
   */
  maintain(budgetMs = Infinity): boolean {
    if (!this.needsMaintenance()) return false;
    if (!this.repack) {
      const added: number[] = [];
      this.repack = { steps: this.repackSteps(added), added };
    }
    const started = performance.now();
    while (this.repack) {
      if (this.repack.steps.next().done) this.repack = undefined;
      else if (performance.now() - started >= budgetMs) return true;
    }
    return this.needsMaintenance();
  }

  /** The steps of a background re-pack; the job ends early when a blocking vacuum() replaces it. */
  private *repackSteps(added: number[]): Generator<void, void> {
    const step = this.repackStepPostings;
    const termCount = this.termIds.size;
    // What the packed segment holds: every posting of a doc live now, whatever happens to the doc later.
    // Docs removed meanwhile stay dead in it until the next re-pack.
    const packed = this.state.slice();
    const deltaEnd = this.deltaCount;
    const { mainTerms, mainOffsets, mainDocs, mainTfs, mainBigTfs } = this;
    const mainEnd = mainOffsets[mainTerms];
    yield;
    const deadAtStart: number[] = [];
    for (let doc = packed.indexOf(DEAD); doc !== -1; doc = packed.indexOf(DEAD, doc + 1)) deadAtStart.push(doc);
    // Each term's postings counted as they will be packed (a pass of its own, in steps: offsets made from df
    // at once were a step of ~200 ms at 1M, 2.7M terms). starts[t + 1] counts term t, then becomes where it
    // starts, then (as the fill's cursor) where it ends: starts[0 .. termCount] are the offsets at the end.
    const starts = new Int32Array(termCount + 2);
    for (let p = 0, t = 0; p < mainEnd; yield) {
      for (const stop = Math.min(mainEnd, p + step); p < stop; p++) {
        while (p >= mainOffsets[t + 1]) t++;
        if (packed[mainDocs[p]] === LIVE) starts[t + 2]++;
      }
    }
    for (let p = 0; p < deltaEnd; yield) {
      // Read through `this`: adds may have grown (reallocated) the delta arrays since the last step.
      const { deltaDocs, deltaTerms } = this;
      for (const stop = Math.min(deltaEnd, p + step); p < stop; p++) if (packed[deltaDocs[p]] === LIVE) starts[deltaTerms[p] + 2]++;
    }
    for (let t = 0; t < termCount; yield) for (const stop = Math.min(termCount, t + step); t < stop; t++) starts[t + 2] += starts[t + 1];
    const total = starts[termCount + 1];
    const docs = new Int32Array(total);
    const tfs = new Uint8Array(total);
    const big = new Map<number, number>();
    for (let p = 0, t = 0; p < mainEnd; yield) {
      for (const stop = Math.min(mainEnd, p + step); p < stop; p++) {
        while (p >= mainOffsets[t + 1]) t++;
        const doc = mainDocs[p];
        if (packed[doc] !== LIVE) continue;
        const at = starts[t + 1]++;
        docs[at] = doc;
        putTf(tfs, big, at, mainTfs[p] === TF_BIG ? mainBigTfs.get(p)! : mainTfs[p]);
      }
    }
    for (let p = 0; p < deltaEnd; yield) {
      const { deltaDocs, deltaTerms, deltaTfs } = this;
      for (const stop = Math.min(deltaEnd, p + step); p < stop; p++) {
        const doc = deltaDocs[p];
        if (packed[doc] !== LIVE) continue;
        const at = starts[deltaTerms[p] + 1]++;
        docs[at] = doc;
        putTf(tfs, big, at, deltaTfs[p]);
      }
    }
    const offsets = starts.subarray(0, termCount + 1);
    // Whether each term's postings are in doc order, and its exact bounds, over the new segment (a term with
    // no postings keeps the empty bounds: 0 and the largest length).
    let sorted = true;
    const maxTf = new Int32Array(termCount);
    const minLength = new Int32Array(termCount);
    for (let t = 0; t < termCount; t += 4 * step) {
      minLength.fill(0x7fffffff, t, t + 4 * step);
      yield;
    }
    for (let p = 0, t = 0; p < total; yield) {
      const { docLengths } = this;
      for (const stop = Math.min(total, p + step); p < stop; p++) {
        while (p >= offsets[t + 1]) t++;
        if (p > offsets[t] && docs[p] <= docs[p - 1]) sorted = false;
        const tf = tfs[p] === TF_BIG ? big.get(p)! : tfs[p];
        if (tf > maxTf[t]) maxTf[t] = tf;
        const length = docLengths[docs[p]];
        if (length < minLength[t]) minLength[t] = length;
      }
    }
    if (this.repack?.added !== added) return;
    this.installRepack({ termCount, deltaEnd, deadAtStart, offsets, docs, tfs, big, sorted, maxTf, minLength, added });
  }

  /**
   * The last step of a background re-pack: the packed segment becomes the main one, the postings added since
   * it began become the new delta, and docs dead when it began are forgotten.
   */
  private installRepack(next: {
    termCount: number;
    deltaEnd: number;
    deadAtStart: number[];
    offsets: Int32Array;
    docs: Int32Array;
    tfs: Uint8Array;
    big: Map<number, number>;
    sorted: boolean;
    maxTf: Int32Array;
    minLength: Int32Array;
    added: number[];
  }): void {
    const left = this.deltaCount - next.deltaEnd;
    const deltaDocs = this.deltaDocs.slice(next.deltaEnd, this.deltaCount);
    const deltaTerms = this.deltaTerms.slice(next.deltaEnd, this.deltaCount);
    const deltaTfs = this.deltaTfs.slice(next.deltaEnd, this.deltaCount);
    const deltaNext = new Int32Array(left);
    this.deltaHead.fill(-1);
    this.maxTf.set(next.maxTf);
    this.minLength.set(next.minLength);
    for (let p = 0; p < left; p++) {
      const t = deltaTerms[p];
      deltaNext[p] = this.deltaHead[t];
      this.deltaHead[t] = p;
      if (deltaTfs[p] > this.maxTf[t]) this.maxTf[t] = deltaTfs[p];
      const length = this.docLengths[deltaDocs[p]];
      if (length < this.minLength[t]) this.minLength[t] = length;
    }
    [this.deltaDocs, this.deltaTerms, this.deltaTfs, this.deltaNext, this.deltaCount] = [deltaDocs, deltaTerms, deltaTfs, deltaNext, left];
    for (const doc of next.deadAtStart) this.state[doc] = ABSENT;
    this.deadDocs -= next.deadAtStart.length;
    this.mainTerms = next.termCount;
    this.mainOffsets = next.offsets;
    this.mainDocs = next.docs;
    this.mainTfs = next.tfs;
    this.mainBigTfs = next.big;
    this.mainSorted = next.sorted;
    this.repacks.stepped++;
  }

  /** Drop tombstoned postings and fold the delta into the main segment; df already counts exactly what stays. */
  vacuum(): void {
    // A background re-pack in progress is dropped: this one packs everything there is now.
    this.repack = undefined;
    if (this.deltaCount === 0 && this.deadDocs === 0) return;
    this.repacks.blocking++;
    const termCount = this.termIds.size;
    const offsets = this.packedOffsets();
    const docs = new Int32Array(offsets[termCount]);
    const tfs = new Uint8Array(offsets[termCount]);
    const big = new Map<number, number>();
    this.packInto(offsets, docs, tfs, big);
    if (this.deadDocs > 0) {
      for (let doc = 0; doc < this.state.length; doc++) if (this.state[doc] === DEAD) this.state[doc] = ABSENT;
      this.deadDocs = 0;
    }
    this.deltaHead.fill(-1);
    this.deltaCount = 0;
    // Release the delta's peak capacity; it regrows by doubling, which the next re-pack amortises anyway.
    [this.deltaNext, this.deltaTerms, this.deltaDocs, this.deltaTfs] = [0, 1, 2, 3].map(() => new Int32Array(0));
    this.installMain(termCount, offsets, docs, tfs, big);
  }

  /** Where each term's live postings start once packed: df counts exactly the live ones. */
  private packedOffsets(): Int32Array {
    const termCount = this.termIds.size;
    const offsets = new Int32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) offsets[t + 1] = offsets[t] + this.df[t];
    return offsets;
  }

  /** The live postings, term by term: the main segment's in order, then the delta's in the order they were added. */
  private packInto(offsets: Int32Array, docs: Int32Array, tfs: Uint8Array, big: Map<number, number>): void {
    runToEnd(packSteps(this.postingsView(this.state), offsets, docs, tfs, big, Infinity));
  }

  /** Makes these packed postings the main segment; `bounds`, when the snapshot decoder took them already, are its bounds. */
  private installMain(termCount: number, offsets: Int32Array, docs: Int32Array, tfs: Uint8Array, big: Map<number, number>, bounds?: PostingBounds): void {
    if (bounds) {
      // Taken as they are (an index's own from here on): at 1M, two arrays of 11 MB not made again.
      this.mainSorted = bounds.sorted;
      this.maxTf = bounds.maxTf;
      this.minLength = bounds.minLength;
      this.growTerms(withHeadroom(termCount));
    } else {
      this.growTerms(termCount);
      let sorted = true;
      for (let t = 0; t < termCount && sorted; t++) for (let p = offsets[t] + 1; p < offsets[t + 1]; p++) if (docs[p] <= docs[p - 1]) (sorted = false), (p = offsets[t + 1]);
      this.mainSorted = sorted;
      // Exact again: the bounds of docs removed since the last re-pack go with them.
      this.maxTf.fill(0, 0, termCount);
      this.minLength.fill(0x7fffffff, 0, termCount);
      for (let t = 0; t < termCount; t++) {
        for (let p = offsets[t]; p < offsets[t + 1]; p++) {
          const tf = tfs[p] === TF_BIG ? big.get(p)! : tfs[p];
          if (tf > this.maxTf[t]) this.maxTf[t] = tf;
          const length = this.docLengths[docs[p]];
          if (length < this.minLength[t]) this.minLength[t] = length;
        }
      }
    }
    this.mainTerms = termCount;
    this.mainOffsets = offsets;
    this.mainDocs = docs;
    this.mainTfs = tfs;
    this.mainBigTfs = big;
  }

  private growTerms(need: number): void {
    this.df = grow(this.df, need);
    this.maxTf = grow(this.maxTf, need);
    this.minLength = grow(this.minLength, need, 0x7fffffff);
    this.deltaHead = grow(this.deltaHead, need, -1);
  }

  private growDocs(need: number): void {
    this.state = grow(this.state, need);
    const lengths = this.docLengths;
    this.docLengths = grow(this.docLengths, need);
    // Grown into a new buffer, a copy: the lent one is not written any more (grown in its own room, the
    // same buffer, still lent).
    if (this.docLengths.buffer !== lengths.buffer) this.lentLengthsEnd = 0;
    this.scores = grow(this.scores, need);
    this.touched = grow(this.touched, need);
    this.candidate = grow(this.candidate, need);
    this.candidateList = grow(this.candidateList, need);
  }
}

interface Norm {
  base: number;
  perToken: number;
}

/** The `k`-th best of the first `count` touched docs' scores (count >= k). */
function kthBest(scores: Float64Array, touched: ArrayLike<number>, count: number, k: number): number {
  const top = new TopK(k);
  let threshold = -Infinity;
  for (let i = 0; i < count; i++) {
    const score = scores[touched[i]];
    if (score >= threshold) {
      top.push(touched[i], score);
      threshold = top.threshold;
    }
  }
  return threshold;
}

function checkParam(name: string, value: number, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > max) {
    const range = max === Infinity ? "a finite number >= 0" : `a number in [0, ${max}]`;
    throw new Error(`Bm25Index: ${name} must be ${range}, got ${String(value)}`);
  }
  return value;
}

/** What a packing reads: the main segment, the delta up to `deltaCount`, and the live flags. */
interface PostingsView {
  termCount: number;
  state: Uint8Array;
  mainTerms: number;
  mainOffsets: Int32Array;
  mainDocs: Int32Array;
  mainTfs: Uint8Array;
  mainBigTfs: Map<number, number>;
  deltaDocs: Int32Array;
  deltaTerms: Int32Array;
  deltaTfs: Int32Array;
  deltaCount: number;
}

/**
 * Packs the view's live postings into `docs`/`tfs` at `offsets`, yielding after about every `step` postings
 * read. Into bytes, with `big` taking the tfs of TF_BIG or more, or (no `big`) into 32-bit tfs.
 */
function* packSteps(view: PostingsView, offsets: Int32Array, docs: Int32Array, tfs: Uint8Array | Int32Array, big: Map<number, number> | undefined, step: number): Generator<void> {
  const { state, mainOffsets, mainDocs, mainTfs, mainBigTfs, deltaDocs, deltaTerms, deltaTfs } = view;
  const cursor = offsets.slice(0, view.termCount);
  let read = 0;
  for (let t = 0; t < view.mainTerms; t++) {
    // A long list is read a run at a time, what is left of the step: the commonest bigrams of a million
    // docs have hundreds of thousands of postings each (one read whole was a step of ~90 ms).
    for (let p = mainOffsets[t], end = mainOffsets[t + 1]; p < end; ) {
      const stop = Math.min(end, p + (step - read));
      read += stop - p;
      for (; p < stop; p++) {
        const doc = mainDocs[p];
        if (state[doc] !== LIVE) continue;
        docs[cursor[t]] = doc;
        putTf(tfs, big, cursor[t]++, mainTfs[p] === TF_BIG ? mainBigTfs.get(p)! : mainTfs[p]);
      }
      if (read >= step) {
        read = 0;
        yield;
      }
    }
  }
  for (let p = 0; p < view.deltaCount; p++) {
    const doc = deltaDocs[p];
    if (state[doc] !== LIVE) continue;
    const t = deltaTerms[p];
    docs[cursor[t]] = doc;
    putTf(tfs, big, cursor[t]++, deltaTfs[p]);
    if (++read >= step) {
      read = 0;
      yield;
    }
  }
}

/** The view's live delta postings grouped by term, each term's in delta order: `order[start[t]..start[t + 1])`. */
interface DeltaByTerm {
  start: Int32Array;
  order: Int32Array;
}

/**
 * DeltaByTerm, counted and placed in steps of about `step` postings (and TERMS_PER_STEP terms): at 1M a
 * per-term array is 11 MB of fresh pages, so the sums go in steps too, and the placing runs backwards to
 * need no second array (each term's end counts down to its start).
 */
function* deltaByTermInSteps(view: PostingsView, step: number): Generator<void, DeltaByTerm> {
  const { state, deltaDocs, deltaTerms, deltaCount, termCount } = view;
  const start = yield* zeroedInSteps(termCount + 1);
  let live = 0;
  for (let p = 0; p < deltaCount; p++) {
    if (state[deltaDocs[p]] === LIVE) {
      start[deltaTerms[p]]++;
      live++;
    }
    if ((p + 1) % step === 0) yield;
  }
  // start[t]: where term t's postings end.
  for (let t = 0, sum = 0; t < termCount; ) {
    sum += start[t];
    start[t] = sum;
    if (++t % TERMS_PER_STEP === 0) yield;
  }
  start[termCount] = live;
  yield;
  const order = new Int32Array(live);
  for (let p = deltaCount - 1; p >= 0; p--) {
    if (state[deltaDocs[p]] === LIVE) order[--start[deltaTerms[p]]] = p;
    if (p % step === 0) yield;
  }
  return { start, order };
}

// Terms a step where a pass over every term is one (2.7M at 1M).
const TERMS_PER_STEP = 1 << 18;

/**
 * The view's live postings in a snapshot's order, one field at a time: by term, a term's main postings and
 * then its delta's (the order packSteps places them in), resumed where the last fill stopped.
 */
class PackedPostings implements PostingsStream {
  private term = 0;
  private at: number;
  private inDelta = false;

  constructor(
    private readonly view: PostingsView,
    private readonly delta: DeltaByTerm,
    private readonly field: "docs" | "tfs",
  ) {
    this.at = view.mainTerms > 0 ? view.mainOffsets[0] : 0;
  }

  fill(out: Int32Array): number {
    const { state, mainTerms, mainOffsets, mainDocs, mainTfs, mainBigTfs, deltaDocs, deltaTfs, termCount } = this.view;
    const { start, order } = this.delta;
    const docs = this.field === "docs";
    let n = 0;
    while (n < out.length && this.term < termCount) {
      const t = this.term;
      if (!this.inDelta) {
        const end = t < mainTerms ? mainOffsets[t + 1] : this.at;
        let p = this.at;
        for (; p < end && n < out.length; p++) {
          const doc = mainDocs[p];
          if (state[doc] !== LIVE) continue;
          out[n++] = docs ? doc : mainTfs[p] === TF_BIG ? mainBigTfs.get(p)! : mainTfs[p];
        }
        this.at = p;
        if (p === end) [this.inDelta, this.at] = [true, start[t]];
      } else {
        const end = start[t + 1];
        let q = this.at;
        for (; q < end && n < out.length; q++) out[n++] = docs ? deltaDocs[order[q]] : deltaTfs[order[q]];
        this.at = q;
        if (q === end) {
          this.term = t + 1;
          this.inDelta = false;
          this.at = t + 1 < mainTerms ? mainOffsets[t + 1] : 0;
        }
      }
    }
    return n;
  }
}

/** Where each term's live postings in `view` start once packed (what packedOffsets gives from df), counted in steps of about `step` postings. */
function* liveOffsetsInSteps(view: PostingsView, step: number): Generator<void, Int32Array> {
  const { state, mainOffsets, mainDocs, deltaDocs, deltaTerms } = view;
  const offsets = yield* zeroedInSteps(view.termCount + 1);
  let read = 0;
  for (let t = 0; t < view.mainTerms; t++) {
    for (let p = mainOffsets[t], end = mainOffsets[t + 1]; p < end; ) {
      const stop = Math.min(end, p + (step - read));
      read += stop - p;
      let live = 0;
      for (; p < stop; p++) if (state[mainDocs[p]] === LIVE) live++;
      offsets[t + 1] += live;
      if (read >= step) {
        read = 0;
        yield;
      }
    }
  }
  for (let p = 0; p < view.deltaCount; p++) {
    if (state[deltaDocs[p]] === LIVE) offsets[deltaTerms[p] + 1]++;
    if (++read >= step) {
      read = 0;
      yield;
    }
  }
  // In steps too: 2.7M terms at 1M.
  for (let t = 0; t < view.termCount; ) {
    offsets[t + 1] += offsets[t];
    if (++t % TERMS_PER_STEP === 0) yield;
  }
  return offsets;
}

/** Writes `tf` at `p`: as it is, or into a byte, and `big` when it does not fit one below TF_BIG. */
function putTf(tfs: Uint8Array | Int32Array, big: Map<number, number> | undefined, p: number, tf: number): void {
  if (big !== undefined && tf >= TF_BIG) {
    tfs[p] = TF_BIG;
    big.set(p, tf);
  } else tfs[p] = tf;
}

type Growable = Int32Array | Uint8Array | Float64Array;

// Grown as grownCapacity() says; new slots hold `fill`. A view with room left in its buffer (a snapshot's
// bounds, snapshotArrays) grows into it first, without a copy.
function grow<T extends Growable>(array: T, need: number, fill = 0): T {
  if (array.length >= need) return array;
  const room = array.byteOffset === 0 ? array.buffer.byteLength / array.BYTES_PER_ELEMENT : 0;
  if (room >= need) {
    const next = new (array.constructor as new (buffer: ArrayBufferLike, at: number, length: number) => T)(array.buffer, 0, room);
    if (fill !== 0) next.fill(fill, array.length);
    return next;
  }
  const next = new (array.constructor as new (length: number) => T)(grownCapacity(array.length, need));
  next.set(array);
  if (fill !== 0) next.fill(fill, array.length);
  return next;
}

/**
 * The live docs' lengths for a snapshot, up to the last live doc (-1 for a doc not live), from the lengths
 * lent at its first step and the live flags copied then: `perStep` docs a step (131,072 by default).
 */
function* liveLengthsInSteps(lengths: Int32Array, state: Uint8Array, perStep: number): Generator<void, Int32Array> {
  let end = state.length;
  while (end > 0 && state[end - 1] !== LIVE) end--;
  // Every doc's length is written below, a step at a time: not zeroed when made (4 MB at 1M).
  const out = unzeroedInt32s(end);
  for (let from = 0; from < end; from += perStep) {
    const to = Math.min(end, from + perStep);
    out.set(lengths.subarray(from, to), from);
    for (let doc = from; doc < to; doc++) if (state[doc] !== LIVE) out[doc] = -1;
    yield;
  }
  return out;
}

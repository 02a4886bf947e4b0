// Document-at-a-time MaxScore for the common terms of a BM25 query (issue 18, item 2). Term at a time, a
// common term is scored for every doc that holds it before the k-th best score is known; here each doc is
// scored in full as it comes, so the bar is the k-th best final score from the first k docs on, and once the
// bounds of the cheapest terms add up to less than it, those terms are only looked up (galloping forward in
// their doc-ordered postings) for the docs the others found that could still reach it.
//
// Scores are bit-identical to the term-at-a-time sum: a doc's contributions are added in the caller's term
// order, starting from its partial score over the terms scored before, each term's share computed with the
// same grouping, (tf + base) + perToken * length (a regrouped sum differed in the last bit at 1M). Bounds
// compare with a relative margin.
import { TopK, type Scored } from "./top-k";

/** One query term's postings: a doc-ordered run of the packed segment and a doc-ordered run of `deltaDocs`. */
/**
 * A main posting's tf is a byte (32 bits cost 171 MiB at 1M); one of TF_BIG or more, a term said over 254
 * times in one memory, keeps TF_BIG there and its value in a map by posting.
 */
export const TF_BIG = 255;

export interface TermPostings {
  weight: number;
  /** Above anything the term adds to one doc. */
  bound: number;
  start: number;
  end: number;
  deltaStart: number;
  deltaEnd: number;
}

export interface MaxScoreInput {
  /** In the caller's term order, which is the order each doc's score is summed in. */
  terms: TermPostings[];
  mainDocs: Int32Array;
  mainTfs: Uint8Array;
  /** The tfs of the main postings whose byte is TF_BIG, by posting. */
  mainBigTfs: ReadonlyMap<number, number>;
  /** The terms' delta postings, each term's run in doc order. */
  deltaDocs: Int32Array;
  deltaTfs: Int32Array;
  /** Docs already holding a partial score (over the terms before these), in doc order; all live and accepted. */
  prefixDocs: Int32Array;
  partial: Float64Array;
  isLive: Uint8Array;
  liveValue: number;
  accept: Uint8Array | undefined;
  docLengths: Int32Array;
  norm: { base: number; perToken: number };
  limit: number;
}

export interface MaxScoreStats {
  /** Docs scored in full. */
  docsScored: number;
}

const END = 0x7fffffff;
const MARGIN = 1 + 1e-9;

/** The `limit` best docs (score desc, then doc asc) among the prefix docs and the terms' postings; counts into `stats`. */
export function maxScoreTopK(input: MaxScoreInput, stats: MaxScoreStats): Scored[] {
  const { mainDocs, mainTfs, mainBigTfs, deltaDocs, deltaTfs, prefixDocs, partial, isLive, liveValue, accept, docLengths, limit } = input;
  const { base: normBase, perToken } = input.norm;
  const n = input.terms.length;
  // Cursors are kept cheapest bound first: terms [0, lookups) have become lookups as the bar rose.
  const byBound = Array.from({ length: n }, (_, j) => j).sort((a, b) => input.terms[a].bound - input.terms[b].bound);
  const canonical = Int32Array.from(byBound);
  const canonicalWeight = Float64Array.from(input.terms, (term) => term.weight);
  const weight = Float64Array.from(byBound, (j) => input.terms[j].weight);
  const mainAt = Int32Array.from(byBound, (j) => input.terms[j].start);
  const mainEnd = Int32Array.from(byBound, (j) => input.terms[j].end);
  const deltaAt = Int32Array.from(byBound, (j) => input.terms[j].deltaStart);
  const deltaEnd = Int32Array.from(byBound, (j) => input.terms[j].deltaEnd);
  const upTo = new Float64Array(n + 1);
  for (let a = 0; a < n; a++) upTo[a + 1] = upTo[a] + input.terms[byBound[a]].bound;
  const current = new Int32Array(n);
  const currentTf = new Int32Array(n);
  /** tf by the caller's term order, for the doc being scored. */
  const tf = new Int32Array(n);
  const settle = (a: number) => {
    const m = mainAt[a] < mainEnd[a] ? mainDocs[mainAt[a]] : END;
    const d = deltaAt[a] < deltaEnd[a] ? deltaDocs[deltaAt[a]] : END;
    if (m <= d) (current[a] = m), (currentTf[a] = m === END ? 0 : mainTfs[mainAt[a]] === TF_BIG ? mainBigTfs.get(mainAt[a])! : mainTfs[mainAt[a]]);
    else (current[a] = d), (currentTf[a] = deltaTfs[deltaAt[a]]);
  };
  for (let a = 0; a < n; a++) settle(a);

  const top = new TopK(limit);
  let bar = -Infinity;
  let lookups = 0;
  // Looks the lookup terms up for `doc` while it can still reach the bar (highest bound first), then scores
  // it exactly, in the caller's term order, and offers it. tf holds its essential terms' tfs on the way in.
  const complete = (doc: number, start: number, estimate: number, lengthPart: number): void => {
    for (let a = lookups - 1; a >= 0; a--) {
      if ((estimate + upTo[a + 1]) * MARGIN < bar) {
        for (let j = 0; j < n; j++) tf[j] = 0;
        return;
      }
      if (current[a] < doc) {
        mainAt[a] = gallop(mainDocs, mainAt[a], mainEnd[a], doc);
        deltaAt[a] = gallop(deltaDocs, deltaAt[a], deltaEnd[a], doc);
        settle(a);
      }
      if (current[a] === doc) {
        const t = currentTf[a];
        (tf[canonical[a]] = t), (estimate += (weight[a] * t) / (t + normBase + lengthPart));
      }
    }
    if (estimate * MARGIN >= bar) {
      let score = start;
      for (let j = 0; j < n; j++) if (tf[j] > 0) score += (canonicalWeight[j] * tf[j]) / (tf[j] + normBase + lengthPart);
      stats.docsScored++;
      top.push(doc, score);
      if (top.threshold > bar) {
        bar = top.threshold;
        while (lookups < n && upTo[lookups + 1] * MARGIN < bar) lookups++;
      }
    }
    for (let j = 0; j < n; j++) tf[j] = 0;
  };
  let nextPrefix = 0;
  const prefixCount = prefixDocs.length;
  for (;;) {
    if (lookups === n - 1) {
      // One essential term left (the usual end state): read its packed postings in a tight loop up to the
      // next prefix doc or delta posting, dropping each doc whose contribution plus every lookup's bound
      // stays below the bar before anything else is read.
      const a = n - 1;
      const stop = Math.min(nextPrefix < prefixCount ? prefixDocs[nextPrefix] : END, deltaAt[a] < deltaEnd[a] ? deltaDocs[deltaAt[a]] : END);
      const w = weight[a];
      const reach = upTo[a];
      let p = mainAt[a];
      for (const end = mainEnd[a]; p < end && lookups === a; p++) {
        const doc = mainDocs[p];
        if (doc >= stop) break;
        const t = mainTfs[p] === TF_BIG ? mainBigTfs.get(p)! : mainTfs[p];
        const lengthPart = perToken * docLengths[doc];
        const contribution = (w * t) / (t + normBase + lengthPart);
        if ((contribution + reach) * MARGIN < bar) continue;
        if (isLive[doc] !== liveValue || (accept !== undefined && accept[doc] === 0)) continue;
        tf[canonical[a]] = t;
        complete(doc, 0, contribution, lengthPart);
      }
      mainAt[a] = p;
      settle(a);
    }
    let doc = nextPrefix < prefixCount ? prefixDocs[nextPrefix] : END;
    for (let a = lookups; a < n; a++) if (current[a] < doc) doc = current[a];
    if (doc === END) break;
    let start = 0;
    if (nextPrefix < prefixCount && prefixDocs[nextPrefix] === doc) (start = partial[doc]), nextPrefix++;
    const usable = isLive[doc] === liveValue && (accept === undefined || accept[doc] !== 0);
    const lengthPart = perToken * docLengths[doc];
    let estimate = start;
    for (let a = lookups; a < n; a++) {
      if (current[a] !== doc) continue;
      const t = currentTf[a];
      if (usable) (tf[canonical[a]] = t), (estimate += (weight[a] * t) / (t + normBase + lengthPart));
      if (mainAt[a] < mainEnd[a] && mainDocs[mainAt[a]] === doc) mainAt[a]++;
      else deltaAt[a]++;
      settle(a);
    }
    if (usable) complete(doc, start, estimate, lengthPart);
  }
  return top.sorted();
}

/** The first position in docs[from, end) holding a doc >= `doc`, searching outward from `from`. */
function gallop(docs: Int32Array, from: number, end: number, doc: number): number {
  if (from >= end || docs[from] >= doc) return from;
  let low = from;
  let step = 1;
  let high = from + 1;
  while (high < end && docs[high] < doc) {
    low = high;
    step *= 2;
    high = low + step;
  }
  // docs[low] < doc, and docs[high] >= doc or high >= end.
  return lowerBound(docs, low + 1, Math.min(high, end), doc);
}

/** The first position in docs[start, end) holding a doc >= `doc`. */
export function lowerBound(docs: Int32Array, start: number, end: number, doc: number): number {
  let lo = start;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < doc) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Exact cosine top-k over dense vectors. Unit vectors live in one Float32Array for exact scores; their
// int8 codes (quantize.ts) are scanned first to bound every score, and only docs whose upper bound can
// still reach the k-th exact score are re-scored, so results equal a full f32 scan.
import { Int8Codes } from "./quantize";
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

/** Candidate i is docs[order[i]] with upper bound uppers[order[i]], best bound first. */
interface Candidates {
  order: Int32Array;
  docs: Int32Array;
  uppers: Float64Array;
}

export class VectorIndex {
  private vectors = new Float32Array(0);
  private live = new Uint8Array(0);
  /** Per-search scratch, sized to capacity: candidate docs and their upper bounds. */
  private candidateDocs = new Int32Array(0);
  private candidateUppers = new Float64Array(0);
  private capacity = 0;
  /** One past the highest live doc: the scan covers rows [0, end). */
  private end = 0;
  private count = 0;
  private readonly codes: Int8Codes;

  constructor(private readonly dimension: number) {
    if (!Number.isInteger(dimension) || dimension < 1 || dimension > MAX_DIM) {
      throw new Error(`dim must be an integer from 1 to ${MAX_DIM}, got ${String(dimension)}`);
    }
    this.codes = new Int8Codes(dimension);
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
  static fromRows(dim: number, docs: Int32Array, rows: Float32Array): VectorIndex {
    const index = new VectorIndex(dim);
    if (rows.length !== docs.length * dim) throw new Error(`fromRows: ${rows.length} values do not make ${docs.length} rows of ${dim}`);
    if (docs.length === 0) return index;
    index.reserve(docs[docs.length - 1] + 1);
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i];
      if (!(doc >= 0 && (i === 0 || doc > docs[i - 1]))) throw new Error(`fromRows: docs must be non-negative and strictly increasing (docs[${i}] = ${doc})`);
      index.vectors.set(rows.subarray(i * dim, (i + 1) * dim), doc * dim);
      const norm = Math.sqrt(index.codes.encode(doc, index.vectors, doc * dim));
      if (!(Math.abs(norm - 1) <= UNIT_TOLERANCE)) throw new Error(`fromRows: row ${i} (doc ${doc}) has norm ${norm}, not a stored unit vector`);
      index.live[doc] = 1;
    }
    index.count = docs.length;
    index.end = docs[docs.length - 1] + 1;
    return index;
  }

  /** Live docs in increasing order and a copy of their stored unit rows, for fromRows. */
  exportRows(): { docs: Int32Array; rows: Float32Array } {
    const dim = this.dimension;
    const docs = new Int32Array(this.count);
    const rows = new Float32Array(this.count * dim);
    for (let doc = 0, i = 0; doc < this.end; doc++) {
      if (this.live[doc] !== 1) continue;
      rows.set(this.vectors.subarray(doc * dim, (doc + 1) * dim), i * dim);
      docs[i++] = doc;
    }
    return { docs, rows };
  }

  /** Stores the unit vector of `vector` under `doc`, replacing any earlier vector for it. */
  set(doc: number, vector: VectorInput): void {
    if (!Number.isSafeInteger(doc) || doc < 0) throw new Error(`doc must be a non-negative integer, got ${String(doc)}`);
    const unit = normalise(vector, this.dimension, "vector");
    this.reserve(doc + 1);
    const at = doc * this.dimension;
    this.vectors.set(unit, at);
    this.codes.encode(doc, this.vectors, at);
    if (this.live[doc] !== 1) {
      this.live[doc] = 1;
      this.count++;
    }
    this.end = Math.max(this.end, doc + 1);
  }

  /** Returns whether `doc` was live. */
  remove(doc: number): boolean {
    if (!this.has(doc)) return false;
    this.live[doc] = 0;
    this.count--;
    while (this.end > 0 && this.live[this.end - 1] !== 1) this.end--;
    return true;
  }

  /** A copy of the stored unit vector. */
  vectorOf(doc: number): Float32Array | undefined {
    if (!this.has(doc)) return undefined;
    const at = doc * this.dimension;
    return this.vectors.slice(at, at + this.dimension);
  }

  /**
   * The k live docs with the highest cosine to `query` (restricted to docs with a non-zero `accept[doc]`
   * when a mask is given), best first, ties by lower doc.
   */
  search(query: VectorInput, k: number, accept?: Uint8Array): Scored[] {
    if (!Number.isInteger(k) || k < 0) throw new Error(`k must be a non-negative integer, got ${String(k)}`);
    const unit = normalise(query, this.dimension, "query");
    const keep = Math.min(k, this.count);
    if (keep === 0) return [];
    return this.rescore(unit, keep, this.candidates(unit, keep, accept));
  }

  /**
   * Bounds every eligible doc's cosine from its int8 code and returns, best bound first, the docs whose
   * upper bound reaches the k-th largest lower bound: at least k docs score at least that much, so no
   * other doc can enter the top k. Bounds are clamped to [-1, 1] like the scores they bound.
   *
   * Bound: with q, v the unit vectors and q', v' their dequantized codes,
   * |q·v - q'·v'| <= |(q - q')·v| + |q'·(v - v')| <= e_q ||v|| + ||q'|| e_v <= e_q + (1 + e_q) e_v (Cauchy-Schwarz),
   * and q'·v' = dot * s_q * s_v exactly because the kernel's integer dot does not overflow.
   */
  private candidates(unit: Float64Array, k: number, accept: Uint8Array | undefined): Candidates {
    const query = this.codes.encodeQuery(unit);
    const dots = this.codes.scan(this.end);
    const { scales, errors } = this.codes;
    const marginBase = (1 + NORM_SLACK) * query.error + ROUND_SLACK;
    const marginPerError = (1 + NORM_SLACK) * (1 + NORM_SLACK + query.error);
    const { live, candidateDocs: docs, candidateUppers: uppers } = this;
    const lowest = new TopK(k);
    let lowestKept = -Infinity;
    // The running cut only rises, so filtering by it on the way leaves a superset of the final candidates.
    let cut = -1;
    let n = 0;
    for (let doc = 0; doc < this.end; doc++) {
      if (live[doc] !== 1 || (accept !== undefined && !accept[doc])) continue;
      const approx = dots[doc] * scales[doc] * query.scale;
      const margin = marginBase + marginPerError * errors[doc];
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
      best.push(docs[i], clampCosine(dotAt(unit, this.vectors, docs[i] * dim, dim)));
    }
    return best.sorted();
  }

  private reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, Math.min(this.capacity * 2, this.codes.maxRows), MIN_CAPACITY);
    this.codes.reserve(capacity);
    const vectors = new Float32Array(capacity * this.dimension);
    vectors.set(this.vectors);
    this.vectors = vectors;
    const live = new Uint8Array(capacity);
    live.set(this.live);
    this.live = live;
    this.candidateDocs = new Int32Array(capacity);
    this.candidateUppers = new Float64Array(capacity);
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

function clampCosine(score: number): number {
  return score > 1 ? 1 : score < -1 ? -1 : score;
}

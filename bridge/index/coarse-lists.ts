// Inverted lists for the dense index above flat_max_records (an IVF index): spherical k-means centroids
// trained on a sample of the stored unit vectors, and every live doc listed under its nearest centroid.
// A search ranks the centroids and gathers the eligible docs of the best lists until it has enough;
// vector-index.ts then scores those docs exactly, so an answer can only miss a doc that sits in a list
// it did not probe.
import { Int8Codes } from "./quantize";

const MIN_CAPACITY = 64;

/** Each doc's code scale and error norm, as the index's int8 codes hold them (read when a doc is listed). */
export interface CodeBounds {
  readonly scales: Float64Array;
  readonly errors: Float64Array;
}

/** Where a probe writes the docs it gathers, and beside each its code's scale and error norm. */
export interface Gathered {
  docs: Int32Array;
  scales: Float64Array;
  errors: Float64Array;
}

export class CoarseLists {
  readonly count: number;
  /** Docs listed under each centroid, unordered; sizes[l] of members[l] are used. */
  private readonly members: Int32Array[];
  /**
   * Beside each member, its code's scale and error norm: a search bounds every gathered doc with them, and
   * read by doc (two 8 MB arrays at 1M, a cache and TLB miss each) they cost ~2.2 ms of a 30,000-doc search
   * whose scan of the codes took ~5 ms; read beside the members, in order, they cost almost nothing.
   */
  private readonly memberScales: Float64Array[];
  private readonly memberErrors: Float64Array[];
  private readonly sizes: Int32Array;
  /** Per doc: its list (-1: not listed) and its position there, so moving or removing a doc is O(1). */
  private listOf = new Int32Array(0);
  private positionOf = new Int32Array(0);
  private readonly centroidCodes: Int8Codes;
  private readonly unit: Float64Array;
  private readonly scores: Float64Array;
  private readonly order: Int32Array;
  listed = 0;

  /**
   * `centroids`: count unit rows of `dim` values. `bounds`: where a doc's scale and error norm are read when
   * it is listed (the index's codes, so a doc must be encoded before it is listed, and listed again, by
   * add or place, when its code changes).
   */
  constructor(
    readonly dim: number,
    readonly centroids: Float32Array,
    private readonly bounds: CodeBounds,
  ) {
    this.count = centroids.length / dim;
    if (!Number.isInteger(this.count) || this.count < 1) throw new Error(`CoarseLists: ${centroids.length} values do not make centroids of ${dim}`);
    this.members = Array.from({ length: this.count }, () => new Int32Array(MIN_CAPACITY));
    this.memberScales = Array.from({ length: this.count }, () => new Float64Array(MIN_CAPACITY));
    this.memberErrors = Array.from({ length: this.count }, () => new Float64Array(MIN_CAPACITY));
    this.sizes = new Int32Array(this.count);
    this.centroidCodes = encodeRows(dim, centroids, this.count);
    this.unit = new Float64Array(dim);
    this.scores = new Float64Array(this.count);
    this.order = new Int32Array(this.count);
  }

  has(doc: number): boolean {
    return doc < this.listOf.length && this.listOf[doc] >= 0;
  }

  /** The list `doc` is in, or -1. */
  listOfDoc(doc: number): number {
    return this.has(doc) ? this.listOf[doc] : -1;
  }

  /**
   * Writes the lists of docs from .. to - 1 (listOfDoc of each) into `into` from `at`: one native copy, for a
   * checkpoint's first step (a call per doc over a million docs took ~15 ms before the JIT had optimised it).
   */
  copyListsOf(from: number, to: number, into: Int32Array, at: number): void {
    const held = Math.max(from, Math.min(to, this.listOf.length));
    into.set(this.listOf.subarray(from, held), at);
    into.fill(-1, at + held - from, at + to - from);
  }

  /**
   * Lists `doc` (its unit vector at vectors[at .. at + dim)) under its nearest centroid, moving it if listed,
   * with its code's bounds as they are now.
   */
  add(doc: number, vectors: Float32Array, at: number): void {
    this.place(doc, this.nearest(vectors, at));
  }

  /**
   * Room for docs below `docs` and for `members[l]` docs in list l, each array made once at its size: a
   * restore of 1M placed a doc at a time grew every list from 64 by doubling and the per-doc arrays from 64
   * too, ~70 MB of arrays outside V8's heap that made it collect the million records once more (~120 ms).
   */
  reserve(docs: number, members: Int32Array): void {
    if (members.length !== this.count) throw new Error(`CoarseLists.reserve: ${members.length} list sizes for ${this.count} lists`);
    this.reserveDocs(docs);
    for (let list = 0; list < this.count; list++) {
      const need = this.sizes[list] + members[list];
      if (need <= this.members[list].length) continue;
      this.members[list] = grown(this.members[list], new Int32Array(need));
      this.memberScales[list] = grown(this.memberScales[list], new Float64Array(need));
      this.memberErrors[list] = grown(this.memberErrors[list], new Float64Array(need));
    }
  }

  /** Lists `doc` under `list` (a checkpoint's assignment), moving it if listed elsewhere, with its code's bounds as they are now. */
  place(doc: number, list: number): void {
    if (!(Number.isInteger(list) && list >= 0 && list < this.count)) throw new Error(`list ${list} is not one of the ${this.count} lists`);
    const { scales, errors } = this.bounds;
    if (this.has(doc)) {
      if (this.listOf[doc] === list) {
        this.memberScales[list][this.positionOf[doc]] = scales[doc];
        this.memberErrors[list][this.positionOf[doc]] = errors[doc];
        return;
      }
      this.remove(doc);
    }
    this.reserveDocs(doc + 1);
    const size = this.sizes[list];
    if (size === this.members[list].length) {
      const capacity = Math.max(size * 2, MIN_CAPACITY);
      this.members[list] = grown(this.members[list], new Int32Array(capacity));
      this.memberScales[list] = grown(this.memberScales[list], new Float64Array(capacity));
      this.memberErrors[list] = grown(this.memberErrors[list], new Float64Array(capacity));
    }
    this.members[list][size] = doc;
    this.memberScales[list][size] = scales[doc];
    this.memberErrors[list][size] = errors[doc];
    this.sizes[list] = size + 1;
    this.listOf[doc] = list;
    this.positionOf[doc] = size;
    this.listed++;
  }

  remove(doc: number): void {
    if (!this.has(doc)) return;
    const list = this.listOf[doc];
    const members = this.members[list];
    const last = this.sizes[list] - 1;
    const position = this.positionOf[doc];
    const moved = members[last];
    members[position] = moved;
    this.memberScales[list][position] = this.memberScales[list][last];
    this.memberErrors[list][position] = this.memberErrors[list][last];
    this.positionOf[moved] = position;
    this.sizes[list] = last;
    this.listOf[doc] = -1;
    this.listed--;
  }

  /**
   * Writes into `out` the listed docs (those with live[doc] === 1 and accept[doc] !== 0 when a mask is given),
   * each with its code's scale and error norm, list by list from the centroid nearest to `unit`, until at
   * least `want` are gathered or every list is read. Returns how many were written and how many lists were read.
   * Unmasked, `live` is not read: the index lists only live docs and removes a doc as it stops being live,
   * and reading live[doc] at random (1 MB at 1M) was ~1 ms of a 30,000-doc probe, a seventh of the search.
   */
  probe(unit: Float64Array, want: number, live: Uint8Array, accept: Uint8Array | undefined, out: Gathered): { gathered: number; probed: number } {
    const order = this.rank(unit);
    const { docs, scales, errors } = out;
    let gathered = 0;
    let probed = 0;
    while (probed < this.count && gathered < want) {
      const list = order[probed++];
      const members = this.members[list];
      const memberScales = this.memberScales[list];
      const memberErrors = this.memberErrors[list];
      const size = this.sizes[list];
      for (let i = 0; i < size; i++) {
        const doc = members[i];
        if (accept === undefined || (live[doc] === 1 && accept[doc] !== 0)) {
          docs[gathered] = doc;
          scales[gathered] = memberScales[i];
          errors[gathered++] = memberErrors[i];
        }
      }
    }
    return { gathered, probed };
  }

  /**
   * For each list, how many docs an unmasked probe for `unit` gathers before reaching it: a probe for
   * `want` docs reads list l exactly when before[l] < want. (The build's recall estimate uses this.)
   */
  gatheredBefore(unit: Float64Array): Int32Array {
    const order = this.rank(unit);
    const before = new Int32Array(this.count);
    for (let i = 0, total = 0; i < this.count; i++) {
      before[order[i]] = total;
      total += this.sizes[order[i]];
    }
    return before;
  }

  /**
   * Lists by the approximate (int8) dot of their centroid with `unit`, best first (ties: lower list). The
   * order only decides which lists a search reads, and the build's recall estimate reads them in this same
   * order; ranking 1,000 lists of 512-d by their exact dots in f64 took 0.86 ms a search, by the kernel
   * 0.19 ms (the sort included).
   */
  private rank(unit: Float64Array): Int32Array {
    const { centroidCodes, scores, order } = this;
    centroidCodes.encodeQuery(unit);
    const dots = centroidCodes.scan(this.count);
    const centroidScales = centroidCodes.scales;
    for (let l = 0; l < this.count; l++) {
      scores[l] = dots[l] * centroidScales[l];
      order[l] = l;
    }
    return order.sort((a, b) => scores[b] - scores[a] || a - b);
  }

  /** The list whose centroid has the largest approximate (int8) dot with the unit row at vectors[at..]. */
  private nearest(vectors: Float32Array, at: number): number {
    return nearestRow(this.centroidCodes, this.count, vectors, at, this.unit);
  }

  private reserveDocs(docs: number): void {
    if (docs <= this.listOf.length) return;
    const capacity = Math.max(docs, this.listOf.length * 2, MIN_CAPACITY);
    const listOf = new Int32Array(capacity).fill(-1);
    listOf.set(this.listOf);
    this.listOf = listOf;
    const positionOf = new Int32Array(capacity);
    positionOf.set(this.positionOf);
    this.positionOf = positionOf;
  }
}

/**
 * Int8 codes of `count` unit rows, for scanning them with a query (the centroids, during training and
 * after). Training re-encodes into the same codes each round instead of making a WebAssembly memory
 * per round (less for V8 to collect during a build).
 */
export function encodeRows(dim: number, rows: Float32Array, count: number, into = new Int8Codes(dim)): Int8Codes {
  into.reserve(Math.max(count, 1));
  for (let r = 0; r < count; r++) into.encode(r, rows, r * dim);
  return into;
}

/** Index of the row of `codes` (rows [0, count)) with the largest approximate dot with the unit row vectors[at..]. */
export function nearestRow(codes: Int8Codes, count: number, vectors: Float32Array, at: number, scratch: Float64Array): number {
  const dim = scratch.length;
  for (let i = 0; i < dim; i++) scratch[i] = vectors[at + i];
  codes.encodeQuery(scratch);
  const dots = codes.scan(count);
  const scales = codes.scales;
  let best = 0;
  let bestScore = -Infinity;
  for (let r = 0; r < count; r++) {
    const score = dots[r] * scales[r];
    if (score > bestScore) {
      bestScore = score;
      best = r;
    }
  }
  return best;
}

/**
 * Spherical k-means over `sample` (n unit rows drawn at random): `lists` centroids seeded from evenly
 * spaced sample rows, `iterations` rounds of assign-and-average. Yields between chunks of rows so a
 * caller can spread the work; returns the unit centroids. An emptied centroid is re-seeded with the
 * row it fits worst.
 */
export function* trainCentroids(sample: Float32Array, dim: number, lists: number, iterations: number, chunk = 512): Generator<void, Float32Array> {
  const n = sample.length / dim;
  const centroids = new Float32Array(lists * dim);
  for (let l = 0; l < lists; l++) centroids.set(sample.subarray(Math.floor((l * n) / lists) * dim, (Math.floor((l * n) / lists) + 1) * dim), l * dim);
  const scratch = new Float64Array(dim);
  const sums = new Float64Array(lists * dim);
  const counts = new Int32Array(lists);
  const codes = new Int8Codes(dim);
  for (let round = 0; round < iterations; round++) {
    encodeRows(dim, centroids, lists, codes);
    sums.fill(0);
    counts.fill(0);
    let worstRow = 0;
    let worstScore = Infinity;
    for (let row = 0; row < n; row++) {
      const at = row * dim;
      const list = nearestRow(codes, lists, sample, at, scratch);
      counts[list]++;
      const to = list * dim;
      let score = 0;
      for (let i = 0; i < dim; i++) {
        sums[to + i] += sample[at + i];
        score += sample[at + i] * centroids[to + i];
      }
      if (score < worstScore) {
        worstScore = score;
        worstRow = row;
      }
      if ((row + 1) % chunk === 0) yield;
    }
    for (let l = 0; l < lists; l++) {
      const to = l * dim;
      if (counts[l] === 0) {
        centroids.set(sample.subarray(worstRow * dim, (worstRow + 1) * dim), to);
        continue;
      }
      let norm = 0;
      for (let i = 0; i < dim; i++) norm += sums[to + i] * sums[to + i];
      norm = Math.sqrt(norm);
      // A mean of unit rows is zero only if they cancel exactly; keep the old centroid then.
      if (norm === 0) continue;
      for (let i = 0; i < dim; i++) centroids[to + i] = sums[to + i] / norm;
    }
    yield;
  }
  return centroids;
}

function grown<T extends Int32Array | Float64Array>(array: T, into: T): T {
  into.set(array);
  return into;
}

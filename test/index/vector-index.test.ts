import fc from "fast-check";
import { Scored } from "../../bridge/index/top-k";
import { VectorIndex } from "../../bridge/index/vector-index";
import { seededRandom } from "../fixtures/seeded-random";

type Vectors = Map<number, ArrayLike<number>>;


function randomVector(random: () => number, dim: number): number[] {
  return Array.from({ length: dim }, () => random() * 2 - 1);
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b));
}

/** Every doc ranked by double-precision cosine, best first, ties by lower doc. */
function bruteForce(vectors: Vectors, query: ArrayLike<number>, accept?: Uint8Array): Scored[] {
  return rank([...vectors].filter(([doc]) => accept === undefined || accept[doc] === 1).map(([doc, vector]) => ({ doc, score: cosine(vector, query) })));
}

/**
 * Every stored doc ranked by the dot of its stored f32 unit vector with the unit query, clamped to [-1, 1]:
 * the definition of the exact answer, which differs from the cosine of the raw inputs by the f32 rounding
 * of the stored vectors (enough to push near-duplicates past 1).
 */
function bruteForceStored(index: VectorIndex, docs: Iterable<number>, query: number[]): Scored[] {
  const norm = Math.hypot(...query);
  const clamp = (score: number) => Math.max(-1, Math.min(1, score));
  return rank([...docs].map((doc) => ({ doc, score: clamp(dot(index.vectorOf(doc)!, query) / norm) })));
}

function rank(entries: Scored[]): Scored[] {
  return entries.sort((a, b) => b.score - a.score || a.doc - b.doc);
}

/** Same ranking as `expected` up to scores within `tolerance` of each other, whose order is a tie. */
function expectRanking(actual: Scored[], expected: Scored[], k: number, tolerance: number): void {
  const truth = new Map(expected.map((entry) => [entry.doc, entry.score]));
  expect(actual).toHaveLength(Math.min(k, expected.length));
  expect(new Set(actual.map((entry) => entry.doc)).size).toBe(actual.length);
  actual.forEach((entry, i) => {
    expect(Math.abs(entry.score - expected[i].score)).toBeLessThanOrEqual(tolerance);
    expect(Math.abs(entry.score - truth.get(entry.doc)!)).toBeLessThanOrEqual(tolerance);
  });
}

function ids(results: Scored[]): number[] {
  return results.map((entry) => entry.doc);
}

function fill(index: VectorIndex, vectors: Vectors): VectorIndex {
  for (const [doc, vector] of vectors) index.set(doc, Array.from(vector));
  return index;
}

describe("VectorIndex search on seeded random data", () => {
  it.each([3, 17, 512])("ranks ids exactly like a double-precision brute-force cosine scan at %i dims", (dim) => {
    const random = seededRandom(dim);
    const vectors: Vectors = new Map(Array.from({ length: 300 }, (_, doc) => [doc, randomVector(random, dim)]));
    const index = fill(new VectorIndex(dim), vectors);
    for (let q = 0; q < 10; q++) {
      const query = randomVector(random, dim);
      const expected = bruteForce(vectors, query);
      for (const k of [1, 5, 20, 64]) {
        const results = index.search(query, k);
        expect(ids(results)).toEqual(ids(expected.slice(0, k)));
        results.forEach((entry, i) => expect(entry.score).toBeCloseTo(expected[i].score, 6));
      }
    }
  });

  it("stays exact after remove() and after re-setting docs to new vectors", () => {
    const dim = 17;
    const random = seededRandom(7);
    const vectors: Vectors = new Map(Array.from({ length: 200 }, (_, doc) => [doc, randomVector(random, dim)]));
    const index = fill(new VectorIndex(dim), vectors);
    for (let doc = 0; doc < 200; doc += 3) {
      expect(index.remove(doc)).toBe(true);
      vectors.delete(doc);
    }
    for (let doc = 1; doc < 200; doc += 5) {
      const replacement = randomVector(random, dim);
      index.set(doc, replacement);
      vectors.set(doc, replacement);
    }
    expect(index.size).toBe(vectors.size);
    for (let q = 0; q < 10; q++) {
      const query = randomVector(random, dim);
      expect(ids(index.search(query, 25))).toEqual(ids(bruteForce(vectors, query).slice(0, 25)));
    }
  });

  it("answers the same after incremental edits as an index rebuilt from the final vectors", () => {
    const dim = 64;
    const random = seededRandom(11);
    const incremental = new VectorIndex(dim);
    const final: Vectors = new Map();
    for (let step = 0; step < 600; step++) {
      const doc = Math.floor(random() * 150);
      if (random() < 0.25) {
        incremental.remove(doc);
        final.delete(doc);
      } else {
        const vector = randomVector(random, dim);
        incremental.set(doc, vector);
        final.set(doc, vector);
      }
    }
    const rebuilt = fill(new VectorIndex(dim), final);
    const query = randomVector(random, dim);
    expect(incremental.search(query, 30)).toEqual(rebuilt.search(query, 30));
    expect(incremental.size).toBe(final.size);
  });

  it("returns the brute-force top k up to exact ties for arbitrary small sets", () => {
    const dim = 5;
    const component = fc.integer({ min: -4, max: 4 });
    const vector = fc.array(component, { minLength: dim, maxLength: dim }).filter((v) => v.some((x) => x !== 0));
    fc.assert(
      fc.property(fc.array(vector, { minLength: 1, maxLength: 40 }), vector, fc.integer({ min: 1, max: 45 }), (docs, query, k) => {
        const vectors: Vectors = new Map(docs.map((v, doc) => [doc, v]));
        const index = fill(new VectorIndex(dim), vectors);
        expectRanking(index.search(query, k), bruteForce(vectors, query), k, 1e-6);
      }),
    );
  });
});

describe("VectorIndex exactness where int8 codes cannot tell vectors apart", () => {
  it("ranks vectors that differ only in components far below the int8 step", () => {
    const dim = 128;
    const random = seededRandom(21);
    const base = randomVector(random, dim);
    const index = new VectorIndex(dim);
    for (let doc = 0; doc < 200; doc++) {
      const vector = [...base];
      vector[doc % dim] += (random() - 0.5) * 1e-4;
      index.set(doc, vector);
    }
    const query = base.map((x) => x + (random() - 0.5) * 0.1);
    const expected = bruteForceStored(index, Array.from({ length: 200 }, (_, doc) => doc), query);
    for (const k of [1, 10, 50]) expectRanking(index.search(query, k), expected, k, 1e-12);
  });

  it("ranks vectors with one huge component by their tiny remaining components", () => {
    const dim = 64;
    const random = seededRandom(22);
    const vectors: Vectors = new Map();
    for (let doc = 0; doc < 150; doc++) {
      const vector = randomVector(random, dim);
      vector[doc % 4] = 1e6 * (doc % 8 < 4 ? 1 : -1);
      vectors.set(doc, vector);
    }
    const index = fill(new VectorIndex(dim), vectors);
    const spread = randomVector(random, dim);
    const huge = randomVector(random, dim).map((x, i) => (i === 1 ? 1e7 : x));
    for (const query of [spread, huge]) {
      const expected = bruteForceStored(index, vectors.keys(), query);
      for (const k of [1, 10, 40]) expectRanking(index.search(query, k), expected, k, 1e-12);
    }
  });

  it.each([1e-3, 1e-5])("ranks near-duplicates of one vector (noise %f) exactly", (noise) => {
    const dim = 512;
    const random = seededRandom(23);
    const base = randomVector(random, dim);
    const index = new VectorIndex(dim);
    for (let doc = 0; doc < 300; doc++) index.set(doc, base.map((x) => x + (random() - 0.5) * noise));
    const query = base.map((x) => x + (random() - 0.5) * noise);
    const expected = bruteForceStored(index, Array.from({ length: 300 }, (_, doc) => doc), query);
    for (const k of [1, 10, 100]) expectRanking(index.search(query, k), expected, k, 1e-12);
  });

  it("ranks one-hot docs by query components that all round to the same int16 query code", () => {
    const dim = 64;
    const random = seededRandom(25);
    const index = new VectorIndex(dim);
    for (let doc = 0; doc < dim; doc++) index.set(doc, Array.from({ length: dim }, (_, i) => (i === doc ? 1 : 0)));
    // With max component 1 the int16 step is 1/32767; every other component sits inside half a step of 0.
    const query = Array.from({ length: dim }, (_, i) => (i === 0 ? 1 : (random() - 0.5) * 0.9 / 32767));
    const expected = bruteForceStored(index, Array.from({ length: dim }, (_, doc) => doc), query);
    for (const k of [2, 10, 64]) expectRanking(index.search(query, k), expected, k, 1e-12);
  });

  it("orders identical vectors by the lower doc number with equal scores", () => {
    const index = new VectorIndex(4);
    for (const doc of [5, 2, 9]) index.set(doc, [1, 2, 3, 4]);
    index.set(0, [4, 3, 2, 1]);
    const results = index.search([1, 2, 3, 4], 3);
    expect(ids(results)).toEqual([2, 5, 9]);
    expect(new Set(results.map((entry) => entry.score)).size).toBe(1);
  });

  it("scores ±1 at 4096 dims when every code sits at its limit, so the integer dot cannot overflow", () => {
    const dim = 4096;
    const random = seededRandom(24);
    const index = new VectorIndex(dim);
    index.set(0, new Array(dim).fill(1));
    index.set(1, new Array(dim).fill(-1));
    for (let doc = 2; doc < 12; doc++) index.set(doc, randomVector(random, dim));
    const ones = new Array(dim).fill(1);
    expect(index.search(ones, 1)[0].doc).toBe(0);
    expect(index.search(ones, 1)[0].score).toBeCloseTo(1, 6);
    const last = index.search(ones, 12).at(-1)!;
    expect(last.doc).toBe(1);
    expect(last.score).toBeCloseTo(-1, 6);
  });
});

describe("VectorIndex filtering, sizes and bookkeeping", () => {
  const random = seededRandom(31);
  const vectors: Vectors = new Map(Array.from({ length: 40 }, (_, doc) => [doc * 2, randomVector(random, 8)]));
  const index = fill(new VectorIndex(8), vectors);
  const query = randomVector(random, 8);

  it("returns only docs whose accept entry is 1, skipping 0 and docs beyond the mask", () => {
    const accept = new Uint8Array(50);
    for (let doc = 0; doc < 50; doc += 4) accept[doc] = 1;
    const results = index.search(query, 100, accept);
    expect(ids(results)).toEqual(ids(bruteForce(vectors, query, accept)));
    expect(results.every((entry) => entry.doc < 50 && entry.doc % 4 === 0)).toBe(true);
  });

  it("returns every live doc, best first, when k exceeds the size", () => {
    expect(ids(index.search(query, 1000))).toEqual(ids(bruteForce(vectors, query)));
  });

  it("returns no results for k = 0 or an empty index", () => {
    expect(index.search(query, 0)).toEqual([]);
    expect(new VectorIndex(8).search(query, 5)).toEqual([]);
  });

  it("keeps gaps in doc numbers absent and counts only live docs", () => {
    const sparse = new VectorIndex(3);
    sparse.set(1000, [1, 0, 0]);
    sparse.set(3, [0, 1, 0]);
    sparse.set(3, [0, 0, 1]);
    expect(sparse.size).toBe(2);
    expect([sparse.has(3), sparse.has(500), sparse.has(1000)]).toEqual([true, false, true]);
    expect(sparse.remove(1000)).toBe(true);
    expect(sparse.remove(1000)).toBe(false);
    expect(sparse.size).toBe(1);
    expect(sparse.search([1, 0, 0], 5)).toEqual([{ doc: 3, score: 0 }]);
  });

  it("reserves docs for a restore with a quarter more room, so the first vectors stored after it do not grow every array", () => {
    const restored = new VectorIndex(8);
    restored.reserveDocs(1_000);
    expect(restored.codesTarget().capacity).toBe(1_250);
    for (let doc = 0; doc < 1_250; doc++) restored.set(doc, randomVector(random, 8));
    expect(restored.codesTarget().capacity).toBe(1_250);
    restored.set(1_250, randomVector(random, 8));
    expect(restored.codesTarget().capacity).toBe(2_500);
    expect(restored.size).toBe(1_251);
  });

  it("exposes a copy of the stored unit vector and nothing for removed docs", () => {
    const copy = index.vectorOf(2)!;
    expect(Math.hypot(...copy)).toBeCloseTo(1, 6);
    expect(cosine(copy, vectors.get(2)!)).toBeCloseTo(1, 6);
    copy.fill(0);
    expect(Math.hypot(...index.vectorOf(2)!)).toBeCloseTo(1, 6);
    expect(index.vectorOf(3)).toBeUndefined();
  });
});

describe("VectorIndex input validation", () => {
  it.each([0, 4097, 1.5, Number.NaN])("rejects dim %p naming the allowed range", (dim) => {
    expect(() => new VectorIndex(dim)).toThrow(`dim must be an integer from 1 to 4096, got ${dim}`);
  });

  it.each([
    [[1, 2, 3], "vector length 3 does not match the index dimension 4"],
    [[1, Number.NaN, 3, 4], "vector[1] is not a finite number (NaN)"],
    [[1, 2, Number.POSITIVE_INFINITY, 4], "vector[2] is not a finite number (Infinity)"],
    [new Float32Array(4), "vector is a zero vector, which has no cosine"],
  ])("rejects the vector %p with the message %p and stores nothing", (vector, message) => {
    const index = new VectorIndex(4);
    expect(() => index.set(0, vector)).toThrow(message);
    expect(index.has(0)).toBe(false);
    expect(index.size).toBe(0);
  });

  it("rejects bad queries, doc numbers and k with messages naming them", () => {
    const index = new VectorIndex(2);
    index.set(0, [1, 1]);
    expect(() => index.search([0, 0], 1)).toThrow("query is a zero vector, which has no cosine");
    expect(() => index.search([1], 1)).toThrow("query length 1 does not match the index dimension 2");
    expect(() => index.search([1, Number.NaN], 1)).toThrow("query[1] is not a finite number (NaN)");
    expect(() => index.search([1, 1], -1)).toThrow("k must be a non-negative integer, got -1");
    expect(() => index.set(-1, [1, 1])).toThrow("doc must be a non-negative integer, got -1");
    expect(() => index.set(1.5, [1, 1])).toThrow("doc must be a non-negative integer, got 1.5");
  });
});

describe("VectorIndex bulk load (exportRows → fromRows)", () => {
  const dim = 33;
  /** exportRows' runs joined, as a checkpoint's vector part holds them. */
  function exported(index: VectorIndex): { docs: Int32Array; rows: Float32Array } {
    const { docs, rows } = index.exportRows();
    const joined = new Float32Array(rows.reduce((sum, run) => sum + run.length, 0));
    rows.reduce((at, run) => (joined.set(run, at), at + run.length), 0);
    return { docs, rows: joined };
  }
  function churnedIndex(): VectorIndex {
    const random = seededRandom(41);
    const index = new VectorIndex(dim);
    for (let doc = 0; doc < 260; doc++) index.set(doc, randomVector(random, dim));
    for (let doc = 0; doc < 260; doc += 7) index.remove(doc);
    index.remove(259);
    return index;
  }

  it("rebuilds an index with identical results, scores and bookkeeping, which keeps accepting set and remove", () => {
    const random = seededRandom(43);
    const original = churnedIndex();
    const { docs, rows } = exported(original);
    // Runs of consecutive live docs, as views: doc 0 was removed, then every seventh.
    expect(original.exportRows().rows.map((run) => run.length / dim).slice(0, 3)).toEqual([6, 6, 6]);
    const loaded = VectorIndex.fromRows(dim, docs, rows);
    expect([loaded.size, loaded.has(0), loaded.has(1), loaded.has(259)]).toEqual([original.size, false, true, false]);
    expect(loaded.vectorOf(1)).toEqual(original.vectorOf(1));
    const accept = Uint8Array.from({ length: 260 }, (_, doc) => Number(doc % 3 !== 0));
    const queries = Array.from({ length: 12 }, () => randomVector(random, dim));
    const answers = (index: VectorIndex) => queries.flatMap((q) => [index.search(q, 10), index.search(q, 300), index.search(q, 5, accept)]);
    // Scores must be equal, not close: the rows are taken verbatim, so the exact rescoring sees the same bits.
    expect(answers(loaded)).toEqual(answers(original));
    for (const index of [original, loaded]) {
      index.set(259, queries[0]);
      index.set(1000, queries[1]);
      index.remove(1);
    }
    expect(answers(loaded)).toEqual(answers(original));
    expect(exported(loaded)).toEqual(exported(original));
  });

  it("loads an empty export into an empty index", () => {
    const { docs, rows } = exported(new VectorIndex(4));
    expect([docs.length, rows.length]).toEqual([0, 0]);
    expect(VectorIndex.fromRows(4, docs, rows).search([1, 0, 0, 0], 3)).toEqual([]);
  });

  it("refuses rows that set() could not have stored: not unit length, unordered docs, or the wrong count", () => {
    const { docs, rows } = exported(churnedIndex());
    const scaled = rows.slice();
    scaled[dim * 5] *= 1.001;
    expect(() => VectorIndex.fromRows(dim, docs, scaled)).toThrow(`fromRows: row 5 (doc ${docs[5]}) has norm`);
    const nan = rows.slice();
    nan[3] = Number.NaN;
    expect(() => VectorIndex.fromRows(dim, docs, nan)).toThrow("fromRows: row 0 (doc 1) has norm NaN, not a stored unit vector");
    const swapped = docs.slice();
    [swapped[2], swapped[3]] = [swapped[3], swapped[2]];
    expect(() => VectorIndex.fromRows(dim, swapped, rows)).toThrow("fromRows: docs must be non-negative and strictly increasing (docs[3]");
    expect(() => VectorIndex.fromRows(dim, docs, rows.subarray(dim))).toThrow(`fromRows: ${rows.length - dim} values do not make ${docs.length} rows of ${dim}`);
    expect(() => VectorIndex.fromRows(dim, Int32Array.of(-1), rows.subarray(0, dim))).toThrow("docs[0] = -1");
  });
});

describe("VectorIndex rows read from a file (pageRows)", () => {
  const dim = 24;
  /** A RowFile over rows copied out of an index, counting reads and closes. */
  function rowFile(rows: Float32Array) {
    const file = {
      reads: 0,
      closed: 0,
      read(slot: number, into: Float32Array) {
        file.reads++;
        into.set(rows.subarray(slot * dim, slot * dim + into.length));
      },
      close() {
        file.closed++;
      },
    };
    return file;
  }

  it("answers from the file exactly as from memory, moves a replaced row back to memory, and closes a file no live doc reads", () => {
    const random = seededRandom(11);
    const index = new VectorIndex(dim);
    const twin = new VectorIndex(dim);
    for (let doc = 0; doc < 300; doc++) {
      const vector = randomVector(random, dim);
      index.set(doc, vector);
      twin.set(doc, vector);
    }
    const queries = Array.from({ length: 20 }, () => randomVector(random, dim));
    const answers = (i: VectorIndex) => queries.map((q) => i.search(q, 7));
    const low = Int32Array.from({ length: 150 }, (_, i) => i);
    const high = Int32Array.from({ length: 150 }, (_, i) => 150 + i);
    const [lowFile, highFile] = [rowFile(index.readRows(low)), rowFile(index.readRows(high))];
    index.pageRows(lowFile, low);
    index.pageRows(highFile, high);
    expect(index.rowFootprint()).toEqual({ memoryBytes: 0, files: 2 });
    expect(answers(index)).toEqual(answers(twin));
    expect(lowFile.reads + highFile.reads).toBeGreaterThan(0);
    expect(index.vectorOf(3)).toEqual(twin.vectorOf(3));

    // A replaced row is kept in memory again; its old slot is never read.
    const replacement = randomVector(random, dim);
    index.set(3, replacement);
    twin.set(3, replacement);
    expect(index.rowFootprint().memoryBytes).toBeGreaterThan(0);
    expect(answers(index)).toEqual(answers(twin));
    // Rows copied out for a checkpoint: each run of consecutive slots of one file in one read (doc 3, in
    // memory again, splits the low file's run in two).
    const all = Int32Array.from({ length: 300 }, (_, i) => i);
    const reads = lowFile.reads + highFile.reads;
    expect(index.readRows(all)).toEqual(twin.readRows(all));
    expect(lowFile.reads + highFile.reads - reads).toBe(3);

    // Forgetting every doc the low file holds (but doc 3, now in memory) lets it go at settle; the high file stays.
    for (let doc = 0; doc < 150; doc++) if (doc !== 3) [index, twin].forEach((i) => i.remove(doc));
    index.settleRows();
    expect([lowFile.closed, highFile.closed]).toEqual([1, 0]);
    expect(index.rowFootprint().files).toBe(1);
    expect(answers(index)).toEqual(answers(twin));
    index.dispose();
    expect([lowFile.closed, highFile.closed]).toEqual([1, 1]);
    expect(index.disposed).toBe(true);
  });

  it("drops at a settle only the rows of docs still removed, a page once its last row in memory goes, a file once its last reader goes", () => {
    const random = seededRandom(12);
    const index = new VectorIndex(dim);
    for (let doc = 0; doc < 600; doc++) index.set(doc, randomVector(random, dim));
    const early = Int32Array.from({ length: 300 }, (_, i) => i);
    const file = rowFile(index.readRows(early));
    index.pageRows(file, early);
    index.settleRows();
    expect(index.rowFootprint()).toMatchObject({ files: 1 });
    expect(index.rowFootprint().memoryBytes).toBeGreaterThan(0);

    // Removed and stored again before the settle: the new row stays, in memory (a page of 64 rows again).
    const again = randomVector(random, dim);
    index.remove(10);
    index.set(10, again);
    for (let doc = 300; doc < 600; doc++) index.remove(doc);
    // Until the settle, a removed doc's row is still there to read (a checkpoint under way writes it).
    expect(index.readRows(Int32Array.of(450))).toHaveLength(dim);
    index.settleRows();
    expect(index.rowFootprint()).toEqual({ memoryBytes: 64 * dim * 4, files: 1 });
    expect(cosine(index.vectorOf(10)!, again)).toBeCloseTo(1, 6);
    expect(() => index.readRows(Int32Array.of(450))).toThrow("doc 450 has no stored row");
    expect(file.closed).toBe(0);

    // The file's other 299 docs removed: closed at the next settle, not before.
    for (let doc = 0; doc < 300; doc++) if (doc !== 10) index.remove(doc);
    expect(file.closed).toBe(0);
    index.settleRows();
    expect(file.closed).toBe(1);
    expect(index.rowFootprint()).toEqual({ memoryBytes: 64 * dim * 4, files: 0 });
    expect(index.search(again, 1).map((hit) => hit.doc)).toEqual([10]);
  });

  it("holds about what its rows need in memory: a few wide vectors do not take a whole page", () => {
    const wide = 3072;
    const random = seededRandom(5);
    const index = new VectorIndex(wide);
    for (let doc = 0; doc < 10; doc++) index.set(doc, randomVector(random, wide));
    expect(index.rowFootprint()).toEqual({ memoryBytes: 64 * wide * 4, files: 0 });
    const vectors = new Map<number, number[]>();
    for (let doc = 10; doc < 100; doc++) {
      const vector = randomVector(random, wide);
      vectors.set(doc, vector);
      index.set(doc, vector);
    }
    // Grown by doubling, the rows kept: 128 rows for 100.
    expect(index.rowFootprint().memoryBytes).toBe(128 * wide * 4);
    for (const [doc, vector] of vectors) expect(cosine(index.vectorOf(doc)!, vector)).toBeCloseTo(1, 6);
  });
});


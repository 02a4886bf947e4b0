import fc from "fast-check";
import bm25 from "wink-bm25-text-search";
import { Bm25Index } from "../../bridge/index/bm25";
import { checkSnapshotPostings, decodeSnapshotImage, PostingCheck, snapshotArrays, snapshotLayout } from "../../bridge/index/bm25-snapshot";
import { tokenize } from "../../bridge/index/tokenize";
import type { Scored } from "../../bridge/index/top-k";
import { seededRandom } from "../fixtures/seeded-random";

type Params = { k1: number; b: number };
const SPECIAL = ["constructor", "__proto__", "proto", "hasOwnProperty", "toString", "valueOf"];

function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Mixed zh/en memories over a skewed vocabulary, so common terms, rare terms and repeats all occur.
function mixedCorpus(count: number, seed: number): string[][] {
  const random = seeded(seed);
  const skewed = (n: number) => Math.floor(n * random() ** 2.5);
  const words = [...SPECIAL, ..."memory vector index search query user said meeting key shoe cabinet flower pot mug broke bought tuesday paris".split(" ")];
  const chars = [..."向量数据库搜索记忆钥匙鞋柜花盆杯子买了打破周二巴黎会议用户说过"];
  return Array.from({ length: count }, () => {
    const parts: string[] = [];
    for (let i = 4 + skewed(30); i > 0; i--) parts.push(words[skewed(words.length)]);
    for (let i = skewed(6); i > 0; i--) parts.push(Array.from({ length: 1 + skewed(10) }, () => chars[skewed(chars.length)]).join(""));
    return tokenize(parts.join(" ")).concat(random() < 0.1 ? [SPECIAL[skewed(SPECIAL.length)]] : []);
  });
}

function buildIndex(docs: Map<number, string[]> | string[][], params?: Params): Bm25Index {
  const index = new Bm25Index(params);
  for (const [doc, tokens] of docs.entries()) index.add(doc, tokens);
  return index;
}

// wink reads each body through this prep task, so both indexes see identical token lists.
function buildWink(docs: Map<number, string[]> | string[][], { k1, b }: Params) {
  const engine = bm25();
  engine.defineConfig({ fldWeights: { body: 1 }, bm25Params: { k1, b, k: 1 } });
  engine.definePrepTasks([(body: string) => (body === "" ? [] : body.split(" "))]);
  for (const [doc, tokens] of docs.entries()) engine.addDoc({ body: tokens.join(" ") }, doc);
  engine.consolidate();
  return engine;
}

// wink rounds each doc-term weight to 4 decimals, so a score over q query tokens may be off by q * 5e-5 and
// docs whose oracle scores differ by less than twice that may legitimately swap places.
function expectOracleRanking(ours: Scored[], oracle: Array<[string, number]>, queryLength: number): void {
  const tolerance = queryLength * 1e-4 + 1e-9;
  const oracleScore = new Map(oracle.map(([id, score]) => [Number(id), score]));
  expect(ours.map((hit) => hit.doc).sort((x, y) => x - y)).toEqual([...oracleScore.keys()].sort((x, y) => x - y));
  // Collected rather than asserted one by one: thousands of expect() calls dominate the run time.
  const disagreements = ours.flatMap((hit, rank) => {
    const expected = oracleScore.get(hit.doc)!;
    if (Math.abs(hit.score - expected) > tolerance / 2) return [`doc ${hit.doc} scored ${hit.score}, wink ${expected}`];
    if (Math.abs(expected - oracle[rank][1]) > tolerance) return [`doc ${hit.doc} (wink ${expected}) at rank ${rank}, where wink has ${oracle[rank][1]}`];
    return [];
  });
  expect(disagreements).toEqual([]);
}

function compareWithOracle(docs: Map<number, string[]> | string[][], index: Bm25Index, params: Params, queries: string[][]): void {
  const oracle = buildWink(docs, params);
  const all = Math.max(index.size, 1);
  for (const query of queries) expectOracleRanking(index.search(query, all), oracle.search(query.join(" "), all), query.length);
}

function sampleQueries(docs: string[][], count: number, seed: number): string[][] {
  const random = seeded(seed);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
  return Array.from({ length: count }, () => {
    const source = pick(docs.filter((doc) => doc.length > 0));
    const query = Array.from({ length: 1 + Math.floor(random() * 8) }, () => pick(source));
    if (random() < 0.2) query.push(pick(SPECIAL));
    if (random() < 0.1) query.push("absent-term");
    return query;
  });
}

const PARAM_SETS: Params[] = [
  { k1: 1.2, b: 0.75 },
  { k1: 2, b: 0.3 },
  { k1: 0.5, b: 1 },
  { k1: 0, b: 0 },
];

describe("Bm25Index against wink-bm25-text-search", () => {
  const corpus = mixedCorpus(400, 7);
  const queries = sampleQueries(corpus, 150, 11);

  it.each(PARAM_SETS)("ranks and scores like wink with k1=$k1, b=$b over a 400-doc mixed corpus", (params) => {
    compareWithOracle(corpus, buildIndex(corpus, params), params, queries);
  });

  it("counts a repeated query token once per occurrence, as wink does, unless dedupeQuery is set", () => {
    const index = buildIndex(corpus);
    const [hit] = index.search(["向量"], 1);
    expect(index.search(["向量", "向量", "向量"], 1)[0].score).toBeCloseTo(3 * hit.score, 10);
    expect(index.search(["向量", "向量", "向量"], 1, undefined, { dedupeQuery: true })).toEqual([hit]);
    expectOracleRanking(index.search(["向量", "向量", "memory"], 400), buildWink(corpus, PARAM_SETS[0]).search("向量 向量 memory", 400), 3);
  });

  it("agrees with wink on arbitrary small corpora, parameters and queries", () => {
    const vocabulary = ["a", "b", "c", "中文", "文", ...SPECIAL];
    const token = fc.constantFrom(...vocabulary);
    fc.assert(
      fc.property(
        fc.array(fc.array(token, { maxLength: 8 }), { minLength: 3, maxLength: 12 }),
        fc.array(fc.array(fc.oneof(token, fc.constant("unseen")), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 }),
        fc.record({ k1: fc.double({ min: 0, max: 3, noNaN: true }), b: fc.double({ min: 0, max: 1, noNaN: true }) }),
        (docs, queryList, params) => compareWithOracle(docs, buildIndex(docs, params), params, queryList),
      ),
    );
  });

  it("matches wink built from the live docs after removals, re-packs and further adds", () => {
    const index = buildIndex(corpus.slice(0, 300));
    for (let doc = 0; doc < 300; doc += 3) expect(index.remove(doc, corpus[doc])).toBe(true);
    for (let doc = 300; doc < 400; doc++) index.add(doc, corpus[doc]);
    const live = new Map([...corpus.entries()].filter(([doc]) => doc >= 300 || doc % 3 !== 0));
    expect(index.size).toBe(live.size);
    compareWithOracle(live, index, PARAM_SETS[0], queries);
  });
});

describe("Bm25Index term frequencies past a byte", () => {
  // Main postings keep tfs in a byte, and those of 255 or more in a map beside it: a pasted log can say one
  // bigram thousands of times. Long docs, so that a tf of 255 against 300 moves the score far past wink's
  // rounding.
  const repeats = [1, 254, 255, 256, 300, 1000, 70_000];
  const docs: string[][] = repeats.map((count, i) => [...Array<string>(count).fill("echo"), ...Array<string>(2000 + 37 * i).fill(`filler${i % 3}`), "mug"]);
  docs.push(["echo", "mug"], ["mug", "paris"], ["paris"]);
  const queries = [["echo"], ["echo", "mug"], ["mug", "echo", "paris"], ["filler1", "echo"]];

  it("scores them exactly, as wink does, in the delta, the main segment, a stepped re-pack and a snapshot", () => {
    const params = { k1: 1.2, b: 0.75 };
    const delta = buildIndex(docs);
    compareWithOracle(docs, delta, params, queries);
    const packed = buildIndex(docs);
    packed.vacuum();
    expect(packed.layout.deltaPostings).toBe(0);
    compareWithOracle(docs, packed, params, queries);
    // Half of them packed, half in the delta, and a re-pack in steps (started by dead docs) packs both.
    const stepped = new Bm25Index({}, { repackStepPostings: 3 });
    const others = Array.from({ length: 60 }, (_, i) => ["paris", `w${i}`]);
    others.forEach((tokens, i) => stepped.add(docs.length + i, tokens));
    docs.forEach((tokens, doc) => doc < 4 && stepped.add(doc, tokens));
    stepped.vacuum();
    docs.forEach((tokens, doc) => doc >= 4 && stepped.add(doc, tokens));
    for (let i = 0; i < 8; i++) stepped.remove(docs.length + i, others[i]);
    while (stepped.maintain(0));
    expect([stepped.repacks.stepped, stepped.layout.deltaPostings, stepped.layout.deadDocs]).toEqual([1, 0, 0]);
    const live = new Map([...docs.entries(), ...others.slice(8).map((tokens, i): [number, string[]] => [docs.length + 8 + i, tokens])]);
    compareWithOracle(live, stepped, params, queries);
    const loaded = Bm25Index.deserialize(packed.serialize());
    compareWithOracle(docs, loaded, params, queries);
    expect(loaded.serialize()).toEqual(delta.serialize());
  });

  it("scores them exactly when pruned, term at a time and document at a time", () => {
    for (const maxScoreMinPostings of [0, 1 << 13]) {
      const index = new Bm25Index({}, { maxScoreMinPostings });
      // Enough common docs for pruning to start; the big-tf docs among them, in the main segment.
      const many = [...docs, ...Array.from({ length: 400 }, (_, i) => ["mug", `w${i % 7}`, ...(i % 5 === 0 ? ["echo"] : [])])];
      many.forEach((tokens, doc) => index.add(doc, tokens));
      index.vacuum();
      for (const query of [...queries, ["mug", "w1", "echo"]]) {
        for (const k of [1, 3, 10]) expect(index.search(query, k)).toEqual(index.search(query, k, undefined, { exhaustive: true }));
      }
      expect(index.search(["echo"], 3).map((hit) => hit.doc)).toEqual(index.search(["echo"], 3, undefined, { exhaustive: true }).map((hit) => hit.doc));
      compareWithOracle(many, index, { k1: 1.2, b: 0.75 }, queries);
    }
  });
});

describe("Bm25Index incremental updates", () => {
  it("gives the same results as an index rebuilt from the live docs, whatever was added, removed and vacuumed", () => {
    const tokens = fc.array(fc.constantFrom("a", "b", "c", "d", "记忆", "忆", "constructor", "__proto__"), { maxLength: 10 });
    fc.assert(
      fc.property(
        fc.array(tokens, { maxLength: 25 }),
        fc.array(fc.boolean(), { maxLength: 25 }),
        fc.array(tokens, { maxLength: 10 }),
        fc.constantFrom("never", "after removals", "at the end"),
        fc.array(fc.array(fc.constantFrom("a", "b", "c", "d", "记忆", "忆", "constructor", "__proto__", "zz"), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        (first, removals, later, vacuumAt, queries) => {
          const index = new Bm25Index();
          const live = new Map<number, string[]>();
          first.forEach((doc, id) => (index.add(id, doc), live.set(id, doc)));
          removals.forEach((remove, id) => remove && id < first.length && (index.remove(id, first[id]), live.delete(id)));
          if (vacuumAt === "after removals") index.vacuum();
          later.forEach((doc, i) => (index.add(first.length + i, doc), live.set(first.length + i, doc)));
          if (vacuumAt === "at the end") index.vacuum();
          const rebuilt = buildIndex(live);
          expect(index.size).toBe(rebuilt.size);
          for (const query of queries) expect(index.search(query, 50)).toEqual(rebuilt.search(query, 50));
          // docsWithAll: exactly the live docs holding every token, from main and delta segments alike.
          for (const query of queries) {
            const holding = [...live].filter(([, doc]) => query.every((token) => doc.includes(token))).map(([id]) => id);
            expect(index.docsWithAll(query).sort((a, b) => a - b)).toEqual(holding.sort((a, b) => a - b));
          }
          expect(index.docsWithAll([])).toEqual([]);
        },
      ),
    );
  });

  it("reports removal once, forgets the doc, and accepts the doc number again with new tokens", () => {
    // Enough docs that one tombstone stays below the auto-vacuum fraction, so re-adding must purge it.
    const docs = [["apple"], ["pear"], ["apple", "pear"], ["fig"], ["fig"], ["fig"], ["fig"], ["fig"]];
    const index = buildIndex(docs);
    expect(index.remove(0, ["apple"])).toBe(true);
    expect(index.remove(0, ["apple"])).toBe(false);
    expect(index.remove(99, [])).toBe(false);
    expect(index.has(0)).toBe(false);
    expect(index.size).toBe(7);
    expect(index.search(["apple"], 10).map((hit) => hit.doc)).toEqual([2]);
    index.add(0, ["plum"]);
    const rebuilt = buildIndex(new Map(docs.map((tokens, doc) => [doc, doc === 0 ? ["plum"] : tokens])));
    expect(index.search(["apple", "plum", "pear"], 10)).toEqual(rebuilt.search(["apple", "plum", "pear"], 10));
    expect(index.search(["apple"], 10).map((hit) => hit.doc)).toEqual([2]);
  });

  it("refuses to add a live doc twice, a bad doc number or a non-string token, leaving the index unchanged", () => {
    const index = buildIndex([["apple"]]);
    expect(() => index.add(0, ["pear"])).toThrow("Bm25Index.add: doc 0 is already indexed");
    expect(() => index.add(-1, ["pear"])).toThrow("doc must be an integer in [0, 2147483646], got -1");
    expect(() => index.add(1.5, ["pear"])).toThrow("got 1.5");
    expect(() => index.add(1, ["pear", 7 as unknown as string])).toThrow("tokens must be strings, got number at 1");
    expect(index.size).toBe(1);
    expect(index.search(["pear"], 10)).toEqual([]);
  });
});

describe("Bm25Index without a list of each doc's terms", () => {
  const tokens = fc.array(fc.constantFrom("a", "b", "c", "记忆", "忆", "__proto__"), { maxLength: 8 });

  it("masks and finds the docs holding query terms from the postings: main in or out of doc order, delta, dead docs", () => {
    fc.assert(
      fc.property(fc.array(tokens, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { maxLength: 10 }), fc.boolean(), fc.array(tokens, { maxLength: 8 }), (docs, removals, shuffled, later) => {
        const index = new Bm25Index();
        const live = new Map<number, string[]>();
        // Added in a shuffled order and packed, a term's main postings are out of doc order.
        const order = docs.map((_, doc) => doc);
        if (shuffled) order.reverse();
        for (const doc of order) (index.add(doc, docs[doc]), live.set(doc, docs[doc]));
        index.vacuum();
        for (const r of removals) if (live.has(r % docs.length)) (index.remove(r % docs.length, docs[r % docs.length]), live.delete(r % docs.length));
        later.forEach((doc, i) => (index.add(docs.length + i, doc), live.set(docs.length + i, doc)));
        for (const query of [["a"], ["记忆", "a", "zz"], ["a", "a", "b"], ["忆", "__proto__", "c", "b"]]) {
          const masker = index.termMasker(query);
          for (let doc = 0; doc < docs.length + later.length; doc++) {
            const held = live.get(doc);
            expect(masker(doc)).toBe(held === undefined ? 0 : query.reduce((mask, token, i) => (held.includes(token) ? mask | (1 << i) : mask), 0));
          }
          const holding = [...live].filter(([, doc]) => query.every((token) => doc.includes(token))).map(([doc]) => doc);
          expect(index.docsWithAll(query).sort((x, y) => x - y)).toEqual(holding.sort((x, y) => x - y));
        }
      }),
    );
  });

  it("removes docs without their tokens, in one pass, to the same statistics as one by one", () => {
    const corpus = mixedCorpus(300, 11);
    const one = buildIndex(corpus);
    const many = buildIndex(corpus);
    for (const index of [one, many]) index.vacuum();
    corpus.slice(250).forEach((tokens, i) => (one.add(300 + i, tokens), many.add(300 + i, tokens)));
    const gone = [0, 7, 7, 120, 299, 310, 349];
    for (const doc of new Set(gone)) one.remove(doc, doc < 300 ? corpus[doc] : corpus[doc - 50]);
    expect(many.removeDocs([...gone, 400, 1000])).toBe(6);
    expect(many.removeDocs([0])).toBe(0);
    expect(many.size).toBe(one.size);
    expect(many.serialize()).toEqual(one.serialize());
    for (const query of sampleQueries(corpus, 30, 2)) expect(many.search(query, 10)).toEqual(one.search(query, 10));
  });

  it("refuses tokens a doc was not added with, and leaves it live", () => {
    const index = buildIndex([["apple", "pear", "apple"], ["fig"]]);
    expect(() => index.remove(0, ["apple", "pear"])).toThrow("Bm25Index.remove: doc 0 was added with 3 tokens, got 2");
    expect(() => index.remove(0, ["apple", "pear", "plum"])).toThrow('Bm25Index.remove: doc 0 was not added with the token "plum"');
    expect(index.has(0)).toBe(true);
    expect(index.search(["pear"], 5).map((hit) => hit.doc)).toEqual([0]);
    expect(index.remove(0, ["pear", "apple", "apple"])).toBe(true);
    expect(index.search(["fig"], 5).map((hit) => hit.doc)).toEqual([1]);
  });
});

describe("Bm25Index search", () => {
  const docs = [["key", "shoe", "cabinet"], ["key", "flower", "pot"], ["mug"], ["key", "shoe", "cabinet"], ["key"]];

  it("returns every live doc containing a query term, best first, equal scores by lower doc number", () => {
    const hits = buildIndex(docs).search(["key", "shoe"], 10);
    expect(hits.map((hit) => hit.doc)).toEqual([0, 3, 4, 1]);
    expect(hits[0].score).toBe(hits[1].score);
    expect(hits.every((hit) => hit.score > 0)).toBe(true);
  });

  it("returns only the limit best, nothing for limit 0 or unknown terms, and rejects a bad limit", () => {
    const index = buildIndex(docs);
    expect(index.search(["key", "shoe"], 2).map((hit) => hit.doc)).toEqual([0, 3]);
    expect(index.search(["key"], 0)).toEqual([]);
    expect(index.search(["nothing"], 5)).toEqual([]);
    expect(new Bm25Index().search(["key"], 5)).toEqual([]);
    expect(() => index.search(["key"], -1)).toThrow("Bm25Index.search: limit must be a non-negative integer, got -1");
  });

  it("skips docs the accept mask rejects or does not cover, without changing the others' scores", () => {
    const index = buildIndex(docs);
    const unfiltered = index.search(["key", "pot"], 10);
    const accept = Uint8Array.from([1, 0, 1, 1]);
    expect(index.search(["key", "pot"], 10, accept)).toEqual(unfiltered.filter((hit) => hit.doc === 0 || hit.doc === 3));
  });

  it("treats Object.prototype names as ordinary document and query tokens", () => {
    const index = buildIndex([["constructor", "x"], ["__proto__"], ["hasOwnProperty", "proto"], ["toString"], ["x"]]);
    expect(index.search(["constructor"], 10).map((hit) => hit.doc)).toEqual([0]);
    expect(index.search(["__proto__"], 10).map((hit) => hit.doc)).toEqual([1]);
    expect(index.search(["proto", "hasOwnProperty"], 10).map((hit) => hit.doc)).toEqual([2]);
    expect(index.search(["toString", "valueOf"], 10).map((hit) => hit.doc)).toEqual([3]);
    const viaTokenizer = buildIndex([tokenize("the __proto__ constructor"), tokenize("hasOwnProperty"), tokenize("plain text")]);
    expect(viaTokenizer.search(tokenize("__proto__ hasOwnProperty"), 10).map((hit) => hit.doc)).toEqual([1, 0]);
  });

  it.each([
    ["k1 = -1", { k1: -1 }, "Bm25Index: k1 must be a finite number >= 0, got -1"],
    ["k1 = NaN", { k1: Number.NaN }, "Bm25Index: k1 must be a finite number >= 0, got NaN"],
    ["k1 = Infinity", { k1: Infinity }, "Bm25Index: k1 must be a finite number >= 0, got Infinity"],
    ["b = 1.5", { b: 1.5 }, "Bm25Index: b must be a number in [0, 1], got 1.5"],
    ["b = -0.1", { b: -0.1 }, "Bm25Index: b must be a number in [0, 1], got -0.1"],
  ])("rejects %s with an error naming the field", (_, params, message) => {
    expect(() => new Bm25Index(params)).toThrow(message);
  });
});

describe("Bm25Index snapshots", () => {
  const corpus = mixedCorpus(200, 3);
  const queries = sampleQueries(corpus, 40, 5);

  function churned(): Bm25Index {
    const index = buildIndex(corpus.slice(0, 150), { k1: 1.6, b: 0.4 });
    for (let doc = 0; doc < 150; doc += 10) index.remove(doc, corpus[doc]);
    for (let doc = 150; doc < 160; doc++) index.add(doc, corpus[doc]);
    return index;
  }

  it("round-trips to an index with identical results and parameters, which keeps accepting adds and removes", () => {
    const original = churned();
    const expected = queries.map((query) => original.search(query, 20));
    const loaded = Bm25Index.deserialize(original.serialize());
    expect([loaded.k1, loaded.b, loaded.size]).toEqual([1.6, 0.4, original.size]);
    expect(queries.map((query) => loaded.search(query, 20))).toEqual(expected);
    for (const index of [original, loaded]) {
      for (let doc = 160; doc < 200; doc++) index.add(doc, corpus[doc]);
      for (let doc = 1; doc < 150; doc += 7) index.remove(doc, corpus[doc]);
    }
    expect(queries.map((query) => loaded.search(query, 20))).toEqual(queries.map((query) => original.search(query, 20)));
    expect(Bm25Index.deserialize(loaded.serialize()).serialize()).toEqual(original.serialize());
  });

  it("round-trips an empty index and exotic terms exactly", () => {
    expect(Bm25Index.deserialize(new Bm25Index().serialize()).size).toBe(0);
    const index = Bm25Index.deserialize(buildIndex([["\ud800", "𠀀"], ["__proto__"], []]).serialize());
    expect(index.search(["\ud800"], 5).map((hit) => hit.doc)).toEqual([0]);
    expect(index.search(["__proto__"], 5).map((hit) => hit.doc)).toEqual([1]);
    expect(index.has(2)).toBe(true);
  });

  it.each([
    ["a wrong magic", (bytes: Uint8Array) => (bytes[0] = 0x58), 'not a BM25 snapshot (bad magic "XSHBM25\\u0000")'],
    ["an unknown version", (bytes: Uint8Array) => (bytes[8] = 2), "unsupported snapshot version 2 (this build reads version 1)"],
    // Three terms: the first posting follows the 48-byte header, 3 term lengths and 4 offsets.
    ["a posting of a doc that is not live", (bytes: Uint8Array) => new DataView(bytes.buffer).setInt32(48 + 4 * 3 + 4 * 4, 9, true), "corrupt snapshot: posting 0 names doc 9, which is not live"],
    // The term text ends the snapshot, one UTF-16 unit per term here: turn the last term "c" into "a".
    ["a duplicate term", (bytes: Uint8Array) => (bytes[bytes.length - 2] = 0x61), 'corrupt snapshot: duplicate term "a"'],
    // Term "a" holds docs 0 and 1: make it 0 and 0.
    ["a doc twice in a term's postings", (bytes: Uint8Array) => new DataView(bytes.buffer).setInt32(48 + 4 * 3 + 4 * 4 + 4, 0, true), "corrupt snapshot: doc 0 appears twice in the postings of term 0"],
  ])("refuses a snapshot with %s", (_, damage, message) => {
    const bytes = buildIndex([["a"], ["b", "a"], ["c"]]).serialize();
    damage(bytes);
    expect(() => Bm25Index.deserialize(bytes)).toThrow(`Bm25Index.deserialize: ${message}`);
  });


  it("refuses tfs moved between docs that keep the total, in each of 200 checks with seeds of their own", () => {
    // Doc 0 is "a a b", doc 1 "a b b"; term "a" holds doc 0 tf 2, doc 1 tf 1. Swapped, every tf still adds up
    // to 6 over both docs, but doc 0's to 2 and doc 1's to 4 (lengths 3 each). The tfs follow the 48-byte
    // header, 2 term lengths, 3 offsets and 4 docs. Each deserialize draws another seed.
    const bytes = buildIndex([["a", "a", "b"], ["a", "b", "b"]]).serialize();
    const view = new DataView(bytes.buffer);
    const tfsAt = 48 + 4 * 2 + 4 * 3 + 4 * 4;
    expect([view.getInt32(tfsAt, true), view.getInt32(tfsAt + 4, true)]).toEqual([2, 1]);
    view.setInt32(tfsAt, 1, true);
    view.setInt32(tfsAt + 4, 2, true);
    for (let run = 0; run < 200; run++) expect(() => Bm25Index.deserialize(bytes)).toThrow("Bm25Index.deserialize: corrupt snapshot: doc 0 length 3 disagrees with its postings");
  });
  it("finds a doc twice in a term's postings out of doc order, and takes postings out of order that are right", () => {
    // Term "a" holds docs 0, 1 and 2 (tf 1 each), then "b" doc 2: 48-byte header, 2 term lengths, 3 offsets.
    const docsAt = 48 + 4 * 2 + 4 * 3;
    const twice = buildIndex([["a"], ["a"], ["a", "b"]]).serialize();
    new DataView(twice.buffer).setInt32(docsAt, 2, true);
    expect(() => Bm25Index.deserialize(twice)).toThrow("Bm25Index.deserialize: corrupt snapshot: doc 2 appears twice in the postings of term 0");
    const swapped = buildIndex([["a"], ["a"], ["a", "b"]]).serialize();
    const view = new DataView(swapped.buffer);
    view.setInt32(docsAt, 2, true);
    view.setInt32(docsAt + 8, 0, true);
    const loaded = Bm25Index.deserialize(swapped);
    expect(loaded.search(["a"], 5).map((hit) => hit.doc).sort()).toEqual([0, 1, 2]);
    expect(loaded.search(["b"], 5).map((hit) => hit.doc)).toEqual([2]);
  });

  it("checks the postings in pieces, taken in any order, as in one pass: the same bounds, tfs past a byte in any piece, a corruption by its piece", () => {
    // 400 docs of 60 words, every 37th from doc 5 one word 300 times or more (a tf past a byte), doc 3 removed.
    const random = seededRandom(11);
    const index = new Bm25Index();
    const docs = Array.from({ length: 400 }, (_, doc) =>
      doc % 37 === 5 ? Array<string>(300 + doc).fill(`w${doc % 11}`) : Array.from({ length: 1 + Math.floor(random() * 12) }, () => `w${Math.floor(60 * random() ** 2)}`),
    );
    docs.forEach((tokens, doc) => index.add(doc, tokens));
    index.remove(3, docs[3]);
    index.vacuum();
    const bytes = index.serialize();
    const { image } = decodeSnapshotImage(bytes);
    const bounds = () => snapshotArrays(snapshotLayout(bytes));
    const whole = checkSnapshotPostings(image, bounds(), 99);
    expect(Math.max(...whole.maxTf)).toBeGreaterThan(255);
    const inPieces = (pieces: number, order: number[]) => {
      const check = new PostingCheck(image, bounds(), 99, pieces);
      expect(check.pieces).toBe(pieces);
      let owed = 0;
      const unordered: number[] = [];
      for (const k of order) {
        const piece = check.piece(k);
        owed = (owed + piece.owed) | 0;
        unordered.push(...piece.unordered);
      }
      return check.finish(owed, unordered);
    };
    for (const pieces of [1, 2, 7, 64]) {
      const order = Array.from({ length: pieces }, (_, k) => k).sort(() => random() - 0.5);
      expect(inPieces(pieces, order)).toEqual(whole);
    }
    // A posting in the middle names doc 3, which is not live: only the piece holding it says so, as one pass does.
    const docsAt = 48 + 4 * image.termLengths.length + 4 * (image.termLengths.length + 1);
    const middle = image.docs.length >> 1;
    new DataView(bytes.buffer).setInt32(docsAt + 4 * middle, 3, true);
    const damaged = decodeSnapshotImage(bytes).image;
    const message = `Bm25Index.deserialize: corrupt snapshot: posting ${middle} names doc 3, which is not live`;
    expect(() => checkSnapshotPostings(damaged, bounds(), 99)).toThrow(message);
    const check = new PostingCheck(damaged, bounds(), 99, 7);
    const verdicts = Array.from({ length: 7 }, (_, k) => {
      try {
        check.piece(k);
        return "whole";
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(verdicts.filter((verdict) => verdict !== "whole")).toEqual([message]);
  });

  it("refuses truncated snapshots and trailing bytes, saying how many bytes were expected", () => {
    const bytes = buildIndex([["a"], ["b", "a"], ["c"]]).serialize();
    expect(() => Bm25Index.deserialize(bytes.subarray(0, 20))).toThrow("snapshot is truncated: 20 bytes, the header alone needs 48");
    expect(() => Bm25Index.deserialize(bytes.subarray(0, bytes.length - 1))).toThrow(`snapshot is truncated: ${bytes.length - 1} bytes, expected ${bytes.length}`);
    expect(() => Bm25Index.deserialize(Uint8Array.from([...bytes, 0]))).toThrow(`snapshot has 1 trailing bytes after the expected ${bytes.length}`);
  });
});

// MaxScore pruning (issue 18, item 2): a pruned search must return exactly what scoring every posting
// returns — the same docs, in the same order, with bit-identical scores — on corpora with very common
// and rare terms, after removals and re-packs, with masks, repeated query terms and any k1 and b.
import fc from "fast-check";
import { Bm25Index } from "../../bridge/index/bm25";
import { seededRandom } from "../fixtures/seeded-random";

/** Zipf-like documents over `vocabulary` terms: t0 is in nearly every doc, the tail in a handful. */
function zipfDocs(count: number, vocabulary: number, random: () => number): string[][] {
  return Array.from({ length: count }, () => {
    const length = 3 + Math.floor(random() * 25);
    return Array.from({ length }, () => `t${Math.floor(vocabulary * random() ** 3)}`);
  });
}

function zipfQuery(vocabulary: number, random: () => number): string[] {
  const length = 1 + Math.floor(random() * 6);
  // Mostly common terms, with a rare one now and then: the shape pruning is for.
  return Array.from({ length }, () => `t${Math.floor(vocabulary * random() ** (random() < 0.3 ? 1 : 4))}`);
}

describe("BM25 MaxScore pruning", () => {
  it("returns exactly the exhaustive top k, scores bit for bit, whatever the corpus, updates, mask, k, k1 and b", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 50, max: 1500 }),
        fc.integer({ min: 5, max: 400 }),
        fc.constantFrom(1, 3, 10, 50),
        fc.record({ k1: fc.constantFrom(0, 0.5, 1.2, 2.5), b: fc.constantFrom(0, 0.3, 0.75, 1) }),
        fc.constantFrom("none", "removals", "removals and adds", "adds after a re-pack"),
        fc.boolean(),
        (seed, docs, vocabulary, k, params, history, masked) => {
          const random = seededRandom(seed);
          const corpus = zipfDocs(docs, vocabulary, random);
          const index = new Bm25Index(params);
          corpus.forEach((tokens, doc) => index.add(doc, tokens));
          if (history !== "none") for (let doc = 0; doc < docs; doc += 5) index.remove(doc);
          if (history === "adds after a re-pack") index.vacuum();
          if (history !== "none" && history !== "removals") zipfDocs(40, vocabulary, random).forEach((tokens, i) => index.add(docs + i, tokens));
          const mask = masked ? Uint8Array.from({ length: docs + 40 }, () => (random() < 0.7 ? 1 : 0)) : undefined;
          for (let q = 0; q < 8; q++) {
            const query = zipfQuery(vocabulary, random);
            for (const dedupeQuery of [false, true]) {
              const exhaustive = index.search(query, k, mask, { dedupeQuery, exhaustive: true });
              expect(index.search(query, k, mask, { dedupeQuery })).toEqual(exhaustive);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("scores the common terms of a query only for the docs the rare ones found, and says so", () => {
    const index = new Bm25Index();
    for (let doc = 0; doc < 20_000; doc++) index.add(doc, doc % 1000 === 0 ? ["the", "of", "passport", "drawer"] : ["the", "of", `w${doc % 97}`]);
    const query = ["passport", "the", "of"];
    const exhaustive = index.search(query, 5, undefined, { exhaustive: true });
    expect(index.lastSearch).toMatchObject({ postingsScored: 40_020, pruned: false });
    const pruned = index.search(query, 5);
    expect(pruned).toEqual(exhaustive);
    expect(pruned.map((hit) => hit.doc)).toEqual([0, 1000, 2000, 3000, 4000]);
    // Only "passport" was read in full (20 postings); "the" and "of" were looked up for its docs.
    expect(index.lastSearch).toMatchObject({ postingsScored: 20, pruned: true, candidates: 20 });
  });

  it("reads a tf above 255 from the postings, in the main segment and in the delta", () => {
    const index = new Bm25Index();
    const docs = (from: number) => Array.from({ length: 3000 }, (_, i) => (i % 300 === 0 ? ["rare", ...Array<string>(300 + i / 300).fill("the")] : ["the", `w${(from + i) % 50}`]));
    docs(0).forEach((tokens, doc) => index.add(doc, tokens));
    index.vacuum();
    docs(3000).forEach((tokens, i) => index.add(3000 + i, tokens));
    const query = ["rare", "the"];
    const pruned = index.search(query, 3);
    expect(index.lastSearch.pruned).toBe(true);
    expect(pruned).toEqual(index.search(query, 3, undefined, { exhaustive: true }));
    expect(pruned.map((hit) => hit.doc)).toEqual([0, 3000, 300]);
  });

  it("scores in full when the bound cannot prune: fewer hits than k, or terms of equal weight", () => {
    const index = new Bm25Index();
    for (let doc = 0; doc < 1000; doc++) index.add(doc, ["common", doc % 2 === 0 ? "even" : "odd"]);
    index.search(["even", "odd"], 10);
    expect(index.lastSearch.pruned).toBe(false);
    index.search(["rare-none", "common"], 2000);
    expect(index.lastSearch.pruned).toBe(false);
  });
});

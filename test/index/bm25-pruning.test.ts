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
        fc.constantFrom("none", "removals", "removals and adds", "adds after a re-pack", "adds out of doc order"),
        fc.boolean(),
        // When a term this long hands the rest of the query to document-at-a-time MaxScore: the default
        // (term at a time only, at these sizes), from the first term, or partway.
        fc.constantFrom(undefined, 0, 1, 20, 150),
        (seed, docs, vocabulary, k, params, history, masked, maxScoreMinPostings) => {
          const random = seededRandom(seed);
          const corpus = zipfDocs(docs, vocabulary, random);
          const index = new Bm25Index(params, { maxScoreMinPostings });
          corpus.forEach((tokens, doc) => index.add(doc, tokens));
          if (history !== "none") for (let doc = 0; doc < docs; doc += 5) index.remove(doc, corpus[doc]);
          if (history === "adds after a re-pack" || history === "adds out of doc order") index.vacuum();
          const added = zipfDocs(40, vocabulary, random).map((tokens, i) => ({ doc: docs + i, tokens }));
          // Out of order, the delta chains are not newest-highest, and document at a time must sort them.
          if (history === "adds out of doc order") added.sort(() => random() - 0.5);
          if (history !== "none" && history !== "removals") added.forEach(({ doc, tokens }) => index.add(doc, tokens));
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
      { numRuns: 100 },
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

  it("goes on document at a time once a common term comes before pruning can start, and scores few docs in full", () => {
    // Every doc holds "the" and "of"; five early ones hold them more often. Term at a time would score 40,000
    // postings; document at a time the bar rises to those five's score by doc 47, "of" becomes a lookup, and
    // every later doc is dropped on its share of "the" alone.
    const index = new Bm25Index();
    for (let doc = 0; doc < 20_000; doc++) index.add(doc, doc < 50 && doc % 10 === 7 ? ["the", "the", "the", "of", "of"] : ["the", "of", `w${doc % 97}`, `v${doc % 89}`, `u${doc % 83}`]);
    const query = ["the", "of"];
    const exhaustive = index.search(query, 5, undefined, { exhaustive: true });
    const maxScore = index.search(query, 5);
    expect(maxScore).toEqual(exhaustive);
    expect(maxScore.map((hit) => hit.doc)).toEqual([7, 17, 27, 37, 47]);
    expect(index.lastSearch).toMatchObject({ postingsScored: 0, pruned: true });
    expect(index.lastSearch.docsScored).toBeGreaterThanOrEqual(5);
    expect(index.lastSearch.docsScored).toBeLessThanOrEqual(48);
  });

  it("validates maxScoreMinPostings", () => {
    expect(() => new Bm25Index({}, { maxScoreMinPostings: -1 })).toThrow("Bm25Index: maxScoreMinPostings must be a non-negative integer, got -1");
    expect(() => new Bm25Index({}, { maxScoreMinPostings: 1.5 })).toThrow("maxScoreMinPostings must be a non-negative integer, got 1.5");
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

import { propagateContext } from "../../bridge/index/context-propagation";

// A conversation of docs 0..5 in one session, each doc's neighbours the turns either side.
const chain = (doc: number) => [doc - 1, doc + 1].filter((n) => n >= 0 && n <= 5);
const none = () => [];

describe("propagateContext", () => {
  it("adds weight times the best neighbour's score to each hit and to neighbours that were not hits", () => {
    const hits = [{ doc: 2, score: 4 }, { doc: 4, score: 1 }];
    expect(propagateContext(hits, chain, 0.5, 10)).toEqual([
      { doc: 2, score: 4 },
      { doc: 1, score: 2 },
      { doc: 3, score: 2 },
      { doc: 4, score: 1 },
      { doc: 5, score: 0.5 },
    ]);
  });

  it("takes the best neighbour, not the sum of them", () => {
    const hits = [{ doc: 1, score: 3 }, { doc: 3, score: 2 }];
    expect(propagateContext(hits, chain, 0.5, 10).find((hit) => hit.doc === 2)).toEqual({ doc: 2, score: 1.5 });
  });

  it("ranks the turn after a matching question above a weaker unrelated hit", () => {
    const hits = [{ doc: 0, score: 6 }, { doc: 5, score: 2 }];
    const neighbours = (doc: number) => ({ 0: [1], 1: [0] })[doc] ?? [];
    expect(propagateContext(hits, neighbours, 0.5, 2).map((hit) => hit.doc)).toEqual([0, 1]);
  });

  it("returns the hits unchanged without neighbours or with weight 0", () => {
    const hits = [{ doc: 3, score: 2 }, { doc: 1, score: 2 }, { doc: 0, score: 1 }];
    expect(propagateContext(hits, none, 0.5, 10)).toEqual([{ doc: 1, score: 2 }, { doc: 3, score: 2 }, { doc: 0, score: 1 }]);
    expect(propagateContext(hits, chain, 0, 10)).toEqual([{ doc: 1, score: 2 }, { doc: 3, score: 2 }, { doc: 0, score: 1 }]);
  });

  it("keeps the best `limit` docs, ties to the lower doc number", () => {
    const hits = [{ doc: 4, score: 2 }, { doc: 0, score: 2 }];
    expect(propagateContext(hits, chain, 1, 3)).toEqual([{ doc: 0, score: 2 }, { doc: 1, score: 2 }, { doc: 3, score: 2 }]);
  });

  it("returns nothing for no hits", () => {
    expect(propagateContext([], chain, 0.5, 10)).toEqual([]);
  });
});

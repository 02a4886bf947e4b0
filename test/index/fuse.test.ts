import fc from "fast-check";
import { fuseRanks, RRF_K } from "../../bridge/index/fuse";

describe("fuseRanks", () => {
  it("scores each candidate with the sum of 1/(60 + rank) over the lists that found it", () => {
    const fused = fuseRanks(
      [
        { doc: 1, score: 9 },
        { doc: 2, score: 5 },
      ],
      [
        { doc: 2, score: 0.9 },
        { doc: 3, score: 0.8 },
      ],
    );
    expect(fused.map((c) => c.doc)).toEqual([2, 1, 3]);
    expect(fused[0]).toEqual({ doc: 2, rrf: 1 / (RRF_K + 2) + 1 / (RRF_K + 1), lexicalRank: 2, lexicalScore: 5, denseRank: 1, denseScore: 0.9 });
    expect(fused[1].rrf).toBeCloseTo(1 / 61, 12);
    expect(fused[2]).toEqual({ doc: 3, rrf: 1 / 62, denseRank: 2, denseScore: 0.8 });
  });

  it("breaks equal fused scores by the better lexical rank", () => {
    const fused = fuseRanks([{ doc: 7, score: 1 }], [{ doc: 4, score: 1 }]);
    expect(fused.map((c) => c.doc)).toEqual([7, 4]);
  });

  it("keeps every lexical candidate whatever the dense list holds", () => {
    const list = fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 30 });
    fc.assert(
      fc.property(list, list, (lexicalDocs, denseDocs) => {
        const fused = fuseRanks(
          lexicalDocs.map((doc, i) => ({ doc, score: 100 - i })),
          denseDocs.map((doc, i) => ({ doc, score: 1 - i / 100 })),
        );
        const fusedDocs = new Set(fused.map((c) => c.doc));
        for (const doc of lexicalDocs) expect(fusedDocs.has(doc)).toBe(true);
        expect(fused.length).toBe(new Set([...lexicalDocs, ...denseDocs]).size);
      }),
    );
  });
});

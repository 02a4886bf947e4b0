import fc from "fast-check";
import { TopK, compareScored } from "../../bridge/index/top-k";

describe("TopK", () => {
  it("keeps the k best entries, best first, breaking score ties by the lower doc number", () => {
    const heap = new TopK(3);
    [[5, 0.5], [1, 0.9], [7, 0.9], [2, 0.1], [3, 0.7]].forEach(([doc, score]) => heap.push(doc, score));
    expect(heap.sorted()).toEqual([
      { doc: 1, score: 0.9 },
      { doc: 7, score: 0.9 },
      { doc: 3, score: 0.7 },
    ]);
  });

  it("agrees with a full sort on random inputs", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 200 }), fc.integer({ min: 0, max: 30 }), (raw, k) => {
        const heap = new TopK(k);
        raw.forEach((score, doc) => heap.push(doc, score));
        const expected = raw.map((score, doc) => ({ doc, score })).sort(compareScored).slice(0, k);
        expect(heap.sorted()).toEqual(expected);
      }),
    );
  });
});

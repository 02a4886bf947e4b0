import { overlapAtK, p95Ratios, summariseOverlap, type ModeFigures } from "../../bench/scale-report";
import { SyntheticCorpus, syntheticBatches, type SyntheticQuery } from "../../bench/synthetic-corpus";

describe("overlap of two engines' top-k lists", () => {
  it("counts the reference's top k found anywhere in the other's top k, ignoring order and anything past k", () => {
    expect(overlapAtK(["a", "b", "c", "d"], ["d", "c", "x", "a"], 3)).toBeCloseTo(1 / 3);
    expect(overlapAtK(["a", "b"], ["b", "a"], 10)).toBe(1);
    expect(overlapAtK(["a", "b", "c"], ["x", "y", "a"], 2)).toBe(0);
  });

  it("scores a shorter other list against the reference's full top k, so dropped hits lower the overlap", () => {
    expect(overlapAtK(["a", "b", "c", "d"], ["a"], 4)).toBe(0.25);
  });

  it("has no overlap for an empty reference, and the summary skips such queries", () => {
    expect(overlapAtK([], ["a"], 10)).toBeUndefined();
    const summary = summariseOverlap([[], ["a", "b"], ["c", "d"]], [["z"], ["a", "b"], ["d", "e"]], 2);
    expect(summary).toEqual({ mean_pct: 75, min_pct: 50, identical_order: 1, queries: 2 });
  });

  it("refuses lists that do not pair up query by query", () => {
    expect(() => summariseOverlap([["a"]], [], 10)).toThrow("1 reference lists against 0 others");
  });
});

describe("p95 ratios against ours", () => {
  it("divides each row's p95 by ours in the same mode, ours standing at 1", () => {
    const row = (engine: string, mode: ModeFigures["mode"], p95: number): ModeFigures => ({ engine, mode, label: mode, p50_ms: 0, p95_ms: p95, short_results: 0 });
    const rows = p95Ratios([row("us", "lexical", 2), row("us", "dense", 4), row("peer", "dense", 10), row("peer", "lexical", 1)], "us");
    expect(rows.map((r) => [r.engine, r.mode, r.p95_ratio])).toEqual([
      ["us", "lexical", 1],
      ["us", "dense", 1],
      ["peer", "dense", 2.5],
      ["peer", "lexical", 0.5],
    ]);
  });
});

describe("synthetic batches", () => {
  it("yields the same records and queries for the same count whatever the batch size", () => {
    const draw = (batchSize: number) => {
      const queries: SyntheticQuery[] = [];
      const records = [...syntheticBatches(new SyntheticCorpus(8), 300, 12, batchSize, queries)].flat();
      return { ids: records.map((r) => r.id), texts: records.map((r) => r.text), queries };
    };
    const whole = draw(300);
    expect(whole.ids).toEqual(Array.from({ length: 300 }, (_, i) => `syn-${i}`));
    expect(whole.queries.length).toBeGreaterThan(0);
    expect(whole.queries.length).toBeLessThanOrEqual(12);
    expect(draw(7)).toEqual(whole);
  });
});

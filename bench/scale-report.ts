// What bench:peers-scale reports: latency per engine and mode with p95 ratios against ours, build
// rate and retained memory per engine, and how far two engines' top-k lists agree.
import type { SearchMode } from "./scale-engines";

export interface ModeFigures {
  engine: string;
  mode: SearchMode;
  label: string;
  p50_ms: number;
  p95_ms: number;
  /** Timed queries that came back with fewer than k ids. */
  short_results: number;
}

export interface BuildFigures {
  engine: string;
  gets: string;
  build_s: number;
  records_per_s: number;
  /** Growth of V8 heap used + external memory (typed arrays, Wasm) across the build, each after a full GC. */
  retained_heap_mib: number;
  /** Growth of RSS across the build, after a full GC; pages freed by an earlier engine may be reused. */
  rss_growth_mib: number;
}

/** Share of `reference`'s top k that `other`'s top k also holds, in 0..1; undefined when the reference is empty. */
export function overlapAtK(reference: string[], other: string[], k: number): number | undefined {
  const expected = reference.slice(0, k);
  if (expected.length === 0) return undefined;
  const found = new Set(other.slice(0, k));
  return expected.filter((id) => found.has(id)).length / expected.length;
}

export interface OverlapFigures {
  mean_pct: number;
  min_pct: number;
  /** Queries whose two top-k lists are the same ids in the same order. */
  identical_order: number;
  queries: number;
}

/** Overlap@k over paired result lists (one pair per query), skipping queries whose reference is empty. */
export function summariseOverlap(reference: string[][], other: string[][], k: number): OverlapFigures {
  if (reference.length !== other.length) throw new Error(`bench: ${reference.length} reference lists against ${other.length} others`);
  const shares: number[] = [];
  let identical = 0;
  reference.forEach((ref, i) => {
    const share = overlapAtK(ref, other[i], k);
    if (share === undefined) return;
    shares.push(share);
    if (ref.slice(0, k).join("\n") === other[i].slice(0, k).join("\n")) identical++;
  });
  const pct = (x: number) => Math.round(x * 1000) / 10;
  return {
    mean_pct: shares.length ? pct(shares.reduce((a, b) => a + b, 0) / shares.length) : 0,
    min_pct: shares.length ? pct(Math.min(...shares)) : 0,
    identical_order: identical,
    queries: shares.length,
  };
}

/** p95 of each peer row over ours in the same mode; our rows are the ones named `ours`. */
export function p95Ratios(rows: ModeFigures[], ours: string): Array<ModeFigures & { p95_ratio: number }> {
  const base = new Map(rows.filter((r) => r.engine === ours).map((r) => [r.mode, r.p95_ms]));
  return rows.map((r) => ({ ...r, p95_ratio: Math.round((r.p95_ms / base.get(r.mode)!) * 100) / 100 }));
}

export function printScaleTables(records: number, queries: number, rows: Array<ModeFigures & { p95_ratio: number }>, builds: BuildFigures[]): void {
  console.log(`\n${records} records × 512 dims, ${queries} timed queries, top 10`);
  console.log("| engine | mode | call | p50 ms | p95 ms | p95 ×ours | < 10 hits |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) console.log(`| ${r.engine} | ${r.mode} | ${r.label} | ${r.p50_ms} | ${r.p95_ms} | ${r.p95_ratio}× | ${r.short_results} |`);
  console.log("\n| engine | build s | records/s | retained heap+external MiB | RSS growth MiB |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const b of builds) console.log(`| ${b.engine} | ${b.build_s} | ${b.records_per_s} | ${b.retained_heap_mib} | ${b.rss_growth_mib} |`);
  for (const b of builds) console.log(`- ${b.engine}: ${b.gets}`);
}

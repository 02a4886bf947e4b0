// Runs every engine over the same groups (a LoCoMo conversation, a MADial user) and the same queries,
// collecting evidence recall per category and overall, query latency and build time; prints the
// side-by-side table with ratios against DSH-DREAM and says plainly where a peer beats us.
import { addItem, emptyScores, toPercent, type RecallScores } from "./locomo-data";
import type { BenchDoc, EngineSpec } from "./peer-engines";
import { percentile } from "./stats";

export interface BenchQuery {
  query: string;
  evidence: string[];
  category: string;
}

export interface BenchGroup {
  docs: BenchDoc[];
  queries: BenchQuery[];
}

type Percentages = ReturnType<typeof toPercent>;

export interface EngineFigures {
  engine: string;
  gets: string;
  rows: Array<{ category: string; recall: Percentages }>;
  overall: Percentages;
  latency_ms: { p50: number; p95: number };
  build_ms: number;
}

export const HYBRID_NOT_MEASURED =
  "Hybrid (dense + RRF) not measured: no real embedding model is reachable here, and random-projection test vectors would say nothing about recall. All figures are lexical.";

const TOP_K = 20;
const WARM_UP_QUERIES = 20;

export function runEngines(engines: EngineSpec[], groups: BenchGroup[], overallLabel: string): EngineFigures[] {
  return engines.map((engine) => {
    const byCategory = new Map<string, RecallScores>();
    const overall = emptyScores();
    const latencies: number[] = [];
    let buildMs = 0;
    for (const group of groups) {
      const started = performance.now();
      const retriever = engine.open(group.docs);
      buildMs += performance.now() - started;
      try {
        // Untimed warm-up, so the first engine does not pay the JIT for the rest.
        for (const q of group.queries.slice(0, WARM_UP_QUERIES)) retriever.search(q.query, TOP_K);
        for (const q of group.queries) {
          const t0 = performance.now();
          const ranked = retriever.search(q.query, TOP_K);
          latencies.push(performance.now() - t0);
          addItem(overall, q.evidence, ranked);
          if (!byCategory.has(q.category)) byCategory.set(q.category, emptyScores());
          addItem(byCategory.get(q.category)!, q.evidence, ranked);
        }
      } finally {
        retriever.close();
      }
    }
    const rows = [...byCategory.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([category, s]) => ({ category, recall: toPercent(s) }));
    return {
      engine: engine.name,
      gets: engine.gets,
      rows: [...rows, { category: overallLabel, recall: toPercent(overall) }],
      overall: toPercent(overall),
      latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
      build_ms: Math.round(buildMs),
    };
  });
}

const METRICS = ["ALL@5", "ALL@10", "ALL@20", "ANY@5", "ANY@10", "ANY@20", "FRAC@5", "FRAC@10", "FRAC@20"];
const round2 = (x: number) => Math.round(x * 100) / 100;

/** peer / ours for ALL@10 and p95 latency; the first figures are ours. */
export function ratiosVsOurs(figures: EngineFigures[]): Array<{ engine: string; all10_ratio: number; p95_ratio: number }> {
  const ours = figures[0];
  return figures.slice(1).map((f) => ({
    engine: f.engine,
    all10_ratio: round2(f.overall["ALL@10"] / ours.overall["ALL@10"]),
    p95_ratio: round2(f.latency_ms.p95 / ours.latency_ms.p95),
  }));
}

export function printComparison(figures: EngineFigures[]): void {
  const ratios = new Map(ratiosVsOurs(figures).map((r) => [r.engine, r]));
  console.log(`| engine | n | ${METRICS.join(" | ")} | p50 ms | p95 ms | ALL@10 ×ours | p95 ×ours |`);
  console.log(`| --- | --- | ${METRICS.map(() => "---").join(" | ")} | --- | --- | --- | --- |`);
  for (const f of figures) {
    const r = ratios.get(f.engine);
    const cells = [f.engine, f.overall.n, ...METRICS.map((m) => f.overall[m]), f.latency_ms.p50, f.latency_ms.p95, r ? `${r.all10_ratio}×` : "1×", r ? `${r.p95_ratio}×` : "1×"];
    console.log(`| ${cells.join(" | ")} |`);
  }
  if (figures[0].rows.length > 2) printCategories(figures);
  for (const f of figures) console.log(`- ${f.engine}: ${f.gets}; build ${f.build_ms} ms`);
  for (const line of lossLines(figures)) console.log(line);
}

function printCategories(figures: EngineFigures[]): void {
  const categories = figures[0].rows.map((r) => r.category);
  console.log(`\nALL@10 by category\n| engine | ${categories.join(" | ")} |`);
  console.log(`| --- | ${categories.map(() => "---").join(" | ")} |`);
  for (const f of figures) console.log(`| ${f.engine} | ${f.rows.map((r) => r.recall["ALL@10"]).join(" | ")} |`);
}

/** One plain sentence for every metric and latency figure where a peer beats DSH-DREAM. */
export function lossLines(figures: EngineFigures[]): string[] {
  const [ours, ...peers] = figures;
  const lines: string[] = [];
  for (const peer of peers) {
    const recall = METRICS.filter((m) => peer.overall[m] > ours.overall[m]);
    if (recall.length > 0) lines.push(`WE LOSE on recall to ${peer.engine}: ${recall.map((m) => `${m} ${peer.overall[m]} vs ours ${ours.overall[m]}`).join(", ")}`);
    const categories = peer.rows.slice(0, -1).filter((row, i) => row.recall["ALL@10"] > ours.rows[i].recall["ALL@10"]);
    if (categories.length > 0 && peer.rows.length > 2) {
      lines.push(`WE LOSE on ALL@10 in some categories to ${peer.engine}: ${categories.map((r) => `${r.category} ${r.recall["ALL@10"]} vs ours ${ours.rows.find((o) => o.category === r.category)!.recall["ALL@10"]}`).join(", ")}`);
    }
    if (peer.latency_ms.p95 < ours.latency_ms.p95) {
      lines.push(`WE LOSE on latency to ${peer.engine}: p95 ${peer.latency_ms.p95} ms vs ours ${ours.latency_ms.p95} ms (its ALL@10 ${peer.overall["ALL@10"]} vs ours ${ours.overall["ALL@10"]})`);
    }
  }
  return lines.length > 0 ? lines : ["DSH-DREAM is ahead of every peer here on recall and p95 latency."];
}

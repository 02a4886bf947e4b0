// `npm run bench:peers-scale -- --records N [--queries Q] [--json]`: DSH-DREAM, Orama and MiniSearch
// on the same synthetic mixed zh/en corpus with 512-d vectors as bench:search (same seed, same
// queries): lexical, dense and hybrid latency at top 10, build rate, retained memory, and how far
// Orama's vector and hybrid top 10 agree with ours. One engine at a time, each released before the next.
import { p95Ratios, printScaleTables, summariseOverlap, type BuildFigures, type ModeFigures } from "./scale-report";
import { SCALE_ENGINES, type ScaleEngineSpec } from "./scale-engines";
import { argValue, machineInfo, percentile } from "./stats";
import { SyntheticCorpus, syntheticBatches, type SyntheticQuery, type SyntheticRecord } from "./synthetic-corpus";

const WARMUP = 20;
const TOP_K = 10;
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

interface EngineRun {
  build: BuildFigures;
  rows: ModeFigures[];
  /** Ranked ids of every timed query, by mode label. */
  ids: Map<string, string[][]>;
}

function settledMemory(): { retained: number; rss: number } {
  global.gc!();
  const m = process.memoryUsage();
  return { retained: m.heapUsed + m.external, rss: m.rss };
}

function measureEngine(spec: ScaleEngineSpec, records: SyntheticRecord[], queries: SyntheticQuery[]): EngineRun {
  const before = settledMemory();
  const build = spec.stage(records);
  process.stderr.write(`${spec.name}: building over ${records.length} records…`);
  const started = performance.now();
  const engine = build();
  const buildSeconds = (performance.now() - started) / 1000;
  const after = settledMemory();
  process.stderr.write(` ${buildSeconds.toFixed(1)} s; searching\n`);
  try {
    // Modes interleaved per query, as bench:search does; the first WARMUP queries are not counted.
    const latencies = engine.modes.map(() => [] as number[]);
    const ids = new Map(engine.modes.map((m) => [m.label, [] as string[][]]));
    queries.forEach((q, i) => {
      engine.modes.forEach((mode, j) => {
        const call = mode.prepare(q, TOP_K);
        const t0 = performance.now();
        const ranked = call();
        const elapsed = performance.now() - t0;
        if (i < WARMUP) return;
        latencies[j].push(elapsed);
        ids.get(mode.label)!.push(ranked);
      });
    });
    const rows = engine.modes.map((mode, j) => ({
      engine: spec.name,
      mode: mode.mode,
      label: mode.label,
      p50_ms: percentile(latencies[j], 50),
      p95_ms: percentile(latencies[j], 95),
      short_results: ids.get(mode.label)!.filter((list) => list.length < TOP_K).length,
    }));
    const figures = {
      engine: spec.name,
      gets: spec.gets,
      build_s: Math.round(buildSeconds * 10) / 10,
      records_per_s: Math.round(records.length / buildSeconds),
      retained_heap_mib: mib(after.retained - before.retained),
      rss_growth_mib: mib(after.rss - before.rss),
    };
    return { build: figures, rows, ids };
  } finally {
    engine.close();
  }
}

function main(argv: string[]): void {
  if (!global.gc) throw new Error("bench: run with node --expose-gc (npm run bench:peers-scale does), or the memory figures mean nothing");
  const recordCount = argValue(argv, "records", 10_000);
  const queryCount = argValue(argv, "queries", 200);
  const corpus = new SyntheticCorpus();
  const queries: SyntheticQuery[] = [];
  const records = [...syntheticBatches(corpus, recordCount, queryCount + WARMUP, 2000, queries)].flat();
  const runs = SCALE_ENGINES.map((spec) => measureEngine(spec, records, queries));
  const [ours, orama] = runs;
  const rows = p95Ratios(runs.flatMap((r) => r.rows), ours.build.engine);
  const builds = runs.map((r) => r.build);
  const overlap = (ourLabel: string, peerLabel: string) => ({ ours: ourLabel, orama: peerLabel, ...summariseOverlap(ours.ids.get(ourLabel)!, orama.ids.get(peerLabel)!, TOP_K) });
  const overlaps = [
    overlap("searchVector()", "vector, similarity -1"),
    overlap("searchVector()", "vector, similarity 0.8"),
    overlap("search() + query_embedding", "hybrid, similarity -1"),
    overlap("search() + query_embedding", "hybrid, similarity 0.8"),
  ];
  const timed = queries.length - WARMUP;
  printScaleTables(recordCount, timed, rows, builds);
  for (const o of overlaps) console.log(`overlap@10 ours ${o.ours} vs Orama ${o.orama}: mean ${o.mean_pct} %, min ${o.min_pct} %, identical order ${o.identical_order}/${o.queries}`);
  if (argv.includes("--json")) {
    const result = { benchmark: "peers-scale-latency", records: recordCount, queries: timed, warm_up: WARMUP, dim: corpus.dim, top_k: TOP_K, modes: rows, builds, overlap_at_10: overlaps, machine: machineInfo() };
    console.log(JSON.stringify(result));
  }
}

main(process.argv.slice(2));

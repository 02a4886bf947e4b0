// `npm run bench:search -- --records N [--queries Q] [--vectors clustered|anisotropic] [--flat-max N] [--reopen] [--json]`:
// builds a store of N synthetic mixed zh/en memories with 512-d vectors through the real import path,
// then times lexical, dense (search_vector) and hybrid searches (top_k 10; query embedding excluded:
// vectors are given). Above flat_max_records (default 200,000) the approximate index is built first
// (timed) and dense recall@10 is measured against an exact scan of the same store. What the import left
// in the lexical index's delta is re-packed first, in slices, as the store does between requests (timed).
// Background work (re-pack, ANN build, checkpoint) runs in slices with the event loop turning between two,
// as in the bridge; each says how many slices passed 20 / 30 / 50 ms and what its longest overlapped.
// --reopen also times a checkpoint and re-opening the store (bench/store-open.ts), and the searches and RSS
// of the store opened from that checkpoint in a fresh process (--rows-in-memory: once more with every row kept in memory).
// --keep DIR builds the store in DIR (which must not exist) and leaves it there, to time opening it again.
// It runs in the environment a bridge is started with (on Linux glibc's huge pages: bench/bridge-process.ts).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MemoryStore } from "../bridge/store/memory-store";
import type { SearchRequest } from "../bridge/store/search";
import { parseSearchRequest } from "../bridge/store/search-request";
import { argValue, machineInfo, percentile } from "./stats";
import { rerunAsBridgeProcess } from "./bridge-process";
import { type CheckpointFigures, printOpenFigures, printReopenedFigures, runReopenedChild, timeCheckpoint, timeOpen, timeReopened } from "./store-open";
import { FLAT_MAX_RECORDS } from "../bridge/index/ann-defaults";
import { describeSlices, type SliceSummary, SliceWatch } from "./slice-watch";
import { SyntheticCorpus, syntheticBatches, type SyntheticQuery, type VectorShape } from "./synthetic-corpus";

const IMPORT_BATCH = 2000;
const WARMUP = 20;

function time(fn: () => void, samples: number[]): void {
  const started = performance.now();
  fn();
  samples.push(performance.now() - started);
}

async function main(argv: string[]): Promise<void> {
  const rerun = rerunAsBridgeProcess();
  if (rerun !== undefined) return void (process.exitCode = rerun);
  if (runReopenedChild(argv)) return;
  const keep = argv.includes("--keep") ? argv[argv.indexOf("--keep") + 1] : undefined;
  if (keep !== undefined && (!keep || keep.startsWith("--") || fs.existsSync(keep))) throw new Error("--keep must name a directory that does not exist yet");
  const dataDir = keep ? (fs.mkdirSync(keep, { recursive: true }), path.resolve(keep)) : fs.mkdtempSync(path.join(os.tmpdir(), "bench-search-"));
  try {
    // In its own function so the first store is garbage before the re-open is timed.
    const { result, written, request, queries } = await measureSearch(argv, dataDir);
    if (written) {
      // Searches and memory as a user's bridge has them: opened from the checkpoint in a fresh process.
      const reopened = [timeReopened(dataDir, queries, WARMUP, true)];
      if (argv.includes("--rows-in-memory")) reopened.push(timeReopened(dataDir, queries, WARMUP, false));
      reopened.forEach(printReopenedFigures);
      Object.assign(result, { reopened });
      const opened = timeOpen(dataDir, request);
      printOpenFigures(written, opened);
      Object.assign(result, { checkpoint: written, open: opened });
    }
    if (argv.includes("--json")) console.log(JSON.stringify(result));
  } finally {
    if (keep === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measureSearch(argv: string[], dataDir: string): Promise<{ result: Record<string, unknown>; written?: CheckpointFigures; request: SearchRequest; queries: SyntheticQuery[] }> {
  const records = argValue(argv, "records", 10_000);
  const queryCount = argValue(argv, "queries", 200);
  const flatMaxRecords = argValue(argv, "flat-max", FLAT_MAX_RECORDS);
  const shape = (argv.includes("--vectors") ? argv[argv.indexOf("--vectors") + 1] : "clustered") as VectorShape;
  if (shape !== "clustered" && shape !== "anisotropic") throw new Error("--vectors must be clustered or anisotropic");
  const corpus = new SyntheticCorpus(512, undefined, undefined, shape);
  // No checkpoint on close: --reopen times one explicitly, and without it none is wanted.
  const store = MemoryStore.open({ dataDir, checkpointOnCloseBytes: Infinity, vectorIndex: { flatMaxRecords } });
  const queries: SyntheticQuery[] = [];
  const embedding = (vector: number[]) => ({ provider: "bench", model: "synthetic-512", vector });
  try {
    const ingestStarted = performance.now();
    let imported = 0;
    for (const batch of syntheticBatches(corpus, records, queryCount + WARMUP, IMPORT_BATCH, queries)) {
      store.importRecords(batch.map((record, j) => ({ id: record.id, text: record.text, source_type: "user_message", timestamp_ms: 1_700_000_000_000 + imported + j, embedding: embedding(record.vector) })));
      imported += batch.length;
      process.stderr.write(`\ringested ${imported}/${records}`);
    }
    const ingestSeconds = (performance.now() - ingestStarted) / 1000;
    process.stderr.write("\n");
    const repack = await repackLexical(store);
    const ann = await buildAnn(store);
    global.gc?.();
    const latencies = { lexical: [] as number[], dense: [] as number[], hybrid: [] as number[] };
    queries.forEach((q, i) => {
      const keep = i >= WARMUP;
      const lexical = parseSearchRequest({ query: q.text, top_k: 10 });
      const hybrid = parseSearchRequest({ query: q.text, top_k: 10, query_embedding: embedding(q.vector) });
      time(() => store.search(lexical), keep ? latencies.lexical : []);
      time(() => store.searchVector(hybrid.queryEmbedding!, 10), keep ? latencies.dense : []);
      time(() => store.search(hybrid), keep ? latencies.hybrid : []);
    });
    // Single writes into the full store, as capture makes them: validation, fsync'd journal, indexes.
    const acks: number[] = [];
    for (let i = records; i < records + 300; i++) {
      const r = corpus.record(i);
      time(() => store.add({ id: r.id, text: r.text, source_type: "user_message", embedding: embedding(r.vector) }), acks);
    }
    const summary = (samples: number[]) => ({ p50_ms: percentile(samples, 50), p95_ms: percentile(samples, 95) });
    const recall = ann ? denseRecall(store, queries.slice(WARMUP), flatMaxRecords) : undefined;
    const result = {
      benchmark: "search-latency",
      records,
      queries: latencies.hybrid.length,
      dim: corpus.dim,
      vectors: shape,
      top_k: 10,
      ...(ann ? { ann: { ...ann, dense_recall_at_10: recall } } : {}),
      lexical_repack: repack,
      lexical: summary(latencies.lexical),
      dense: summary(latencies.dense),
      hybrid: summary(latencies.hybrid),
      ingest_records_per_s: Math.round(records / ingestSeconds),
      write_ack: summary(acks),
      rss_mib: Math.round(process.memoryUsage().rss / 2 ** 20),
      glibc_tunables: process.env.GLIBC_TUNABLES ?? null,
      machine: machineInfo(),
    };
    for (const mode of ["lexical", "dense", "hybrid"] as const) {
      console.log(`${mode.padEnd(8)} p50 ${result[mode].p50_ms.toFixed(2)} ms  p95 ${result[mode].p95_ms.toFixed(2)} ms`);
    }
    console.log(`write ack (in process) p50 ${result.write_ack.p50_ms.toFixed(2)} ms  p95 ${result.write_ack.p95_ms.toFixed(2)} ms`);
    console.log(`ingest ${result.ingest_records_per_s} records/s · RSS ${result.rss_mib} MiB · ${records} records × ${corpus.dim} dims (${shape})`);
    if (ann) console.log(`ann: ${ann.lists} lists, probe share ${ann.probe_share}, built in ${ann.build_s.toFixed(1)} s (longest slice ${ann.longest_slice_ms.toFixed(1)} ms), recall@10 vs exact ${recall!.toFixed(4)} (build estimate ${ann.recall_estimate.toFixed(3)})`);
    const request = parseSearchRequest({ query: queries[0].text, top_k: 10, query_embedding: embedding(queries[0].vector) });
    const extra = (i: number) => {
      const query = queries[i % queries.length];
      return { id: `extra-${i}`, text: `${query.text} extra ${i}`, source_type: "user_message", timestamp_ms: 1_800_000_000_000 + i, embedding: embedding(query.vector) };
    };
    return { result, written: argv.includes("--reopen") ? await timeCheckpoint(store, extra) : undefined, request, queries };
  } finally {
    store.close();
  }
}

/**
 * Calls `slice` until it says no work is left, the event loop turning between two as in the bridge (whose
 * maintenance runs on timers): seconds in all, the longest call in ms, and the slices over 20 / 30 / 50 ms
 * with what the longest overlapped.
 */
async function inSlices(slice: () => boolean): Promise<{ seconds: number; longest: number; slices: SliceSummary }> {
  const started = performance.now();
  const watch = new SliceWatch();
  let longest = 0;
  for (let more = true; more; ) {
    const { value, ms } = watch.run(slice);
    more = value;
    longest = Math.max(longest, ms);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { seconds: (performance.now() - started) / 1000, longest, slices: await watch.finish() };
}

/**
 * Re-packs the lexical index after the import the way the store does between requests, in 5 ms slices,
 * timing it and its longest slice; what the import left in the delta is what a search would otherwise read.
 */
async function repackLexical(store: MemoryStore) {
  const lexical = () => store.status().lexical as { postings: number; delta_postings: number; dead_docs: number };
  const left = lexical();
  const { seconds, longest, slices } = await inSlices(() => store.maintainLexicalIndex(5));
  if (left.delta_postings > 0) process.stderr.write(`lexical re-pack of ${left.delta_postings} delta postings in ${seconds.toFixed(1)} s (longest slice ${longest.toFixed(1)} ms; ${overLine(slices)})\n`);
  return { delta_postings_after_import: left.delta_postings, postings: lexical().postings, repack_s: seconds, longest_slice_ms: longest, slices };
}

/** Builds the approximate index the way the bridge does, in 15 ms slices, timing the build and its longest slice. */
async function buildAnn(store: MemoryStore) {
  const { seconds, longest, slices } = await inSlices(() => store.maintainVectorIndexes(15));
  const status = store.vectors.list()[0]?.index.annStatus();
  if (status?.mode !== "ivf") return undefined;
  process.stderr.write(`approximate index built in ${seconds.toFixed(1)} s (${overLine(slices)}); the longest slices:\n${describeSlices(slices).map((line) => `  ${line}\n`).join("")}`);
  return { build_s: seconds, longest_slice_ms: longest, slices, lists: status.lists!, probe_share: status.probeShare!, recall_estimate: status.recallEstimate! };
}

function overLine(slices: SliceSummary): string {
  return `slices over 20 / 30 / 50 ms: ${slices.over_ms["20"]} / ${slices.over_ms["30"]} / ${slices.over_ms["50"]} of ${slices.slices}`;
}

/** Dense recall@10 of the approximate index against an exact scan of the same vectors, over the timed queries. */
function denseRecall(store: MemoryStore, queries: SyntheticQuery[], flatMaxRecords: number): number {
  const index = store.vectors.list()[0].index;
  let found = 0;
  let wanted = 0;
  for (const q of queries) {
    const approx = new Set(index.search(q.vector, 10).map((h) => h.doc));
    index.configure({ flatMaxRecords: Number.MAX_SAFE_INTEGER });
    const exact = index.search(q.vector, 10);
    index.configure({ flatMaxRecords });
    found += exact.filter((h) => approx.has(h.doc)).length;
    wanted += exact.length;
  }
  return found / wanted;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

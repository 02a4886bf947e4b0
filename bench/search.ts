// `npm run bench:search -- --records N [--queries Q] [--reopen] [--json]`: builds a store of N synthetic mixed
// zh/en memories with 512-d vectors through the real import path, then times lexical, dense
// (search_vector) and hybrid searches (top_k 10; query embedding excluded: vectors are given).
// --reopen also times a checkpoint and re-opening the store (bench/store-open.ts).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MemoryStore } from "../bridge/store/memory-store";
import type { SearchRequest } from "../bridge/store/search";
import { parseSearchRequest } from "../bridge/store/search-request";
import { argValue, machineInfo, percentile } from "./stats";
import { type CheckpointFigures, printOpenFigures, timeCheckpoint, timeOpen } from "./store-open";
import { SyntheticCorpus, syntheticBatches, type SyntheticQuery } from "./synthetic-corpus";

const IMPORT_BATCH = 2000;
const WARMUP = 20;

function time(fn: () => void, samples: number[]): void {
  const started = performance.now();
  fn();
  samples.push(performance.now() - started);
}

function main(argv: string[]): void {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-search-"));
  try {
    // In its own function so the first store is garbage before the re-open is timed.
    const { result, written, request } = measureSearch(argv, dataDir);
    if (written) {
      const opened = timeOpen(dataDir, request);
      printOpenFigures(written, opened);
      Object.assign(result, { checkpoint: written, open: opened });
    }
    if (argv.includes("--json")) console.log(JSON.stringify(result));
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function measureSearch(argv: string[], dataDir: string): { result: Record<string, unknown>; written?: CheckpointFigures; request: SearchRequest } {
  const records = argValue(argv, "records", 10_000);
  const queryCount = argValue(argv, "queries", 200);
  const corpus = new SyntheticCorpus();
  // No checkpoint on close: --reopen times one explicitly, and without it none is wanted.
  const store = MemoryStore.open({ dataDir, checkpointOnCloseBytes: Infinity });
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
    const result = {
      benchmark: "search-latency",
      records,
      queries: latencies.hybrid.length,
      dim: corpus.dim,
      top_k: 10,
      lexical: summary(latencies.lexical),
      dense: summary(latencies.dense),
      hybrid: summary(latencies.hybrid),
      ingest_records_per_s: Math.round(records / ingestSeconds),
      write_ack: summary(acks),
      rss_mib: Math.round(process.memoryUsage().rss / 2 ** 20),
      machine: machineInfo(),
    };
    for (const mode of ["lexical", "dense", "hybrid"] as const) {
      console.log(`${mode.padEnd(8)} p50 ${result[mode].p50_ms.toFixed(2)} ms  p95 ${result[mode].p95_ms.toFixed(2)} ms`);
    }
    console.log(`write ack (in process) p50 ${result.write_ack.p50_ms.toFixed(2)} ms  p95 ${result.write_ack.p95_ms.toFixed(2)} ms`);
    console.log(`ingest ${result.ingest_records_per_s} records/s · RSS ${result.rss_mib} MiB · ${records} records × ${corpus.dim} dims`);
    const request = parseSearchRequest({ query: queries[0].text, top_k: 10, query_embedding: embedding(queries[0].vector) });
    return { result, written: argv.includes("--reopen") ? timeCheckpoint(store) : undefined, request };
  } finally {
    store.close();
  }
}

main(process.argv.slice(2));

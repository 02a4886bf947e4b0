// Store start-up at scale (`npm run bench:search -- --records N --reopen`): times writing a checkpoint of
// the benchmark store, then open + first hybrid search from that checkpoint and from a full journal replay.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { CHECKPOINT_SLICE_MS, FLUSH_POLL_MS, MemoryStore } from "../bridge/store/memory-store";
import type { SearchRequest } from "../bridge/store/search";
import { parseSearchRequest } from "../bridge/store/search-request";
import type { CheckpointWritten } from "../bridge/store/checkpoint";
import { type SliceSummary, SliceWatch, describeSlices } from "./slice-watch";
import { percentile } from "./stats";
import type { SyntheticQuery } from "./synthetic-corpus";

export interface CheckpointFigures {
  /** The first checkpoint, written whole in steps of CHECKPOINT_SLICE_MS as the bridge writes it. */
  write_ms: number;
  longest_step_ms: number;
  steps: number;
  /** The full checkpoint's slices over 20 / 30 / 50 ms, and its longest with what they overlapped. */
  slices: SliceSummary;
  checkpoint_mib: number;
  journal_mib: number;
  /** Adds acknowledged between the steps (one per step): what a write waits for meanwhile. */
  ack_during: { p50_ms: number; p95_ms: number; max_ms: number };
  /** The next checkpoint, after INCREMENTAL_ADDS more adds: only the changed segments are written. */
  incremental: { adds: number; write_ms: number; longest_step_ms: number; written_mib: number; parts_written: number; parts_reused: number };
}

export interface OpenFigures {
  open_ms: number;
  first_search_ms: number;
  open_and_first_search_ms: number;
  checkpoint_used: boolean;
  entries_replayed: number;
}

const INCREMENTAL_ADDS = 1000;

const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const ms = (from: number, to: number) => Math.round((to - from) * 10) / 10;

/**
 * Times a checkpoint written in slices with an add acknowledged between every two, then INCREMENTAL_ADDS
 * more adds and the next (incremental) checkpoint. `extra(i)` makes the i-th add.
 */
export async function timeCheckpoint(store: MemoryStore, extra: (i: number) => unknown): Promise<CheckpointFigures> {
  let added = 0;
  const acks: number[] = [];
  const watch = new SliceWatch();
  const first = await runInSteps(store, watch, () => {
    const started = performance.now();
    store.add(extra(added++));
    acks.push(performance.now() - started);
  });
  const slices = await watch.finish();
  for (let i = 0; i < INCREMENTAL_ADDS; i++) store.add(extra(added++));
  const next = await runInSteps(store, undefined, () => undefined);
  acks.sort((a, b) => a - b);
  const at = (q: number) => Math.round(acks[Math.min(acks.length - 1, Math.floor(q * acks.length))] * 100) / 100;
  return {
    write_ms: first.ms,
    longest_step_ms: first.longest,
    steps: first.steps,
    slices,
    checkpoint_mib: mib(first.written.bytes),
    journal_mib: mib(store.journalEndOffset),
    ack_during: { p50_ms: at(0.5), p95_ms: at(0.95), max_ms: at(1) },
    incremental: {
      adds: INCREMENTAL_ADDS,
      write_ms: next.ms,
      longest_step_ms: next.longest,
      written_mib: mib(next.written.bytes),
      parts_written: next.written.parts_written,
      parts_reused: next.written.parts_reused,
    },
  };
}

/**
 * Runs a checkpoint in slices as the bridge does (checkpointInBackground): the event loop turns between two
 * (the thread pool's fsyncs are heard of there), a millisecond's wait after a slice that waited on one. Calls
 * `between` after a slice once CHECKPOINT_SLICE_MS have passed since the last call: about once a slice, as
 * when every slice took its budget, and no more often while slices end early waiting for a flush (an add
 * after each of those made the adds crowd into the flushes). `steps` counts the slices, those that only
 * looked at a flush under way included.
 */
async function runInSteps(store: MemoryStore, watch: SliceWatch | undefined, between: () => void): Promise<{ ms: number; longest: number; steps: number; written: CheckpointWritten }> {
  const started = performance.now();
  let longest = 0;
  let steps = 0;
  let lastBetween = started;
  const slice = () => store.checkpointInSteps(CHECKPOINT_SLICE_MS);
  for (;;) {
    const sliceStarted = performance.now();
    const { value: outcome, ms: length } = watch ? watch.run(slice) : { value: slice(), ms: performance.now() - sliceStarted };
    const now = performance.now();
    longest = Math.max(longest, length);
    steps++;
    if (outcome) {
      if (!("parts_written" in outcome)) throw new Error(`bench: the checkpoint was not written (${JSON.stringify(outcome)})`);
      return { ms: ms(started, now), longest: Math.round(longest * 10) / 10, steps, written: outcome };
    }
    const pending = store.checkpointFlushPending;
    if (now - lastBetween >= CHECKPOINT_SLICE_MS) {
      lastBetween = now;
      between();
    }
    await new Promise((resolve) => (pending ? setTimeout(resolve, FLUSH_POLL_MS) : setImmediate(resolve)));
  }
}

/** Opens the closed store at `dataDir` twice: from its checkpoint, then with the checkpoint moved aside. */
export function timeOpen(dataDir: string, request: SearchRequest): { checkpoint: OpenFigures; replay: OpenFigures } {
  const checkpoint = openOnce(dataDir, request);
  const current = path.join(dataDir, "checkpoint");
  const aside = path.join(dataDir, "checkpoint-aside");
  fs.renameSync(current, aside);
  try {
    return { checkpoint, replay: openOnce(dataDir, request) };
  } finally {
    fs.renameSync(aside, current);
  }
}

function openOnce(dataDir: string, request: SearchRequest): OpenFigures {
  global.gc?.();
  const started = performance.now();
  const store = MemoryStore.open({ dataDir, checkpointOnCloseBytes: Infinity });
  const opened = performance.now();
  try {
    store.search(request);
    const searched = performance.now();
    const status = store.status() as { checkpoint: { used: boolean; entries_replayed_after: number } };
    return {
      open_ms: ms(started, opened),
      first_search_ms: ms(opened, searched),
      open_and_first_search_ms: ms(started, searched),
      checkpoint_used: status.checkpoint.used,
      entries_replayed: status.checkpoint.entries_replayed_after,
    };
  } finally {
    store.close();
  }
}

export function printOpenFigures(written: CheckpointFigures, opened: { checkpoint: OpenFigures; replay: OpenFigures }): void {
  console.log(`checkpoint in ${written.steps} steps: ${written.write_ms} ms, longest step ${written.longest_step_ms} ms · ${written.checkpoint_mib} MiB (journal ${written.journal_mib} MiB) · add ack meanwhile p95 ${written.ack_during.p95_ms} ms, max ${written.ack_during.max_ms} ms`);
  console.log(`  slices over 20 / 30 / 50 ms: ${written.slices.over_ms["20"]} / ${written.slices.over_ms["30"]} / ${written.slices.over_ms["50"]} of ${written.slices.slices}; the longest:`);
  for (const line of describeSlices(written.slices)) console.log(`    ${line}`);
  const inc = written.incremental;
  console.log(`incremental after ${inc.adds} adds: ${inc.write_ms} ms, longest step ${inc.longest_step_ms} ms · ${inc.written_mib} MiB in ${inc.parts_written} parts (${inc.parts_reused} kept)`);
  for (const [name, figures] of Object.entries(opened)) {
    console.log(`open from ${name.padEnd(10)} ${figures.open_ms} ms + first hybrid search ${figures.first_search_ms} ms (${figures.entries_replayed} entries replayed)`);
  }
}

/** Searches and memory of a store opened from its checkpoint in a fresh process, as a user's bridge runs it. */
export interface ReopenedFigures {
  /** Whether the vector rows and record texts were read from the checkpoint's parts or kept in memory (rowsInMemoryMax and textInMemoryMax Infinity). */
  rows: "paged" | "in_memory";
  open_ms: number;
  lexical: { p50_ms: number; p95_ms: number };
  dense: { p50_ms: number; p95_ms: number };
  hybrid: { p50_ms: number; p95_ms: number };
  /** After a full GC, once the searches ran. */
  rss_mib: number;
  heap_used_mib: number;
  /** Typed arrays and other memory outside the V8 heap (the codes, lists, BM25 postings, rows kept). */
  external_mib: number;
  rows_in_memory_mib: number;
  row_files: number;
  /** File reads during the hybrid searches: rows read back per search, and the mean time of every read (rows and texts). */
  row_reads: { per_hybrid: number; mean_us: number };
  /** Record texts read back per hybrid search, and the record parts they are read from. */
  text_reads: { per_hybrid: number; files: number };
}

const OPEN_CHILD_FLAG = "--open-child";

/**
 * Runs measureReopened in a child process of this very script (the same Node flags), so that the memory the
 * benchmark store held is not counted: `queries` are passed in a file beside the data directory.
 */
export function timeReopened(dataDir: string, queries: SyntheticQuery[], warmup: number, pageRows: boolean): ReopenedFigures {
  const file = `${dataDir}.queries.json`;
  fs.writeFileSync(file, JSON.stringify({ queries, warmup, pageRows }));
  try {
    const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1], OPEN_CHILD_FLAG, dataDir, file], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 24 });
    if (child.status !== 0) throw new Error(`bench: the re-open child exited with ${child.status ?? child.signal}`);
    return JSON.parse(child.stdout.trim().split("\n").pop()!) as ReopenedFigures;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** In the child: `argv` holds OPEN_CHILD_FLAG, the data directory and the queries file. Returns false when not the child. */
export function runReopenedChild(argv: string[]): boolean {
  const at = argv.indexOf(OPEN_CHILD_FLAG);
  if (at === -1) return false;
  const [dataDir, file] = [argv[at + 1], argv[at + 2]];
  const { queries, warmup, pageRows } = JSON.parse(fs.readFileSync(file, "utf8")) as { queries: SyntheticQuery[]; warmup: number; pageRows: boolean };
  console.log(JSON.stringify(measureReopened(dataDir, queries, warmup, pageRows)));
  return true;
}

function measureReopened(dataDir: string, queries: SyntheticQuery[], warmup: number, pageRows: boolean): ReopenedFigures {
  const started = performance.now();
  const store = MemoryStore.open({ dataDir, checkpointOnCloseBytes: Infinity, checkpoint: pageRows ? { rowsInMemoryMax: 0 } : { rowsInMemoryMax: Infinity, textInMemoryMax: Infinity } });
  const openMs = ms(started, performance.now());
  try {
    const embedding = (vector: number[]) => ({ provider: "bench", model: "synthetic-512", vector });
    const latencies = { lexical: [] as number[], dense: [] as number[], hybrid: [] as number[] };
    const time = (fn: () => void, samples: number[]) => {
      const at = performance.now();
      fn();
      samples.push(performance.now() - at);
    };
    // Every fs.readSync in the hybrid searches is a row or a text read back (receipts are written, not read).
    const reads = { count: 0, ms: 0, texts: 0 };
    const readSync = fs.readSync;
    const counted = ((...args: Parameters<typeof fs.readSync>) => {
      const at = performance.now();
      try {
        return readSync(...args);
      } finally {
        reads.ms += performance.now() - at;
        reads.count++;
      }
    }) as typeof fs.readSync;
    queries.forEach((q, i) => {
      const keep = i >= warmup;
      const lexical = parseSearchRequest({ query: q.text, top_k: 10 });
      const hybrid = parseSearchRequest({ query: q.text, top_k: 10, query_embedding: embedding(q.vector) });
      time(() => store.search(lexical), keep ? latencies.lexical : []);
      time(() => store.searchVector(hybrid.queryEmbedding!, 10), keep ? latencies.dense : []);
      fs.readSync = counted;
      const textsBefore = store.textFootprint().reads;
      try {
        time(() => store.search(hybrid), keep ? latencies.hybrid : []);
      } finally {
        fs.readSync = readSync;
        reads.texts += store.textFootprint().reads - textsBefore;
      }
    });
    const summary = (samples: number[]) => ({ p50_ms: percentile(samples, 50), p95_ms: percentile(samples, 95) });
    global.gc?.();
    const memory = process.memoryUsage();
    const rows = store.vectors.list().reduce((sum, space) => {
      const { memoryBytes, files } = space.index.rowFootprint();
      return { bytes: sum.bytes + memoryBytes, files: sum.files + files };
    }, { bytes: 0, files: 0 });
    const toMib = (bytes: number) => Math.round(bytes / 2 ** 20);
    return {
      rows: pageRows ? "paged" : "in_memory",
      open_ms: openMs,
      lexical: summary(latencies.lexical),
      dense: summary(latencies.dense),
      hybrid: summary(latencies.hybrid),
      rss_mib: toMib(memory.rss),
      heap_used_mib: toMib(memory.heapUsed),
      external_mib: toMib(memory.external),
      rows_in_memory_mib: toMib(rows.bytes),
      row_files: rows.files,
      row_reads: { per_hybrid: Math.round(((reads.count - reads.texts) / queries.length) * 10) / 10, mean_us: reads.count ? Math.round((reads.ms / reads.count) * 1000 * 10) / 10 : 0 },
      text_reads: { per_hybrid: Math.round((reads.texts / queries.length) * 10) / 10, files: store.textFootprint().files },
    };
  } finally {
    store.close();
  }
}

export function printReopenedFigures(figures: ReopenedFigures): void {
  const line = (mode: "lexical" | "dense" | "hybrid") => `${mode} ${figures[mode].p50_ms.toFixed(2)} / ${figures[mode].p95_ms.toFixed(2)}`;
  console.log(`re-opened (rows ${figures.rows}) in ${figures.open_ms} ms · p50 / p95 ms: ${line("lexical")}, ${line("dense")}, ${line("hybrid")}`);
  console.log(`  RSS ${figures.rss_mib} MiB (heap ${figures.heap_used_mib}, external ${figures.external_mib}; rows in memory ${figures.rows_in_memory_mib} MiB, ${figures.row_files} row files) · a hybrid search reads ${figures.row_reads.per_hybrid} rows and ${figures.text_reads.per_hybrid} texts (${figures.text_reads.files} record parts), ${figures.row_reads.mean_us} µs a read`);
}

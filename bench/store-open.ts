// Store start-up at scale (`npm run bench:search -- --records N --reopen`): times writing a checkpoint of
// the benchmark store, then open + first hybrid search from that checkpoint and from a full journal replay.
import fs from "node:fs";
import path from "node:path";
import { CHECKPOINT_SLICE_MS, MemoryStore } from "../bridge/store/memory-store";
import type { SearchRequest } from "../bridge/store/search";
import type { CheckpointWritten } from "../bridge/store/checkpoint";

export interface CheckpointFigures {
  /** The first checkpoint, written whole in steps of CHECKPOINT_SLICE_MS as the bridge writes it. */
  write_ms: number;
  longest_step_ms: number;
  steps: number;
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
export function timeCheckpoint(store: MemoryStore, extra: (i: number) => unknown): CheckpointFigures {
  let added = 0;
  const acks: number[] = [];
  const first = runInSteps(store, () => {
    const started = performance.now();
    store.add(extra(added++));
    acks.push(performance.now() - started);
  });
  for (let i = 0; i < INCREMENTAL_ADDS; i++) store.add(extra(added++));
  const next = runInSteps(store, () => undefined);
  acks.sort((a, b) => a - b);
  const at = (q: number) => Math.round(acks[Math.min(acks.length - 1, Math.floor(q * acks.length))] * 100) / 100;
  return {
    write_ms: first.ms,
    longest_step_ms: first.longest,
    steps: first.steps,
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

function runInSteps(store: MemoryStore, between: () => void): { ms: number; longest: number; steps: number; written: CheckpointWritten } {
  const started = performance.now();
  let longest = 0;
  let steps = 0;
  for (;;) {
    const stepStarted = performance.now();
    const outcome = store.checkpointInSteps(CHECKPOINT_SLICE_MS);
    longest = Math.max(longest, performance.now() - stepStarted);
    steps++;
    if (outcome) {
      if (!("parts_written" in outcome)) throw new Error(`bench: the checkpoint was not written (${JSON.stringify(outcome)})`);
      return { ms: ms(started, performance.now()), longest: Math.round(longest * 10) / 10, steps, written: outcome };
    }
    between();
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
  const inc = written.incremental;
  console.log(`incremental after ${inc.adds} adds: ${inc.write_ms} ms, longest step ${inc.longest_step_ms} ms · ${inc.written_mib} MiB in ${inc.parts_written} parts (${inc.parts_reused} kept)`);
  for (const [name, figures] of Object.entries(opened)) {
    console.log(`open from ${name.padEnd(10)} ${figures.open_ms} ms + first hybrid search ${figures.first_search_ms} ms (${figures.entries_replayed} entries replayed)`);
  }
}

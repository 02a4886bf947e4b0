// Store start-up at scale (`npm run bench:search -- --records N --reopen`): times writing a checkpoint of
// the benchmark store, then open + first hybrid search from that checkpoint and from a full journal replay.
import fs from "node:fs";
import path from "node:path";
import { MemoryStore } from "../bridge/store/memory-store";
import type { SearchRequest } from "../bridge/store/search";

export interface CheckpointFigures {
  write_ms: number;
  checkpoint_mib: number;
  journal_mib: number;
}

export interface OpenFigures {
  open_ms: number;
  first_search_ms: number;
  open_and_first_search_ms: number;
  checkpoint_used: boolean;
  entries_replayed: number;
}

const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const ms = (from: number, to: number) => Math.round((to - from) * 10) / 10;

export function timeCheckpoint(store: MemoryStore): CheckpointFigures {
  const started = performance.now();
  const written = store.checkpoint();
  const writeMs = ms(started, performance.now());
  if (!("bytes" in written)) throw new Error("bench: the store already had a current checkpoint, so nothing was timed");
  return { write_ms: writeMs, checkpoint_mib: mib(written.bytes), journal_mib: mib(store.journalEndOffset) };
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
  console.log(`checkpoint write ${written.write_ms} ms · ${written.checkpoint_mib} MiB (journal ${written.journal_mib} MiB)`);
  for (const [name, figures] of Object.entries(opened)) {
    console.log(`open from ${name.padEnd(10)} ${figures.open_ms} ms + first hybrid search ${figures.first_search_ms} ms (${figures.entries_replayed} entries replayed)`);
  }
}

// `npm run bench:compact -- --records N [--forget-percent P] [--blocking] [--json]`: builds a store of N
// synthetic memories with 512-d vectors through the real import path, forgets P % of them (default 1),
// and times the compaction that erases them, with the journal before and after and the process's peak
// RSS. By default it runs as the bridge runs it (in the background), with a search every 50 ms meanwhile
// whose latency is recorded (the store's longest pause is what a request can wait); `--blocking` runs
// the one-piece compaction (the CLI's, ending with a checkpoint), during which nothing is served.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MemoryStore } from "../bridge/store/memory-store";
import { parseSearchRequest } from "../bridge/store/search-request";
import { argValue, machineInfo, percentile } from "./stats";
import { SyntheticCorpus, syntheticBatches } from "./synthetic-corpus";

const IMPORT_BATCH = 5_000;
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

async function main(argv: string[]): Promise<void> {
  const records = argValue(argv, "records", 100_000);
  const forgetPercent = argValue(argv, "forget-percent", 1);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "dream-bench-compact-"));
  try {
    const store = MemoryStore.open({ dataDir, checkpointOnCloseBytes: Infinity });
    const corpus = new SyntheticCorpus();
    let imported = 0;
    for (const batch of syntheticBatches(corpus, records, 0, IMPORT_BATCH, [])) {
      store.importRecords(batch.map((record, j) => ({ id: record.id, text: record.text, source_type: "user_message", timestamp_ms: 1_700_000_000_000 + imported + j, embedding: { provider: "bench", model: "synthetic-512", vector: record.vector } })));
      imported += batch.length;
      process.stderr.write(`\ringested ${imported}/${records}`);
    }
    store.checkpoint();
    const step = Math.round(100 / forgetPercent);
    let forgotten = 0;
    for (let i = 0; i < records; i += step, forgotten++) store.forget(`syn-${i}`);
    process.stderr.write(`\nforgot ${forgotten}; compacting\n`);
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const blocking = argv.includes("--blocking");
    const searchMs: number[] = [];
    let searching = !blocking;
    // A user's recall meanwhile: one lexical search every 50 ms, timed from when it was due.
    const searches = (async () => {
      for (let i = 0; searching; i++) {
        const due = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 50));
        const asked = performance.now();
        store.search(parseSearchRequest({ query: `note ${i % 1000} garden`, top_k: 5 }));
        searchMs.push(performance.now() - asked + Math.max(0, asked - due - 50));
      }
    })();
    const started = performance.now();
    const report = blocking ? store.compact() : await store.compactInBackground();
    const compactMs = Math.round(performance.now() - started);
    searching = false;
    await searches;
    const figures = {
      machine: machineInfo(),
      mode: blocking ? "blocking" : "background",
      records,
      forgotten: report.erased,
      compact_ms: compactMs,
      longest_pause_ms: blocking ? compactMs : report.longest_pause_ms,
      searches_during: searchMs.length,
      search_wait_p95_ms: Math.round(percentile(searchMs, 95)),
      search_wait_max_ms: Math.round(Math.max(0, ...searchMs)),
      ...Object.fromEntries(Object.entries(report.phases_ms).map(([phase, ms]) => [`${phase}_ms`, ms])),
      journal_mib_before: mib(report.journal_bytes_before),
      journal_mib_after: mib(report.journal_bytes_after),
      rss_mib_before: mib(rssBefore),
      rss_mib_peak: mib(process.resourceUsage().maxRSS * 1024),
    };
    store.close();
    if (argv.includes("--json")) process.stdout.write(JSON.stringify(figures) + "\n");
    else console.table([figures].map(({ machine: _machine, ...rest }) => rest));
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

void main(process.argv.slice(2));

// `npm run bench:compact -- --records N [--forget-percent P] [--json]`: builds a store of N synthetic
// memories with 512-d vectors through the real import path, forgets P % of them (default 1), and times
// the compaction that erases them (journal rewrite, reload, checkpoint, receipts), with the journal
// before and after and the process's peak RSS. Searches and writes wait while it runs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MemoryStore } from "../bridge/store/memory-store";
import { argValue, machineInfo } from "./stats";
import { SyntheticCorpus, syntheticBatches } from "./synthetic-corpus";

const IMPORT_BATCH = 5_000;
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

function main(argv: string[]): void {
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
    const started = performance.now();
    const report = store.compact();
    const compactMs = Math.round(performance.now() - started);
    const figures = {
      machine: machineInfo(),
      records,
      forgotten: report.erased,
      compact_ms: compactMs,
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

main(process.argv.slice(2));

// `npm run bench:locomo -- FILE [--json]`: LoCoMo evidence recall through the real store
// (journal, BM25, conflicts, packing), one fresh store per conversation; plus query latency.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MemoryStore } from "../bridge/store/memory-store";
import { parseSearchRequest } from "../bridge/store/search-request";
import { addItem, emptyScores, loadConversations, toPercent, type RecallScores } from "./locomo-data";
import { machineInfo, percentile } from "./stats";

const CATEGORY_NAMES: Record<number, string> = { 1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop" };

function main(argv: string[]): void {
  const file = argv.find((a) => !a.startsWith("--"));
  if (!file) throw new Error("usage: npm run bench:locomo -- FILE [--json]");
  const conversations = loadConversations(JSON.parse(fs.readFileSync(file, "utf8")));
  const byCategory = new Map<number, RecallScores>();
  const overall = emptyScores();
  const latencies: number[] = [];
  let buildMs = 0;
  for (const conversation of conversations) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-locomo-"));
    const store = MemoryStore.open({ dataDir });
    try {
      const built = performance.now();
      store.importRecords(
        conversation.turns.map((t) => ({
          id: t.diaId,
          text: t.text,
          source_type: "user_message",
          timestamp_ms: t.timestampMs,
          session_id: `${conversation.sampleId}/session_${t.session}`,
          turn: t.turn,
        })),
      );
      buildMs += performance.now() - built;
      for (const item of conversation.items) {
        const started = performance.now();
        const { results } = store.search(parseSearchRequest({ query: item.question, top_k: 20 }));
        latencies.push(performance.now() - started);
        const ranked = results.map((r) => r.id);
        addItem(overall, item.evidence, ranked);
        if (!byCategory.has(item.category)) byCategory.set(item.category, emptyScores());
        addItem(byCategory.get(item.category)!, item.evidence, ranked);
      }
    } finally {
      store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const rows = [...byCategory.entries()].sort(([a], [b]) => a - b).map(([cat, s]) => ({ category: CATEGORY_NAMES[cat], ...toPercent(s) }));
  rows.push({ category: "all (1-4)", ...toPercent(overall) });
  const result = {
    benchmark: "locomo-evidence-recall",
    file: path.basename(file),
    mode: "lexical",
    conversations: conversations.length,
    rows,
    latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    import_ms: Math.round(buildMs),
    machine: machineInfo(),
  };
  printTable(result.rows);
  console.log(`query latency p50 ${result.latency_ms.p50.toFixed(2)} ms, p95 ${result.latency_ms.p95.toFixed(2)} ms; import ${result.import_ms} ms`);
  if (argv.includes("--json")) console.log(JSON.stringify(result));
}

function printTable(rows: Array<Record<string, string | number>>): void {
  const cols = ["category", "n", "ALL@5", "ALL@10", "ALL@20", "ANY@5", "ANY@10", "ANY@20", "FRAC@5", "FRAC@10", "FRAC@20"];
  console.log(`| ${cols.join(" | ")} |`);
  console.log(`| ${cols.map(() => "---").join(" | ")} |`);
  for (const row of rows) console.log(`| ${cols.map((c) => row[c]).join(" | ")} |`);
}

main(process.argv.slice(2));

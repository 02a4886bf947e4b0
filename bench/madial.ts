// `npm run bench:madial -- DIR [--json]`: MADial-Bench (Chinese) evidence recall and query latency for
// DSH-DREAM lexical and its peers, on the same memories and the same dialogue-context queries.
import fs from "node:fs";
import path from "node:path";
import { checkEvidence, loadDialogues, loadMemories } from "./madial-data";
import { ALL_ENGINES } from "./peer-engines";
import { HYBRID_NOT_MEASURED, printComparison, ratiosVsOurs, runEngines, type BenchGroup } from "./peer-run";
import { machineInfo } from "./stats";

// The data README's ad-hoc BM25 check, which the plain BM25 row should reproduce.
const README_BM25 = { "ALL@5": 31.3, "ANY@5": 75.0, "FRAC@5": 50.6, "ALL@10": 38.1, "ANY@10": 83.8, "FRAC@10": 60.6, "ALL@20": 55.6, "ANY@20": 90.0, "FRAC@20": 74.2 };

function main(argv: string[]): void {
  const dir = argv.find((a) => !a.startsWith("--"));
  if (!dir) throw new Error("usage: npm run bench:madial -- DIR [--json]");
  const memories = loadMemories(fs.readFileSync(path.join(dir, "MADial-Bench-zh-memory.json"), "utf8"));
  const dialogues = loadDialogues(fs.readFileSync(path.join(dir, "MADial-Bench-zh-dialogue.json"), "utf8"));
  checkEvidence(dialogues, memories);
  // One store (one index) per user: the README's candidates are that user's archive alone, and BM25
  // statistics in a shared store with one scope per user would span both archives (scopes only filter).
  const users = [...new Set(memories.map((m) => m.userId))].sort((a, b) => a - b);
  const groups: BenchGroup[] = users.map((user) => ({
    docs: memories.filter((m) => m.userId === user).map((m) => ({ id: m.id, text: m.event, timestampMs: Date.parse(m.time) || 0 })),
    queries: dialogues.filter((d) => d.userId === user).map((d) => ({ query: d.query, evidence: d.evidence, category: `user ${user}` })),
  }));
  const engines = runEngines(ALL_ENGINES, groups, "all");
  const plain = engines.find((e) => e.engine.startsWith("plain BM25"))!;
  const readmeDelta = Object.fromEntries(Object.entries(README_BM25).map(([m, v]) => [m, Math.round((plain.overall[m] - v) * 10) / 10]));
  console.log(`MADial-Bench zh: ${dialogues.length} dialogues, ${memories.length} memories of ${users.length} users (one index per user), top 20 per dialogue`);
  printComparison(engines);
  const matches = Object.values(readmeDelta).every((d) => d === 0);
  console.log(matches ? "plain BM25 reproduces the data README's table exactly." : `plain BM25 differs from the data README's table by ${JSON.stringify(readmeDelta)} (points).`);
  console.log(HYBRID_NOT_MEASURED);
  if (argv.includes("--json")) {
    const result = {
      benchmark: "madial-bench-zh-evidence-recall",
      dir: path.basename(path.resolve(dir)),
      date: new Date().toISOString(),
      dialogues: dialogues.length,
      memories: memories.length,
      engines,
      ratios_vs_dsh_dream: ratiosVsOurs(engines),
      plain_bm25_minus_readme: readmeDelta,
      hybrid: HYBRID_NOT_MEASURED,
      machine: machineInfo(),
    };
    console.log(JSON.stringify(result));
  }
}

main(process.argv.slice(2));

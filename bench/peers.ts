// `npm run bench:peers -- FILE [--json]`: LoCoMo dev evidence recall and query latency for DSH-DREAM
// lexical and its peers (MiniSearch, Orama, each default and with our terms; the README's plain BM25),
// side by side in one run on the same turns and the same questions.
import fs from "node:fs";
import path from "node:path";
import { loadConversations } from "./locomo-data";
import { ALL_ENGINES } from "./peer-engines";
import { HYBRID_NOT_MEASURED, printComparison, ratiosVsOurs, runEngines, type BenchGroup } from "./peer-run";
import { machineInfo } from "./stats";

const CATEGORY_NAMES: Record<number, string> = { 1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop" };

function main(argv: string[]): void {
  const file = argv.find((a) => !a.startsWith("--"));
  if (!file) throw new Error("usage: npm run bench:peers -- FILE [--json]");
  const conversations = loadConversations(JSON.parse(fs.readFileSync(file, "utf8")));
  const groups: BenchGroup[] = conversations.map((c) => ({
    docs: c.turns.map((t) => ({ id: t.diaId, text: t.text, timestampMs: t.timestampMs, sessionId: `${c.sampleId}/session_${t.session}`, turn: t.turn })),
    queries: c.items.map((item) => ({ query: item.question, evidence: item.evidence, category: CATEGORY_NAMES[item.category] })),
  }));
  const engines = runEngines(ALL_ENGINES, groups, "all (1-4)");
  console.log(`LoCoMo ${path.basename(file)}: ${conversations.length} conversations, ${groups.reduce((n, g) => n + g.docs.length, 0)} turns, top 20 per question`);
  printComparison(engines);
  console.log(HYBRID_NOT_MEASURED);
  if (argv.includes("--json")) {
    const result = {
      benchmark: "locomo-evidence-recall-peers",
      file: path.basename(file),
      date: new Date().toISOString(),
      conversations: conversations.length,
      engines,
      ratios_vs_dsh_dream: ratiosVsOurs(engines),
      hybrid: HYBRID_NOT_MEASURED,
      machine: machineInfo(),
    };
    console.log(JSON.stringify(result));
  }
}

main(process.argv.slice(2));

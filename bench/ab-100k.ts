// `npm run bench:ab -- [--records 100000] [--json]`: the seed's 100k A/B on input tokens. A 100k-memory
// daily-trivia history holds three facts about the blue mug and two about the keys, far apart.
// A0 sends the model the whole history truncated to its newest 1,000,000 tokens; B sends what the
// plugin's recall adds (RRF + exact Flat retrieval, top 5, within recall.maxTokens) — the same
// message the DSH plugin injects. Tokens are counted with one rule for both
// (plugin/recall/token-count.ts). No model is called: answer quality is judged by whether every
// evidence memory is in the context the model would get.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MemoryStore } from "../bridge/store/memory-store";
import { parseSearchRequest } from "../bridge/store/search-request";
import { anchorVersion, buildContextMessage } from "../plugin/recall/context-message";
import { detectIntent } from "../plugin/recall/intent";
import { estimateTokens } from "../plugin/recall/token-count";
import { DEFAULT_CONFIG } from "../plugin/config";
import { makeTrivia } from "../test/fixtures/trivia";
import { machineInfo, percentile } from "./stats";

const A0_WINDOW_TOKENS = 1_000_000;
const START_MS = Date.UTC(2025, 0, 1);
const MINUTE_MS = 60_000;

/** The facts, at fixed fractions of the history; the rest is ordinary trivia that never states them. */
const FACTS = [
  { at: 0.25, id: "fact-mug-1", text: "今天在星巴克买了一个蓝色马克杯，杯身有白色的星星。" },
  { at: 0.3, id: "fact-keys-1", text: "我把家里的钥匙放在鞋柜最上面一层了。" },
  { at: 0.5, id: "fact-mug-2", text: "洗碗的时候不小心把蓝色马克杯摔碎了。" },
  { at: 0.75, id: "fact-mug-3", text: "又去星巴克买了一个一模一样的蓝色马克杯作为替代。" },
  { at: 0.8, id: "fact-keys-2", text: "鞋柜太满了，我把钥匙挪到了玄关的花盆里。" },
];

const QUESTIONS = [
  { question: "我的蓝色马克杯后来怎么样了？", evidence: ["fact-mug-1", "fact-mug-2", "fact-mug-3"] },
  { question: "钥匙现在在哪里？", evidence: ["fact-keys-2"] },
  { question: "我最早是在哪里买的蓝色马克杯？", evidence: ["fact-mug-1"] },
];

function history(records: number): Array<{ id: string; text: string; timestamp_ms: number }> {
  const trivia = makeTrivia(records - FACTS.length, 2026);
  const factAt = new Map(FACTS.map((f) => [Math.floor(f.at * records), f]));
  const out = [];
  let t = 0;
  for (let i = 0; i < records; i++) {
    const fact = factAt.get(i);
    out.push(fact ? { id: fact.id, text: fact.text, timestamp_ms: START_MS + i * MINUTE_MS } : { id: `trivia-${i}`, text: trivia[t++]!, timestamp_ms: START_MS + i * MINUTE_MS });
  }
  return out;
}

/** A0's context: the newest memories that fit in the window, oldest first, as a transcript. */
function truncatedHistory(memories: Array<{ id: string; text: string }>, question: string): { tokens: number; ids: Set<string> } {
  let tokens = estimateTokens(question);
  const ids = new Set<string>();
  for (let i = memories.length - 1; i >= 0; i--) {
    const line = estimateTokens(memories[i]!.text) + 1; // one token for the line break
    if (tokens + line > A0_WINDOW_TOKENS) break;
    tokens += line;
    ids.add(memories[i]!.id);
  }
  return { tokens, ids };
}

async function main(argv: string[]): Promise<void> {
  const at = argv.indexOf("--records");
  const records = at === -1 ? 100_000 : Number(argv[at + 1]);
  if (!Number.isInteger(records) || records < 1000) throw new Error("--records must be an integer of at least 1000");
  const memories = history(records);
  const fullTokens = memories.reduce((sum, m) => sum + estimateTokens(m.text) + 1, 0);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-ab-"));
  const store = MemoryStore.open({ dataDir });
  try {
    for (let i = 0; i < memories.length; i += 5000) {
      store.importRecords(memories.slice(i, i + 5000).map((m) => ({ ...m, source_type: "user_message" })));
    }
    const rows = QUESTIONS.map(({ question, evidence }) => {
      const a0 = truncatedHistory(memories, question);
      const intent = detectIntent(question);
      const started = performance.now();
      const { results } = store.search(parseSearchRequest({ query: question, top_k: DEFAULT_CONFIG.recall.topK, timeline: intent === "timeline" }));
      const searchMs = performance.now() - started;
      const message = buildContextMessage({ anchors: [], memories: results, intent, maxTokens: DEFAULT_CONFIG.recall.maxTokens })!;
      const bTokens = estimateTokens(question) + estimateTokens(message.text);
      return {
        question,
        intent,
        a0_tokens: a0.tokens,
        a0_evidence_in_context: evidence.every((id) => a0.ids.has(id)),
        b_tokens: bTokens,
        b_evidence_in_context: evidence.every((id) => message.injectedIds.includes(id)),
        b_search_ms: searchMs,
        ratio: bTokens / a0.tokens,
      };
    });
    const a0Total = rows.reduce((s, r) => s + r.a0_tokens, 0);
    const bTotal = rows.reduce((s, r) => s + r.b_tokens, 0);
    const result = {
      benchmark: "ab-100k",
      records,
      history_tokens: fullTokens,
      a0_window_tokens: A0_WINDOW_TOKENS,
      token_rule: "plugin/recall/token-count.ts: 1 per CJK character, 1 per 4 other characters per run",
      anchors: anchorVersion([]),
      questions: rows,
      a0_input_tokens: a0Total,
      b_input_tokens: bTotal,
      b_over_a0: bTotal / a0Total,
      a0_evidence_in_context: rows.filter((r) => r.a0_evidence_in_context).length,
      b_evidence_in_context: rows.filter((r) => r.b_evidence_in_context).length,
      b_search_ms_p50: percentile(rows.map((r) => r.b_search_ms), 50),
      machine: machineInfo(),
    };
    console.log(`history: ${records} memories, ${fullTokens} tokens; A0 keeps the newest ${A0_WINDOW_TOKENS} tokens`);
    for (const r of rows) {
      console.log(`${r.question}  [${r.intent}]  A0 ${r.a0_tokens} tokens, evidence ${r.a0_evidence_in_context ? "in" : "NOT in"} context · B ${r.b_tokens} tokens, evidence ${r.b_evidence_in_context ? "in" : "NOT in"} context (search ${r.b_search_ms.toFixed(1)} ms)`);
    }
    console.log(`input tokens: A0 ${a0Total}, B ${bTotal}: B/A0 = 1/${Math.round(a0Total / bTotal)}; evidence in context: A0 ${result.a0_evidence_in_context}/3, B ${result.b_evidence_in_context}/3`);
    if (argv.includes("--json")) console.log(JSON.stringify(result));
  } finally {
    store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

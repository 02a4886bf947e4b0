// `npm run bench:redact -- [DATA_DIR] [--rounds N] [--json]`: the cost of secret redaction per captured turn
// on LoCoMo dev and MADial-Bench zh texts (no secrets: the common case) and on generated fake secrets, plus
// how many natural texts it changed (each one a false positive).
import path from "node:path";
import { redactSecrets } from "../bridge/store/redact";
import { generateFakeSecrets } from "../test/fixtures/fake-secrets";
import { defaultDataDir, loadNaturalCorpora, type NaturalCorpus } from "./redact-corpora";
import { argValue, machineInfo, percentile } from "./stats";

const FAKE_SEED = 20_261_202;
const FAKE_PER_KIND = 40;
const REPEATS_PER_TEXT = 20;

interface CostRow {
  corpus: string;
  texts: number;
  mean_chars: number;
  changed: number;
  mean_us: number;
  p50_us: number;
  p99_us: number;
}

/** Mean over whole rounds (no timer overhead per call), and per-text percentiles from repeated calls. */
function measure(corpus: NaturalCorpus, rounds: number): CostRow {
  const { texts } = corpus;
  for (const t of texts) redactSecrets(t);
  const started = performance.now();
  for (let r = 0; r < rounds; r++) for (const t of texts) redactSecrets(t);
  const meanUs = ((performance.now() - started) * 1000) / (rounds * texts.length);
  const perText = texts.map((t) => {
    const at = performance.now();
    for (let i = 0; i < REPEATS_PER_TEXT; i++) redactSecrets(t);
    return ((performance.now() - at) * 1000) / REPEATS_PER_TEXT;
  });
  return {
    corpus: corpus.name,
    texts: texts.length,
    mean_chars: Math.round(texts.reduce((n, t) => n + t.length, 0) / texts.length),
    changed: texts.filter((t) => redactSecrets(t).text !== t).length,
    mean_us: Math.round(meanUs * 100) / 100,
    p50_us: percentile(perText, 50),
    p99_us: percentile(perText, 99),
  };
}

function main(argv: string[]): void {
  const dataDir = argv.find((a) => !a.startsWith("--") && !/^\d+$/.test(a)) ?? defaultDataDir(path.resolve(__dirname, ".."));
  const rounds = argValue(argv, "rounds", 20);
  const fake = generateFakeSecrets(FAKE_SEED, FAKE_PER_KIND);
  const corpora = [...loadNaturalCorpora(dataDir), { name: "generated fake secrets", texts: fake.map((c) => c.text) }];
  const rows = corpora.map((c) => measure(c, rounds));
  console.log(`secret redaction cost per captured turn (${rounds} rounds; data ${dataDir})`);
  console.table(rows);
  if (argv.includes("--json")) {
    console.log(JSON.stringify({ benchmark: "redact-cost", date: new Date().toISOString(), machine: machineInfo(), rounds, fake_seed: FAKE_SEED, rows }, null, 2));
  }
}

main(process.argv.slice(2));

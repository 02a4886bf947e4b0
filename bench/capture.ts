// `npm run bench:capture -- --turns N [--seed S] [--no-vectors] [--dev-set N] [--json]`: "latest" recall on a
// generated year of holographic capture (bench/capture-history.ts) through the real store: latest@1,
// false supersessions, timeline completeness and order, per template half, slot kind and change count.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MemoryStore } from "../bridge/store/memory-store";
import { parseSearchRequest } from "../bridge/store/search-request";
import { generateCaptureHistory, type CaptureHistory, type PlantedState } from "./capture-history";
import { corpusSummary, failureBreakdown, latestRows, printBreakdown, printTable, timelineRows, type LatestCase, type Mode, type TimelineCase } from "./capture-report";
import { judgeConflict, scoreLatest, scoreTimeline, type ConflictLike, type ConflictVerdict, type ResultLike } from "./capture-scoring";
import { DEV_SETS } from "./capture-templates-dev";
import { embedding, HASHING_DIM } from "./hashing-embedder";
import { argValue, machineInfo, percentile } from "./stats";

const IMPORT_BATCH = 2000;
const WARMUP = 10;
const MAX_EXAMPLES = 10;
const VECTOR_NOTE = `hybrid vectors are a ${HASHING_DIM}-d hashing projection (CJK bigrams + words), not a real embedding model`;

interface SearchOutcome {
  results: ResultLike[];
  conflicts: ConflictLike[];
  ms: number;
}

function main(argv: string[]): void {
  const turns = argValue(argv, "turns", 20_000);
  const seed = argValue(argv, "seed", 20_250_101);
  const modes: Mode[] = argv.includes("--no-vectors") ? ["lexical"] : ["lexical", "hybrid"];
  const generateStarted = performance.now();
  const devSet = argv.includes("--dev-set") ? argValue(argv, "dev-set", 1) : undefined;
  if (devSet !== undefined && DEV_SETS[devSet - 1] === undefined) throw new Error(`--dev-set must be 1 to ${DEV_SETS.length}`);
  const history = generateCaptureHistory({ turns, seed, ...(devSet !== undefined ? { templates: { tuning: DEV_SETS[devSet - 1] } } : {}) });
  if (devSet !== undefined) console.log(`note: the tuning half is planted with dev set ${devSet} (bench/capture-templates-dev.ts)`);
  const generateSeconds = (performance.now() - generateStarted) / 1000;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-capture-"));
  const store = MemoryStore.open({ dataDir, checkpointOnCloseBytes: Infinity });
  try {
    const ingestSeconds = ingest(store, history, modes.includes("hybrid"));
    global.gc?.();
    const search = (query: string, mode: Mode, timeline: boolean): SearchOutcome => {
      // The query vector is made before the clock starts: embedding time is not search time.
      const request = parseSearchRequest({ query, top_k: 10, timeline, ...(mode === "hybrid" ? { query_embedding: embedding(query) } : {}) });
      const started = performance.now();
      const { results, receipt } = store.search(request);
      return { results, conflicts: receipt.conflicts, ms: performance.now() - started };
    };
    for (const state of history.states.slice(0, WARMUP)) for (const mode of modes) search(state.latestQuery, mode, false);
    const { latest, examples, timed } = runLatest(history, modes, search);
    const timeline = runTimeline(history, modes, search);
    report({ history, modes, latest, timeline, examples, timed, ingestSeconds, generateSeconds, json: argv.includes("--json") });
  } finally {
    store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Imports in batches through the real import path; only importRecords is timed (not generation or vectors). */
function ingest(store: MemoryStore, history: CaptureHistory, vectors: boolean): number {
  let seconds = 0;
  for (let start = 0; start < history.records.length; start += IMPORT_BATCH) {
    const batch = history.records.slice(start, start + IMPORT_BATCH).map((r) => (vectors ? { ...r, embedding: embedding(r.text) } : r));
    const started = performance.now();
    const report = store.importRecords(batch);
    seconds += (performance.now() - started) / 1000;
    if (report.rejected.length > 0) throw new Error(`import rejected ${report.rejected.length} records, first: ${report.rejected[0].message}`);
    process.stderr.write(`\ringested ${Math.min(start + IMPORT_BATCH, history.records.length)}/${history.records.length}`);
  }
  process.stderr.write("\n");
  return seconds;
}

type Search = (query: string, mode: Mode, timeline: boolean) => SearchOutcome;

interface Examples {
  misses: Set<string>;
  supersessions: Set<string>;
}

function runLatest(history: CaptureHistory, modes: Mode[], search: Search): { latest: LatestCase[]; examples: string[]; timed: Record<Mode, number[]> } {
  const examples: Examples = { misses: new Set(), supersessions: new Set() };
  const timed: Record<Mode, number[]> = { lexical: [], hybrid: [] };
  const latest = history.states.map((state): LatestCase => {
    const c: LatestCase = { state, outcome: {}, falseVerdicts: {} };
    for (const mode of modes) {
      const { results, conflicts, ms } = search(state.latestQuery, mode, false);
      timed[mode].push(ms);
      c.outcome[mode] = scoreLatest(state, results, history.truth);
      const verdicts = conflicts.map((conflict) => ({ conflict, verdict: judgeConflict(conflict, history.truth) }));
      c.falseVerdicts[mode] = verdicts.flatMap(({ verdict }) => (verdict.scored && !verdict.legit ? [verdict] : []));
      if (mode === "lexical" && state.half === "tuning" && !state.near) collectExamples(examples, history, state, c.outcome[mode]!, results, verdicts);
    }
    return c;
  });
  return { latest, examples: [...examples.misses, ...examples.supersessions], timed };
}

/** Distinct tuning-half failures as text, half of MAX_EXAMPLES of each sort; a held-out record is named, never quoted. */
function collectExamples(out: Examples, history: CaptureHistory, state: PlantedState, outcome: string, results: ResultLike[], verdicts: Array<{ conflict: ConflictLike; verdict: ConflictVerdict }>): void {
  const quote = (id: string) => {
    const t = history.truth.get(id);
    return t === undefined ? `[unknown ${id}]` : t.heldOut ? "[a held-out record]" : JSON.stringify(t.text);
  };
  const room = MAX_EXAMPLES / 2;
  if (outcome !== "hit" && out.misses.size < room) {
    const expected = quote(state.statementIds[state.statementIds.length - 1]);
    out.misses.add(`latest@1 miss (${outcome}): ${JSON.stringify(state.latestQuery)} → ${results[0] ? quote(results[0].id) : "nothing"}; last change ${expected}`);
  }
  for (const { conflict, verdict } of verdicts) {
    if (out.supersessions.size >= room || !verdict.scored || verdict.legit) continue;
    out.supersessions.add(`false supersession (${verdict.superseder}): ${quote(conflict.id)} hidden by ${quote(conflict.superseded_by)}`);
  }
}

function runTimeline(history: CaptureHistory, modes: Mode[], search: Search): TimelineCase[] {
  const cases: TimelineCase[] = [];
  const run = (subject: TimelineCase["subject"], query: string, expected: string[]) => {
    const c: TimelineCase = { subject, score: {} };
    for (const mode of modes) c.score[mode] = scoreTimeline(expected, search(query, mode, true).results, history.truth);
    cases.push(c);
  };
  for (const state of history.states) if (state.timelineQuery) run({ kind: "state", state }, state.timelineQuery, state.statementIds);
  for (const sequence of history.sequences) run({ kind: "sequence", sequence }, sequence.timelineQuery, sequence.stepIds);
  return cases;
}

interface ReportInput {
  history: CaptureHistory;
  modes: Mode[];
  latest: LatestCase[];
  timeline: TimelineCase[];
  examples: string[];
  timed: Record<Mode, number[]>;
  ingestSeconds: number;
  generateSeconds: number;
  json: boolean;
}

function report(input: ReportInput): void {
  const { history, modes, latest, timeline, timed } = input;
  const latency = Object.fromEntries(modes.map((m) => [m, { p50_ms: percentile(timed[m], 50), p95_ms: percentile(timed[m], 95), queries: timed[m].length }]));
  const result = {
    benchmark: "capture-latest",
    turns: history.turns,
    seed: history.seed,
    modes,
    vectors: modes.includes("hybrid") ? VECTOR_NOTE : null,
    corpus: corpusSummary(history.states, history.sequences, history.records.length),
    latest: latestRows(latest, modes),
    timeline: timelineRows(timeline, modes),
    failures: failureBreakdown(latest, modes),
    examples_tuning: input.examples,
    latency_ms: latency,
    ingest_records_per_s: Math.round(history.records.length / input.ingestSeconds),
    generate_s: Math.round(input.generateSeconds * 10) / 10,
    peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    machine: machineInfo(),
  };
  console.log(`capture benchmark: ${history.turns} turns (${history.records.length} records), seed ${history.seed}, top_k 10`);
  if (result.vectors) console.log(`note: ${result.vectors}`);
  printTable("Corpus", [result.corpus]);
  printTable("latest@1 (%) and false supersessions (count), latest mode", result.latest);
  printTable("Timeline completeness and order (%), timeline mode", result.timeline);
  printBreakdown(result.failures);
  if (input.examples.length > 0) console.log(`\nTuning-half failure examples (lexical):\n${input.examples.map((e) => `  - ${e}`).join("\n")}`);
  console.log("");
  for (const mode of modes) console.log(`${mode.padEnd(8)} latest-mode query p50 ${latency[mode].p50_ms.toFixed(2)} ms  p95 ${latency[mode].p95_ms.toFixed(2)} ms  (${latency[mode].queries} queries)`);
  console.log(`ingest ${result.ingest_records_per_s} records/s · generation ${result.generate_s} s · peak RSS ${result.peak_rss_mib} MiB`);
  console.log(`machine ${JSON.stringify(result.machine)}`);
  if (input.json) console.log(JSON.stringify(result));
}

main(process.argv.slice(2));

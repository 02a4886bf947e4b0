// Aggregation and printing for the capture benchmark: per-query outcomes folded into rows by
// template half, slot kind, change-count bucket and near-subject pairs, as tables and as JSON.
import type { ActionSequence, PlantedState } from "./capture-history";
import { BUCKETS } from "./capture-plan";
import type { ConflictVerdict, LatestOutcome, TimelineScore } from "./capture-scoring";
import { HALVES, type Half } from "./capture-templates";

export type Mode = "lexical" | "hybrid";

export interface LatestCase {
  state: PlantedState;
  outcome: Partial<Record<Mode, LatestOutcome>>;
  /** The false verdicts among this query's receipt conflicts. */
  falseVerdicts: Partial<Record<Mode, Array<Extract<ConflictVerdict, { legit: false }>>>>;
}

export interface TimelineCase {
  subject: { kind: "state"; state: PlantedState } | { kind: "sequence"; sequence: ActionSequence };
  score: Partial<Record<Mode, TimelineScore>>;
}

type Row = Record<string, string | number | null>;

const HALF_LABEL: Record<Half, string> = { tuning: "tuning", heldout: "held-out" };
const KINDS = ["location", "schedule", "preference", "residence", "contact", "quantity"] as const;

function latestGroups(state: PlantedState): string[] {
  const half = HALF_LABEL[state.half];
  if (state.near) return [`near-subject / ${half}`];
  return [half, `${state.kind} / ${half}`, `changes ${state.bucket} / ${half}`];
}

const LATEST_ORDER = [
  ...HALVES.map((h) => HALF_LABEL[h]),
  ...KINDS.flatMap((k) => HALVES.map((h) => `${k} / ${HALF_LABEL[h]}`)),
  ...BUCKETS.flatMap((b) => HALVES.map((h) => `changes ${b} / ${HALF_LABEL[h]}`)),
  ...HALVES.map((h) => `near-subject / ${HALF_LABEL[h]}`),
];

const pct = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((1000 * part) / whole) / 10);

export function latestRows(cases: LatestCase[], modes: Mode[]): Row[] {
  const groups = new Map<string, LatestCase[]>();
  for (const c of cases) for (const g of latestGroups(c.state)) groups.set(g, [...(groups.get(g) ?? []), c]);
  return LATEST_ORDER.filter((g) => groups.has(g)).map((group) => {
    const members = groups.get(group)!;
    const row: Row = { group, n: members.length };
    for (const mode of modes) {
      row[`${mode}_latest_at_1_pct`] = pct(members.filter((c) => c.outcome[mode] === "hit").length, members.length);
      row[`${mode}_false_supersessions`] = members.reduce((sum, c) => sum + (c.falseVerdicts[mode]?.length ?? 0), 0);
    }
    return row;
  });
}

/** Per mode and half (near pairs apart): why the first result was not a hit, and what falsely superseded planted statements. */
export function failureBreakdown(cases: LatestCase[], modes: Mode[]): Record<string, Record<string, Record<string, number>>> {
  const groups = [false, true].flatMap((near) => HALVES.map((half) => ({ near, half, label: `${near ? "near-subject / " : ""}${HALF_LABEL[half]}` })));
  const out: Record<string, Record<string, Record<string, number>>> = {};
  for (const mode of modes) {
    for (const { near, half, label } of groups) {
      const misses: Record<string, number> = {};
      const supersessions: Record<string, number> = {};
      for (const c of cases.filter((c) => c.state.half === half && c.state.near === near)) {
        const outcome = c.outcome[mode];
        if (outcome && outcome !== "hit") misses[outcome] = (misses[outcome] ?? 0) + 1;
        for (const v of c.falseVerdicts[mode] ?? []) supersessions[v.superseder] = (supersessions[v.superseder] ?? 0) + 1;
      }
      out[`${mode} / ${label}`] = { latest_misses: misses, false_supersessions_by_superseder: supersessions };
    }
  }
  return out;
}

function timelineGroup(c: TimelineCase): string {
  if (c.subject.kind === "sequence") return `sequences / ${HALF_LABEL[c.subject.sequence.half]}`;
  const { state } = c.subject;
  return `${state.near ? "near-subject states" : "states (≤5 changes)"} / ${HALF_LABEL[state.half]}`;
}

export function timelineRows(cases: TimelineCase[], modes: Mode[]): Row[] {
  const groups = new Map<string, TimelineCase[]>();
  for (const c of cases) groups.set(timelineGroup(c), [...(groups.get(timelineGroup(c)) ?? []), c]);
  const order = ["states (≤5 changes)", "sequences", "near-subject states"].flatMap((g) => HALVES.map((h) => `${g} / ${HALF_LABEL[h]}`));
  return order.filter((g) => groups.has(g)).map((group) => {
    const members = groups.get(group)!;
    const row: Row = { group, n: members.length };
    for (const mode of modes) {
      const scores = members.map((c) => c.score[mode]!);
      const assessable = scores.filter((s) => s.inOrder !== undefined);
      row[`${mode}_complete_pct`] = pct(scores.filter((s) => s.complete).length, scores.length);
      row[`${mode}_in_order_pct`] = pct(assessable.filter((s) => s.inOrder).length, assessable.length);
      row[`${mode}_order_assessable`] = assessable.length;
    }
    return row;
  });
}

export function printTable(title: string, rows: Row[]): void {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]);
  const cell = (v: string | number | null | undefined) => (v === null || v === undefined ? "–" : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  console.log(`\n${title}`);
  console.log(`| ${cols.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`);
  console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
  for (const r of rows) console.log(`| ${cols.map((c, i) => cell(r[c]).padEnd(widths[i])).join(" | ")} |`);
}

export function printBreakdown(breakdown: ReturnType<typeof failureBreakdown>): void {
  console.log("\nWhy latest@1 missed, and what falsely superseded planted statements (counts):");
  for (const [key, { latest_misses, false_supersessions_by_superseder }] of Object.entries(breakdown)) {
    const list = (counts: Record<string, number>) =>
      Object.entries(counts)
        .sort(([, a], [, b]) => b - a)
        .map(([k, n]) => `${k} ${n}`)
        .join(", ") || "none";
    console.log(`  ${key}: misses — ${list(latest_misses)}; false supersessions — ${list(false_supersessions_by_superseder)}`);
  }
}

/** Counts describing the generated corpus, so two runs can be checked to be the same data. */
export function corpusSummary(states: PlantedState[], sequences: ActionSequence[], records: number): Row {
  const count = (pred: (s: PlantedState) => boolean) => states.filter(pred).length;
  const row: Row = {
    records,
    planted_states: states.length,
    near_subject_states: count((s) => s.near),
    statements: states.reduce((sum, s) => sum + s.statementIds.length, 0),
    questions: states.reduce((sum, s) => sum + s.questions, 0),
    action_sequences: sequences.length,
    action_steps: sequences.reduce((sum, s) => sum + s.stepIds.length, 0),
  };
  for (const half of HALVES) row[`states_${half}`] = count((s) => s.half === half && !s.near);
  for (const bucket of BUCKETS) row[`states_changes_${bucket}`] = count((s) => s.bucket === bucket && !s.near);
  return row;
}

// What the capture benchmark plants before any text is written: which subjects get a state, in
// which template half, how many times each changes and to which values, how often each is asked
// about, and the action sequences. Scales with the number of turns; one seed, one plan.
import { HELDOUT_TEMPLATES } from "./capture-templates-heldout";
import { TUNING_TEMPLATES } from "./capture-templates-tuning";
import { HALVES, LANGS, type Half, type Lang, type TemplateHalf } from "./capture-templates";
import { nearPairSubjects, subjectCatalogue, type SubjectSpec, type ValueOption } from "./capture-subjects";
import * as P from "./capture-pools";
import type { SeededRandom } from "./seeded-random";

export const TEMPLATES: Record<Half, TemplateHalf> = { tuning: TUNING_TEMPLATES, heldout: HELDOUT_TEMPLATES };

export type ChangeBucket = "2-3" | "5-10" | "30" | "100+";
export const BUCKETS: readonly ChangeBucket[] = ["2-3", "5-10", "30", "100+"];

export interface PlannedState {
  id: string;
  spec: SubjectSpec;
  half: Half;
  /** One of a deliberate near-subject pair, reported apart from the rest. */
  near: boolean;
  changes: number;
  /** changes + 1 values: the first statement, then each change; neighbours always differ. */
  values: ValueOption[];
  questions: number;
}

export interface PlannedSequence {
  id: string;
  lang: Lang;
  half: Half;
  object: string;
  steps: string[];
}

const LIGHT_CHANGES = [2, 3, 5, 10, 30];
const LIGHT_WEIGHTS = [4, 4, 3, 2, 1];
const HEAVY_CHANGES = [500, 300, 100];

export function changeBucket(changes: number): ChangeBucket {
  if (changes <= 3) return "2-3";
  if (changes <= 10) return "5-10";
  if (changes <= 30) return "30";
  return "100+";
}

/**
 * Heavy subjects (100–500 changes) once per half, twice from 60,000 turns, each only when it
 * fits in 3% of the turns; then about one light subject (2–30 changes) per 120 turns, every
 * light count present in each half first, within 12% of the turns; then the near pairs.
 */
export function planStates(rng: SeededRandom, turns: number): PlannedState[] {
  const queues = halfQueues(rng);
  const states: PlannedState[] = [];
  const add = (spec: SubjectSpec, half: Half, changes: number, near = false) => {
    states.push({ id: `state-${states.length}`, spec, half, near, changes, values: valueSequence(rng, spec, changes), questions: 0 });
  };
  const heavySets = turns >= 60_000 ? 2 : 1;
  for (let set = 0; set < heavySets; set++) {
    for (const changes of HEAVY_CHANGES) {
      for (const half of HALVES) if (changes + 1 <= 0.03 * turns && queues[half].length > 0) add(queues[half].shift()!, half, changes);
    }
  }
  let budget = Math.floor(0.12 * turns);
  const wanted = Math.max(8, Math.round(turns / 120));
  for (let i = 0; i < wanted && budget > 0; i++) {
    const half = HALVES[i % 2];
    if (queues[half].length === 0) continue;
    const preferred = i < 2 * LIGHT_CHANGES.length ? LIGHT_CHANGES[Math.floor(i / 2)] : weightedChanges(rng);
    const changes = Math.min(preferred, budget - 1);
    if (changes < 2) break;
    add(queues[half].shift()!, half, changes);
    budget -= changes + 1;
  }
  for (const lang of LANGS) {
    for (const half of HALVES) for (const spec of nearPairSubjects(lang, half)) add(spec, half, rng.pick([2, 3, 5, 10]), true);
  }
  assignQuestions(rng, states, Math.floor(0.12 * turns));
  return states;
}

/** Per half, the catalogue in round-robin order over (language, kind), so any prefix is balanced. */
function halfQueues(rng: SeededRandom): Record<Half, SubjectSpec[]> {
  const cells = new Map<string, SubjectSpec[]>();
  for (const lang of LANGS) {
    const byFamily = new Map<string, SubjectSpec[]>();
    for (const spec of subjectCatalogue(lang, rng)) byFamily.set(spec.family, [...(byFamily.get(spec.family) ?? []), spec]);
    for (const specs of byFamily.values()) {
      const first = rng.int(0, 1);
      rng.shuffle(specs).forEach((spec, i) => {
        const key = `${HALVES[(i + first) % 2]}/${lang}/${spec.kind}`;
        cells.set(key, [...(cells.get(key) ?? []), spec]);
      });
    }
  }
  const queues: Record<Half, SubjectSpec[]> = { tuning: [], heldout: [] };
  for (const half of HALVES) {
    const own = rng.shuffle([...cells.entries()].filter(([key]) => key.startsWith(`${half}/`)).map(([, specs]) => rng.shuffle(specs)));
    for (let round = 0; own.some((specs) => round < specs.length); round++) {
      for (const specs of own) if (round < specs.length) queues[half].push(specs[round]);
    }
  }
  return queues;
}

function weightedChanges(rng: SeededRandom): number {
  let roll = rng.next() * LIGHT_WEIGHTS.reduce((a, b) => a + b, 0);
  for (let i = 0; i < LIGHT_CHANGES.length; i++) {
    roll -= LIGHT_WEIGHTS[i];
    if (roll < 0) return LIGHT_CHANGES[i];
  }
  return LIGHT_CHANGES[0];
}

/** A small per-subject pool (4–8 values), so long histories revisit earlier values (A→B→A). */
function valueSequence(rng: SeededRandom, spec: SubjectSpec, changes: number): ValueOption[] {
  const pool = rng.shuffle(spec.values).slice(0, rng.int(4, 8));
  const out = [rng.pick(pool)];
  for (let i = 0; i < changes; i++) out.push(rng.pickOther(pool, out[out.length - 1]));
  return out;
}

/** Most subjects are asked about 0–4 times, one in ten dozens of times, heavy ones once per 5 changes. */
function assignQuestions(rng: SeededRandom, states: PlannedState[], cap: number): void {
  for (const state of states) {
    state.questions = state.changes >= 100 ? Math.round(state.changes / 5) : rng.chance(0.1) ? rng.int(20, 60) : rng.int(0, 4);
  }
  const total = states.reduce((sum, s) => sum + s.questions, 0);
  if (total > cap) for (const state of states) state.questions = Math.floor((state.questions * cap) / total);
}

/** About one sequence per 400 turns, alternating language and half, each with its own object. */
export function planSequences(rng: SeededRandom, turns: number, templates: Record<Half, TemplateHalf> = TEMPLATES): PlannedSequence[] {
  const objects: Record<Lang, string[]> = {
    zh: rng.shuffle(P.ZH_COLOURS.flatMap((c) => P.ZH_OBJECTS.map((o) => c + o))),
    en: rng.shuffle(P.EN_COLOURS.flatMap((c) => P.EN_OBJECTS.map((o) => `${c} ${o}`))),
  };
  const count = Math.min(objects.zh.length + objects.en.length, Math.max(4, Math.round(turns / 400)));
  return Array.from({ length: count }, (_, i) => {
    const lang = LANGS[i % 2];
    const half = HALVES[Math.floor(i / 2) % 2];
    return { id: `sequence-${i}`, lang, half, object: objects[lang].pop()!, steps: rng.pick(templates[half][lang].actionStories) };
  });
}

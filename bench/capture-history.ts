// The capture benchmark's generated history: the plan laid out over a year of sessions, each turn
// written as text and turned into store records by the plugin's own turnRecords, plus the ground
// truth of every record (what it asserts, whose case it belongs to). Seeded and deterministic.
import { turnRecords, type TurnRecord } from "../plugin/capture/turn-records";
import { fillerTurn, type FillerRole, type Mentions } from "./capture-chitchat";
import { changeBucket, planSequences, planStates, TEMPLATES, type ChangeBucket, type PlannedSequence, type PlannedState } from "./capture-plan";
import { fillTemplate, type Family, type Half, type Lang, type SlotKind, type TemplateHalf } from "./capture-templates";
import { SeededRandom } from "./seeded-random";

export type Role = "statement" | "restatement" | "acknowledgement" | "question" | "answer" | "non-answer" | "action" | "action-reply" | FillerRole | "filler-reply";

export interface RecordTruth {
  role: Role;
  /** The planted state or action sequence the record belongs to. */
  caseId?: string;
  heldOut: boolean;
  /** The (state, value) the record asserts: statements, restatements and answers with a value. */
  assertion?: { state: string; value: string };
  timestampMs: number;
  text: string;
}

export interface PlantedState {
  id: string;
  lang: Lang;
  kind: SlotKind;
  family: Family;
  half: Half;
  near: boolean;
  changes: number;
  bucket: ChangeBucket;
  /** The user's statements, oldest first, and the value key each one sets. */
  statementIds: string[];
  valueKeys: string[];
  currentValue: string;
  lastChangeMs: number;
  questions: number;
  latestQuery: string;
  /** Only for states with at most 5 changes (all their statements fit in a top 10). */
  timelineQuery?: string;
}

export interface ActionSequence {
  id: string;
  lang: Lang;
  half: Half;
  stepIds: string[];
  timelineQuery: string;
}

export interface CaptureHistory {
  seed: number;
  turns: number;
  records: TurnRecord[];
  states: PlantedState[];
  sequences: ActionSequence[];
  truth: Map<string, RecordTruth>;
}

type Slot = { kind: "statement"; state: number; index: number } | { kind: "question"; state: number } | { kind: "action"; sequence: number; step: number } | { kind: "filler" };

const YEAR_START_MS = Date.UTC(2025, 0, 1, 7, 30);
const YEAR_MS = 365 * 24 * 3600 * 1000;
const FILLER_MIX = { ackShare: 0.07, distractorShare: 0.1 };

/** `templates` replaces a half's phrasing (bench:capture --dev-templates plants the tuning half with the dev set). */
export function generateCaptureHistory(options: { turns: number; seed: number; templates?: Partial<Record<Half, TemplateHalf>> }): CaptureHistory {
  const templates = { ...TEMPLATES, ...options.templates };
  const rng = new SeededRandom(options.seed);
  const planned = planStates(rng, options.turns);
  const sequences = planSequences(rng, options.turns, templates);
  const slots = orderSlots(rng, planned, sequences, options.turns);
  const writer = new HistoryWriter(rng, planned, sequences, options.turns, templates);
  slots.forEach((slot) => writer.write(slot));
  return { seed: options.seed, turns: options.turns, records: writer.records, states: writer.finishStates(), sequences: writer.finishSequences(), truth: writer.truth };
}

/** Every planted turn gets a position in [0, 1); filler fills the rest; sorting gives the turn order. */
function orderSlots(rng: SeededRandom, states: PlannedState[], sequences: PlannedSequence[], turns: number): Slot[] {
  const placed: Array<{ t: number; slot: Slot }> = [];
  states.forEach((state, s) => {
    const times = Array.from({ length: state.changes + 1 }, () => rng.next()).sort((a, b) => a - b);
    times.forEach((t, index) => placed.push({ t, slot: { kind: "statement", state: s, index } }));
    for (let q = 0; q < state.questions; q++) placed.push({ t: times[0] + (1 - times[0]) * rng.next(), slot: { kind: "question", state: s } });
  });
  sequences.forEach((sequence, q) => {
    let t = rng.next() * 0.97;
    sequence.steps.forEach((_, step) => {
      placed.push({ t, slot: { kind: "action", sequence: q, step } });
      t += 0.0005 + rng.next() * 0.004;
    });
  });
  if (placed.length > turns) throw new Error(`${turns} turns are too few for ${placed.length} planted turns`);
  while (placed.length < turns) placed.push({ t: rng.next(), slot: { kind: "filler" } });
  return placed.sort((a, b) => a.t - b.t).map((p) => p.slot);
}

class HistoryWriter {
  readonly records: TurnRecord[] = [];
  readonly truth = new Map<string, RecordTruth>();
  private readonly statementIds: string[][];
  private readonly current: number[];
  private readonly stepIds: string[][];
  private readonly mentions: Mentions;
  private session = { id: "", turn: 0, left: 0, index: -1 };
  private clockMs = YEAR_START_MS;
  private readonly sessionGapMs: number;

  constructor(
    private readonly rng: SeededRandom,
    private readonly states: PlannedState[],
    private readonly sequences: PlannedSequence[],
    turns: number,
    private readonly templates: Record<Half, TemplateHalf>,
  ) {
    this.statementIds = states.map(() => []);
    this.current = states.map(() => -1);
    this.stepIds = sequences.map(() => []);
    this.mentions = collectMentions(states, sequences);
    // Sessions average 16.5 turns; spreading their starts evenly keeps the history about a year long.
    this.sessionGapMs = YEAR_MS / Math.max(1, turns / 16.5);
  }

  write(slot: Slot): void {
    if (slot.kind === "statement") this.writeStatement(slot.state, slot.index);
    else if (slot.kind === "question") this.writeQuestion(slot.state);
    else if (slot.kind === "action") this.writeAction(slot.sequence, slot.step);
    else {
      const filler = fillerTurn(this.rng, this.rng.chance(0.5) ? "zh" : "en", this.mentions, FILLER_MIX);
      this.turn(filler.user, { role: filler.role, heldOut: false }, filler.assistant, { role: filler.role === "ack-turn" ? "ack-turn" : "filler-reply", heldOut: false });
    }
  }

  private writeStatement(s: number, index: number): void {
    const state = this.states[s];
    const t = this.templates[state.half][state.spec.lang].families[state.spec.family];
    const value = state.values[index];
    const vars = { ...state.spec.vars, ...value.vars, old: index > 0 ? state.values[index - 1].text : "" };
    const statements = index === 0 ? t.statements.filter((x) => !x.includes("{old}")) : t.statements;
    const base = { caseId: state.id, heldOut: state.half === "heldout" };
    const assertion = { state: state.id, value: value.key };
    const roll = this.rng.next();
    const reply =
      roll < 1 / 3
        ? { text: this.rng.pick(this.templates[state.half][state.spec.lang].acknowledgements), role: "acknowledgement" as const }
        : { text: fillTemplate(this.rng.pick(roll < 2 / 3 ? t.restatements : t.elided), vars), role: "restatement" as const, assertion };
    const [userId] = this.turn(fillTemplate(this.rng.pick(statements), vars), { ...base, role: "statement", assertion }, reply.text, { ...base, ...reply });
    this.statementIds[s].push(userId);
    this.current[s] = index;
  }

  private writeQuestion(s: number): void {
    const state = this.states[s];
    const lang = this.templates[state.half][state.spec.lang];
    const t = lang.families[state.spec.family];
    const value = state.values[this.current[s]];
    const vars = { ...state.spec.vars, ...value.vars };
    const base = { caseId: state.id, heldOut: state.half === "heldout" };
    const roll = this.rng.next();
    const reply =
      roll < 0.65
        ? { text: fillTemplate(this.rng.pick(roll < 0.45 ? t.answers : t.elidedAnswers), vars), role: "answer" as const, assertion: { state: state.id, value: value.key } }
        : { text: this.rng.pick(roll < 0.85 ? lang.unknown : lang.questionsBack), role: "non-answer" as const };
    this.turn(fillTemplate(this.rng.pick(t.questions), vars), { ...base, role: "question" }, reply.text, { ...base, ...reply });
  }

  private writeAction(q: number, step: number): void {
    const sequence = this.sequences[q];
    const base = { caseId: sequence.id, heldOut: sequence.half === "heldout" };
    const reply = this.rng.pick(this.templates[sequence.half][sequence.lang].actionReplies);
    const [userId] = this.turn(fillTemplate(sequence.steps[step], { obj: sequence.object }), { ...base, role: "action" }, reply, { ...base, role: "action-reply" });
    this.stepIds[q].push(userId);
  }

  /** One turn in the current session (a new one when it is used up), as the plugin would capture it. */
  private turn(user: string, userTruth: Omit<RecordTruth, "text" | "timestampMs">, assistant: string, assistantTruth: Omit<RecordTruth, "text" | "timestampMs">): string[] {
    if (this.session.left === 0) this.openSession();
    this.session.left--;
    const userMs = this.clockMs;
    const assistantMs = userMs + this.rng.int(2_000, 25_000);
    this.clockMs = assistantMs + this.rng.int(15_000, 120_000);
    const snapshot = { sessionId: this.session.id, turn: ++this.session.turn, userText: user, assistantText: assistant, startedMs: userMs, userMs, assistantMs, toolNames: [] };
    const written = turnRecords(snapshot, { highlighted: false, holographic: true });
    const truths = [userTruth, assistantTruth];
    written.forEach((record, i) => {
      this.records.push(record);
      this.truth.set(record.id, { ...truths[i], text: record.text, timestampMs: record.timestamp_ms });
    });
    return written.map((r) => r.id);
  }

  private openSession(): void {
    const index = this.session.index + 1;
    const planned = YEAR_START_MS + index * this.sessionGapMs + this.rng.next() * 0.5 * this.sessionGapMs;
    // A long session may run past the next planned start; time never goes backwards.
    this.clockMs = Math.max(Math.round(planned), this.clockMs + 60_000);
    this.session = { id: `capture-${String(index).padStart(6, "0")}`, turn: 0, left: this.rng.int(3, 30), index };
  }

  finishStates(): PlantedState[] {
    return this.states.map((state, s) => {
      const t = this.templates[state.half][state.spec.lang].families[state.spec.family];
      const statementIds = this.statementIds[s];
      return {
        id: state.id,
        lang: state.spec.lang,
        kind: state.spec.kind,
        family: state.spec.family,
        half: state.half,
        near: state.near,
        changes: state.changes,
        bucket: changeBucket(state.changes),
        statementIds,
        valueKeys: state.values.map((v) => v.key),
        currentValue: state.values[state.values.length - 1].key,
        lastChangeMs: this.truth.get(statementIds[statementIds.length - 1])!.timestampMs,
        questions: state.questions,
        latestQuery: fillTemplate(this.rng.pick(t.latestQueries), state.spec.vars),
        ...(state.changes <= 5 ? { timelineQuery: fillTemplate(this.rng.pick(t.timelineQueries), state.spec.vars) } : {}),
      };
    });
  }

  finishSequences(): ActionSequence[] {
    return this.sequences.map((sequence, q) => ({
      id: sequence.id,
      lang: sequence.lang,
      half: sequence.half,
      stepIds: this.stepIds[q],
      timelineQuery: fillTemplate(this.rng.pick(this.templates[sequence.half][sequence.lang].actionTimelineQueries), { obj: sequence.object }),
    }));
  }
}

/** The words distractors may use: planted subjects' names and values, and the sequences' objects. */
function collectMentions(states: PlannedState[], sequences: PlannedSequence[]): Mentions {
  const sets: Record<Lang, Map<string, Set<string>>> = { zh: new Map(), en: new Map() };
  const add = (lang: Lang, kind: string, word: string) => sets[lang].set(kind, (sets[lang].get(kind) ?? new Set()).add(word));
  for (const state of states) for (const [kind, word] of state.spec.mentions) add(state.spec.lang, kind, word);
  for (const sequence of sequences) add(sequence.lang, "thing", sequence.object);
  const out: Mentions = { zh: {}, en: {} };
  for (const lang of ["zh", "en"] as const) for (const [kind, words] of sets[lang]) out[lang][kind as keyof Mentions["zh"]] = [...words].sort();
  return out;
}

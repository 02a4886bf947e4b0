// Scorers for the capture benchmark, pure functions of a search's results or receipt conflicts and
// the generator's ground truth: latest@1, false supersessions, and timeline completeness and order.
import type { PlantedState, RecordTruth } from "./capture-history";

export type TruthLookup = Pick<ReadonlyMap<string, RecordTruth>, "get">;

export interface ResultLike {
  id: string;
}

export interface ConflictLike {
  id: string;
  superseded_by: string;
}

export type LatestOutcome = "hit" | "no results" | "older value" | "current value, written before the last change" | RecordClass;

export type RecordClass = "another subject's statement" | "question" | "acknowledgement or non-answer" | "action sequence" | "chit-chat" | "distractor" | "unknown record";

export type ConflictVerdict =
  /** The suppressed memory is no planted statement; not scored. */
  | { scored: false }
  | { scored: true; legit: true }
  | { scored: true; legit: false; superseder: RecordClass | "same value restated" | "older statement" };

/**
 * A hit when the first result asserts the subject's newest value and was written at or after the
 * last change: the change itself, or a later record restating the same value. An earlier record
 * with the same value (before an A→B→A return) does not count, as it was stale when written.
 */
export function scoreLatest(state: Pick<PlantedState, "id" | "currentValue" | "lastChangeMs">, results: readonly ResultLike[], truth: TruthLookup): LatestOutcome {
  if (results.length === 0) return "no results";
  const top = truth.get(results[0].id);
  const asserted = top?.assertion;
  if (!top || !asserted || asserted.state !== state.id) return classifyRecord(top);
  if (asserted.value !== state.currentValue) return "older value";
  return top.timestampMs >= state.lastChangeMs ? "hit" : "current value, written before the last change";
}

/**
 * A suppression is legitimate only when a newer statement of the same subject with a different
 * value hid a planted statement; anything else hiding one (a question, an acknowledgement,
 * another subject, the same value said again) is a false supersession.
 */
export function judgeConflict(conflict: ConflictLike, truth: TruthLookup): ConflictVerdict {
  const suppressed = truth.get(conflict.id);
  if (!suppressed?.assertion) return { scored: false };
  const by = truth.get(conflict.superseded_by);
  if (!by?.assertion) return { scored: true, legit: false, superseder: classifyRecord(by) };
  if (by.assertion.state !== suppressed.assertion.state) return { scored: true, legit: false, superseder: "another subject's statement" };
  if (by.assertion.value === suppressed.assertion.value) return { scored: true, legit: false, superseder: "same value restated" };
  if (!(by.timestampMs > suppressed.timestampMs)) return { scored: true, legit: false, superseder: "older statement" };
  return { scored: true, legit: true };
}

export interface TimelineScore {
  /** Every expected statement or step is among the results. */
  complete: boolean;
  found: number;
  /** The expected records found appear oldest first; undefined when fewer than two were found. */
  inOrder: boolean | undefined;
}

export function scoreTimeline(expectedIds: readonly string[], results: readonly ResultLike[], truth: TruthLookup): TimelineScore {
  const expected = new Set(expectedIds);
  const found = results.filter((r) => expected.has(r.id)).map((r) => truth.get(r.id)!.timestampMs);
  const inOrder = found.length < 2 ? undefined : found.every((ms, i) => i === 0 || found[i - 1] < ms);
  return { complete: found.length === expected.size, found: found.length, inOrder };
}

/** What kind of record a result or superseder is, when it is not a statement of the subject asked about. */
export function classifyRecord(record: RecordTruth | undefined): RecordClass {
  if (!record) return "unknown record";
  if (record.assertion) return "another subject's statement";
  switch (record.role) {
    case "question":
      return "question";
    case "acknowledgement":
    case "non-answer":
    case "ack-turn":
      return "acknowledgement or non-answer";
    case "action":
    case "action-reply":
      return "action sequence";
    case "distractor":
      return "distractor";
    default:
      return "chit-chat";
  }
}

// Latest-mode conflict collapsing: a retrieved memory whose every state slot has a newer, different value
// in another retrieved memory, or in the slot index for a slot the query asks about, is suppressed.
// Timeline mode never calls this.
import { extractSlots } from "../statements/slot-reader";
import { sameSlot, type StateSlot } from "../statements/slots";
import { valuesConflict } from "../statements/values";

export interface ConflictCandidate {
  id: string;
  timestampMs: number;
  text: string;
  /** True when the lexical (BM25) retriever or the slot index found it; false when only the dense one did. */
  lexical: boolean;
  /** Precomputed slots; extracted from `text` when absent. */
  slots?: StateSlot[];
  /** Whether its statements may replace another's value (the user's words and stored facts; not an assistant's restatement). Default true. */
  authoritative?: boolean;
}

/** Statements outside the candidates that are known to set a slot (the slot index's, for the slots a query asks about). */
export interface KnownStatements {
  newestReplacing(slot: StateSlot, afterMs: number): { id: string; timestampMs: number; slot: StateSlot } | undefined;
}

export interface Suppression {
  id: string;
  /** The newest statement that carries a value replacing the candidate's value of `slot`. */
  supersededBy: string;
  slot: StateSlot;
  /** The superseding statement's own slot (its subject may name the thing more fully, its value is the newer one). */
  by: StateSlot;
  byTimestampMs: number;
}

export interface CollapseResult {
  /** Ids of the candidates that survive, in input order. */
  kept: string[];
  suppressed: Suppression[];
}

interface Superseder {
  id: string;
  timestampMs: number;
  slot: StateSlot;
}

/**
 * Pure and deterministic. A candidate is suppressed only when every slot it asserts is superseded: a
 * memory that still carries one current fact is evidence for that fact, and dropping it would lose what no
 * other candidate says. Candidates without slots (actions such as "bought a mug", "broke it", questions,
 * acknowledgements) are always kept, which is what preserves sequences. Quadratic in candidates, which
 * is fine for a retrieved top-k, not for a whole store.
 */
export function collapseConflicts(candidates: ConflictCandidate[], known?: KnownStatements): CollapseResult {
  const slotLists = candidates.map((c) => c.slots ?? extractSlots(c.text));
  const kept: string[] = [];
  const suppressed: Suppression[] = [];
  candidates.forEach((candidate, index) => {
    const suppression = findSuppression(index, candidates, slotLists, known);
    if (suppression) suppressed.push(suppression);
    else kept.push(candidate.id);
  });
  return { kept, suppressed };
}

function findSuppression(index: number, candidates: ConflictCandidate[], slotLists: StateSlot[][], known: KnownStatements | undefined): Suppression | undefined {
  const slots = slotLists[index];
  if (slots.length === 0) return undefined;
  const target = candidates[index];
  let first: Suppression | undefined;
  for (const slot of slots) {
    const fromCandidates = newestSuperseder(index, slot, candidates, slotLists);
    const fromIndex = known?.newestReplacing(slot, target.timestampMs);
    const newer = fromIndex && (!fromCandidates || fromIndex.timestampMs > fromCandidates.timestampMs) ? fromIndex : fromCandidates;
    if (newer === undefined) return undefined;
    first ??= { id: target.id, supersededBy: newer.id, slot, by: newer.slot, byTimestampMs: newer.timestampMs };
  }
  return first;
}

/** The newest candidate allowed to supersede `slot`; the earliest one on a tie. */
function newestSuperseder(index: number, slot: StateSlot, candidates: ConflictCandidate[], slotLists: StateSlot[][]): Superseder | undefined {
  const target = candidates[index];
  let best: Superseder | undefined;
  candidates.forEach((other, otherIndex) => {
    if (otherIndex === index || !canSupersede(other, target)) return;
    const by = slotLists[otherIndex].find((s) => sameSlot(slot, s) && valuesConflict(slot.kind, s.value, slot.value));
    if (by && (best === undefined || other.timestampMs > best.timestampMs)) best = { id: other.id, timestampMs: other.timestampMs, slot: by };
  });
  return best;
}

function canSupersede(newer: ConflictCandidate, older: ConflictCandidate): boolean {
  if (newer.authoritative === false) return false;
  // Equal timestamps give no order, so neither side can claim to be the newer fact.
  if (!(newer.timestampMs > older.timestampMs)) return false;
  // Dense similarity is evidence a memory is relevant, not that it describes the same state
  // change; a dense-only hit therefore never by itself hides what the lexical retriever found.
  return newer.lexical || !older.lexical;
}

// Latest-mode conflict collapsing: a retrieved memory whose state slot has a newer, different
// value in another retrieved memory is suppressed. Timeline mode never calls this.

import { extractSlots, sameSlot, type StateSlot } from "./slots";

export interface ConflictCandidate {
  id: string;
  timestampMs: number;
  text: string;
  /** True when the lexical (BM25) retriever found it; false when only the dense one did. */
  lexical: boolean;
  /** Precomputed slots; extracted from `text` when absent. */
  slots?: StateSlot[];
}

export interface Suppression {
  id: string;
  /** The newest candidate that carries a different value for `slot`. */
  supersededBy: string;
  slot: StateSlot;
}

export interface CollapseResult {
  /** Ids of the candidates that survive, in input order. */
  kept: string[];
  suppressed: Suppression[];
}

/**
 * Pure and deterministic. A candidate is suppressed only when every slot it asserts is
 * superseded: a memory that still carries one current fact is evidence for that fact, and
 * dropping it would lose what no other candidate says. Candidates without slots (actions
 * such as "bought a mug", "broke it") are always kept, which is what preserves sequences.
 * Quadratic in candidates, which is fine for a retrieved top-k, not for a whole store.
 */
export function collapseConflicts(candidates: ConflictCandidate[]): CollapseResult {
  const slotLists = candidates.map((c) => c.slots ?? extractSlots(c.text));
  const kept: string[] = [];
  const suppressed: Suppression[] = [];
  candidates.forEach((candidate, index) => {
    const suppression = findSuppression(index, candidates, slotLists);
    if (suppression) suppressed.push(suppression);
    else kept.push(candidate.id);
  });
  return { kept, suppressed };
}

function findSuppression(index: number, candidates: ConflictCandidate[], slotLists: StateSlot[][]): Suppression | undefined {
  const slots = slotLists[index];
  if (slots.length === 0) return undefined;
  let first: Suppression | undefined;
  for (const slot of slots) {
    const newer = newestSuperseder(index, slot, candidates, slotLists);
    if (newer === undefined) return undefined;
    first ??= { id: candidates[index].id, supersededBy: candidates[newer].id, slot };
  }
  return first;
}

/** Index of the newest candidate allowed to supersede `slot`; the earliest one on a tie. */
function newestSuperseder(index: number, slot: StateSlot, candidates: ConflictCandidate[], slotLists: StateSlot[][]): number | undefined {
  const target = candidates[index];
  let best: number | undefined;
  candidates.forEach((other, otherIndex) => {
    if (otherIndex === index || !canSupersede(other, target)) return;
    if (!slotLists[otherIndex].some((s) => sameSlot(slot, s) && s.value !== slot.value)) return;
    if (best === undefined || other.timestampMs > candidates[best].timestampMs) best = otherIndex;
  });
  return best;
}

function canSupersede(newer: ConflictCandidate, older: ConflictCandidate): boolean {
  // Equal timestamps give no order, so neither side can claim to be the newer fact.
  if (!(newer.timestampMs > older.timestampMs)) return false;
  // Dense similarity is evidence a memory is relevant, not that it describes the same state
  // change; a dense-only hit therefore never by itself hides what the lexical retriever found.
  return newer.lexical || !older.lexical;
}

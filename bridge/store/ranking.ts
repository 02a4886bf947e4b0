// Packing and latest-mode order of the candidates that survive conflicts and withholding. Statements the
// slot index found come first; then statements, then questions and requests (a question never outranks a
// statement); among near-equal scores, the newer memory first.
import type { FusedCandidate } from "../index/fuse";

/**
 * Two candidates whose retriever scores are within this share of each other (and which hold the same query
 * terms) are near-equals: the rankers cannot tell them apart, so in latest mode the newer ranks first.
 * Measured on LoCoMo dev, MADial-Bench-zh and the phrasing dev sets (docs/design.md): ALL@10 63.2 / 40.0 at 0,
 * 63.2 / 40.6 at 0.05 to 0.2, 63.2 / 40.0 at 0.35; the structural dev set's latest@1 62.5 % at 0.05, 66.1 % at 0.2.
 */
export const RECENCY_TOLERANCE = 0.2;

/** 0: a statement of a slot the query asks about; 1: another statement; 2: a question or request. */
export type Tier = 0 | 1 | 2;

export interface RankingFacts {
  tier(candidate: FusedCandidate): Tier;
  /** Position among the slot statements (best first); only asked for tier 0. */
  slotOrder(candidate: FusedCandidate): number;
  timestampMs(candidate: FusedCandidate): number;
  /** Which query terms the candidate's own text holds (a bit set). */
  termMask(candidate: FusedCandidate): number;
}

/**
 * What lexical recall alone gives, best first: slot statements (the query names their subject), then the
 * lexical candidates, statements before questions, each by lexical rank. Its first top_k always survive packing.
 */
export function lexicalOrder(survivors: readonly FusedCandidate[], facts: RankingFacts): FusedCandidate[] {
  const slots = survivors.filter((c) => facts.tier(c) === 0).sort((a, b) => facts.slotOrder(a) - facts.slotOrder(b));
  const lexical = survivors
    .filter((c) => facts.tier(c) !== 0 && c.lexicalRank !== undefined)
    .sort((a, b) => facts.tier(a) - facts.tier(b) || a.lexicalRank! - b.lexicalRank!);
  return [...slots, ...lexical];
}

/**
 * The lexical floor (first top_k of lexicalOrder) always survives; dense retrieval may add up to `denseExtra`
 * candidates, or fill the list when the floor holds fewer than top_k. Returned in fused order.
 */
export function pack(survivors: readonly FusedCandidate[], floor: readonly FusedCandidate[], topK: number, denseExtra: number): FusedCandidate[] {
  const kept = new Set(floor.map((c) => c.doc));
  let room = Math.max(topK - kept.size, denseExtra);
  return survivors.filter((c) => {
    if (kept.has(c.doc)) return true;
    if (c.denseRank === undefined || room <= 0) return false;
    room--;
    return true;
  });
}

/** Latest mode: slot statements in their order, then by tier, then fused score with near-equals newest first. */
export function orderLatest(packed: readonly FusedCandidate[], facts: RankingFacts, tolerance = RECENCY_TOLERANCE): FusedCandidate[] {
  const slots = packed.filter((c) => facts.tier(c) === 0).sort((a, b) => facts.slotOrder(a) - facts.slotOrder(b));
  const rest = packed.filter((c) => facts.tier(c) !== 0).sort((a, b) => facts.tier(a) - facts.tier(b) || b.rrf - a.rrf);
  const ordered: FusedCandidate[] = [...slots];
  for (let start = 0; start < rest.length; ) {
    let end = start + 1;
    while (end < rest.length && facts.tier(rest[end]) === facts.tier(rest[start]) && nearEqual(rest[start], rest[end], facts, tolerance)) end++;
    const group = rest.slice(start, end).sort((a, b) => facts.timestampMs(b) - facts.timestampMs(a));
    ordered.push(...group);
    start = end;
  }
  return ordered;
}

function nearEqual(a: FusedCandidate, b: FusedCandidate, facts: RankingFacts, tolerance: number): boolean {
  if (!close(a.lexicalScore, b.lexicalScore, tolerance) || !close(a.denseScore, b.denseScore, tolerance)) return false;
  return a.lexicalScore === undefined || facts.termMask(a) === facts.termMask(b);
}

function close(x: number | undefined, y: number | undefined, tolerance: number): boolean {
  if (x === undefined || y === undefined) return x === y;
  return Math.abs(x - y) <= tolerance * Math.max(Math.abs(x), Math.abs(y));
}

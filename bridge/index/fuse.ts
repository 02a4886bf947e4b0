// Reciprocal-rank fusion of the lexical and dense candidate lists: score = Σ 1/(RRF_K + rank).
// Every lexical candidate is carried into the fused list; dense candidates can only add to it.
import type { Scored } from "./top-k";

export const RRF_K = 60;

export interface FusedCandidate {
  doc: number;
  rrf: number;
  lexicalRank?: number;
  lexicalScore?: number;
  denseRank?: number;
  denseScore?: number;
}

/** Ranks are 1-based. Ties in RRF score go to the better lexical rank, then the lower doc number. */
export function fuseRanks(lexical: Scored[], dense: Scored[]): FusedCandidate[] {
  const byDoc = new Map<number, FusedCandidate>();
  lexical.forEach((hit, i) => {
    byDoc.set(hit.doc, { doc: hit.doc, rrf: 1 / (RRF_K + i + 1), lexicalRank: i + 1, lexicalScore: hit.score });
  });
  dense.forEach((hit, i) => {
    const contribution = 1 / (RRF_K + i + 1);
    const existing = byDoc.get(hit.doc);
    if (existing) {
      existing.rrf += contribution;
      existing.denseRank = i + 1;
      existing.denseScore = hit.score;
    } else {
      byDoc.set(hit.doc, { doc: hit.doc, rrf: contribution, denseRank: i + 1, denseScore: hit.score });
    }
  });
  return [...byDoc.values()].sort(compareFused);
}

function compareFused(a: FusedCandidate, b: FusedCandidate): number {
  return b.rrf - a.rrf || (a.lexicalRank ?? Infinity) - (b.lexicalRank ?? Infinity) || a.doc - b.doc;
}

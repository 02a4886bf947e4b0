// search_memory: full-corpus BM25 with conversation context and exact dense retrieval, fused by RRF,
// then state-slot conflicts (latest mode) or ascending time (timeline mode), quarantine, exclusion of
// what the caller already holds, and packing.
import { queryTerms } from "../index/analyze";
import type { Bm25Index } from "../index/bm25";
import { CONTEXT_WEIGHT, propagateContext } from "../index/context-propagation";
import { fuseRanks, type FusedCandidate } from "../index/fuse";
import type { Scored } from "../index/top-k";
import { collapseConflicts, type Suppression } from "./conflicts";
import type { EmbeddingInput, MemoryRecord } from "./records";
import { buildReceipt, type DenseOutcome, type FallbackReason, type Receipt } from "./receipts";
import type { ScopeMasks } from "./scope-masks";
import type { StateSlot } from "./slots";
import { bindingOf, type VectorSpaces } from "./vector-spaces";

export interface SearchRequest {
  query: string;
  topK: number;
  timeline: boolean;
  scope?: string;
  queryEmbedding?: EmbeddingInput;
  /** Why there is no query vector (set by the bridge's embedder); absent means no embedder at all. */
  denseFallback?: FallbackReason;
  /** How many dense-introduced candidates may be packed beyond the lexical top-k. */
  denseExtra?: number;
  /** Caller's tags for the context it searched from; copied into the receipt, never interpreted. */
  windowHash?: string;
  anchorVersion?: string;
  /** Memories already in the caller's recent window: withheld from results, never taking a slot. */
  excludeIds?: ReadonlySet<string>;
}

export const IN_RECENT_WINDOW = "in recent window";

export interface SearchResult {
  id: string;
  text: string;
  source_type: string;
  timestamp_ms: number;
  score: number;
}

export interface SearchResponse {
  results: SearchResult[];
  receipt: Receipt;
}

export interface SearchView {
  readonly bm25: Bm25Index;
  readonly vectors: VectorSpaces;
  readonly scopes: ScopeMasks;
  readonly size: number;
  readonly nowMs: () => number;
  record(doc: number): MemoryRecord | undefined;
  slots(doc: number): StateSlot[];
  adjacentTurns(doc: number): readonly number[];
}

/** Candidates each retriever contributes before fusion. */
export function candidateDepth(topK: number): number {
  return Math.max(topK * 4, 50);
}

export function runSearch(view: SearchView, request: SearchRequest): SearchResponse {
  const started = performance.now();
  const mask = view.scopes.maskFor(request.scope);
  const excluded = request.excludeIds ?? new Set<string>();
  // Each excluded memory may use up a candidate, so retrieval goes that much deeper to still fill top_k.
  const depth = candidateDepth(request.topK) + excluded.size;
  const lexical = retrieveLexical(view, request.query, depth, mask);
  const lexicalDone = performance.now();
  const dense = retrieveDense(view, request, depth, mask);
  const denseDone = performance.now();

  const fused = fuseRanks(lexical, dense.hits);
  const eligible = fused.filter((c) => !view.record(c.doc)?.quarantine);
  // Excluded memories still take part in conflict collapse: they are trusted and current, so a newer
  // state the caller already holds keeps suppressing the older one it replaced (quarantined ones do not).
  const suppressed = request.timeline ? [] : collapse(view, eligible);
  const suppressedIds = new Set(suppressed.map((s) => s.id));
  const hidden = (id: string) => suppressedIds.has(id) || excluded.has(id);
  const survivors = eligible.filter((c) => !hidden(view.record(c.doc)!.id));
  const withheld = withholdings(view, fused, excluded);
  const packed = pack(survivors, request.topK, request.denseExtra ?? Math.ceil(request.topK / 2));
  const ordered = request.timeline ? sortByTime(view, packed) : packed;
  const finished = performance.now();

  const results = ordered.map((c) => toResult(view.record(c.doc)!, c.rrf));
  const receipt = buildReceipt({
    request,
    view,
    fused,
    selected: ordered,
    lexicalBaseline: lexicalTopK(survivors, request.topK),
    suppressed,
    withheld,
    dense,
    depth,
    timingsMs: { lexical: lexicalDone - started, dense: denseDone - lexicalDone, total: finished - started },
  });
  return { results, receipt };
}

/** Why each retrieved candidate may not be shown; quarantine is named first, as it is the stronger reason. */
function withholdings(view: SearchView, fused: FusedCandidate[], excluded: ReadonlySet<string>): Array<{ doc: number; reason: string }> {
  return fused.flatMap((c) => {
    const record = view.record(c.doc)!;
    if (record.quarantine) return [{ doc: c.doc, reason: `quarantined: ${record.quarantine.reason}` }];
    return excluded.has(record.id) ? [{ doc: c.doc, reason: IN_RECENT_WINDOW }] : [];
  });
}

/** BM25 over the analysed query, then each hit lends part of its score to its neighbouring turns. */
function retrieveLexical(view: SearchView, query: string, depth: number, mask: Uint8Array | undefined): Scored[] {
  const hits = view.bm25.search(queryTerms(query), depth, mask);
  const visibleNeighbours = (doc: number) => {
    const neighbours = view.adjacentTurns(doc);
    return mask === undefined ? neighbours : neighbours.filter((n) => mask[n] === 1);
  };
  return propagateContext(hits, visibleNeighbours, CONTEXT_WEIGHT, depth);
}

function retrieveDense(view: SearchView, request: SearchRequest, depth: number, mask: Uint8Array | undefined): DenseOutcome {
  const embedding = request.queryEmbedding;
  if (!embedding) return { hits: [], fallback: request.denseFallback ?? "runtime_missing" };
  const binding = bindingOf(embedding);
  const space = view.vectors.find(binding);
  if (!space || space.index.size === 0) return { hits: [], fallback: "index_not_current", binding };
  const hits: Scored[] = space.index.search(embedding.vector, depth, mask);
  return { hits, binding, space };
}

function collapse(view: SearchView, candidates: FusedCandidate[]): Suppression[] {
  const withSlots = candidates.filter((c) => view.slots(c.doc).length > 0);
  if (withSlots.length < 2) return [];
  return collapseConflicts(
    withSlots.map((c) => {
      const record = view.record(c.doc)!;
      return { id: record.id, timestampMs: record.timestamp_ms, text: record.text, lexical: c.lexicalRank !== undefined, slots: view.slots(c.doc) };
    }),
  ).suppressed;
}

/**
 * The lexical top-k always survives packing (what BM25 alone would give is never lost); dense
 * retrieval may add up to `denseExtra` candidates, or fill the list when lexical found too few.
 */
function pack(survivors: FusedCandidate[], topK: number, denseExtra: number): FusedCandidate[] {
  const floor = new Set(lexicalTopK(survivors, topK).map((c) => c.doc));
  let room = Math.max(topK - floor.size, denseExtra);
  return survivors.filter((c) => {
    if (floor.has(c.doc)) return true;
    if (c.denseRank === undefined || room <= 0) return false;
    room--;
    return true;
  });
}

function lexicalTopK(candidates: FusedCandidate[], topK: number): FusedCandidate[] {
  return candidates
    .filter((c) => c.lexicalRank !== undefined)
    .sort((a, b) => a.lexicalRank! - b.lexicalRank!)
    .slice(0, topK);
}

function sortByTime(view: SearchView, candidates: FusedCandidate[]): FusedCandidate[] {
  return [...candidates].sort((a, b) => view.record(a.doc)!.timestamp_ms - view.record(b.doc)!.timestamp_ms || a.doc - b.doc);
}

function toResult(record: MemoryRecord, score: number): SearchResult {
  return { id: record.id, text: record.text, source_type: record.source_type, timestamp_ms: record.timestamp_ms, score };
}

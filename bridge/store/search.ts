// search_memory: full-corpus BM25 with conversation context and exact dense retrieval, fused by RRF,
// plus the statements of the state slots the query asks about; then conflicts (latest mode) or ascending
// time (timeline mode), quarantine, acknowledgements, exclusion of what the caller already holds, packing.
import { queryTerms } from "../index/analyze";
import type { Bm25Index } from "../index/bm25";
import { CONTEXT_WEIGHT, propagateContext } from "../index/context-propagation";
import { fuseRanks, type FusedCandidate } from "../index/fuse";
import type { Scored } from "../index/top-k";
import type { StateSlot } from "../statements/slots";
import type { SpeechAct } from "../statements/speech-acts";
import { collapseConflicts, type Suppression } from "./conflicts";
import { lexicalOrder, orderLatest, pack, type RankingFacts, type Tier } from "./ranking";
import type { EmbeddingInput, MemoryRecord } from "./records";
import { buildReceipt, type DenseOutcome, type FallbackReason, type Receipt } from "./receipts";
import type { ScopeMasks } from "./scope-masks";
import type { SlotIndex } from "./slot-index";
import { mentionsOf, newerMention, thingMentions } from "./slot-mentions";
import { isMoveToWorkplace, recallSlots, type SlotRecall } from "./slot-recall";
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
  /** Secrets the bridge took out of the query before this search, by kind (for the receipt). */
  queryRedactions?: Record<string, number>;
}

export const IN_RECENT_WINDOW = "in recent window";
export const ACKNOWLEDGEMENT_ONLY = "acknowledgement only";

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
  readonly slotIndex: SlotIndex;
  readonly size: number;
  readonly nowMs: () => number;
  record(doc: number): MemoryRecord | undefined;
  slots(doc: number): StateSlot[];
  act(doc: number): SpeechAct;
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
  const terms = queryTerms(request.query);
  const lexical = retrieveLexical(view, terms, depth, mask);
  const lexicalDone = performance.now();
  const dense = retrieveDense(view, request, depth, mask);
  const denseDone = performance.now();

  const usable = (doc: number) => (mask === undefined || mask[doc] === 1) && view.record(doc) !== undefined && !view.record(doc)!.quarantine;
  const slots = recallSlots(view.slotIndex, request.query, usable, { timeline: request.timeline === true });
  const mentions = request.timeline ? new Map<number, number>() : newerMentions(view, slots, usable);
  const slotDocs = request.timeline ? timelineDocs(view, request.query, slots, usable, request.topK) : slots.heads.flatMap((head) => [mentions.get(head.doc), head.doc]);
  const slotOrder = new Map<number, number>();
  for (const doc of slotDocs) if (doc !== undefined && !slotOrder.has(doc)) slotOrder.set(doc, slotOrder.size);
  const fused = withSlotStatements(fuseRanks(lexical, dense.hits), slotOrder);
  const eligible = fused.filter((c) => !view.record(c.doc)!.quarantine && view.act(c.doc) !== "acknowledgement");
  // Excluded memories still take part in conflict collapse: they are trusted and current, so a newer
  // state the caller already holds keeps suppressing the older one it replaced (quarantined ones do not).
  const suppressed = request.timeline ? [] : collapse(view, eligible, slots, slotOrder);
  const suppressedIds = new Set(suppressed.map((s) => s.id));
  const survivors = eligible.filter((c) => !suppressedIds.has(view.record(c.doc)!.id) && !excluded.has(view.record(c.doc)!.id));
  const facts = rankingFacts(view, terms, slotOrder);
  const floor = lexicalOrder(survivors, facts).slice(0, request.topK);
  const packed = pack(survivors, floor, request.topK, request.denseExtra ?? Math.ceil(request.topK / 2));
  const ordered = request.timeline ? sortByTime(view, packed) : orderLatest(packed, facts);
  const finished = performance.now();

  const results = ordered.map((c) => toResult(view.record(c.doc)!, c.rrf));
  const receipt = buildReceipt({
    request,
    view,
    fused,
    selected: ordered,
    lexicalBaseline: floor,
    slots,
    slotDocs: slotOrder,
    mentions,
    suppressed,
    withheld: withholdings(view, fused, excluded),
    dense,
    depth,
    timingsMs: { lexical: lexicalDone - started, dense: denseDone - lexicalDone, total: finished - started },
  });
  return { results, receipt };
}

/** For each asked slot's head, a newer statement that names the slot but that the grammar could not read (slot-mentions.ts). */
function newerMentions(view: SearchView, slots: SlotRecall, usable: (doc: number) => boolean): Map<number, number> {
  const found = new Map<number, number>();
  slots.asked.forEach((asked, i) => {
    const head = slots.current[i];
    if (head === undefined || found.has(head.doc)) return;
    const doc = newerMention(view, asked, head, usable);
    if (doc !== undefined) found.set(head.doc, doc);
  });
  return found;
}

/** Timeline mode: the newest `limit` statements of the asked slots, read by the grammar or naming the slot (slot-mentions.ts). */
function timelineDocs(view: SearchView, query: string, slots: SlotRecall, usable: (doc: number) => boolean, limit: number): number[] {
  if (slots.followed.length === 0) return thingMentions(view, query, usable, limit);
  const docs = new Set(slots.history(Infinity).map((entry) => entry.doc));
  for (const asked of slots.followed) for (const doc of mentionsOf(view, asked, usable, limit)) docs.add(doc);
  // A reply that restates its own turn's message says nothing the message does not: the message stands for both.
  const said = new Set([...docs].map((doc) => view.record(doc)!).filter((r) => r.source_type === "user_message").map(turnKey));
  const time = (doc: number) => view.record(doc)!.timestamp_ms;
  return [...docs]
    .filter((doc) => view.record(doc)!.source_type !== "assistant_message" || !said.has(turnKey(view.record(doc)!)))
    .sort((a, b) => time(b) - time(a) || b - a)
    .slice(0, limit);
}

function turnKey(record: MemoryRecord): string {
  return record.session_id === undefined || record.turn === undefined ? `id:${record.id}` : `${record.session_id}\u0000${record.turn}`;
}

/** The slot statements join the fused candidates; one no retriever found enters with an RRF score of 0. */
function withSlotStatements(fused: FusedCandidate[], slotOrder: ReadonlyMap<number, number>): FusedCandidate[] {
  const present = new Set(fused.map((c) => c.doc));
  const added = [...slotOrder.keys()].filter((doc) => !present.has(doc)).map((doc) => ({ doc, rrf: 0 }));
  return [...fused, ...added];
}

function rankingFacts(view: SearchView, terms: string[], slotOrder: ReadonlyMap<number, number>): RankingFacts {
  const masks = new Map<number, number>();
  const tiers = new Map<number, Tier>();
  const maskOf = view.bm25.termMasker(terms);
  return {
    tier: (c) => {
      let tier = tiers.get(c.doc);
      if (tier === undefined) tiers.set(c.doc, (tier = slotOrder.has(c.doc) ? 0 : view.act(c.doc) === "statement" ? 1 : 2));
      return tier;
    },
    slotOrder: (c) => slotOrder.get(c.doc) ?? Infinity,
    timestampMs: (c) => view.record(c.doc)!.timestamp_ms,
    termMask: (c) => {
      let mask = masks.get(c.doc);
      if (mask === undefined) masks.set(c.doc, (mask = maskOf(c.doc)));
      return mask;
    },
  };
}

/** Why each retrieved candidate may not be shown; quarantine is named first, as it is the stronger reason. */
const RECEIPT_REASON_CHARS = 200;

function clip(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars)}… (${text.length} characters)`;
}

function withholdings(view: SearchView, fused: FusedCandidate[], excluded: ReadonlySet<string>): Array<{ doc: number; reason: string }> {
  return fused.flatMap((c) => {
    const record = view.record(c.doc)!;
    // Clipped: a reason stored before its length was capped (one was 15 MB) must not fill every receipt.
    if (record.quarantine) return [{ doc: c.doc, reason: `quarantined: ${clip(record.quarantine.reason, RECEIPT_REASON_CHARS)}` }];
    if (excluded.has(record.id)) return [{ doc: c.doc, reason: IN_RECENT_WINDOW }];
    // A bare "好的，记下了。" says nothing on its own; the turn it answers carries the content.
    return view.act(c.doc) === "acknowledgement" ? [{ doc: c.doc, reason: ACKNOWLEDGEMENT_ONLY }] : [];
  });
}

/** BM25 over the analysed query, then each hit lends part of its score to its neighbouring turns. */
function retrieveLexical(view: SearchView, terms: string[], depth: number, mask: Uint8Array | undefined): Scored[] {
  const hits = view.bm25.search(terms, depth, mask);
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
  return { hits, binding, space, index: space.index.lastSearch };
}

function collapse(view: SearchView, candidates: FusedCandidate[], slots: SlotRecall, slotOrder: ReadonlyMap<number, number>): Suppression[] {
  const withSlots = candidates.filter((c) => view.slots(c.doc).length > 0);
  if (withSlots.length === 0) return [];
  const idOf = (doc: number) => view.record(doc)!.id;
  return collapseConflicts(
    withSlots.map((c) => {
      const record = view.record(c.doc)!;
      return {
        id: record.id,
        timestampMs: record.timestamp_ms,
        text: record.text,
        // The slot index found it from the query's own words, which is lexical evidence.
        lexical: c.lexicalRank !== undefined || slotOrder.has(c.doc),
        // "My grandma moved to Globex": a move to a workplace changes the job, not the home.
        slots: view.slots(c.doc).map((slot) => (isMoveToWorkplace(view.slotIndex, slot) ? { ...slot, kind: "workplace" as const } : slot)),
        authoritative: view.slotIndex.has(c.doc),
      };
    }),
    {
      newestReplacing(slot, afterMs) {
        const entry = slots.newestReplacing(slot, afterMs);
        return entry && { id: idOf(entry.doc), timestampMs: entry.timestampMs, slot: entry.slot };
      },
    },
  ).suppressed;
}

function sortByTime(view: SearchView, candidates: FusedCandidate[]): FusedCandidate[] {
  return [...candidates].sort((a, b) => view.record(a.doc)!.timestamp_ms - view.record(b.doc)!.timestamp_ms || a.doc - b.doc);
}

function toResult(record: MemoryRecord, score: number): SearchResult {
  return { id: record.id, text: record.text, source_type: record.source_type, timestamp_ms: record.timestamp_ms, score };
}

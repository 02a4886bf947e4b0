// Search receipts: why each memory came back. Built from the search's intermediate results;
// they carry hashes and ranks, never raw vectors.
import { createHash, randomUUID } from "node:crypto";
import { RRF_K, type FusedCandidate } from "../index/fuse";
import { countRedactionMarkers } from "./redact";
import type { Scored } from "../index/top-k";
import type { VectorSearchInfo } from "../index/vector-index";
import type { SpeechAct } from "../statements/speech-acts";
import type { Suppression } from "./conflicts";
import { RECENCY_TOLERANCE } from "./ranking";
import type { SearchRequest, SearchView } from "./search";
import { slotKey } from "./slot-index";
import type { SlotRecall } from "./slot-recall";
import type { VectorBinding, VectorSpace } from "./vector-spaces";

export type FallbackReason = "runtime_missing" | "model_not_cached" | "index_not_current" | "provider_error";

export interface DenseOutcome {
  hits: Scored[];
  fallback?: FallbackReason;
  binding?: VectorBinding;
  space?: VectorSpace;
  /** Which vector index answered (exact scan, or the inverted lists above flat_max_records). */
  index?: VectorSearchInfo;
}

const FALLBACK_TEXT: Record<FallbackReason, string> = {
  runtime_missing: "runtime missing: no embedding runtime or provider available",
  model_not_cached: "model not cached: Download in Settings > DSH-DREAM, or `dsh-dream download-model`",
  index_not_current: "index not current: memories are not yet embedded with this model",
  provider_error: "provider error: the embedding provider failed or timed out",
};

export function describeFallback(reason: FallbackReason | undefined): string {
  return reason ? `Recall: FTS fallback (${FALLBACK_TEXT[reason]})` : "Recall: dense + FTS";
}

export interface ReceiptCandidate {
  id: string;
  lexical_rank: number | null;
  lexical_score: number | null;
  dense_rank: number | null;
  dense_score: number | null;
  rrf_score: number;
  /** Found by the slot index: a statement of a state slot the query asks about. */
  slot: boolean;
  act: SpeechAct;
  selected: boolean;
}

/** A state slot the query asks about, and its newest usable statement. */
export interface ReceiptSlot {
  kind: string;
  subject: string;
  attribute: string | null;
  current_id: string | null;
  current_value: string | null;
  /** A newer statement naming the slot that the slot grammar could not read; shown before current_id. */
  newer_statement_id: string | null;
}

/** One line per slot whose older values were collapsed; the full list is `conflicts`. */
export interface CollapsedSlot {
  kind: string;
  subject: string;
  attribute: string | null;
  superseded: number;
  current_id: string;
  current_value: string;
}

export interface Receipt {
  receipt_id: string;
  created_at_ms: number;
  query: string;
  mode: "latest" | "timeline";
  scope: string | null;
  top_k: number;
  retrieved_chunk_ids: string[];
  window_hash: string | null;
  anchor_version: string | null;
  recall: string;
  fallback_reason: FallbackReason | null;
  dense: {
    provider: string;
    model: string;
    dim: number;
    model_digest: string | null;
    config_hash: string | null;
    query_vector_hash: string;
    /**
     * "flat": every eligible vector was scored (exact). "ivf": the lists nearest the query were read
     * (`lists_probed` of `lists`, `scanned` vectors) and scored exactly; `recall_estimate` is recall@10
     * against exact, measured when the lists were built.
     */
    index: { kind: "flat" | "ivf"; scanned: number; lists_probed?: number; lists?: number; recall_estimate?: number } | null;
  } | null;
  index_coverage: { records: number; current_vectors: number; ratio: number };
  rrf: { k: number; depth_per_retriever: number };
  candidates: ReceiptCandidate[];
  lexical_recall_preserved: boolean;
  dense_only_candidates: string[];
  dense_suppression_boundary: string;
  slots: ReceiptSlot[];
  collapsed_slots: CollapsedSlot[];
  conflicts: Array<{ id: string; superseded_by: string; kind: string; subject: string; attribute: string | null; value: string }>;
  latest_order: string;
  withheld: Array<{ id: string; reason: string }>;
  timings_ms: { lexical: number; dense: number; total: number };
  /**
   * Secrets taken out, by kind and never the value: from this query before it was searched or written
   * here, and the markers in the memories this recall returned (redacted when they were captured).
   */
  redactions: { query: Record<string, number>; memories: Record<string, number> };
  /** Set by the bridge: the state of the Chroma replica when the search ran. */
  persistence?: Record<string, unknown>;
  /** Set by the bridge: the configured embedder's state and how many memories have its vectors. */
  embedder?: Record<string, unknown>;
}

/** What the `receipt` RPC answers. */
export interface ReceiptResponse {
  receipt: Receipt;
}

export interface ReceiptInput {
  request: SearchRequest;
  view: SearchView;
  fused: FusedCandidate[];
  selected: FusedCandidate[];
  lexicalBaseline: FusedCandidate[];
  slots: SlotRecall;
  /** Docs the slot index contributed (heads in latest mode, slot history in timeline mode). */
  slotDocs: ReadonlyMap<number, number>;
  /** Head doc → a newer statement naming its slot that the grammar could not read. */
  mentions: ReadonlyMap<number, number>;
  suppressed: Suppression[];
  withheld: Array<{ doc: number; reason: string }>;
  dense: DenseOutcome;
  depth: number;
  timingsMs: { lexical: number; dense: number; total: number };
}

export function buildReceipt(input: ReceiptInput): Receipt {
  const { request, view, fused, selected, dense } = input;
  const idOf = (c: FusedCandidate) => view.record(c.doc)!.id;
  const selectedDocs = new Set(selected.map((c) => c.doc));
  const current = dense.space ? dense.space.contentHashByDoc.size : 0;
  return {
    receipt_id: `rcpt_${randomUUID()}`,
    created_at_ms: view.nowMs(),
    query: request.query,
    mode: request.timeline ? "timeline" : "latest",
    scope: request.scope ?? null,
    top_k: request.topK,
    retrieved_chunk_ids: selected.map(idOf),
    window_hash: request.windowHash ?? null,
    anchor_version: request.anchorVersion ?? null,
    recall: describeFallback(dense.fallback),
    fallback_reason: dense.fallback ?? null,
    dense: dense.binding && request.queryEmbedding
      ? {
          provider: dense.binding.provider,
          model: dense.binding.model,
          dim: dense.binding.dim,
          model_digest: dense.binding.modelDigest,
          config_hash: dense.binding.configHash,
          query_vector_hash: hashVector(request.queryEmbedding.vector),
          index: dense.index ? describeIndex(dense.index) : null,
        }
      : null,
    index_coverage: { records: view.size, current_vectors: current, ratio: view.size ? current / view.size : 0 },
    rrf: { k: RRF_K, depth_per_retriever: input.depth },
    candidates: fused.map((c) => ({
      id: idOf(c),
      lexical_rank: c.lexicalRank ?? null,
      lexical_score: c.lexicalScore ?? null,
      dense_rank: c.denseRank ?? null,
      dense_score: c.denseScore ?? null,
      rrf_score: c.rrf,
      slot: input.slotDocs.has(c.doc),
      act: view.act(c.doc),
      selected: selectedDocs.has(c.doc),
    })),
    lexical_recall_preserved: input.lexicalBaseline.every((c) => selectedDocs.has(c.doc)),
    dense_only_candidates: fused.filter((c) => c.lexicalRank === undefined).map(idOf),
    dense_suppression_boundary: "a dense-only candidate cannot by itself suppress a lexical candidate",
    slots: input.slots.asked.map((asked, i) => {
      const head = input.slots.current[i];
      return {
        kind: asked.kind,
        subject: asked.subject,
        attribute: asked.attribute ?? null,
        current_id: head ? view.record(head.doc)!.id : null,
        current_value: head?.slot.value ?? null,
        newer_statement_id: head && input.mentions.has(head.doc) ? view.record(input.mentions.get(head.doc)!)!.id : null,
      };
    }),
    collapsed_slots: collapsedSlots(input.suppressed),
    conflicts: input.suppressed.map((s) => ({
      id: s.id,
      superseded_by: s.supersededBy,
      kind: s.slot.kind,
      subject: s.slot.subject,
      attribute: s.slot.attribute ?? null,
      value: s.slot.value,
    })),
    latest_order: request.timeline
      ? "ascending time; acknowledgements withheld"
      : `asked slots' newest statements (each after a newer statement naming its slot that the grammar could not read), then statements, then questions and requests; near-equal scores (within ${RECENCY_TOLERANCE * 100} %) newest first; acknowledgements withheld`,
    withheld: input.withheld.map((w) => ({ id: view.record(w.doc)!.id, reason: w.reason })),
    redactions: { query: { ...request.queryRedactions }, memories: countRedactionMarkers(selected.map((c) => view.record(c.doc)!.text)) },
    timings_ms: input.timingsMs,
  };
}

/** One line per suppressed slot, naming the newest statement that replaced any of its values. */
function collapsedSlots(suppressed: readonly Suppression[]): CollapsedSlot[] {
  const bySlot = new Map<string, { line: CollapsedSlot; newestMs: number }>();
  for (const s of suppressed) {
    const key = slotKey(s.slot);
    const seen = bySlot.get(key);
    if (seen) seen.line.superseded++;
    if (seen && seen.newestMs >= s.byTimestampMs) continue;
    const { kind, subject, attribute } = s.slot;
    const line = { kind, subject, attribute: attribute ?? null, superseded: seen?.line.superseded ?? 1, current_id: s.supersededBy, current_value: s.by.value };
    bySlot.set(key, { line, newestMs: s.byTimestampMs });
  }
  return [...bySlot.values()].map((entry) => entry.line);
}

function hashVector(vector: Float32Array): string {
  return "sha256:" + createHash("sha256").update(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength)).digest("hex");
}

function describeIndex(info: VectorSearchInfo): NonNullable<Receipt["dense"]>["index"] {
  if (info.index === "flat") return { kind: "flat", scanned: info.scanned };
  return { kind: "ivf", scanned: info.scanned, lists_probed: info.probed, lists: info.lists, recall_estimate: info.recallEstimate };
}

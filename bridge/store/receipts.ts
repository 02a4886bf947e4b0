// Search receipts: why each memory came back. Built from the search's intermediate results;
// they carry hashes and ranks, never raw vectors.
import { createHash, randomUUID } from "node:crypto";
import { RRF_K, type FusedCandidate } from "../index/fuse";
import type { Scored } from "../index/top-k";
import type { Suppression } from "./conflicts";
import type { SearchRequest, SearchView } from "./search";
import type { VectorBinding, VectorSpace } from "./vector-spaces";

export type FallbackReason = "runtime_missing" | "model_not_cached" | "index_not_current" | "provider_error";

export interface DenseOutcome {
  hits: Scored[];
  fallback?: FallbackReason;
  binding?: VectorBinding;
  space?: VectorSpace;
}

const FALLBACK_TEXT: Record<FallbackReason, string> = {
  runtime_missing: "runtime missing: no embedding runtime or provider available",
  model_not_cached: "model not cached: run `dsh-dream download-model`",
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
  selected: boolean;
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
  } | null;
  index_coverage: { records: number; current_vectors: number; ratio: number };
  rrf: { k: number; depth_per_retriever: number };
  candidates: ReceiptCandidate[];
  lexical_recall_preserved: boolean;
  dense_only_candidates: string[];
  dense_suppression_boundary: string;
  conflicts: Array<{ id: string; superseded_by: string; kind: string; subject: string; value: string }>;
  withheld: Array<{ id: string; reason: string }>;
  timings_ms: { lexical: number; dense: number; total: number };
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
      selected: selectedDocs.has(c.doc),
    })),
    lexical_recall_preserved: input.lexicalBaseline.every((c) => selectedDocs.has(c.doc)),
    dense_only_candidates: fused.filter((c) => c.lexicalRank === undefined).map(idOf),
    dense_suppression_boundary: "a dense-only candidate cannot by itself suppress a lexical candidate",
    conflicts: input.suppressed.map((s) => ({
      id: s.id,
      superseded_by: s.supersededBy,
      kind: s.slot.kind,
      subject: s.slot.subject,
      value: s.slot.value,
    })),
    withheld: input.withheld.map((w) => ({ id: view.record(w.doc)!.id, reason: w.reason })),
    timings_ms: input.timingsMs,
  };
}

function hashVector(vector: Float32Array): string {
  return "sha256:" + createHash("sha256").update(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength)).digest("hex");
}

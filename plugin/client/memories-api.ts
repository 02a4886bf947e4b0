// The Memories page's calls to the plugin's /memories routes (plugin/routes/memory-routes.ts) and
// the shapes they answer with: the bridge's own views (bridge/store/memory-views.ts, receipts.ts),
// restated here because the browser bundle cannot import the bridge's modules.
import { callRoute, ROUTE_PREFIX, type ApiResult } from "./api";

export type SourceType = "user_message" | "assistant_message" | "system_fact" | "tool_result";
export const SOURCE_TYPES: readonly SourceType[] = ["user_message", "assistant_message", "system_fact", "tool_result"];
export type ListStatus = "any" | "active" | "quarantined";

export interface Quarantine {
  reason: string;
  at_ms: number;
}

export interface ListedMemory {
  id: string;
  text: string;
  text_chars?: number;
  source_type: SourceType;
  timestamp_ms: number;
  scope: string;
  session_id?: string;
  turn?: number;
  tags?: string[];
  quarantine?: Quarantine;
  act: string;
}

export interface ListPage {
  total: number;
  offset: number;
  memories: ListedMemory[];
  next_offset: number | null;
}

export interface ListFilter {
  scope?: string;
  source_type?: SourceType;
  contains?: string;
  since_ms?: number;
  until_ms?: number;
  status?: ListStatus;
  offset?: number;
  limit?: number;
}

export interface Slot {
  kind: string;
  subject: string;
  attribute: string | null;
}

export interface SlotHistory extends Slot {
  values: Array<{ id: string; value: string; timestamp_ms: number; source_type: SourceType; text: string; quarantined: boolean; current: boolean }>;
  omitted: number;
}

export interface MemoryDetail {
  record: Omit<ListedMemory, "act" | "text_chars"> & { metadata: Record<string, unknown> };
  act: string;
  slots: Array<Slot & { value: string }>;
  slot_history: SlotHistory[];
  receipts: Array<{ receipt_id: string; created_at_ms: number; query: string; mode: string; rank: number }>;
  edited_from: string | null;
  replaced_by: string | null;
}

export interface Candidate {
  id: string;
  lexical_rank: number | null;
  dense_rank: number | null;
  slot: boolean;
  act: string;
  selected: boolean;
}

export interface Receipt {
  receipt_id: string;
  created_at_ms: number;
  query: string;
  mode: "latest" | "timeline";
  top_k: number;
  retrieved_chunk_ids: string[];
  fallback_reason: string | null;
  candidates: Candidate[];
  collapsed_slots: Array<Slot & { superseded: number; current_id: string; current_value: string }>;
  conflicts: Array<Slot & { id: string; superseded_by: string; value: string }>;
  withheld: Array<{ id: string; reason: string }>;
  redactions?: { query: Record<string, number>; memories: Record<string, number> };
}

/** A memory a receipt names, as the routes add it; a forgotten one is missing. */
export interface Glance {
  text: string;
  source_type: SourceType;
  timestamp_ms: number;
  quarantined: boolean;
}

export interface SearchAnswer {
  results: Array<{ id: string; text: string; source_type: SourceType; timestamp_ms: number; score: number }>;
  receipt: Receipt;
  memories: Record<string, Glance>;
}

/** The plugin's note of its newest recall (plugin/recall/recall.ts). */
export interface RecallNote {
  session_id: string;
  turn: number;
  at_ms: number;
  receipt_id: string | null;
  injected_ids: string[];
  truncated_ids: string[];
  recall: string;
}

export interface LastRecall {
  recall: RecallNote | null;
  receipt: Receipt | null;
  receipt_unavailable?: { code: string; message: string };
  memories: Record<string, Glance>;
}

export interface StatsAnswer {
  enabled: boolean;
  stats: { memories: number; quarantined: number; sessions: number; by_scope: Record<string, number> } | null;
}

export const EXPORT_URL = `${ROUTE_PREFIX}/memories/export`;

export const memoriesApi = {
  stats: () => callRoute<StatsAnswer>("GET", "/memories/stats"),
  list: (filter: ListFilter) => callRoute<ListPage>("POST", "/memories/list", filter),
  search: (query: string, timeline: boolean) => callRoute<SearchAnswer>("POST", "/memories/search", { query, timeline, top_k: 10 }),
  get: (id: string) => callRoute<MemoryDetail>("POST", "/memories/get", { id }),
  forget: (id: string) => callRoute<{ forgotten: { id: string } }>("POST", "/memories/forget", { id }),
  quarantine: (id: string, reason: string) => callRoute<unknown>("POST", "/memories/quarantine", { id, reason }),
  release: (id: string) => callRoute<unknown>("POST", "/memories/release", { id }),
  edit: (id: string, text: string) => callRoute<{ record: { id: string }; replaced: { id: string } }>("POST", "/memories/edit", { id, text }),
  lastRecall: () => callRoute<LastRecall>("GET", "/memories/last-recall"),
};

export type { ApiResult };

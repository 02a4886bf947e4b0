// Read-only views of the memory for people managing it (the CLI's list/get/history/stats and the
// Memories page): filtered pages, one memory in full with what it states and its slots' histories,
// a subject's values over time, and counts. Pure functions of the state: no I/O, no writes.
import { normaliseSubject } from "../statements/en-phrases";
import { simplified } from "../statements/han-script";
import { readSlotQuery, visitPhrases } from "../statements/slot-query";
import type { StateSlot } from "../statements/slots";
import type { SpeechAct } from "../statements/speech-acts";
import type { MemoryState } from "./memory-state";
import type { MemoryRecord, SourceType } from "./records";
import type { Receipt } from "./receipts";
import { slotKey, type SlotEntry } from "./slot-index";
import { plainRecord, textLength } from "./text-pages";

export const VIEW_LIMITS = {
  defaultPage: 20,
  maxPage: 200,
  /** A listed memory's text is cut here; `inspect` gives it whole. */
  listTextChars: 1000,
  historyEntries: 200,
  historySlots: 20,
  receiptsPerMemory: 10,
} as const;

export type ListStatus = "any" | "active" | "quarantined";

export interface ListFilter {
  scope?: string;
  sourceType?: SourceType;
  tag?: string;
  sinceMs?: number;
  untilMs?: number;
  sessionId?: string;
  /** Case-insensitive phrase the text must contain. */
  contains?: string;
  status?: ListStatus;
  order?: "newest" | "oldest";
  offset?: number;
  limit?: number;
}

export interface ListedMemory {
  id: string;
  text: string;
  /** Set when `text` was cut: the text's full length in characters. */
  text_chars?: number;
  source_type: SourceType;
  timestamp_ms: number;
  scope: string;
  session_id?: string;
  turn?: number;
  tags?: string[];
  quarantine?: { reason: string; at_ms: number };
  act: SpeechAct;
}

export interface ListPage {
  total: number;
  offset: number;
  memories: ListedMemory[];
  /** Where the next page starts, or null after the last. */
  next_offset: number | null;
}

/** One page of the live memories that pass every filter, newest first unless asked otherwise. */
export function listMemories(state: MemoryState, filter: ListFilter): ListPage {
  const phrase = filter.contains?.toLocaleLowerCase();
  const status = filter.status ?? "any";
  const docs: number[] = [];
  state.records.forEach((record, doc) => {
    if (!record) return;
    if (filter.scope !== undefined && record.scope !== filter.scope) return;
    if (filter.sourceType !== undefined && record.source_type !== filter.sourceType) return;
    if (filter.sessionId !== undefined && record.session_id !== filter.sessionId) return;
    if (filter.tag !== undefined && !record.tags?.includes(filter.tag)) return;
    if (filter.sinceMs !== undefined && record.timestamp_ms < filter.sinceMs) return;
    if (filter.untilMs !== undefined && record.timestamp_ms >= filter.untilMs) return;
    if (status === "active" && record.quarantine) return;
    if (status === "quarantined" && !record.quarantine) return;
    if (phrase !== undefined && !record.text.toLocaleLowerCase().includes(phrase)) return;
    docs.push(doc);
  });
  const sign = filter.order === "oldest" ? 1 : -1;
  // Ties in time keep write order (doc number), so paging is stable.
  docs.sort((a, b) => sign * (state.records[a]!.timestamp_ms - state.records[b]!.timestamp_ms || a - b));
  const offset = filter.offset ?? 0;
  const limit = filter.limit ?? VIEW_LIMITS.defaultPage;
  const page = docs.slice(offset, offset + limit);
  return {
    total: docs.length,
    offset,
    memories: page.map((doc) => listed(state, doc, VIEW_LIMITS.listTextChars)),
    next_offset: offset + limit < docs.length ? offset + limit : null,
  };
}

export interface SlotValue {
  id: string;
  value: string;
  timestamp_ms: number;
  source_type: SourceType;
  /** The text of the statement, cut for a listing. */
  text: string;
  quarantined: boolean;
  /** The newest statement of the slot that recall may use (not quarantined). */
  current: boolean;
}

export interface SlotHistory {
  kind: string;
  subject: string;
  attribute: string | null;
  /** Oldest first; at most VIEW_LIMITS.historyEntries, the newest kept. */
  values: SlotValue[];
  /** Statements of the slot left out of `values` (older ones). */
  omitted: number;
}

export interface MemoryDetail {
  record: Omit<MemoryRecord, "content_hash" | "quarantine"> & { quarantine?: { reason: string; at_ms: number } };
  act: SpeechAct;
  slots: Array<{ kind: string; subject: string; attribute: string | null; value: string }>;
  slot_history: SlotHistory[];
  /** The newest receipts (of those the bridge keeps) that returned this memory, newest first. */
  receipts: Array<{ receipt_id: string; created_at_ms: number; query: string; mode: string; rank: number }>;
  vectors: Array<{ provider: string; model: string; dim: number }>;
  /** The memory this one replaced by an edit, and the one that replaced it. */
  edited_from: string | null;
  replaced_by: string | null;
}

/** One memory in full: what it states, each of its slots' values over time, and the receipts that used it. */
export function inspectMemory(state: MemoryState, id: string, receipts: readonly Receipt[]): MemoryDetail | undefined {
  const doc = state.docOf(id);
  const record = doc === undefined ? undefined : state.records[doc];
  if (doc === undefined || !record) return undefined;
  // A paged record's text is read back here: the rest of an object would leave it behind.
  const { content_hash: _hash, quarantine, ...rest } = plainRecord(record);
  const slots = state.slots(doc);
  const seen = new Set<string>();
  const histories: SlotHistory[] = [];
  for (const slot of slots) {
    const key = slotKey(slot);
    if (seen.has(key)) continue;
    seen.add(key);
    histories.push(slotHistory(state, state.slotIndex.chain(key), slot));
  }
  const used = receipts
    .filter((receipt) => receipt.retrieved_chunk_ids.includes(id))
    .reverse()
    .slice(0, VIEW_LIMITS.receiptsPerMemory)
    .map((receipt) => ({
      receipt_id: receipt.receipt_id,
      created_at_ms: receipt.created_at_ms,
      query: receipt.query,
      mode: receipt.mode,
      rank: receipt.retrieved_chunk_ids.indexOf(id) + 1,
    }));
  const editedFrom = typeof record.metadata.edited_from === "string" ? record.metadata.edited_from : null;
  return {
    record: { ...rest, ...(quarantine ? { quarantine: { reason: quarantine.reason, at_ms: quarantine.atMs } } : {}) },
    act: state.act(doc),
    slots: slots.map((slot) => ({ kind: slot.kind, subject: slot.subject, attribute: slot.attribute ?? null, value: slot.value })),
    slot_history: histories,
    receipts: used,
    vectors: state.vectors.bindingsOf(doc).map((binding) => ({ provider: binding.provider, model: binding.model, dim: binding.dim })),
    edited_from: editedFrom,
    replaced_by: quarantine ? replacedBy(state, id) : null,
  };
}

/** The state slots a subject (or an attribute) names, each with its values over time. */
export function subjectHistory(state: MemoryState, subject: string): SlotHistory[] {
  const keys = new Set<string>();
  const add = (phrase: string) => {
    if (phrase === "") return;
    for (const key of state.slotIndex.keysWithSubjectHead(phrase)) keys.add(key);
    for (const key of state.slotIndex.keysWithAttributeHead(phrase)) keys.add(key);
  };
  const normalised = simplified(subject.normalize("NFKC")).toLowerCase().trim();
  add(normalised);
  add(normaliseSubject(normalised));
  // "我的护照", "where is my passport": every phrase of it that names a subject.
  if (keys.size === 0) visitPhrases(readSlotQuery(subject), (phrase) => !phrase.single && add(phrase.text));
  const histories = [...keys].map((key) => {
    const chain = state.slotIndex.chain(key);
    return slotHistory(state, chain, chain[chain.length - 1].slot);
  });
  // The slots changed most recently first.
  histories.sort((a, b) => (b.values.at(-1)?.timestamp_ms ?? 0) - (a.values.at(-1)?.timestamp_ms ?? 0));
  return histories.slice(0, VIEW_LIMITS.historySlots);
}

export interface MemoryStats {
  memories: number;
  quarantined: number;
  forgotten_not_erased: number;
  by_source_type: Record<string, number>;
  by_scope: Record<string, number>;
  /** Memories per month of their own time (UTC, "YYYY-MM"), oldest first. */
  by_month: Array<{ month: string; memories: number }>;
  sessions: number;
  oldest_ms: number | null;
  newest_ms: number | null;
  text_chars: number;
  slots: number;
  slot_statements: number;
}

export function memoryStats(state: MemoryState): MemoryStats {
  const bySource: Record<string, number> = {};
  const byScope: Record<string, number> = {};
  const byMonth = new Map<string, number>();
  const sessions = new Set<string>();
  let quarantined = 0;
  let oldest: number | null = null;
  let newest: number | null = null;
  let chars = 0;
  for (const record of state.records) {
    if (!record) continue;
    bySource[record.source_type] = (bySource[record.source_type] ?? 0) + 1;
    byScope[record.scope] = (byScope[record.scope] ?? 0) + 1;
    const month = monthOf(record.timestamp_ms);
    byMonth.set(month, (byMonth.get(month) ?? 0) + 1);
    if (record.session_id !== undefined) sessions.add(record.session_id);
    if (record.quarantine) quarantined++;
    oldest = oldest === null ? record.timestamp_ms : Math.min(oldest, record.timestamp_ms);
    newest = newest === null ? record.timestamp_ms : Math.max(newest, record.timestamp_ms);
    chars += textLength(record);
  }
  return {
    memories: state.size,
    quarantined,
    forgotten_not_erased: state.forgottenNotErased,
    by_source_type: bySource,
    by_scope: byScope,
    by_month: [...byMonth].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([month, memories]) => ({ month, memories })),
    sessions: sessions.size,
    oldest_ms: oldest,
    newest_ms: newest,
    text_chars: chars,
    slots: state.slotIndex.slotCount,
    slot_statements: state.slotIndex.size,
  };
}

function slotHistory(state: MemoryState, chain: readonly SlotEntry[], slot: StateSlot): SlotHistory {
  const kept = chain.slice(-VIEW_LIMITS.historyEntries);
  let current = -1;
  for (let i = kept.length - 1; i >= 0 && current < 0; i--) if (!state.records[kept[i].doc]?.quarantine) current = i;
  return {
    kind: slot.kind,
    subject: slot.subject,
    attribute: slot.attribute ?? null,
    values: kept.map((entry, i) => {
      const record = state.records[entry.doc]!;
      return {
        id: record.id,
        value: entry.slot.value,
        timestamp_ms: entry.timestampMs,
        source_type: record.source_type,
        text: cut(record.text, 200),
        quarantined: record.quarantine !== undefined,
        current: i === current,
      };
    }),
    omitted: chain.length - kept.length,
  };
}

function listed(state: MemoryState, doc: number, maxChars: number): ListedMemory {
  const record = state.records[doc]!;
  const text = record.text;
  const out: ListedMemory = {
    id: record.id,
    text: cut(text, maxChars),
    source_type: record.source_type,
    timestamp_ms: record.timestamp_ms,
    scope: record.scope,
    act: state.act(doc),
  };
  if (text.length > maxChars) out.text_chars = text.length;
  if (record.session_id !== undefined) out.session_id = record.session_id;
  if (record.turn !== undefined) out.turn = record.turn;
  if (record.tags?.length) out.tags = record.tags;
  if (record.quarantine) out.quarantine = { reason: record.quarantine.reason, at_ms: record.quarantine.atMs };
  return out;
}

/** The live memory an edit of `id` wrote (its metadata names `id`), newest if edited more than once. */
function replacedBy(state: MemoryState, id: string): string | null {
  for (let doc = state.records.length - 1; doc >= 0; doc--) {
    if (state.records[doc]?.metadata.edited_from === id) return state.records[doc]!.id;
  }
  return null;
}

function monthOf(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? "invalid" : date.toISOString().slice(0, 7);
}

function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

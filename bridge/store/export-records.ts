// Export in the import format: a record exported and imported again is the same record, field for
// field, so export -> import into an empty directory -> export gives an identical file.
import type { EmbeddingInput, MemoryRecord } from "./records";

/** Keys in a fixed order: identical records always serialise to identical lines. */
export function toImportFormat(record: MemoryRecord, embedding?: EmbeddingInput): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: record.id,
    text: record.text,
    source_type: record.source_type,
    timestamp_ms: record.timestamp_ms,
    scope: record.scope,
  };
  if (record.session_id !== undefined) out.session_id = record.session_id;
  if (record.turn !== undefined) out.turn = record.turn;
  if (record.tags !== undefined) out.tags = record.tags;
  out.metadata = record.metadata;
  if (record.quarantine) out.quarantined = record.quarantine.reason;
  if (embedding) out.embedding = { provider: embedding.provider, model: embedding.model, vector: Array.from(embedding.vector) };
  return out;
}

// Chroma records: the pure mapping between our records and Chroma rows. Which collection a vector
// binding names, and MemoryRecord <-> Chroma metadata in both directions. No chromadb here.
import { createHash } from "node:crypto";
import { DreamError } from "../protocol/errors";
import { isPlainObject, SOURCE_TYPES, type MemoryRecord, type SourceType } from "../store/records";

export interface VectorBinding {
  provider: string;
  model: string;
  dim: number;
}

export type ChromaMetadata = Record<string, string | number | boolean>;

export const COLLECTION_PREFIX = "dsh-dream-";

/** Deterministic per binding: switching embedder means a new collection, never mixed dimensions. */
export function collectionName(binding: VectorBinding): string {
  const digest = createHash("sha256").update(`${binding.provider}\0${binding.model}\0${binding.dim}`).digest("hex");
  return COLLECTION_PREFIX + digest.slice(0, 16);
}

/** Chroma metadata takes scalars only and rejects null: lists and objects travel as JSON strings. */
export function metadataFor(record: MemoryRecord, binding: VectorBinding): ChromaMetadata {
  const metadata: ChromaMetadata = {
    source_type: record.source_type,
    timestamp_ms: record.timestamp_ms,
    scope: record.scope,
    content_hash: record.content_hash,
    metadata_json: JSON.stringify(record.metadata),
    provider: binding.provider,
    model: binding.model,
    dim: binding.dim,
  };
  if (record.session_id !== undefined) metadata.session_id = record.session_id;
  if (record.turn !== undefined) metadata.turn = record.turn;
  if (record.tags !== undefined) metadata.tags = JSON.stringify(record.tags);
  if (record.quarantine) {
    metadata.quarantine_reason = record.quarantine.reason;
    metadata.quarantine_at_ms = record.quarantine.atMs;
  }
  return metadata;
}

/** The inverse of metadataFor; throws CHROMA_ERROR for rows we did not write. */
export function recordFromChroma(id: string, document: string | null, metadata: ChromaMetadata | null): MemoryRecord {
  const bad = (field: string): never => {
    throw new DreamError("CHROMA_ERROR", `Chroma row ${JSON.stringify(id)} has no valid ${field}; it was not written by dsh-dream`);
  };
  if (typeof document !== "string") return bad("document");
  const meta = metadata ?? bad("metadata");
  const text = (key: string): string => (typeof meta[key] === "string" ? (meta[key] as string) : bad(key));
  const int = (key: string): number => (Number.isSafeInteger(meta[key]) ? (meta[key] as number) : bad(key));
  const json = (key: string): unknown => {
    try {
      return JSON.parse(text(key));
    } catch (error) {
      throw new DreamError("CHROMA_ERROR", `Chroma row ${JSON.stringify(id)} has unreadable ${key}`, { cause: error });
    }
  };
  const metadataJson = json("metadata_json");
  const record: MemoryRecord = {
    id,
    text: document,
    source_type: (SOURCE_TYPES as readonly unknown[]).includes(meta.source_type) ? (meta.source_type as SourceType) : bad("source_type"),
    timestamp_ms: int("timestamp_ms"),
    scope: text("scope"),
    metadata: isPlainObject(metadataJson) ? metadataJson : bad("metadata_json"),
    content_hash: text("content_hash"),
  };
  if (meta.session_id !== undefined) record.session_id = text("session_id");
  if (meta.turn !== undefined) record.turn = int("turn");
  if (meta.tags !== undefined) {
    const tags = json("tags");
    record.tags = Array.isArray(tags) && tags.every((tag) => typeof tag === "string") ? tags : bad("tags");
  }
  if (meta.quarantine_reason !== undefined) record.quarantine = { reason: text("quarantine_reason"), atMs: int("quarantine_at_ms") };
  return record;
}

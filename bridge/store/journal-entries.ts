// Journal entry shapes: encoding a change for the journal and decoding it back on replay.
// Vectors travel as base64 little-endian float32, a third the size of JSON numbers.
import { DreamError } from "../protocol/errors";
import type { JournalEntry } from "./journal";
import type { EmbeddingInput, MemoryRecord } from "./records";
import type { VectorBinding } from "./vector-spaces";

export type StoreChange =
  | { op: "add"; record: MemoryRecord; embedding?: EmbeddingInput }
  | { op: "embed"; id: string; contentHash: string; embedding: EmbeddingInput }
  | { op: "drop_vectors"; binding: VectorBinding }
  | { op: "forget"; id: string; atMs: number }
  | { op: "quarantine"; id: string; reason: string; atMs: number }
  | { op: "release"; id: string; atMs: number };

export function encodeAdd(record: MemoryRecord, embedding?: EmbeddingInput): JournalEntry {
  const entry: JournalEntry = { op: "add", rec: record };
  if (embedding) entry.emb = encodeEmbedding(embedding);
  return entry;
}

/** A vector computed later for a stored memory; ignored on replay if the memory's text has changed. */
export function encodeEmbed(id: string, contentHash: string, embedding: EmbeddingInput): JournalEntry {
  return { op: "embed", id, content_hash: contentHash, emb: encodeEmbedding(embedding) };
}

export function encodeDropVectors(binding: VectorBinding): JournalEntry {
  return { op: "drop_vectors", binding: { ...binding } };
}

function encodeEmbedding(embedding: EmbeddingInput): Record<string, unknown> {
  const { vector } = embedding;
  const bytes = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  const out: Record<string, unknown> = { provider: embedding.provider, model: embedding.model, f32: bytes.toString("base64") };
  if (embedding.modelDigest) out.md = embedding.modelDigest;
  if (embedding.configHash) out.ch = embedding.configHash;
  return out;
}

function decodeEmbedding(emb: { provider: string; model: string; f32: string; md?: string; ch?: string }): EmbeddingInput {
  const bytes = Buffer.from(emb.f32, "base64");
  const vector = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return { provider: emb.provider, model: emb.model, vector, modelDigest: emb.md ?? null, configHash: emb.ch ?? null };
}

export function decodeEntry(entry: JournalEntry): StoreChange {
  switch (entry.op) {
    case "add": {
      const record = entry.rec as MemoryRecord;
      if (typeof record?.id !== "string" || typeof record.text !== "string") throw corrupt(entry);
      const emb = entry.emb as Parameters<typeof decodeEmbedding>[0] | undefined;
      return emb ? { op: "add", record, embedding: decodeEmbedding(emb) } : { op: "add", record };
    }
    case "embed":
      if (typeof entry.id !== "string" || typeof entry.content_hash !== "string" || typeof entry.emb !== "object") throw corrupt(entry);
      return { op: "embed", id: entry.id, contentHash: entry.content_hash, embedding: decodeEmbedding(entry.emb as Parameters<typeof decodeEmbedding>[0]) };
    case "drop_vectors":
      if (typeof entry.binding !== "object" || entry.binding === null) throw corrupt(entry);
      return { op: "drop_vectors", binding: entry.binding as VectorBinding };
    case "forget":
    case "release":
      if (typeof entry.id !== "string") throw corrupt(entry);
      return { op: entry.op, id: entry.id, atMs: Number(entry.at_ms) };
    case "quarantine":
      if (typeof entry.id !== "string" || typeof entry.reason !== "string") throw corrupt(entry);
      return { op: "quarantine", id: entry.id, reason: entry.reason, atMs: Number(entry.at_ms) };
    default:
      throw corrupt(entry);
  }
}

function corrupt(entry: JournalEntry): DreamError {
  return new DreamError("JOURNAL_CORRUPT", `journal entry with op "${entry.op}" is malformed or unknown`);
}

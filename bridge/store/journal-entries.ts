// Journal entry shapes: encoding a change for the journal and decoding it back on replay.
// Vectors travel as base64 little-endian float32, a third the size of JSON numbers.
import { DreamError } from "../protocol/errors";
import type { JournalEntry } from "./journal";
import type { EmbeddingInput, MemoryRecord } from "./records";

export type StoreChange =
  | { op: "add"; record: MemoryRecord; embedding?: EmbeddingInput }
  | { op: "forget"; id: string; atMs: number }
  | { op: "quarantine"; id: string; reason: string; atMs: number }
  | { op: "release"; id: string; atMs: number };

export function encodeAdd(record: MemoryRecord, embedding?: EmbeddingInput): JournalEntry {
  const entry: JournalEntry = { op: "add", rec: record };
  if (embedding) {
    const { vector } = embedding;
    const bytes = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
    entry.emb = { provider: embedding.provider, model: embedding.model, f32: bytes.toString("base64") };
  }
  return entry;
}

export function decodeEntry(entry: JournalEntry): StoreChange {
  switch (entry.op) {
    case "add": {
      const record = entry.rec as MemoryRecord;
      if (typeof record?.id !== "string" || typeof record.text !== "string") throw corrupt(entry);
      const emb = entry.emb as { provider: string; model: string; f32: string } | undefined;
      if (!emb) return { op: "add", record };
      const bytes = Buffer.from(emb.f32, "base64");
      const vector = new Float32Array(bytes.byteLength / 4);
      new Uint8Array(vector.buffer).set(bytes);
      return { op: "add", record, embedding: { provider: emb.provider, model: emb.model, vector } };
    }
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

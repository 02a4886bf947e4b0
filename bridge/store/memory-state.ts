// The in-memory state derived from the journal: records by doc number, the lexical and vector
// indexes, scopes, turn adjacency and cached state slots. Pure of I/O: the store feeds it entries.
import { documentTerms } from "../index/analyze";
import { Bm25Index } from "../index/bm25";
import { TurnAdjacency } from "../index/turn-adjacency";
import { DreamError } from "../protocol/errors";
import type { RestoredState } from "./checkpoint";
import { toImportFormat } from "./export-records";
import type { JournalEntry } from "./journal";
import { decodeEntry } from "./journal-entries";
import type { EmbeddingInput, MemoryRecord } from "./records";
import { ScopeMasks } from "./scope-masks";
import type { SearchView } from "./search";
import { extractSlots, type StateSlot } from "./slots";
import { bindingOf, VectorSpaces, type VectorBinding } from "./vector-spaces";

export interface PendingEmbedding {
  id: string;
  text: string;
  contentHash: string;
}

export class MemoryState implements SearchView {
  readonly records: Array<MemoryRecord | undefined> = [];
  private readonly docById = new Map<string, number>();
  private readonly slotCache = new Map<number, StateSlot[]>();
  private readonly turns = new TurnAdjacency();
  readonly bm25: Bm25Index;
  readonly vectors: VectorSpaces;
  readonly scopes = new ScopeMasks();
  private live = 0;
  /** Journal entries the state includes (header excluded), whether replayed, restored or written here. */
  entries = 0;

  constructor(
    readonly nowMs: () => number,
    bm25Params: { k1?: number; b?: number } | undefined,
    restored: RestoredState | undefined,
  ) {
    this.bm25 = restored?.bm25 ?? new Bm25Index(bm25Params);
    this.vectors = restored?.vectors ?? new VectorSpaces();
    if (restored) this.adopt(restored);
  }

  get size(): number {
    return this.live;
  }

  get(id: string): MemoryRecord | undefined {
    const doc = this.docById.get(id);
    return doc === undefined ? undefined : this.records[doc];
  }

  record(doc: number): MemoryRecord | undefined {
    return this.records[doc];
  }

  /** Live memories in the same session as `doc` whose turn is at most one away (see TurnAdjacency). */
  adjacentTurns(doc: number): readonly number[] {
    return this.turns.neighbours(doc);
  }

  slots(doc: number): StateSlot[] {
    let slots = this.slotCache.get(doc);
    if (!slots) {
      slots = extractSlots(this.records[doc]?.text ?? "");
      this.slotCache.set(doc, slots);
    }
    return slots;
  }

  /** search_vector: dense-only diagnostics (no BM25, fusion, conflicts or packing; quarantine shown, not applied). */
  searchVector(embedding: EmbeddingInput, topK: number, scope?: string): Array<{ id: string; score: number; quarantined: boolean }> {
    const space = this.vectors.find(bindingOf(embedding));
    if (!space) {
      throw new DreamError("VECTOR_MISMATCH", `no stored vectors for ${embedding.provider}/${embedding.model} with ${embedding.vector.length} dimensions`);
    }
    return space.index.search(embedding.vector, topK, this.scopes.maskFor(scope)).map(({ doc, score }) => {
      const record = this.records[doc]!;
      return { id: record.id, score, quarantined: record.quarantine !== undefined };
    });
  }

  /** The record as it is now with its vectors, newest space last (a record has at most one per space). */
  currentWithVectors(id: string): { record: MemoryRecord; embeddings: EmbeddingInput[] } | undefined {
    const doc = this.docById.get(id);
    const record = doc === undefined ? undefined : this.records[doc];
    if (doc === undefined || !record) return undefined;
    const embeddings = this.vectors.bindingsOf(doc).flatMap((binding) => {
      const vector = this.vectors.find(binding)?.index.vectorOf(doc);
      return vector ? [{ provider: binding.provider, model: binding.model, vector, modelDigest: binding.modelDigest, configHash: binding.configHash }] : [];
    });
    return { record, embeddings };
  }

  /**
   * Live memories from doc `fromDoc` on without a current vector in `binding`'s space (never embedded,
   * or embedded by another model or config); `nextDoc` is where the next scan continues.
   */
  memoriesNeedingVectors(binding: VectorBinding, fromDoc: number, limit: number): { items: PendingEmbedding[]; nextDoc: number } {
    const space = this.vectors.find(binding);
    const items: PendingEmbedding[] = [];
    let doc = fromDoc;
    for (; doc < this.records.length && items.length < limit; doc++) {
      const record = this.records[doc];
      if (record && space?.contentHashByDoc.get(doc) !== record.content_hash) items.push({ id: record.id, text: record.text, contentHash: record.content_hash });
    }
    return { items, nextDoc: doc };
  }

  /** Live memories with a current vector in `binding`'s space. */
  vectorCount(binding: VectorBinding): number {
    return this.vectors.find(binding)?.contentHashByDoc.size ?? 0;
  }

  /** One page of live memories in write order, in the import format; `next` is where the next page starts. */
  exportPage(after: number, limit: number, withVectors: boolean): { records: Array<Record<string, unknown>>; next: number | null } {
    const records: Array<Record<string, unknown>> = [];
    let doc = after;
    for (; doc < this.records.length && records.length < limit; doc++) {
      const record = this.records[doc];
      if (!record) continue;
      records.push(toImportFormat(record, withVectors ? this.currentWithVectors(record.id)?.embeddings.at(-1) : undefined));
    }
    return { records, next: doc < this.records.length ? doc : null };
  }

  /** Applies one journal entry; shared by replay and live writes. */
  apply(entry: JournalEntry): void {
    const change = decodeEntry(entry);
    this.entries++;
    if (change.op === "add") return this.insert(change.record, change.embedding);
    if (change.op === "drop_vectors") {
      this.vectors.drop(change.binding);
      return;
    }
    const doc = this.docById.get(change.id);
    const record = doc === undefined ? undefined : this.records[doc];
    if (doc === undefined || !record) return;
    if (change.op === "forget") {
      this.records[doc] = undefined;
      this.docById.delete(change.id);
      this.bm25.remove(doc);
      this.turns.remove(doc);
      this.vectors.remove(doc);
      this.scopes.remove(doc);
      this.slotCache.delete(doc);
      this.live--;
    } else if (change.op === "embed") {
      // A vector computed for text this memory no longer has is stale: never install it.
      if (change.contentHash === record.content_hash) this.vectors.put(doc, record.content_hash, change.embedding);
    } else if (change.op === "quarantine") {
      record.quarantine = { reason: change.reason, atMs: change.atMs };
    } else {
      delete record.quarantine;
    }
  }

  /** Takes over a restored checkpoint's records; turn adjacency and scopes are cheap to rebuild from them. */
  private adopt(restored: RestoredState): void {
    restored.records.forEach((record, doc) => {
      this.records.push(record);
      if (!record) return;
      this.docById.set(record.id, doc);
      if (record.session_id !== undefined && record.turn !== undefined) this.turns.add(doc, record.session_id, record.turn);
      this.scopes.add(doc, record.scope);
      this.live++;
    });
    this.entries = restored.entries;
  }

  private insert(record: MemoryRecord, embedding: EmbeddingInput | undefined): void {
    if (this.docById.has(record.id)) return;
    const doc = this.records.length;
    this.records.push(record);
    this.docById.set(record.id, doc);
    this.bm25.add(doc, documentTerms(record.text));
    if (record.session_id !== undefined && record.turn !== undefined) this.turns.add(doc, record.session_id, record.turn);
    this.scopes.add(doc, record.scope);
    if (embedding) this.vectors.put(doc, record.content_hash, embedding);
    this.live++;
  }
}

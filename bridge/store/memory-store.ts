// The memory store: owns one data directory (lock, journal, audit log) and the in-memory indexes
// rebuilt from the journal. Writes are acknowledged only after the journal has them on disk.
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { documentTerms } from "../index/analyze";
import { Bm25Index } from "../index/bm25";
import { TurnAdjacency } from "../index/turn-adjacency";
import { DreamError } from "../protocol/errors";
import { AuditLog } from "./audit-log";
import { type CheckpointWritten, loadCheckpoint, type RestoredState, writeCheckpoint } from "./checkpoint";
import { Journal, type JournalEntry, type ReplayReport } from "./journal";
import { DirectoryLock } from "./lock";
import { decodeEntry, encodeAdd, encodeDropVectors, encodeEmbed } from "./journal-entries";
import { toImportFormat } from "./export-records";
import { type EmbeddingInput, type MemoryRecord, type RecordDefaults, validateRecordInput } from "./records";
import { ScopeMasks } from "./scope-masks";
import { runSearch, type SearchRequest, type SearchResponse, type SearchView } from "./search";
import { extractSlots, type StateSlot } from "./slots";
import { bindingOf, VectorSpaces, type VectorBinding } from "./vector-spaces";

export interface StoreOptions {
  dataDir: string;
  nowMs?: () => number;
  newId?: () => string;
  bm25?: { k1?: number; b?: number };
  /** close() writes a checkpoint when the journal grew by more than this since the last one (default 4 MiB). */
  checkpointOnCloseBytes?: number;
}

// About 0.1 s of replay with 512-d vectors: below this a checkpoint on close costs more than it saves.
const CHECKPOINT_ON_CLOSE_BYTES = 4 * 1024 * 1024;

/** How the last open went: whether a checkpoint was restored (and if not, why), and how long it took. */
interface OpenReport {
  checkpointOffset: number;
  checkpointReason?: string;
  openMs: number;
}

export type AddStatus = "added" | "unchanged";

export interface ImportReport {
  added: number;
  unchanged: number;
  rejected: Array<{ index: number; code: string; message: string }>;
}

export class MemoryStore implements SearchView {
  private readonly records: Array<MemoryRecord | undefined> = [];
  private readonly docById = new Map<string, number>();
  private readonly slotCache = new Map<number, StateSlot[]>();
  private readonly commitListeners: Array<() => void> = [];
  private receiptNotes: (() => Record<string, unknown>) | undefined;
  private readonly turns = new TurnAdjacency();
  readonly bm25: Bm25Index;
  readonly vectors: VectorSpaces;
  readonly scopes = new ScopeMasks();
  private live = 0;
  /** Journal entries the state includes (header excluded), whether replayed, restored or written here. */
  private entries = 0;
  private journal!: Journal;
  private replayReport!: ReplayReport;
  private openReport!: OpenReport;
  /** Journal offset of the newest checkpoint known to match this state's history (0: none). */
  private checkpointOffset = 0;
  private readonly defaults: RecordDefaults;
  private readonly checkpointOnCloseBytes: number;

  private constructor(
    readonly dataDir: string,
    private readonly lock: DirectoryLock,
    private readonly audit: AuditLog,
    options: StoreOptions,
    restored: RestoredState | undefined,
  ) {
    this.bm25 = restored?.bm25 ?? new Bm25Index(options.bm25);
    this.vectors = restored?.vectors ?? new VectorSpaces();
    const nowMs = options.nowMs ?? Date.now;
    this.defaults = { nowMs, newId: options.newId ?? (() => `mem_${randomUUID()}`) };
    this.checkpointOnCloseBytes = options.checkpointOnCloseBytes ?? CHECKPOINT_ON_CLOSE_BYTES;
    if (restored) this.adopt(restored);
  }

  /**
   * Opens the data directory: restores the checkpoint when it matches the journal and replays only the
   * journal after it; otherwise replays the whole journal (status says why the checkpoint was not used).
   */
  static open(options: StoreOptions): MemoryStore {
    const started = performance.now();
    const dataDir = path.resolve(options.dataDir);
    try {
      fs.mkdirSync(dataDir, { recursive: true });
    } catch (cause) {
      throw new DreamError("IO_ERROR", `cannot create the data directory ${dataDir}: ${(cause as Error).message}`, { cause });
    }
    const lock = DirectoryLock.acquire(path.join(dataDir, "store.lock"));
    try {
      const journalPath = path.join(dataDir, "journal.jsonl");
      const { k1, b } = new Bm25Index(options.bm25);
      const load = loadCheckpoint(path.join(dataDir, "checkpoint"), journalPath, { k1, b });
      const store = new MemoryStore(dataDir, lock, new AuditLog(path.join(dataDir, "audit.jsonl")), options, load.state);
      const { journal, report } = Journal.open(journalPath, (entry) => store.apply(entry), { fromOffset: load.state?.offset });
      store.journal = journal;
      store.replayReport = report;
      store.checkpointOffset = load.state?.offset ?? 0;
      store.openReport = { checkpointOffset: store.checkpointOffset, checkpointReason: load.reason, openMs: performance.now() - started };
      return store;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  get size(): number {
    return this.live;
  }

  /** Byte offset just past the last acknowledged journal entry (followers and checkpoints key on it). */
  get journalEndOffset(): number {
    return this.journal.endOffset;
  }

  get journalPath(): string {
    return this.journal.filePath;
  }

  get nowMs(): () => number {
    return this.defaults.nowMs;
  }

  /** Journal bytes written since the newest checkpoint: what the next open would replay. */
  get journalBytesSinceCheckpoint(): number {
    return this.journal.endOffset - this.checkpointOffset;
  }

  /**
   * Writes a checkpoint of the current state into `<dataDir>/checkpoint/` (see checkpoint.ts), unless the
   * newest one already covers the whole journal. The bridge calls it on shutdown and every so many bytes.
   */
  checkpoint(): CheckpointWritten | { offset: number; entries: number; unchanged: true } {
    const offset = this.journal.endOffset;
    if (offset === this.checkpointOffset) return { offset, entries: this.entries, unchanged: true };
    const written = writeCheckpoint(path.join(this.dataDir, "checkpoint"), {
      records: this.records,
      live: this.live,
      bm25: this.bm25,
      vectors: this.vectors,
      journal: { path: this.journal.filePath, offset, entries: this.entries },
      createdMs: this.defaults.nowMs(),
    });
    this.checkpointOffset = offset;
    return written;
  }

  /** Validates and durably stores one record; re-adding an identical record is a no-op. */
  add(input: unknown): { record: MemoryRecord; status: AddStatus } {
    const { record, embedding } = validateRecordInput(input, this.defaults);
    if (this.isDuplicate(record)) return { record: this.get(record.id)!, status: "unchanged" };
    this.commit([encodeAdd(record, embedding)]);
    return { record, status: "added" };
  }

  /** Validates every input first, then writes all accepted ones with a single fsync. */
  importRecords(inputs: unknown[]): ImportReport {
    const report: ImportReport = { added: 0, unchanged: 0, rejected: [] };
    const entries: JournalEntry[] = [];
    const batchIds = new Map<string, string>();
    inputs.forEach((input, index) => {
      try {
        const { record, embedding } = validateRecordInput(input, this.defaults);
        const seen = batchIds.get(record.id);
        if (seen !== undefined && seen !== record.content_hash) {
          throw new DreamError("ID_CONFLICT", `id "${record.id}" appears twice in this import with different text`, { field: "id" });
        }
        if (seen !== undefined || this.isDuplicate(record)) {
          report.unchanged++;
          return;
        }
        batchIds.set(record.id, record.content_hash);
        entries.push(encodeAdd(record, embedding));
        report.added++;
      } catch (error) {
        if (!(error instanceof DreamError)) throw error;
        report.rejected.push({ index, code: error.code, message: error.message });
      }
    });
    this.commit(entries);
    return report;
  }

  forget(id: string): MemoryRecord {
    const record = this.require(id);
    this.commit([{ op: "forget", id, at_ms: this.defaults.nowMs() }]);
    return record;
  }

  quarantine(id: string, reason: string): MemoryRecord {
    this.require(id);
    if (reason.trim() === "") throw new DreamError("INVALID_FIELD", "reason must not be empty", { field: "reason" });
    this.commit([{ op: "quarantine", id, reason, at_ms: this.defaults.nowMs() }]);
    return this.get(id)!;
  }

  release(id: string): MemoryRecord {
    this.require(id);
    this.commit([{ op: "release", id, at_ms: this.defaults.nowMs() }]);
    return this.get(id)!;
  }

  get(id: string): MemoryRecord | undefined {
    const doc = this.docById.get(id);
    return doc === undefined ? undefined : this.records[doc];
  }

  search(request: SearchRequest): SearchResponse {
    const response = runSearch(this, request);
    if (this.receiptNotes) Object.assign(response.receipt, this.receiptNotes());
    this.audit.write(response.receipt);
    return response;
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

  /** Called after every acknowledged write (the Chroma replica follows the journal from here). */
  onCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /** Extra, non-durable facts merged into every receipt (e.g. the state of the Chroma replica). */
  setReceiptNotes(notes: () => Record<string, unknown>): void {
    this.receiptNotes = notes;
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
  memoriesNeedingVectors(binding: VectorBinding, fromDoc: number, limit: number): { items: Array<{ id: string; text: string; contentHash: string }>; nextDoc: number } {
    const space = this.vectors.find(binding);
    const items: Array<{ id: string; text: string; contentHash: string }> = [];
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

  /** Durably attaches vectors computed by an embedder; one fsync for the batch. */
  attachVectors(items: Array<{ id: string; contentHash: string; embedding: EmbeddingInput }>): void {
    this.commit(items.map((item) => encodeEmbed(item.id, item.contentHash, item.embedding)));
  }

  /** Durably drops every vector of a superseded embedding space. */
  dropVectors(binding: VectorBinding): void {
    if (this.vectors.find(binding)) this.commit([encodeDropVectors(binding)]);
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

  status(): Record<string, unknown> {
    const quarantined = this.records.filter((r) => r?.quarantine).length;
    return {
      records: this.live,
      quarantined,
      scopes: this.scopes.counts(),
      vectors: this.vectors.summary(),
      lexical: { docs: this.bm25.size },
      journal: { entries: this.entries, entries_replayed: this.replayReport.entries, torn_tail_bytes: this.replayReport.tornTailBytes },
      checkpoint: {
        used: this.openReport.checkpointReason === undefined,
        ...(this.openReport.checkpointReason === undefined ? {} : { reason: this.openReport.checkpointReason }),
        offset: this.openReport.checkpointOffset,
        entries_replayed_after: this.replayReport.entries,
        latest_offset: this.checkpointOffset,
      },
      open_ms: Math.round(this.openReport.openMs),
      data_dir: this.dataDir,
    };
  }

  /** Checkpoints first when the journal grew past the threshold; the lock is released even if that fails. */
  close(): void {
    try {
      if (this.journal && this.journalBytesSinceCheckpoint > this.checkpointOnCloseBytes) this.checkpoint();
    } finally {
      this.journal?.close();
      this.lock.release();
    }
  }

  private commit(entries: JournalEntry[]): void {
    if (entries.length === 0) return;
    this.journal.append(entries);
    for (const entry of entries) this.apply(entry);
    for (const listener of this.commitListeners) listener();
  }

  private require(id: string): MemoryRecord {
    const record = this.get(id);
    if (!record) throw new DreamError("NOT_FOUND", `no memory with id "${id}"`, { field: "id" });
    return record;
  }

  private isDuplicate(record: MemoryRecord): boolean {
    const existing = this.get(record.id);
    if (!existing) return false;
    if (existing.content_hash === record.content_hash && existing.source_type === record.source_type) return true;
    throw new DreamError("ID_CONFLICT", `id "${record.id}" already holds a different memory`, { field: "id" });
  }

  /** Applies one journal entry to the in-memory state; shared by replay and live writes. */
  private apply(entry: JournalEntry): void {
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

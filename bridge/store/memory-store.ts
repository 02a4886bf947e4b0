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
import { Journal, type JournalEntry, type ReplayReport } from "./journal";
import { DirectoryLock } from "./lock";
import { decodeEntry, encodeAdd } from "./journal-entries";
import { type EmbeddingInput, type MemoryRecord, type RecordDefaults, validateRecordInput } from "./records";
import { ScopeMasks } from "./scope-masks";
import { runSearch, type SearchRequest, type SearchResponse, type SearchView } from "./search";
import { extractSlots, type StateSlot } from "./slots";
import { VectorSpaces } from "./vector-spaces";

export interface StoreOptions {
  dataDir: string;
  nowMs?: () => number;
  newId?: () => string;
  bm25?: { k1?: number; b?: number };
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
  private readonly turns = new TurnAdjacency();
  readonly bm25: Bm25Index;
  readonly vectors = new VectorSpaces();
  readonly scopes = new ScopeMasks();
  private live = 0;
  private journal!: Journal;
  private replayReport!: ReplayReport;
  private readonly defaults: RecordDefaults;

  private constructor(
    readonly dataDir: string,
    private readonly lock: DirectoryLock,
    private readonly audit: AuditLog,
    options: StoreOptions,
  ) {
    this.bm25 = new Bm25Index(options.bm25);
    const nowMs = options.nowMs ?? Date.now;
    this.defaults = { nowMs, newId: options.newId ?? (() => `mem_${randomUUID()}`) };
  }

  static open(options: StoreOptions): MemoryStore {
    const dataDir = path.resolve(options.dataDir);
    try {
      fs.mkdirSync(dataDir, { recursive: true });
    } catch (cause) {
      throw new DreamError("IO_ERROR", `cannot create the data directory ${dataDir}: ${(cause as Error).message}`, { cause });
    }
    const lock = DirectoryLock.acquire(path.join(dataDir, "store.lock"));
    try {
      const store = new MemoryStore(dataDir, lock, new AuditLog(path.join(dataDir, "audit.jsonl")), options);
      const { journal, report } = Journal.open(path.join(dataDir, "journal.jsonl"), (entry) => store.apply(entry));
      store.journal = journal;
      store.replayReport = report;
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
    this.audit.write(response.receipt);
    return response;
  }

  /** search_vector: dense-only diagnostics (no BM25, fusion, conflicts or packing; quarantine shown, not applied). */
  searchVector(embedding: EmbeddingInput, topK: number, scope?: string): Array<{ id: string; score: number; quarantined: boolean }> {
    const space = this.vectors.find({ provider: embedding.provider, model: embedding.model, dim: embedding.vector.length });
    if (!space) {
      throw new DreamError("VECTOR_MISMATCH", `no stored vectors for ${embedding.provider}/${embedding.model} with ${embedding.vector.length} dimensions`);
    }
    return space.index.search(embedding.vector, topK, this.scopes.maskFor(scope)).map(({ doc, score }) => {
      const record = this.records[doc]!;
      return { id: record.id, score, quarantined: record.quarantine !== undefined };
    });
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
      journal: { entries_replayed: this.replayReport.entries, torn_tail_bytes: this.replayReport.tornTailBytes },
      data_dir: this.dataDir,
    };
  }

  close(): void {
    this.journal?.close();
    this.lock.release();
  }

  private commit(entries: JournalEntry[]): void {
    this.journal.append(entries);
    for (const entry of entries) this.apply(entry);
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
    if (change.op === "add") return this.insert(change.record, change.embedding);
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
    } else if (change.op === "quarantine") {
      record.quarantine = { reason: change.reason, atMs: change.atMs };
    } else {
      delete record.quarantine;
    }
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

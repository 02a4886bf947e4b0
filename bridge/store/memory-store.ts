// The memory store: owns one data directory (lock, journal, audit log, checkpoints) and the
// in-memory state rebuilt from the journal (memory-state.ts). Writes are acknowledged only after the
// journal has them on disk.
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { Bm25Index } from "../index/bm25";
import { DreamError } from "../protocol/errors";
import { AuditLog, type AuditConfig, type AuditPurge, type AuditTrim } from "./audit-log";
import { type CheckpointWritten, loadCheckpoint, writeCheckpoint } from "./checkpoint";
import { encodeLine, Journal, JOURNAL_FORMAT, JOURNAL_VERSION, readEntriesFrom, syncDirectory, type JournalEntry, type ReplayReport } from "./journal";
import { renameWithRetry } from "./fs-retry";
import { DirectoryLock, LOCK_FILE } from "./lock";
import { encodeAdd, encodeDropVectors, encodeEmbed } from "./journal-entries";
import { MemoryState } from "./memory-state";
import { isUsableVector, LIMITS, wellFormed, type EmbeddingInput, type MemoryRecord, type RecordDefaults, validateRecordInput } from "./records";
import type { ReceiptHistory } from "./receipt-history";
import { retentionVerdict, type RetentionConfig } from "./retention";
import { runSearch, type SearchRequest, type SearchResponse } from "./search";
import type { VectorBinding, VectorSpaces } from "./vector-spaces";

export interface StoreOptions {
  dataDir: string;
  nowMs?: () => number;
  newId?: () => string;
  bm25?: { k1?: number; b?: number };
  /** close() writes a checkpoint when the journal grew by more than this since the last one (default 4 MiB). */
  checkpointOnCloseBytes?: number;
  /** What the audit log keeps (privacy.audit in bridge-config.json); default: every query, 128 MB, no age limit. */
  audit?: AuditConfig;
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

export interface ForgetFilter {
  sessionId?: string;
  scope?: string;
  textContains?: string;
}

export interface CompactReport {
  /** Memories whose text was erased from the journal, the checkpoint and the receipts. */
  erased: number;
  journal_bytes_before: number;
  journal_bytes_after: number;
  receipts: AuditPurge;
  ms: number;
}

export interface RetentionReport {
  /** Memories forgotten because of the limits (compaction erases their text). */
  forgotten: number;
  by_scope: Record<string, { age: number; count: number }>;
}

export interface ImportReport {
  added: number;
  unchanged: number;
  rejected: Array<{ index: number; code: string; message: string }>;
}

export class MemoryStore {
  private readonly commitListeners: Array<() => void> = [];
  private receiptNotes: (() => Record<string, unknown>) | undefined;
  private journal!: Journal;
  private replayReport!: ReplayReport;
  private openReport!: OpenReport;
  /** Journal offset of the newest checkpoint known to match this state's history (0: none). */
  private checkpointOffset = 0;
  private readonly defaults: RecordDefaults;
  private readonly checkpointOnCloseBytes: number;
  private readonly bm25Params: StoreOptions["bm25"];

  private constructor(
    readonly dataDir: string,
    private readonly lock: DirectoryLock,
    private readonly audit: AuditLog,
    private state: MemoryState,
    options: StoreOptions,
  ) {
    this.defaults = { nowMs: state.nowMs, newId: options.newId ?? (() => `mem_${randomUUID()}`) };
    this.checkpointOnCloseBytes = options.checkpointOnCloseBytes ?? CHECKPOINT_ON_CLOSE_BYTES;
    this.bm25Params = options.bm25;
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
    const lock = DirectoryLock.acquire(path.join(dataDir, LOCK_FILE));
    try {
      const journalPath = path.join(dataDir, "journal.jsonl");
      const { k1, b } = new Bm25Index(options.bm25);
      const load = loadCheckpoint(path.join(dataDir, "checkpoint"), journalPath, { k1, b });
      const state = new MemoryState(options.nowMs ?? Date.now, options.bm25, load.state);
      const store = new MemoryStore(dataDir, lock, new AuditLog(path.join(dataDir, "audit.jsonl"), options.audit), state, options);
      const { journal, report } = Journal.open(journalPath, (entry) => state.apply(entry), { fromOffset: load.state?.offset });
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
    return this.state.size;
  }

  /** The stored vectors, by embedding space (read-only use: summaries, bindings). */
  get vectors(): VectorSpaces {
    return this.state.vectors;
  }

  /** Byte offset just past the last acknowledged journal entry (followers and checkpoints key on it). */
  get journalEndOffset(): number {
    return this.journal.endOffset;
  }

  get journalPath(): string {
    return this.journal.filePath;
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
    const { state } = this;
    if (offset === this.checkpointOffset) return { offset, entries: state.entries, unchanged: true };
    const written = writeCheckpoint(path.join(this.dataDir, "checkpoint"), {
      records: state.records,
      live: state.size,
      bm25: state.bm25,
      vectors: state.vectors,
      statements: state.statements(),
      journal: { path: this.journal.filePath, offset, entries: state.entries },
      createdMs: this.defaults.nowMs(),
    });
    this.checkpointOffset = offset;
    return written;
  }

  /** The journal tail the last open cut off, where it was kept and why it was cut; undefined when none was. */
  get tornTail(): { bytes: number; keptAt: string; cause: string } | undefined {
    const { tornTailBytes: bytes, tornTailKeptAt: keptAt, tornTailDamaged } = this.replayReport;
    if (keptAt === undefined) return undefined;
    return { bytes, keptAt, cause: tornTailDamaged ? "a damaged entry (checksum mismatch)" : "an append cut short (a crash)" };
  }

  /** Forgotten memories whose text the journal still holds: what the next compact() erases. */
  get forgottenNotErased(): number {
    return this.state.forgottenNotErased;
  }

  /**
   * Erases forgotten memories: rewrites the journal with only what is live (each memory as one add,
   * its other vectors as embeds, quarantine kept), drops the checkpoint that may hold older text,
   * cleans the receipts, then reloads and checkpoints. Crash-safe: the new journal is written whole
   * and fsync'd under another name, the old checkpoint is removed, and one rename makes the new
   * journal current, so a kill at any point leaves the old journal or the new one, never a mix.
   */
  compact(): CompactReport {
    const started = performance.now();
    const journalPath = this.journal.filePath;
    const before = this.journal.endOffset;
    const { ids: forgottenIds, texts: forgottenTexts } = this.forgottenInJournal(journalPath, before);
    const draft = `${journalPath}.compact`;
    fs.rmSync(draft, { force: true });
    this.writeLiveJournal(draft);
    fs.rmSync(path.join(this.dataDir, "checkpoint"), { recursive: true, force: true });
    syncDirectory(this.dataDir);
    renameWithRetry(draft, journalPath);
    syncDirectory(this.dataDir);
    this.journal.close();
    const state = new MemoryState(this.state.nowMs, this.bm25Params, undefined);
    const { journal, report } = Journal.open(journalPath, (entry) => state.apply(entry));
    this.state = state;
    this.journal = journal;
    this.replayReport = report;
    this.checkpointOffset = 0;
    this.openReport = { checkpointOffset: 0, checkpointReason: "the journal was compacted", openMs: this.openReport.openMs };
    const receipts = this.audit.purge(forgottenIds, forgottenTexts);
    // A cut-off tail kept aside may hold a forgotten memory too.
    for (const name of fs.readdirSync(this.dataDir)) {
      if (/^journal\.jsonl\.tail-\d+\.bad$/.test(name)) fs.rmSync(path.join(this.dataDir, name), { force: true });
    }
    this.checkpoint();
    for (const listener of this.commitListeners) listener();
    return { erased: forgottenIds.size, journal_bytes_before: before, journal_bytes_after: this.journal.endOffset, receipts, ms: Math.round(performance.now() - started) };
  }

  private forgottenInJournal(journalPath: string, end: number): { ids: Set<string>; texts: string[] } {
    const ids = new Set<string>();
    const texts: string[] = [];
    for (let offset = 0; offset < end; ) {
      const { entries, endOffset } = readEntriesFrom(journalPath, offset, 8 * 1024 * 1024);
      if (endOffset === offset) break;
      for (const entry of entries) {
        const record = entry.op === "add" ? (entry.rec as MemoryRecord | undefined) : undefined;
        if (record && typeof record.id === "string" && !this.get(record.id) && !ids.has(record.id)) {
          ids.add(record.id);
          if (typeof record.text === "string") texts.push(record.text);
        }
      }
      offset = endOffset;
    }
    return { ids, texts };
  }

  private writeLiveJournal(draft: string): void {
    const fd = fs.openSync(draft, "wx", 0o600);
    try {
      const pending: Buffer[] = [encodeLine({ op: "header", format: JOURNAL_FORMAT, version: JOURNAL_VERSION })];
      let bytes = pending[0].length;
      const flush = () => {
        const chunk = Buffer.concat(pending.splice(0));
        for (let written = 0; written < chunk.length; ) written += fs.writeSync(fd, chunk, written);
        bytes = 0;
      };
      const push = (entry: JournalEntry) => {
        const line = encodeLine(entry);
        pending.push(line);
        bytes += line.length;
        if (bytes > 4 * 1024 * 1024) flush();
      };
      // Memories in their order, each with one of its vectors inline; a space is first used in the
      // order the spaces were made (so the reloaded store lists them, newest last, as before), and the
      // vectors that could not go inline follow as embeds, space by space in that same order.
      const { records } = this.state;
      const spaces = this.state.vectors.list();
      const embeddingOf = (space: (typeof spaces)[number], doc: number): EmbeddingInput | undefined => {
        const vector = space.contentHashByDoc.get(doc) === records[doc]?.content_hash ? space.index.vectorOf(doc) : undefined;
        return vector ? { provider: space.provider, model: space.model, vector, modelDigest: space.modelDigest, configHash: space.configHash } : undefined;
      };
      let made = 0;
      const inlined = spaces.map(() => new Set<number>());
      for (let doc = 0; doc < records.length; doc++) {
        const record = records[doc];
        if (!record) continue;
        let chosen = -1;
        for (let i = 0; i < made && chosen < 0; i++) if (embeddingOf(spaces[i], doc)) chosen = i;
        if (chosen < 0 && made < spaces.length && embeddingOf(spaces[made], doc)) chosen = made++;
        if (chosen >= 0) inlined[chosen].add(doc);
        push(encodeAdd(record, chosen >= 0 ? embeddingOf(spaces[chosen], doc) : undefined));
      }
      spaces.forEach((space, i) => {
        for (let doc = 0; doc < records.length; doc++) {
          const embedding = inlined[i].has(doc) ? undefined : embeddingOf(space, doc);
          if (embedding) push(encodeEmbed(records[doc]!.id, records[doc]!.content_hash, embedding));
        }
      });
      flush();
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
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

  /**
   * The live memories of a session, of a scope (exactly that scope), or whose text contains a phrase
   * (case-insensitive), all given conditions together; with `apply` they are forgotten in one fsync'd
   * write, without it nothing changes (the preview).
   */
  forgetMatching(filter: ForgetFilter, apply: boolean): MemoryRecord[] {
    const phrase = filter.textContains?.toLocaleLowerCase();
    if (filter.sessionId === undefined && filter.scope === undefined && (phrase === undefined || phrase.trim() === "")) {
      throw new DreamError("MISSING_FIELD", "say which memories to forget: session_id, scope or text_contains", { field: "session_id" });
    }
    const matched = this.state.records.filter(
      (record): record is MemoryRecord =>
        record !== undefined &&
        (filter.sessionId === undefined || record.session_id === filter.sessionId) &&
        (filter.scope === undefined || record.scope === filter.scope) &&
        (phrase === undefined || record.text.toLocaleLowerCase().includes(phrase)),
    );
    if (apply && matched.length > 0) {
      const atMs = this.defaults.nowMs();
      this.commit(matched.map((record) => ({ op: "forget", id: record.id, at_ms: atMs })));
    }
    return matched;
  }

  /**
   * Forgets, in one fsync'd write, the memories the retention limits let go (retention.ts); their text
   * stays in the files until the next compact(), which the bridge runs right after.
   */
  applyRetention(policy: RetentionConfig): RetentionReport {
    const verdict = retentionVerdict(this.state.records, policy, this.defaults.nowMs());
    if (verdict.docs.length > 0) {
      const atMs = this.defaults.nowMs();
      this.commit(verdict.docs.map((doc) => ({ op: "forget", id: this.state.records[doc]!.id, at_ms: atMs })));
    }
    return { forgotten: verdict.docs.length, by_scope: verdict.byScope };
  }

  /** Holds the audit log to its limits (age, size, query text); see AuditLog.trim. */
  trimAudit(): AuditTrim {
    return this.audit.trim(this.defaults.nowMs());
  }

  quarantine(id: string, reason: string): MemoryRecord {
    this.require(id);
    if (reason.trim() === "") throw new DreamError("INVALID_FIELD", "reason must not be empty", { field: "reason" });
    if (reason.length > LIMITS.quarantineReasonChars) {
      throw new DreamError("INPUT_TOO_LARGE", `reason is ${reason.length} characters; the limit is ${LIMITS.quarantineReasonChars}`, { field: "reason" });
    }
    this.commit([{ op: "quarantine", id, reason: wellFormed(reason), at_ms: this.defaults.nowMs() }]);
    return this.get(id)!;
  }

  release(id: string): MemoryRecord {
    this.require(id);
    this.commit([{ op: "release", id, at_ms: this.defaults.nowMs() }]);
    return this.get(id)!;
  }

  get(id: string): MemoryRecord | undefined {
    return this.state.get(id);
  }

  search(request: SearchRequest): SearchResponse {
    const response = runSearch(this.state, request);
    if (this.receiptNotes) Object.assign(response.receipt, this.receiptNotes());
    this.audit.write(response.receipt);
    return response;
  }

  /** The newest search receipts, this run's and those found at the end of the audit log on open. */
  get receipts(): ReceiptHistory {
    return this.audit.recent;
  }

  /** search_vector: dense-only diagnostics (no BM25, fusion, conflicts or packing; quarantine shown, not applied). */
  searchVector(embedding: EmbeddingInput, topK: number, scope?: string): Array<{ id: string; score: number; quarantined: boolean }> {
    return this.state.searchVector(embedding, topK, scope);
  }

  /** Called after every acknowledged write (the Chroma replica follows the journal from here). */
  onCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /** Extra, non-durable facts merged into every receipt (e.g. the state of the Chroma replica). */
  setReceiptNotes(notes: () => Record<string, unknown>): void {
    this.receiptNotes = notes;
  }

  /** The record as it is now with its vectors, newest space last. */
  currentWithVectors(id: string): ReturnType<MemoryState["currentWithVectors"]> {
    return this.state.currentWithVectors(id);
  }

  /** Live memories from doc `fromDoc` on without a current vector in `binding`'s space. */
  memoriesNeedingVectors(binding: VectorBinding, fromDoc: number, limit: number): ReturnType<MemoryState["memoriesNeedingVectors"]> {
    return this.state.memoriesNeedingVectors(binding, fromDoc, limit);
  }

  vectorCount(binding: VectorBinding): number {
    return this.state.vectorCount(binding);
  }

  /** Durably attaches vectors computed by an embedder; one fsync for the batch. */
  attachVectors(items: Array<{ id: string; contentHash: string; embedding: EmbeddingInput }>): void {
    // Refused before the journal, like an imported vector: nothing unusable is ever written.
    const bad = items.find((item) => !isUsableVector(item.embedding.vector));
    if (bad) {
      throw new DreamError("INVALID_FIELD", `the embedder's vector for ${JSON.stringify(bad.id)} has values that are not finite, or all zero, as float32; nothing was written`, { field: "embedding.vector" });
    }
    this.commit(items.map((item) => encodeEmbed(item.id, item.contentHash, item.embedding)));
  }

  /** Durably drops every vector of a superseded embedding space. */
  dropVectors(binding: VectorBinding): void {
    if (this.state.vectors.find(binding)) this.commit([encodeDropVectors(binding)]);
  }

  exportPage(after: number, limit: number, withVectors: boolean): ReturnType<MemoryState["exportPage"]> {
    return this.state.exportPage(after, limit, withVectors);
  }

  status(): Record<string, unknown> {
    const { state } = this;
    return {
      records: state.size,
      quarantined: state.records.filter((r) => r?.quarantine).length,
      scopes: state.scopes.counts(),
      vectors: state.vectors.summary(),
      lexical: { docs: state.bm25.size },
      journal: {
        entries: state.entries,
        entries_replayed: this.replayReport.entries,
        torn_tail_bytes: this.replayReport.tornTailBytes,
        ...(this.tornTail ? { torn_tail: { kept_at: this.tornTail.keptAt, cause: this.tornTail.cause } } : {}),
        // Forgotten memories whose text the journal still holds: compaction erases them.
        ...(state.forgottenNotErased > 0 ? { forgotten_not_erased: state.forgottenNotErased } : {}),
        // Vectors journalled before validation refused them; their memories are kept, lexical only.
        ...(state.unusableVectors.length > 0 ? { unusable_vectors: { count: state.unusableVectors.length, ids: state.unusableVectors.slice(0, 10) } } : {}),
      },
      checkpoint: {
        used: this.openReport.checkpointReason === undefined,
        ...(this.openReport.checkpointReason === undefined ? {} : { reason: this.openReport.checkpointReason }),
        offset: this.openReport.checkpointOffset,
        entries_replayed_after: this.replayReport.entries,
        latest_offset: this.checkpointOffset,
      },
      open_ms: Math.round(this.openReport.openMs),
      data_dir: this.dataDir,
      // Only when receipts could not be written: the searches themselves went on.
      ...(this.audit.failedWrites > 0 ? { audit: { failed_writes: this.audit.failedWrites, last_error: this.audit.lastError } } : {}),
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
    for (const entry of entries) this.state.apply(entry);
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
}

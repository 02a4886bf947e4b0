// The memory store: owns one data directory (lock, journal, audit log, checkpoints) and the
// in-memory state rebuilt from the journal (memory-state.ts). Writes are acknowledged only after the
// journal has them on disk.
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { Bm25Index } from "../index/bm25";
import { DreamError } from "../protocol/errors";
import { AuditLog, type AuditConfig, type AuditPurge, type AuditPurgeDraft, type AuditTrim } from "./audit-log";
import { CheckpointAbandoned, type CheckpointBasis, type CheckpointSteps, checkpointSteps, type CheckpointTuning, type CheckpointWritten, flushWorkerMinRecords, loadCheckpoint, removeStaleParts, type RestoredState, type StoreImage, writeCheckpoint } from "./checkpoint";
import { FLUSH_PENDING } from "./checkpoint-files";
import { type Flusher, PoolFlusher } from "./flusher";
import { encodeLine, Journal, JOURNAL_FORMAT, JOURNAL_VERSION, readEntriesFrom, syncDirectory, type JournalEntry, type ReplayReport } from "./journal";
import { renameWithRetry } from "./fs-retry";
import { DirectoryLock, LOCK_FILE } from "./lock";
import { encodeAdd, encodeDropVectors, encodeEmbed } from "./journal-entries";
import { MemoryState } from "./memory-state";
import { plainRecord } from "./text-pages";
import { isUsableVector, LIMITS, wellFormed, type EmbeddingInput, type MemoryRecord, type RecordDefaults, validateRecordInput } from "./records";
import type { ReceiptHistory } from "./receipt-history";
import { makeDirectory } from "./make-dir";
import { osErrorToDreamError } from "../protocol/os-errors";
import { inspectMemory, listMemories, memoryStats, subjectHistory, type ListFilter, type ListPage, type MemoryDetail, type MemoryStats, type SlotHistory } from "./memory-views";
import { retentionVerdict, type RetentionConfig } from "./retention";
import { runSearch, type SearchRequest, type SearchResponse } from "./search";
import type { VectorBinding, VectorSpaces } from "./vector-spaces";
import type { AnnOptions } from "../index/vector-index";
import { runToEnd } from "../index/run-steps";

export interface StoreOptions {
  dataDir: string;
  nowMs?: () => number;
  newId?: () => string;
  bm25?: { k1?: number; b?: number };
  /** close() writes a checkpoint when the journal grew by more than this since the last one (default 4 MiB). */
  checkpointOnCloseBytes?: number;
  /** What the audit log keeps (privacy.audit in bridge-config.json); default: every query, 128 MB, no age limit. */
  audit?: AuditConfig;
  /** flat_max_records and the ANN recall target (search in bridge-config.json); default 200,000 and 0.98. */
  vectorIndex?: AnnOptions;
  /** Segment size and BM25 snapshot slack of checkpoints (tests use small ones); see checkpoint.ts. */
  checkpoint?: CheckpointTuning;
}

/** How a checkpoint asked for ended: written, not needed (the newest one covers the journal), or given up. */
export type CheckpointOutcome = CheckpointWritten | { offset: number; entries: number; unchanged: true } | { abandoned: string };

// The ANN lists are built in slices between requests: about this long per slice (a build step is ~4 ms,
// so a write arriving meanwhile waits a few ms at most), with this gap after it.
const MAINTENANCE_SLICE_MS = 5;
const MAINTENANCE_GAP_MS = 5;

// A checkpoint written in the background runs its steps for about this long, then lets requests in.
export const CHECKPOINT_SLICE_MS = 10;
// A checkpoint in the background waiting for a flush on the thread pool looks again this often.
export const FLUSH_POLL_MS = 1;

// A replay looks at the clock for the lock's heartbeat once per this many entries (~1 ms of replay).
const LOCK_CHECK_ENTRIES = 1024;

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
  /**
   * Where the time went: finding what was forgotten, writing the new journal with the state it loads
   * into, the receipts (in steps, and their draft put in place after the switch), the switch (`reload`:
   * carrying over what was written meanwhile, the rename), the checkpoint (compact() only).
   */
  phases_ms: { scan: number; write: number; reload: number; receipts: number; checkpoint: number };
  /** Where the entries carried over from the old journal (written during the compaction) begin in the new one. */
  carried_from_offset: number;
  /** compactInBackground(): the longest stretch the store could not serve. */
  longest_pause_ms?: number;
}

/** Removes a folder's files one per step, then the folder (nested folders whole). */
function* removeInSteps(dir: string): Generator<void> {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    fs.rmSync(path.join(dir, entry.name), { recursive: true, force: true });
    yield;
  }
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch (error) {
    // On Windows a removed part that an index still reads rows from keeps its name until the index lets it go
    // (at the switch), so the emptied directory may not go yet: the next checkpoint writes into it.
    if (process.platform !== "win32") throw error;
  }
}

/**
 * Buffers the draft journal's lines and writes them in chunks of about 4 MiB; syncIfDue() fsyncs every
 * 8 MiB written, so no single fsync (a step of a background compaction) has gigabytes to flush.
 */
class DraftWriter {
  private pending: Buffer[] = [];
  private bytes = 0;
  private unsynced = 0;

  constructor(private readonly fd: number) {}

  push(line: Buffer): void {
    this.pending.push(line);
    this.bytes += line.length;
    if (this.bytes > 4 * 1024 * 1024) this.flush();
  }

  flush(): void {
    const chunk = Buffer.concat(this.pending);
    this.pending = [];
    this.bytes = 0;
    for (let written = 0; written < chunk.length; ) written += fs.writeSync(this.fd, chunk, written);
    this.unsynced += chunk.length;
  }

  /** Whether it fsync'd (then the caller yields: that was a step's worth of waiting). */
  syncIfDue(): boolean {
    if (this.unsynced < 8 * 1024 * 1024) return false;
    fs.fsyncSync(this.fd);
    this.unsynced = 0;
    return true;
  }
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
  /**
   * Vectors dropped for damaged rows (damagedRows()) that the newest checkpoint leaves out: a drop is not in
   * the journal, so a checkpoint at the same offset is still worth writing when this is behind.
   */
  private checkpointDamaged = 0;
  /** What the newest checkpoint holds, so the next one rewrites only the segments that changed (none: all). */
  private checkpointBasis: CheckpointBasis | undefined;
  /** A checkpoint being written in steps, and the journal offset it covers. */
  /** `committed`: its manifest is in place, and what is left is removing old parts and paging texts (checkpoint.ts). */
  private checkpointJob: { steps: CheckpointSteps; offset: number; damaged: number; committed?: boolean } | undefined;
  private checkpointInFlight: Promise<CheckpointOutcome> | undefined;
  /**
   * Made by a checkpoint in steps of a large store (flushWorkerMinRecords), kept while those end written;
   * dropped with a checkpoint given up, so that no later settle() fsyncs the files it closed.
   */
  private flusher: PoolFlusher | undefined;
  private flushPending = false;
  /** A committed checkpoint's last steps (removing old parts) did not all run: see checkpoint(). */
  private staleParts = false;
  private readonly checkpointTuning: CheckpointTuning;
  private readonly defaults: RecordDefaults;
  private readonly checkpointOnCloseBytes: number;
  private readonly bm25Params: StoreOptions["bm25"];
  private compactionRunning = false;
  private readonly annOptions: AnnOptions;
  private maintenanceTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

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
    this.annOptions = options.vectorIndex ?? {};
    this.checkpointTuning = options.checkpoint ?? {};
    state.vectors.configure(this.annOptions);
  }

  /**
   * Opens the data directory: restores the checkpoint when it matches the journal and replays only the
   * journal after it; otherwise replays the whole journal (status says why the checkpoint was not used).
   */
  static open(options: StoreOptions): MemoryStore {
    const started = performance.now();
    const dataDir = path.resolve(options.dataDir);
    try {
      makeDirectory(dataDir);
    } catch (cause) {
      throw osErrorToDreamError(cause) ?? new DreamError("IO_ERROR", `cannot create the data directory ${dataDir}: ${(cause as Error).message}`, { cause });
    }
    const lock = DirectoryLock.acquire(path.join(dataDir, LOCK_FILE));
    let restored: RestoredState | undefined;
    let opened: MemoryState | undefined;
    try {
      const journalPath = path.join(dataDir, "journal.jsonl");
      const { k1, b } = new Bm25Index(options.bm25);
      const nowMs = options.nowMs ?? Date.now;
      // The state's own indexes of the records are built while a worker still reads the BM25 snapshot.
      let prepared: MemoryState | undefined;
      const load = loadCheckpoint(path.join(dataDir, "checkpoint"), journalPath, { k1, b }, options.checkpoint, (partial) => {
        prepared = new MemoryState(nowMs, options.bm25, partial);
      });
      restored = load.state;
      const state = load.state && prepared ? prepared.adoptLexical(load.state.bm25) : new MemoryState(nowMs, options.bm25, load.state);
      opened = state;
      const store = new MemoryStore(dataDir, lock, new AuditLog(path.join(dataDir, "audit.jsonl"), options.audit), state, options);
      // A whole journal replayed takes minutes at a million memories: the lock is refreshed as it goes.
      let replayed = 0;
      const apply = (entry: JournalEntry): void => {
        state.apply(entry);
        if (++replayed % LOCK_CHECK_ENTRIES === 0) lock.refreshIfDue();
      };
      const { journal, report } = Journal.open(journalPath, apply, { fromOffset: load.state?.offset });
      store.journal = journal;
      store.replayReport = report;
      store.checkpointOffset = load.state?.offset ?? 0;
      store.checkpointBasis = load.basis;
      store.openReport = { checkpointOffset: store.checkpointOffset, checkpointReason: load.reason, openMs: performance.now() - started };
      store.scheduleMaintenance();
      return store;
    } catch (error) {
      if (opened) opened.dispose();
      else restored?.vectors.dispose();
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
   * Whether an index built ANN lists that the newest checkpoint does not hold: a restart would build them again
   * (46 s at 1M, searching exactly meanwhile), however little the journal grew. A checkpoint written while the
   * lists were being built (the first one after a whole journal was replayed) holds none.
   */
  get checkpointLacksLists(): boolean {
    const basis = this.checkpointBasis;
    if (!basis) return false; // no checkpoint: the journal's growth asks for one
    return this.state.vectors.list().some(({ index }) => index.listsGeneration !== undefined && basis.spaces.get(index)?.lists !== index.listsGeneration);
  }

  /**
   * Writes a checkpoint of the current state into `<dataDir>/checkpoint/` at once (see checkpoint.ts), unless
   * the newest one already covers the whole journal; a checkpoint under way in steps is given up for it.
   * Close, compact() and the CLI call it; the bridge uses checkpointInBackground.
   */
  checkpoint(): CheckpointWritten | { offset: number; entries: number; unchanged: true } {
    // The switch removes every checkpoint: one taken meanwhile would be lost work (the bridge waits).
    if (this.compactionRunning) throw new DreamError("INTERNAL", "a checkpoint was asked for during a compaction; it is taken after");
    this.abandonCheckpoint({ finishPaging: true });
    const offset = this.journal.endOffset;
    if (this.checkpointCurrent(offset)) {
      if (this.staleParts) removeStaleParts(this.checkpointDir);
      this.staleParts = false;
      return { offset, entries: this.state.entries, unchanged: true };
    }
    const { written, basis } = this.writeCheckpointNow();
    this.staleParts = false;
    this.checkpointBasis = basis;
    this.checkpointOffset = offset;
    this.checkpointDamaged = this.damagedRows();
    return written;
  }

  /**
   * writeCheckpoint of the state now. Reading a row back damaged drops its vector and gives the checkpoint up
   * (CheckpointAbandoned); the next try writes that segment without it. Each try that gives up drops a vector,
   * so the tries end.
   */
  private writeCheckpointNow(): ReturnType<typeof writeCheckpoint> {
    for (;;) {
      const damaged = this.damagedRows();
      try {
        return writeCheckpoint(this.checkpointDir, this.image(), this.checkpointBasis, this.checkpointTuning, () => this.lock.refreshIfDue());
      } catch (error) {
        if (!(error instanceof CheckpointAbandoned) || this.damagedRows() === damaged) throw error;
      }
    }
  }

  /** Whether the newest checkpoint holds the state as it is at journal offset `offset`. */
  private checkpointCurrent(offset: number): boolean {
    return offset === this.checkpointOffset && this.damagedRows() === this.checkpointDamaged && !this.checkpointLacksLists;
  }

  private damagedRows(): number {
    return this.state.vectors.list().reduce((sum, space) => sum + space.index.damagedRows, 0);
  }

  /**
   * Runs a checkpoint in steps for about `budgetMs` (at least one step; none that the last step's length
   * says would pass the budget; less while a flush on the thread pool is waited for): the first call
   * freezes the state as it is (what the journal holds now), later calls write its changed segments; writes
   * and searches may run between calls. In a store of flushWorkerMinRecords or more, the event loop must
   * turn between calls for a flush to be heard done (a loop that never yields waits 10 s a flush, the pool's
   * stall limit, then makes it here); with `budgetMs` Infinity the flush waited for is made on this thread.
   * Returns undefined while steps are left, else how it ended: abandoned when a compaction started or a
   * vector its steps were reading was replaced (the next one starts afresh).
   */
  checkpointInSteps(budgetMs: number): CheckpointOutcome | undefined {
    if (this.compactionRunning) {
      this.abandonCheckpoint();
      return { abandoned: "a compaction is running; the checkpoint is taken after it" };
    }
    if (!this.checkpointJob) {
      const offset = this.journal.endOffset;
      if (this.checkpointCurrent(offset)) return { offset, entries: this.state.entries, unchanged: true };
      const flusher = this.state.size >= flushWorkerMinRecords(this.checkpointTuning) ? (this.flusher ??= new PoolFlusher()) : undefined;
      this.checkpointJob = { steps: checkpointSteps(this.checkpointDir, this.image(flusher), this.checkpointBasis, this.checkpointTuning), offset, damaged: this.damagedRows() };
    }
    const job = this.checkpointJob;
    const started = performance.now();
    try {
      for (;;) {
        const stepStarted = performance.now();
        const next = job.steps.next();
        if (next.done) {
          this.checkpointJob = undefined;
          this.staleParts = false;
          this.checkpointBasis = next.value.basis;
          this.checkpointOffset = job.offset;
          this.checkpointDamaged = job.damaged;
          return next.value.written;
        }
        // A step that waits on a flush made on the thread pool ends a slice (one with an end): other requests
        // go first, and the event loop turns to hear it is done. Without an end, the flush is made here.
        this.flushPending = next.value === FLUSH_PENDING;
        if (this.flushPending) {
          if (budgetMs !== Infinity) break;
          this.flusher?.settle();
        }
        // The slice ends before a step that would take it past the budget, judged by the step just run
        // (steps come in runs of one kind): running on to the budget and then one more step made slices
        // of the budget plus the longest step.
        const now = performance.now();
        if (now - started + (now - stepStarted) >= budgetMs) break;
      }
    } catch (error) {
      this.checkpointJob = undefined;
      this.dropFlushes();
      if (error instanceof CheckpointAbandoned) return { abandoned: error.message };
      throw error;
    }
    return undefined;
  }

  /** Whether the last slice of the checkpoint in steps under way ended waiting for a flush on the thread pool (the event loop must turn to hear it is done). */
  get checkpointFlushPending(): boolean {
    return this.checkpointJob !== undefined && this.flushPending;
  }

  /**
   * A checkpoint of the state as it is now, written in slices of about CHECKPOINT_SLICE_MS between requests
   * (the bridge's, at a quiet moment): resolves with how it ended; a call while one is under way gets that one.
   */
  checkpointInBackground(): Promise<CheckpointOutcome> {
    this.checkpointInFlight ??= new Promise<CheckpointOutcome>((resolve, reject) => {
      const slice = () => {
        if (this.closed) return resolve({ abandoned: "the store was closed" });
        try {
          const outcome = this.checkpointInSteps(this.checkpointTuning.sliceMs ?? CHECKPOINT_SLICE_MS);
          if (outcome) resolve(outcome);
          // Waiting on a flush: looked at again in a millisecond, not at every turn of the event loop (a
          // thread spinning beside the flush).
          else if (this.checkpointFlushPending) setTimeout(slice, FLUSH_POLL_MS);
          else setImmediate(slice);
        } catch (error) {
          reject(error);
        }
      };
      // The first slice now: the checkpoint is of the state as it is when asked for.
      slice();
    }).finally(() => (this.checkpointInFlight = undefined));
    return this.checkpointInFlight;
  }

  private get checkpointDir(): string {
    return path.join(this.dataDir, "checkpoint");
  }

  private image(flusher?: Flusher): StoreImage {
    const { state } = this;
    const offset = this.journal.endOffset;
    const damaged = this.damagedRows();
    return {
      records: state.records,
      freezeRecords: () => state.freezeRecords(),
      live: state.size,
      bm25: state.bm25,
      vectors: state.vectors,
      statements: state.statements(),
      changes: state.changes(),
      changesNow: () => state.changes(),
      journal: { path: this.journal.filePath, offset, entries: state.entries },
      flusher,
      createdMs: this.defaults.nowMs(),
      texts: {
        active: state.texts.active,
        page: (parts) => state.pageTexts(parts),
      },
      committed: (_written, basis) => {
        if (this.state !== state) return;
        this.checkpointBasis = basis;
        this.checkpointOffset = offset;
        this.checkpointDamaged = damaged;
        // Until its last step, the old parts may be left: checkpoint() removes them if it stops short.
        this.staleParts = true;
        if (this.checkpointJob) this.checkpointJob.committed = true;
      },
    };
  }

  /** Stops a checkpoint under way in steps; its half-written parts are removed by the next checkpoint. */
  private abandonCheckpoint({ finishPaging = false } = {}): void {
    // A committed one only has old parts to remove and texts to page: finished when asked (the next checkpoint
    // would otherwise leave the records of segments it keeps with their texts in memory), dropped on close or
    // compaction (the next checkpoint removes what is left).
    if (finishPaging && this.checkpointJob?.committed) runToEnd(this.checkpointJob.steps, () => this.lock.refreshIfDue());
    this.checkpointJob?.steps.return(undefined as never);
    this.checkpointJob = undefined;
    this.dropFlushes();
  }

  /** The flushes of a checkpoint given up are nobody's to wait for: their files are closed (and the numbers may be reused). */
  private dropFlushes(): void {
    this.flusher?.dispose();
    this.flusher = undefined;
  }

  /** The journal tail the last open cut off, where it was kept and why it was cut; undefined when none was. */
  /** How the last open went: how long it took, and why it replayed the whole journal when it did. */
  get opened(): { ms: number; memories: number; replayed: number; checkpointReason?: string } {
    const { openMs, checkpointReason } = this.openReport;
    return { ms: Math.round(openMs), memories: this.size, replayed: this.replayReport.entries, ...(checkpointReason === undefined ? {} : { checkpointReason }) };
  }

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
   * Erases forgotten memories at once, the store blocked throughout (the CLI, tests), then checkpoints.
   * The steps are compaction()'s; compactInBackground() runs the same ones while the store serves.
   */
  compact(): CompactReport {
    const report = runToEnd(this.compaction(), () => this.lock.refreshIfDue());
    const started = performance.now();
    this.checkpoint();
    report.phases_ms.checkpoint = Math.round(performance.now() - started);
    report.ms += report.phases_ms.checkpoint;
    return report;
  }

  /**
   * The same erasure while searches and writes go on: the new journal, and the state it loads into,
   * are built in slices of about `sliceMs` with the event loop free between them; what is written
   * meanwhile lands in the old journal and is carried over at the switch, the one step that blocks.
   * No checkpoint is written here (the bridge takes one at its next quiet moment, as for any journal
   * growth); until then a restart replays the compacted journal. One compaction at a time.
   */
  async compactInBackground(sliceMs = 20): Promise<CompactReport> {
    const steps = this.compaction();
    let longest = 0;
    let sliceStart = performance.now();
    for (;;) {
      const step = steps.next();
      const now = performance.now();
      if (step.done) {
        step.value.longest_pause_ms = Math.max(longest, Math.round(now - sliceStart));
        return step.value;
      }
      if (now - sliceStart < sliceMs) continue;
      longest = Math.max(longest, Math.round(now - sliceStart));
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }

  /**
   * Compaction, as steps (each yield is a point where other work may run): finds what the journal
   * holds of forgotten memories, writes every live memory (one add with a vector inline, other vectors
   * as embeds, quarantine kept) to a new journal under another name while applying the same entries to
   * a fresh state, removes the checkpoint that may hold older text, then at the switch copies and
   * applies the entries written meanwhile, renames the new journal into place (fsync'd before and
   * after, so a kill at any point leaves the old journal or the new one, never a mix), adopts the new
   * state and cleans the receipts.
   */
  private *compaction(): Generator<void, CompactReport> {
    if (this.compactionRunning) throw new DreamError("INTERNAL", "a compaction is already running; callers wait for it (one at a time)");
    this.compactionRunning = true;
    // The compaction removes the checkpoint: nothing in it may be reused, nor a checkpoint go on meanwhile.
    this.abandonCheckpoint();
    this.checkpointBasis = undefined;
    try {
      const started = performance.now();
      let mark = started;
      const lap = () => {
        const now = performance.now();
        const ms = Math.round(now - mark);
        mark = now;
        return ms;
      };
      const journalPath = this.journal.filePath;
      const before = this.journal.endOffset;
      // What the new journal is written from: the memories as they are now. One forgotten while the
      // draft is written is still written (without its vectors, which went with the forget); its forget,
      // carried over, leaves it for the next erasure, which also cleans the receipts that name it.
      const records = this.state.records.slice();
      const spaces = this.state.vectors.list();
      const forgotten = yield* this.forgottenInJournal(journalPath, before);
      const scan = lap();
      const next = new MemoryState(this.state.nowMs, this.bm25Params, undefined);
      const draft = `${journalPath}.compact`;
      fs.rmSync(draft, { force: true });
      const fd = fs.openSync(draft, "wx", 0o600);
      let tailFrom = before;
      const phases = { scan, write: 0, reload: 0, receipts: 0, checkpoint: 0 };
      let carriedFrom = 0;
      let receiptsDraft: AuditPurgeDraft | undefined;
      let switched = false;
      let open = true;
      try {
        const writer = new DraftWriter(fd);
        writer.push(encodeLine({ op: "header", format: JOURNAL_FORMAT, version: JOURNAL_VERSION }));
        let sinceYield = 0;
        for (const entry of this.liveEntries(records, spaces)) {
          writer.push(encodeLine(entry));
          next.apply(entry);
          if (++sinceYield === 64) {
            sinceYield = 0;
            yield;
            if (writer.syncIfDue()) yield;
          }
        }
        writer.flush();
        yield;
        fs.fsyncSync(fd);
        yield;
        carriedFrom = fs.fstatSync(fd).size;
        phases.write = lap();
        receiptsDraft = yield* this.audit.purgeInSteps(forgotten.ids, forgotten.texts);
        // The checkpoint may hold older text; it goes before the new journal is put in place (a crash
        // from here on reopens by replaying the journal, old or new). Its parts are gigabytes at 1M:
        // one file per step.
        yield* removeInSteps(path.join(this.dataDir, "checkpoint"));
        syncDirectory(this.dataDir);
        yield;
        phases.receipts = lap();
        // The switch: nothing below yields. Entries appended since `before` are carried over as they are.
        const end = this.journal.endOffset;
        while (tailFrom < end) {
          const { entries, endOffset } = readEntriesFrom(journalPath, tailFrom, 8 * 1024 * 1024);
          if (endOffset === tailFrom) break;
          for (const entry of entries) {
            writer.push(encodeLine(entry));
            next.apply(entry);
          }
          tailFrom = endOffset;
        }
        writer.flush();
        fs.fsyncSync(fd);
        open = false;
        fs.closeSync(fd);
        renameWithRetry(draft, journalPath);
        switched = true;
      } finally {
        if (open) fs.closeSync(fd);
        // Failed before the switch: the store goes on with the old journal, the receipts as they were.
        if (!switched) {
          receiptsDraft?.abandon();
          fs.rmSync(draft, { force: true });
        }
      }
      syncDirectory(this.dataDir);
      this.journal.close();
      const { journal, report } = Journal.open(journalPath, () => undefined, { fromOffset: fs.statSync(journalPath).size });
      // The old state's indexes read rows, and its records texts, from the checkpoint's parts, removed above: close them.
      this.state.dispose();
      this.state = next;
      next.vectors.configure(this.annOptions);
      this.scheduleMaintenance();
      this.journal = journal;
      this.replayReport = { ...report, entries: next.entries };
      this.checkpointOffset = 0;
      this.checkpointDamaged = 0;
      this.openReport = { checkpointOffset: 0, checkpointReason: "the journal was compacted", openMs: this.openReport.openMs };
      phases.reload = lap();
      const receipts = receiptsDraft!.finish();
      // A cut-off tail kept aside may hold a forgotten memory too.
      for (const name of fs.readdirSync(this.dataDir)) {
        if (/^journal\.jsonl\.tail-\d+\.bad$/.test(name)) fs.rmSync(path.join(this.dataDir, name), { force: true });
      }
      phases.receipts += lap();
      for (const listener of this.commitListeners) listener();
      return {
        erased: forgotten.ids.size,
        journal_bytes_before: before,
        journal_bytes_after: this.journal.endOffset,
        receipts,
        ms: Math.round(performance.now() - started),
        phases_ms: phases,
        carried_from_offset: carriedFrom,
      };
    } finally {
      this.compactionRunning = false;
    }
  }

  /** Ids and texts of memories the journal's first `end` bytes hold that are no longer live. */
  private *forgottenInJournal(journalPath: string, end: number): Generator<void, { ids: Set<string>; texts: string[] }> {
    const ids = new Set<string>();
    const texts: string[] = [];
    for (let offset = 0; offset < end; ) {
      const { entries, endOffset } = readEntriesFrom(journalPath, offset, Math.min(1024 * 1024, end - offset));
      if (endOffset === offset) break;
      for (const entry of entries) {
        const record = entry.op === "add" ? (entry.rec as MemoryRecord | undefined) : undefined;
        if (record && typeof record.id === "string" && !this.get(record.id) && !ids.has(record.id)) {
          ids.add(record.id);
          if (typeof record.text === "string") texts.push(record.text);
        }
      }
      offset = endOffset;
      yield;
    }
    return { ids, texts };
  }

  /**
   * The journal entries of the live memories: each memory in its order with one of its vectors inline;
   * a space is first used in the order the spaces were made (so the reloaded store lists them, newest
   * last, as before), and the vectors that could not go inline follow as embeds, space by space in that
   * same order. A memory forgotten since `records` was taken has no vectors any more: written without.
   */
  private *liveEntries(records: ReadonlyArray<MemoryRecord | undefined>, spaces: ReturnType<VectorSpaces["list"]>): Generator<JournalEntry> {
    const live = (doc: number) => records[doc] !== undefined;
    const embeddingOf = (space: (typeof spaces)[number], doc: number): EmbeddingInput | undefined => {
      const record = records[doc];
      const vector = record && space.contentHashByDoc.boundTo(doc, record) ? space.index.vectorOf(doc) : undefined;
      return vector ? { provider: space.provider, model: space.model, vector, modelDigest: space.modelDigest, configHash: space.configHash } : undefined;
    };
    let made = 0;
    const inlined = spaces.map(() => new Set<number>());
    for (let doc = 0; doc < records.length; doc++) {
      if (!live(doc)) continue;
      let chosen = -1;
      for (let i = 0; i < made && chosen < 0; i++) if (embeddingOf(spaces[i], doc)) chosen = i;
      if (chosen < 0 && made < spaces.length && embeddingOf(spaces[made], doc)) chosen = made++;
      if (chosen >= 0) inlined[chosen].add(doc);
      // With its text: the new state outlives the files a paged record reads from.
      yield encodeAdd(plainRecord(records[doc]!), chosen >= 0 ? embeddingOf(spaces[chosen], doc) : undefined);
    }
    for (let i = 0; i < spaces.length; i++) {
      for (let doc = 0; doc < records.length; doc++) {
        if (inlined[i].has(doc) || !live(doc)) continue;
        const embedding = embeddingOf(spaces[i], doc);
        if (embedding) yield encodeEmbed(records[doc]!.id, records[doc]!.content_hash, embedding);
      }
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
    return matched.map(plainRecord);
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

  /** The memory as it is now, its text in memory (the copy outlives the checkpoint parts a large store reads texts from). */
  get(id: string): MemoryRecord | undefined {
    const record = this.state.get(id);
    return record && plainRecord(record);
  }

  /**
   * Corrects a memory's text, in one fsync'd write: a new memory with the corrected text and everything
   * else of the old one (its time too, so a correction of an old statement stays in its place in a slot's
   * history; `metadata.edited_from` and `edited_at_ms` say what it replaced and when), and the old one
   * quarantined, so that recall no longer uses it while `inspect` and the slot's history still show it.
   */
  edit(id: string, text: unknown): { record: MemoryRecord; replaced: MemoryRecord } {
    const old = this.require(id);
    const atMs = this.defaults.nowMs();
    const { content_hash: _hash, quarantine: _quarantine, id: _id, ...kept } = old;
    const { record } = validateRecordInput({ ...kept, text, metadata: { ...old.metadata, edited_from: id, edited_at_ms: atMs } }, this.defaults);
    if (record.content_hash === old.content_hash) throw new DreamError("INVALID_FIELD", "text is the memory's text already; nothing was changed", { field: "text" });
    this.commit([encodeAdd(record), { op: "quarantine", id, reason: `edited: replaced by ${record.id}`, at_ms: atMs }]);
    return { record, replaced: this.get(id)! };
  }

  list(filter: ListFilter): ListPage {
    return listMemories(this.state, filter);
  }

  inspect(id: string): MemoryDetail {
    const detail = inspectMemory(this.state, id, this.audit.recent.all());
    if (!detail) throw new DreamError("NOT_FOUND", `no memory with id "${id}"`, { field: "id" });
    return detail;
  }

  history(subject: string): SlotHistory[] {
    return subjectHistory(this.state, subject);
  }

  stats(): MemoryStats {
    return memoryStats(this.state);
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

  /** Record parts texts are read back from, and how many texts were read so far (benchmarks). */
  textFootprint(): { files: number; reads: number } {
    return { files: this.state.texts.openFiles, reads: this.state.texts.reads };
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
      lexical: lexicalStatus(state.bm25),
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

  /**
   * Checkpoints first when the journal grew past the threshold or an index built lists the newest checkpoint lacks;
   * the lock is released even if that fails.
   */
  close(): void {
    this.closed = true;
    this.abandonCheckpoint();
    if (this.maintenanceTimer !== undefined) clearTimeout(this.maintenanceTimer);
    this.maintenanceTimer = undefined;
    try {
      if (this.journal && (this.journalBytesSinceCheckpoint > this.checkpointOnCloseBytes || this.checkpointLacksLists)) this.checkpoint();
    } finally {
      this.state.dispose();
      this.journal?.close();
      this.lock.release();
    }
  }

  private commit(entries: JournalEntry[]): void {
    if (entries.length === 0) return;
    this.journal.append(entries);
    for (const entry of entries) this.state.apply(entry);
    for (const listener of this.commitListeners) listener();
    this.scheduleMaintenance();
  }

  /**
   * Builds the ANN lists of every space over flat_max_records, to the end (`budgetMs` Infinity) or for
   * about that long; returns whether work is left. Without calls here, the store does it in the
   * background, a slice at a time between requests.
   */
  maintainVectorIndexes(budgetMs = Infinity): boolean {
    return this.state.vectors.maintain(budgetMs);
  }

  /** Re-packs the lexical index if its delta or dead docs have grown, like maintainVectorIndexes. */
  maintainLexicalIndex(budgetMs = Infinity): boolean {
    return this.state.bm25.maintain(budgetMs);
  }

  /**
   * A slice of background index work after a gap, while there is any: the lexical re-pack first (long
   * delta chains slow every search with a common term), then the ANN builds with what is left of the slice.
   */
  private scheduleMaintenance(): void {
    if (this.closed || this.maintenanceTimer !== undefined) return;
    const { bm25, vectors } = this.state;
    if (!bm25.needsMaintenance() && !vectors.list().some((space) => space.index.needsMaintenance())) return;
    this.maintenanceTimer = setTimeout(() => {
      this.maintenanceTimer = undefined;
      if (this.closed) return;
      const started = performance.now();
      const lexicalLeft = this.state.bm25.maintain(MAINTENANCE_SLICE_MS);
      const vectorsLeft = this.state.vectors.maintain(MAINTENANCE_SLICE_MS - (performance.now() - started));
      if (lexicalLeft || vectorsLeft) this.scheduleMaintenance();
    }, MAINTENANCE_GAP_MS);
    // Index work never keeps the process alive: a store closed or dropped leaves nothing to finish.
    this.maintenanceTimer.unref?.();
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

/** The lexical index's size and shape: postings packed and in the delta, dead docs not yet dropped, a re-pack under way. */
function lexicalStatus(bm25: Bm25Index): Record<string, unknown> {
  const { mainPostings, deltaPostings, deadDocs, repacking } = bm25.layout;
  return { docs: bm25.size, postings: mainPostings, delta_postings: deltaPostings, dead_docs: deadDocs, repacking };
}

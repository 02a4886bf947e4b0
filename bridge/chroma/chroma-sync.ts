// Follows the journal into Chroma, off the request path: the journal is the acknowledgement, Chroma
// is a replica. A persisted cursor (journal byte offset) survives restarts; entries past it are
// replayed on start. Upserts are idempotent, so replaying twice never duplicates.
import fs from "node:fs";
import path from "node:path";
import { isLineStart, readEntriesFrom, type JournalEntry } from "../store/journal";
import { decodeEntry, type StoreChange } from "../store/journal-entries";
import type { MemoryStore } from "../store/memory-store";
import type { EmbeddingInput, MemoryRecord } from "../store/records";
import { isRowRefusal, type ChromaCollections } from "./chroma-collections";
import { renameWithRetry } from "../store/fs-retry";
import { makeDirectory } from "../store/make-dir";

const READ_BYTES = 1024 * 1024;
const MAX_BATCH_ROWS = 1000;
const RETRY_MIN_MS = 250;
// Writes arrive in bursts (a turn, an import); syncing shortly after the burst batches them and keeps
// Chroma's own disk writes from landing in the middle of the next acknowledgement's fsync.
const QUIET_DELAY_MS = 100;
const MAX_DELAY_MS = 1000;
const RETRY_MAX_MS = 10_000;

export interface SyncSource {
  readonly journalPath: string;
  readonly journalEndOffset: number;
  /** The record as it is now, with its vectors (one per embedding space), or undefined once forgotten. */
  currentRecord(id: string): { record: MemoryRecord; embeddings: EmbeddingInput[] } | undefined;
}

/** The store seen as a sync source: its journal, how far it is acknowledged, and each memory as it is now. */
export function storeSyncSource(store: MemoryStore): SyncSource {
  return {
    get journalPath() {
      return store.journalPath;
    },
    get journalEndOffset() {
      return store.journalEndOffset;
    },
    currentRecord: (id: string) => store.currentWithVectors(id),
  };
}

export interface SyncStatus {
  cursor: number;
  pending_bytes: number;
  synced_entries: number;
  last_error: string | null;
  last_synced_ms: number | null;
  /** Memories Chroma refuses (id → Chroma's reason); only present when there are some. */
  set_aside?: Record<string, string>;
  /** Why the replica was rebuilt from the start of the journal on this start, if it was. */
  resynced?: string;
  /**
   * While journal is pending: when this catch-up began, the bytes it has synced, its average rate
   * (retries and waits included) and the time left at that rate; rate and ETA are null until a batch is in.
   */
  catch_up?: { since_ms: number; synced_bytes: number; bytes_per_s: number | null; eta_s: number | null };
}

// At most this many set-aside memories are kept by id (and retried); a store with more has a
// systemic problem that the reasons shown will say.
const MAX_SET_ASIDE = 1000;
const MAX_REASON_CHARS = 300;

type Row = { id: string; document: string; embedding: Float32Array; metadata: Record<string, string | number | boolean> };
type Operation = { kind: "upsert"; collection: string; rows: Row[] } | { kind: "delete"; ids: string[] } | { kind: "drop"; collection: string };

export class ChromaSync {
  private cursor: number;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MIN_MS;
  private stopped = false;
  /** Held by pause() while the journal is rewritten under the sync; rebase() lets go. */
  private paused = false;
  private pumping: Promise<void> | undefined;
  private pauseWaiters: Array<() => void> = [];
  private syncedEntries = 0;
  private lastError: string | null = null;
  private lastSyncedMs: number | null = null;
  private idleWaiters: Array<() => void> = [];
  private firstPokeMs: number | undefined;
  private readonly setAside: Map<string, string>;
  private retrySetAside: boolean;
  private resynced: string | undefined;
  /** The catch-up under way: from when and which cursor; cleared once nothing is pending. */
  private catchUp: { startedMs: number; fromCursor: number } | undefined;

  constructor(
    private readonly source: SyncSource,
    private readonly chroma: ChromaCollections,
    private readonly cursorPath: string,
    private readonly target: string,
  ) {
    const saved = readCursor(cursorPath, target);
    this.cursor = saved.offset;
    this.setAside = new Map(Object.entries(saved.setAside));
    // Set-aside rows are offered to Chroma again once per start (a Chroma upgrade may take them).
    this.retrySetAside = this.setAside.size > 0;
    // A cursor inside a line (a copied or truncated journal) would read nothing for ever: start over.
    if (this.cursor > 0 && !isLineStart(source.journalPath, this.cursor)) {
      this.resynced = `the saved cursor ${this.cursor} is not at the start of a journal entry`;
      this.cursor = 0;
      this.persist();
    }
  }

  get pendingBytes(): number {
    return Math.max(0, this.source.journalEndOffset - this.cursor);
  }

  status(): SyncStatus {
    return {
      cursor: this.cursor,
      pending_bytes: this.pendingBytes,
      synced_entries: this.syncedEntries,
      last_error: this.lastError,
      last_synced_ms: this.lastSyncedMs,
      ...(this.setAside.size > 0 ? { set_aside: Object.fromEntries(this.setAside) } : {}),
      ...(this.resynced ? { resynced: this.resynced } : {}),
      ...this.catchUpStatus(),
    };
  }

  private catchUpStatus(): Pick<SyncStatus, "catch_up"> {
    const pending = this.pendingBytes;
    if (!this.catchUp || pending === 0) return {};
    const synced = Math.max(0, this.cursor - this.catchUp.fromCursor);
    const seconds = (Date.now() - this.catchUp.startedMs) / 1000;
    const rate = synced > 0 && seconds > 0 ? synced / seconds : null;
    return { catch_up: { since_ms: this.catchUp.startedMs, synced_bytes: synced, bytes_per_s: rate === null ? null : Math.round(rate), eta_s: rate === null ? null : Math.ceil(pending / rate) } };
  }

  /** Asks for a sync once writes pause (at most MAX_DELAY_MS later); called after every acknowledged write. */
  poke(delayMs = QUIET_DELAY_MS): void {
    if (this.stopped || this.paused || this.running) return;
    const now = Date.now();
    this.firstPokeMs ??= now;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(delayMs, this.firstPokeMs + MAX_DELAY_MS - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.firstPokeMs = undefined;
      void this.pump();
    }, wait);
  }

  /** Resolves once everything acknowledged so far is in Chroma (tests, shutdown, status). */
  whenIdle(): Promise<void> {
    if (this.pendingBytes === 0 && !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.poke(0);
    });
  }

  /** Forgets the cursor: the whole journal is replayed into Chroma again (idempotent upserts). */
  resyncFromStart(): void {
    this.cursor = 0;
    this.persist();
    this.poke(0);
  }

  /**
   * After a compaction rewrote the journal: a replica that had everything (nothing pending, so every
   * forget was applied) continues from the new journal's end; one that did not is rebuilt from the start.
   */
  rebase(newEndOffset: number, wasCaughtUp: boolean): void {
    this.paused = false;
    this.cursor = wasCaughtUp ? newEndOffset : 0;
    this.persist();
    this.poke(0);
  }

  /**
   * Stops following the journal until rebase(), so the cursor stays put while a compaction rewrites
   * the journal under it. Resolves true at a moment when everything written is in Chroma (the caller
   * must start the rewrite without awaiting anything, so the cursor is the journal's end), or false
   * when the replica could not catch up within `waitMs` (then held wherever it is, no batch in flight).
   */
  async pauseCaughtUp(waitMs: number): Promise<boolean> {
    if (!this.running && this.pendingBytes === 0) {
      this.hold();
      return true;
    }
    let timer: NodeJS.Timeout | undefined;
    const caughtUp = await Promise.race([
      new Promise<boolean>((resolve) => {
        this.pauseWaiters.push(() => resolve(true));
        this.poke(0);
      }),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
    ]);
    clearTimeout(timer);
    if (!caughtUp) {
      this.pauseWaiters = [];
      this.hold();
      await this.pumping;
    }
    return caughtUp;
  }

  private hold(): void {
    this.paused = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async pump(): Promise<void> {
    if (this.stopped || this.paused || this.running) return;
    this.running = true;
    let done!: () => void;
    this.pumping = new Promise((resolve) => (done = resolve));
    try {
      if (this.retrySetAside) await this.offerSetAsideAgain();
      if (this.pendingBytes > 0) this.catchUp ??= { startedMs: Date.now(), fromCursor: this.cursor };
      while (!this.stopped && !this.paused && this.pendingBytes > 0) {
        const { entries, endOffset } = readEntriesFrom(this.source.journalPath, this.cursor, READ_BYTES);
        if (endOffset === this.cursor) break;
        for (const operation of this.plan(entries)) await this.send(operation);
        this.cursor = endOffset;
        this.syncedEntries += entries.length;
        this.persist();
        // Progress: an error from an earlier try no longer describes the replica (status would say
        // "unavailable" for the whole of a long catch-up after one timed-out batch).
        this.lastError = null;
      }
      if (this.pendingBytes === 0) this.catchUp = undefined;
      // Caught up, and a compaction waits for that moment: hold here, in this same turn.
      if (this.pauseWaiters.length > 0 && !this.stopped && this.pendingBytes === 0) {
        this.hold();
        for (const resolve of this.pauseWaiters.splice(0)) resolve();
      }
      this.lastError = null;
      this.lastSyncedMs = Date.now();
      this.retryMs = RETRY_MIN_MS;
    } catch (error) {
      // Chroma is down or refused a batch: the journal still holds everything; try again later.
      this.lastError = (error as Error).message;
      this.scheduleRetry();
    } finally {
      this.running = false;
      done();
    }
    if (this.pendingBytes === 0 || this.stopped) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private scheduleRetry(): void {
    if (this.stopped || this.paused) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pump();
    }, this.retryMs);
    this.timer.unref?.();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  /** Turns journal entries into ordered Chroma operations, coalescing neighbours of one kind. */
  private plan(entries: JournalEntry[]): Operation[] {
    const operations: Operation[] = [];
    for (const entry of entries) {
      const change = decodeEntry(entry);
      if (change.op === "forget") {
        const last = operations.at(-1);
        if (last?.kind === "delete") last.ids.push(change.id);
        else operations.push({ kind: "delete", ids: [change.id] });
        continue;
      }
      if (change.op === "drop_vectors") {
        // In journal order: a replica rebuilt from the journal (after a crash loop, for another Chroma) made the
        // superseded space's collection again from the adds before the drop, and kept it for good. The bridge
        // also deletes it when the drop happens (daemon.ts); whichever comes second finds nothing to delete.
        operations.push({ kind: "drop", collection: this.chroma.collectionName(change.binding) });
        continue;
      }
      for (const [record, embedding] of this.rowsFor(change)) {
        const collection = this.chroma.collectionName(bindingOf(embedding));
        const row: Row = { id: record.id, document: record.text, embedding: embedding.vector, metadata: this.chroma.metadataFor(record, bindingOf(embedding)) };
        const last = operations.at(-1);
        if (last?.kind === "upsert" && last.collection === collection && last.rows.length < MAX_BATCH_ROWS) last.rows.push(row);
        else operations.push({ kind: "upsert", collection, rows: [row] });
      }
    }
    return operations;
  }

  /**
   * Adds carry their own vector; a later embedding is upserted only while the memory still has the
   * text it was computed from; quarantine/release re-upsert the memory in every collection holding it.
   * Memories without a vector are not in Chroma (it cannot hold a row without an embedding).
   */
  private rowsFor(change: Exclude<StoreChange, { op: "forget" } | { op: "drop_vectors" }>): Array<[MemoryRecord, EmbeddingInput]> {
    if (change.op === "add") return change.embedding ? [[change.record, change.embedding]] : [];
    const current = this.source.currentRecord(change.id);
    if (!current) return [];
    if (change.op === "embed") return current.record.content_hash === change.contentHash ? [[current.record, change.embedding]] : [];
    return current.embeddings.map((embedding) => [current.record, embedding]);
  }

  private async send(operation: Operation): Promise<void> {
    if (operation.kind === "drop") {
      await this.chroma.deleteCollection(operation.collection);
      return;
    }
    if (operation.kind === "delete") {
      await this.chroma.deleteFromAll(operation.ids);
      for (const id of operation.ids) this.setAside.delete(id); // forgotten: nothing left to retry
      return;
    }
    const first = operation.rows[0].metadata;
    await this.chroma.ensureCollection({ provider: String(first.provider), model: String(first.model), dim: Number(first.dim) });
    await this.upsertOrSetAside(operation.collection, operation.rows);
  }

  /**
   * Chroma refuses a whole batch for one row it cannot take. Halves are tried until the refused rows
   * stand alone; those are set aside with Chroma's reason (status shows them) and the rest goes in,
   * so one memory never stops the replica. Anything else (Chroma down, auth) is thrown: retried later.
   */
  private async upsertOrSetAside(collection: string, rows: Row[]): Promise<void> {
    try {
      await this.chroma.upsert(collection, rows);
      for (const row of rows) this.setAside.delete(row.id);
    } catch (error) {
      if (!isRowRefusal(error)) throw error;
      if (rows.length === 1) {
        if (this.setAside.size < MAX_SET_ASIDE || this.setAside.has(rows[0].id)) this.setAside.set(rows[0].id, (error as Error).message.slice(0, MAX_REASON_CHARS));
        return;
      }
      const half = Math.ceil(rows.length / 2);
      await this.upsertOrSetAside(collection, rows.slice(0, half));
      await this.upsertOrSetAside(collection, rows.slice(half));
    }
  }

  private async offerSetAsideAgain(): Promise<void> {
    for (const id of [...this.setAside.keys()]) {
      const current = this.source.currentRecord(id);
      if (!current) {
        this.setAside.delete(id);
        continue;
      }
      for (const embedding of current.embeddings) {
        const binding = bindingOf(embedding);
        await this.chroma.ensureCollection(binding);
        const row: Row = { id, document: current.record.text, embedding: embedding.vector, metadata: this.chroma.metadataFor(current.record, binding) };
        await this.upsertOrSetAside(this.chroma.collectionName(binding), [row]);
      }
    }
    this.retrySetAside = false;
    this.persist();
  }

  private persist(): void {
    writeCursor(this.cursorPath, this.target, this.cursor, this.setAside);
  }
}

function bindingOf(embedding: EmbeddingInput): { provider: string; model: string; dim: number } {
  return { provider: embedding.provider, model: embedding.model, dim: embedding.vector.length };
}

/** The cursor belongs to one Chroma target; a different target (another URL) starts from zero. */
function readCursor(cursorPath: string, target: string): { offset: number; setAside: Record<string, string> } {
  try {
    const saved = JSON.parse(fs.readFileSync(cursorPath, "utf8"));
    if (saved.target !== target || !Number.isSafeInteger(saved.journal_offset) || saved.journal_offset < 0) return { offset: 0, setAside: {} };
    const setAside = saved.set_aside && typeof saved.set_aside === "object" && !Array.isArray(saved.set_aside) ? saved.set_aside : {};
    return { offset: saved.journal_offset, setAside };
  } catch {
    return { offset: 0, setAside: {} }; // no cursor yet (or unreadable): a full, idempotent resync is always safe
  }
}

function writeCursor(cursorPath: string, target: string, offset: number, setAside: ReadonlyMap<string, string>): void {
  makeDirectory(path.dirname(cursorPath));
  const tmp = `${cursorPath}.${process.pid}.tmp`;
  const saved: Record<string, unknown> = { target, journal_offset: offset, updated_ms: Date.now() };
  if (setAside.size > 0) saved.set_aside = Object.fromEntries(setAside);
  fs.writeFileSync(tmp, JSON.stringify(saved));
  renameWithRetry(tmp, cursorPath);
}

// The in-memory state derived from the journal: records by doc number, the lexical and vector
// indexes, scopes, turn adjacency, and what each memory states (speech act, state slots) with the slot
// index built from it. Pure of I/O: the store feeds it entries.
import { documentTerms } from "../index/analyze";
import { Bm25Index } from "../index/bm25";
import { TurnAdjacency } from "../index/turn-adjacency";
import { DreamError } from "../protocol/errors";
import type { PreparedState, RestoredState } from "./checkpoint";
import { DocIds } from "./doc-ids";
import { shareRecordValues, SharedValues } from "./checkpoint-parts";
import { toImportFormat } from "./export-records";
import type { JournalEntry } from "./journal";
import { decodeEntry } from "./journal-entries";
import { isUsableVector, type EmbeddingInput, type MemoryRecord } from "./records";
import { ScopeMasks } from "./scope-masks";
import { plainRecord, TextPages, TEXTS_OPENED, type TextPart } from "./text-pages";
import { RecordsFreeze } from "./records-freeze";
import { actCode, actOfCode, analyseRecord, confirmedByUser, hasSlotAuthority, type RecordStatement } from "./record-statements";
import type { SearchView } from "./search";
import { SlotIndex } from "./slot-index";
import type { StateSlot } from "../statements/slots";
import { isNonAnswer, type SpeechAct } from "../statements/speech-acts";
import { bindingOf, VectorSpaces, type VectorBinding } from "./vector-spaces";

// Per doc, what an assistant reply is, cached: deriving a user message's statements asks whether its turn's
// reply did not know, and a store whose texts are read back must not read every reply's text at open.
const REPLY_UNKNOWN = 0;
const REPLY_ANSWER = 1;
const REPLY_NON_ANSWER = 2;

/** Whether `record` is an assistant reply that did not know (REPLY_NON_ANSWER), another reply, or no reply (0). */
export function replyKind(record: MemoryRecord): number {
  return replyKindOf(record.source_type, undefined, () => record.text);
}

/**
 * replyKind from the record's act when it is known (its statements): a non-answer is an acknowledgement
 * (isNonAnswer), so a reply whose act is another is an answer, and only an acknowledgement's text is read.
 */
export function replyKindOf(sourceType: MemoryRecord["source_type"], act: SpeechAct | undefined, text: () => string): number {
  if (sourceType !== "assistant_message") return REPLY_UNKNOWN;
  if (act !== undefined && act !== "acknowledgement") return REPLY_ANSWER;
  return isNonAnswer(text()) ? REPLY_NON_ANSWER : REPLY_ANSWER;
}

const SWAP_DOCS_PER_STEP = 2048;
/** The slots of a restored doc that states none: one array for them all, frozen (derive stores none empty). */
const NO_SLOTS = Object.freeze([]) as unknown as StateSlot[];

/** Docs per change-count block; a checkpoint segment is a whole number of blocks. */
export const CHANGE_BLOCK_DOCS = 4;

export interface PendingEmbedding {
  id: string;
  text: string;
  contentHash: string;
}

export class MemoryState implements SearchView {
  /** By doc number; a restored state's is the array its checkpoint was read into (its ids are indexed over it). */
  readonly records: Array<MemoryRecord | undefined>;
  /** Checkpoints under way that read the records as they were at their first step (freezeRecords). */
  private readonly freezes = new Set<RecordsFreeze>();
  /** The values records hold alike, one each for all the records given to insert (shareRecordValues). */
  private readonly shared = new SharedValues();
  private readonly docById: DocIds;
  /** Speech act code per doc (see actCode); forgotten docs keep a stale code that nothing reads. */
  private acts = new Uint8Array(64);
  private readonly slotsByDoc = new Map<number, StateSlot[]>();
  readonly slotIndex = new SlotIndex();
  private readonly turns = new TurnAdjacency();
  private lexical: Bm25Index;
  readonly vectors: VectorSpaces;
  readonly scopes = new ScopeMasks();
  /** Texts of records read back from checkpoint parts (a store above checkpoint.textInMemoryMax). */
  readonly texts: TextPages;
  /** replyKind by doc, REPLY_UNKNOWN until asked. */
  private replies = new Uint8Array(64);
  private live = 0;
  /** Journal entries the state includes (header excluded), whether replayed, restored or written here. */
  entries = 0;
  /** Ids whose journalled vector could not be used (non-finite or all zero as float32); kept without it. */
  readonly unusableVectors: string[] = [];
  /**
   * Per block of CHANGE_BLOCK_DOCS docs, how many times something a checkpoint keeps changed there: a record
   * added, forgotten, quarantined or released, a vector stored, an act or slots recomputed. A checkpoint
   * rewrites only the segments whose counts moved since the one before (checkpoint.ts).
   */
  private changeCounts = new Uint32Array(64);

  constructor(
    readonly nowMs: () => number,
    bm25Params: { k1?: number; b?: number } | undefined,
    restored: RestoredState | PreparedState | undefined,
  ) {
    this.lexical = (restored && "bm25" in restored ? restored.bm25 : undefined) ?? new Bm25Index(bm25Params);
    this.vectors = restored?.vectors ?? new VectorSpaces();
    this.texts = restored?.texts ?? new TextPages();
    this.records = restored?.records ?? [];
    // A restore has made it already over these records, checking the ids are unique (a million at 1M).
    this.docById = restored?.docById ?? new DocIds(this.records, restored?.records.length);
    if (!this.docById.readsFrom(this.records)) throw new Error("MemoryState: the restored ids are not indexed over the restored records");
    // A vector dropped for a damaged row changes its segment: the next checkpoint writes it without that vector.
    this.vectors.onDamagedRow = (doc) => this.touch(doc);
    if (restored) this.adopt(restored);
  }

  get size(): number {
    return this.live;
  }

  get bm25(): Bm25Index {
    return this.lexical;
  }

  /**
   * Takes the lexical index of the restore this state was prepared from (loadCheckpoint's `prepare`): the
   * state's own indexes were built while a worker still read the BM25 snapshot.
   */
  adoptLexical(bm25: Bm25Index): this {
    if (this.lexical.size !== 0) throw new Error("adoptLexical: the state has a lexical index already");
    this.lexical = bm25;
    return this;
  }

  /** Forgotten docs whose text the journal (and maybe a checkpoint) still holds until compaction. */
  get forgottenNotErased(): number {
    return this.records.length - this.live;
  }

  get(id: string): MemoryRecord | undefined {
    const doc = this.docById.get(id);
    return doc === undefined ? undefined : this.records[doc];
  }

  /** The doc number of a live memory. */
  docOf(id: string): number | undefined {
    return this.docById.get(id);
  }

  record(doc: number): MemoryRecord | undefined {
    return this.records[doc];
  }

  /** Live memories in the same session as `doc` whose turn is at most one away (see TurnAdjacency). */
  adjacentTurns(doc: number): readonly number[] {
    return this.turns.neighbours(doc);
  }

  slots(doc: number): StateSlot[] {
    return this.slotsByDoc.get(doc) ?? [];
  }

  act(doc: number): SpeechAct {
    return actOfCode(this.acts[doc]);
  }

  /** The change counts by block, up to the last doc (a live view: a checkpoint copies what it needs). */
  changes(): Uint32Array {
    const blocks = Math.ceil(this.records.length / CHANGE_BLOCK_DOCS);
    this.growChangeCounts(blocks);
    return this.changeCounts.subarray(0, blocks);
  }

  private touch(doc: number): void {
    const block = Math.floor(doc / CHANGE_BLOCK_DOCS);
    this.growChangeCounts(block + 1);
    this.changeCounts[block]++;
  }

  private growChangeCounts(blocks: number): void {
    if (blocks <= this.changeCounts.length) return;
    const grown = new Uint32Array(Math.max(blocks, this.changeCounts.length * 2));
    grown.set(this.changeCounts);
    this.changeCounts = grown;
  }

  /** What every doc states, for a checkpoint: act codes by doc number and the slots of docs that have any. */
  statements(): { acts: Uint8Array; slots: ReadonlyMap<number, StateSlot[]> } {
    return { acts: this.acts.subarray(0, this.records.length), slots: this.slotsByDoc };
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
    return { record: plainRecord(record), embeddings };
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
      if (record && !space?.contentHashByDoc.boundTo(doc, record)) items.push({ id: record.id, text: record.text, contentHash: record.content_hash });
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
    // A vector no cosine can use (written before validation refused them) is set aside, not fatal:
    // the memory stays, searchable by its words, and status counts what was dropped.
    if ((change.op === "add" || change.op === "embed") && change.embedding && !isUsableVector(change.embedding.vector)) {
      this.unusableVectors.push(change.op === "add" ? change.record.id : change.id);
      if (change.op === "embed") return;
      return this.insert(change.record, undefined);
    }
    if (change.op === "add") return this.insert(change.record, change.embedding);
    if (change.op === "drop_vectors") {
      this.vectors.drop(change.binding);
      return;
    }
    const doc = this.docById.get(change.id);
    const record = doc === undefined ? undefined : this.records[doc];
    if (doc === undefined || !record) return;
    this.touch(doc);
    if (change.op === "forget") {
      // The index keeps no list of a doc's terms: they are read from its text again, before it is released.
      this.bm25.remove(doc, documentTerms(record.text));
      // Its id first: the index of ids reads it from the record.
      this.docById.delete(change.id);
      this.replaceRecord(doc, undefined);
      this.texts.release(doc);
      this.turns.remove(doc);
      this.vectors.remove(doc);
      this.scopes.remove(doc);
      this.slotIndex.remove(doc);
      this.slotsByDoc.delete(doc);
      this.live--;
    } else if (change.op === "embed") {
      // A vector computed for text this memory no longer has is stale: never install it.
      if (change.contentHash === record.content_hash) this.vectors.put(doc, record.content_hash, change.embedding);
    } else if (change.op === "quarantine") {
      // Replaced, never changed in place: a checkpoint written in steps holds the objects as they were (checkpoint.ts).
      // A spread would leave a paged text behind: the copy holds its text.
      this.replaceRecord(doc, { ...plainRecord(record), quarantine: { reason: change.reason, atMs: change.atMs } });
      this.texts.release(doc);
    } else {
      const { quarantine: _released, ...released } = plainRecord(record);
      this.replaceRecord(doc, released);
      this.texts.release(doc);
    }
  }

  /**
   * The records as they are now, for a checkpoint written in steps: what each doc below the current count
   * holds now stays readable through the freeze (RecordsFreeze.slice) however records are replaced
   * meanwhile, until it is released.
   */
  freezeRecords(): RecordsFreeze {
    const freeze = new RecordsFreeze(this.records, this.records.length, (done) => this.freezes.delete(done));
    this.freezes.add(freeze);
    return freeze;
  }

  /** Every replacement of a record goes through here, so that a freeze keeps what it replaces. */
  private replaceRecord(doc: number, record: MemoryRecord | undefined): void {
    for (const freeze of this.freezes) freeze.keep(doc);
    this.records[doc] = record;
  }

  /**
   * Takes over a restored checkpoint's records; turn adjacency and scopes are cheap to rebuild from them, and
   * so is the slot index from the statements the checkpoint kept (recomputed from the text when it kept none
   * this build can use).
   */
  private adopt(restored: PreparedState): void {
    this.replies = restored.replies.slice();
    // The records array is the restore's own (taken in the constructor), not copied.
    restored.records.forEach((record, doc) => {
      if (!record) return;
      if (!restored.docById && !this.docById.add(record.id, doc)) throw new Error(`MemoryState: the restored records hold id ${JSON.stringify(record.id)} twice`);
      if (record.session_id !== undefined && record.turn !== undefined) this.turns.add(doc, record.session_id, record.turn);
      this.scopes.add(doc, record.scope);
      const kept = restored.statements;
      this.derive(doc, record, kept ? { act: actOfCode(kept.acts[doc]), slots: kept.slots.get(doc) ?? NO_SLOTS } : undefined);
      this.live++;
    });
    this.entries = restored.entries;
    // A part whose docs were all forgotten was opened for nothing.
    this.texts.settle();
  }

  /**
   * Reads the texts of these parts' records from them from now on (those not replaced since), and closes
   * the files no record reads. First, a part a step, it moves the records already paged to the new parts;
   * then it lets go of the old ones and yields TEXTS_OPENED (a checkpoint removes those parts next). After
   * it, SWAP_DOCS_PER_STEP a step, the records whose text is in memory are replaced (a million at the first
   * paging).
   */
  *pageTexts(parts: TextPart[]): Generator<typeof TEXTS_OPENED | undefined, void> {
    const current = (doc: number) => this.records[doc];
    // A part a step: moving a million paged records to the new parts at once was a step of ~56 ms. Until
    // the settle, records read from the old parts and the new alike.
    const opened: Array<{ part: TextPart; id: number | undefined }> = [];
    yield;
    this.texts.reserve(this.records.length);
    for (const part of parts) {
      yield;
      opened.push({ part, id: this.texts.open(part, current) });
    }
    const pending = new Set(opened.flatMap(({ id }) => (id === undefined ? [] : [id])));
    this.texts.settle(pending);
    yield TEXTS_OPENED;
    const replace = (doc: number, record: MemoryRecord) => this.replaceRecord(doc, record);
    // Half a segment a step: a new object per record, and the garbage of the old ones, cost ~40 ms a segment at 1M.
    for (const { part, id } of opened) {
      for (let from = 0; id !== undefined && from < part.records.length; from += SWAP_DOCS_PER_STEP) {
        yield;
        this.texts.swap(id, part, current, replace, from, Math.min(part.records.length, from + SWAP_DOCS_PER_STEP));
      }
    }
    this.texts.settle();
  }

  /** Closes the files the state reads vector rows and texts from; the state is not used after this. */
  dispose(): void {
    this.vectors.dispose();
    this.texts.dispose();
  }

  /** Records what `record` states (analysed now unless given) and indexes its slots if it may set them. */
  private derive(doc: number, record: MemoryRecord, given: RecordStatement | undefined): void {
    const analysed = given ?? analyseRecord(record.text, record.source_type);
    // A message the reply answered "I don't know" was asked, however it was phrased ("我记得护照在抽屉里").
    const asked = record.source_type === "user_message" && analysed.act === "statement" && this.turns.sameTurn(doc).some((sibling) => this.isNonAnswerReply(sibling));
    const { act, slots } = asked ? { act: "question" as const, slots: [] } : analysed;
    if (doc >= this.acts.length) {
      const grown = new Uint8Array(Math.max(doc + 1, this.acts.length * 2));
      grown.set(this.acts);
      this.acts = grown;
    }
    this.acts[doc] = actCode(act);
    if (slots.length > 0) this.slotsByDoc.set(doc, slots);
    this.slotIndex.noteStatement(doc, slots);
    if (hasSlotAuthority(record.source_type)) {
      this.slotIndex.add(doc, record.timestamp_ms, slots);
      // The turn's reply may have been written first (an import in any order): it may restate this message.
      if (record.source_type === "user_message") for (const sibling of this.turns.sameTurn(doc)) this.indexRestatement(sibling, record);
    } else {
      const nonAnswer = this.isNonAnswerReply(doc);
      for (const sibling of this.turns.sameTurn(doc)) {
        if (this.records[sibling]?.source_type !== "user_message") continue;
        if (nonAnswer) this.markAsked(sibling);
        else this.indexRestatement(doc, this.records[sibling]!);
      }
    }
  }

  private isNonAnswerReply(doc: number): boolean {
    const reply = this.records[doc];
    if (reply?.source_type !== "assistant_message") return false;
    if (doc >= this.replies.length) {
      const grown = new Uint8Array(Math.max(doc + 1, this.replies.length * 2));
      grown.set(this.replies);
      this.replies = grown;
    }
    if (this.replies[doc] === REPLY_UNKNOWN) this.replies[doc] = replyKind(reply);
    return this.replies[doc] === REPLY_NON_ANSWER;
  }

  /** The user message `doc` was asked (its reply did not know): it states nothing and sets no slot. */
  private markAsked(doc: number): void {
    if (actOfCode(this.acts[doc]) !== "statement") return;
    this.touch(doc);
    this.acts[doc] = actCode("question");
    this.slotIndex.remove(doc);
    this.slotsByDoc.delete(doc);
  }

  /** Indexes the slots of assistant reply `doc` that restate `user`, a user message of the same turn. */
  private indexRestatement(doc: number, user: MemoryRecord): void {
    const reply = this.records[doc];
    const slots = this.slotsByDoc.get(doc);
    if (reply?.source_type !== "assistant_message" || !slots) return;
    const userDoc = this.docById.get(user.id);
    const confirmed = confirmedByUser(slots, userDoc === undefined ? [] : this.slots(userDoc));
    if (confirmed.length > 0) this.slotIndex.add(doc, reply.timestamp_ms, confirmed);
  }

  private insert(record: MemoryRecord, embedding: EmbeddingInput | undefined): void {
    if (this.docById.has(record.id)) return;
    shareRecordValues(record, this.shared);
    const doc = this.records.length;
    this.records.push(record);
    this.touch(doc);
    this.docById.add(record.id, doc);
    this.bm25.add(doc, documentTerms(record.text));
    if (record.session_id !== undefined && record.turn !== undefined) this.turns.add(doc, record.session_id, record.turn);
    this.scopes.add(doc, record.scope);
    if (embedding) this.vectors.put(doc, record.content_hash, embedding);
    this.derive(doc, record, undefined);
    this.live++;
  }
}

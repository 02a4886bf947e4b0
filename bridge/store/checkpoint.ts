// Store checkpoints: the in-memory state (records, BM25 index, vectors) tied to one journal prefix, so that
// open restores it and replays only the journal tail. The journal stays the durable record: a checkpoint that
// disagrees with it in any checked way is ignored, and open falls back to a full replay.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { documentTerms } from "../index/analyze";
import { runToEnd } from "../index/run-steps";
import type { Bm25Index } from "../index/bm25";
import { DamagedRowError, type RowFile } from "../index/row-pages";
import { VectorIndex } from "../index/vector-index";
import { DreamError } from "../protocol/errors";
import { fingerprintJournal, FLUSH_PENDING, PartBuffer, readPart, readPartHead, readPartUnhashed, removeInSteps, writePart, writePartSteps } from "./checkpoint-files";
import type { Flusher } from "./flusher";
import { makeDirectory } from "./make-dir";
import { analyzerId, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, CheckpointRejected, MANIFEST_FILE, type Manifest, manifestParts, parseManifest, type PartHead, type PartRef, type SpaceEntry, type VectorSegment } from "./checkpoint-format";
import { type DecodedVectorPart, decodeListsPart, ROWS_READ_IN_PLACE, decodeRecordPart, RECORDS_PER_LINE, decodeTextIndex, decodeVectorPart, encodeListsPart, encodeRecordPart, encodeTextIndex, encodeVectorPart, textIndexInSteps, openVectorRows, SharedValues, VectorPartScratch } from "./checkpoint-parts";
import { decodeStatementPart, encodeStatementPart, type StatementImage } from "./checkpoint-statements";
import { syncDirectory } from "./journal";
import { checkedAsRead, PartHasher } from "./part-sum";
import { actOfCode, statementsAnalyzerId, statementsAnalyzerIdInSteps } from "./record-statements";
import type { MemoryRecord } from "./records";
import { contentDigestIs, findTexts, writeContentDigest, jsonStringUnits, TEXTS_OPENED, type TextPart, type TextRanges, TextPages } from "./text-pages";
import { DIGEST_BYTES } from "./content-digests";
import { DocHashes, type VectorSpace, VectorSpaces } from "./vector-spaces";
import { CHANGE_BLOCK_DOCS, replyKind, replyKindOf } from "./memory-state";
import type { StateSlot } from "../statements/slots";
import { renameWithRetry } from "./fs-retry";
import { type CheckpointRead, readSnapshot, startCheckpointRead } from "./checkpoint-reader";
import type { HashJob, VectorHeadsJob } from "./checkpoint-read-job";
import { type RecordHeads, recordsFromHeads } from "./record-heads";
import { DocIds } from "./doc-ids";
import type { RecordsFreeze } from "./records-freeze";

/** What a checkpoint captures; `journal.offset` must be the end of the last entry the state includes. */
export interface StoreImage {
  /** Records are replaced, never changed in place: a checkpoint keeps the array's objects as they are now. */
  records: ReadonlyArray<MemoryRecord | undefined>;
  live: number;
  bm25: Bm25Index;
  vectors: VectorSpaces;
  /** Slot arrays are replaced, never changed in place. */
  statements: { acts: Uint8Array; slots: ReadonlyMap<number, StateSlot[]> };
  /** Change counts by block of CHANGE_BLOCK_DOCS docs (MemoryState.changes): a segment whose counts are those of the basis is unchanged. */
  changes: Uint32Array;
  /** The change counts as they are now (read again each call: the state's array grows), for a step after the first. */
  changesNow(): Uint32Array;
  journal: { path: string; offset: number; entries: number };
  /** Where the parts' fsyncs are made, when not on this thread (flusher.ts). */
  flusher?: Flusher;
  createdMs: number;
  /** The records as they are now, readable as they were for as long as the checkpoint runs (RecordsFreeze). */
  freezeRecords(): RecordsFreeze;
  /** The state's record texts: once it pages them, the record parts a checkpoint writes are where they are read from. */
  texts?: TextPaging;
  /**
   * Told the checkpoint is committed (its manifest in place), before the steps that follow: the old parts
   * removed, the texts paged. A caller that stops the steps after this still has the checkpoint, and must
   * take it as the basis of the next (its old parts are being removed).
   */
  committed?(written: CheckpointWritten, basis: CheckpointBasis): void;
}

export interface TextPaging {
  /** Whether texts are read back already (then every checkpoint pages the records it writes). */
  readonly active: boolean;
  /**
   * Called at the commit with the record parts written: their records' texts are read from them from now
   * on. Run in steps until it yields TEXTS_OPENED (no old part is read any more), then to its end once the
   * old parts are removed.
   */
  page(parts: TextPart[]): Generator<typeof TEXTS_OPENED | undefined, void>;
}

export interface CheckpointTuning {
  /** Docs per segment (default SEGMENT_DOCS); a store keeps the size its checkpoints were written with. */
  segmentDocs?: number;
  /** Docs past the BM25 snapshot that a checkpoint leaves to be indexed at open rather than writing a new snapshot. */
  bm25SlackDocs?: number;
  /** How long a background checkpoint runs its steps before it lets requests in (default CHECKPOINT_SLICE_MS; 0: one step). */
  sliceMs?: number;
  /**
   * Vectors a space keeps the f32 rows of in memory (default ROWS_IN_MEMORY_MAX); in a larger space, the
   * rows a checkpoint holds are read back from its parts when a search re-scores them: 2 KiB per 512-d
   * vector, 2 GiB at a million. 0: always read back; Infinity: never.
   */
  rowsInMemoryMax?: number;
  /**
   * Live records a store keeps the text of in memory (default TEXT_IN_MEMORY_MAX); in a larger store, the
   * texts a checkpoint holds are read back from its record parts when something shows or checks them (about
   * 400 bytes of memory a record). 0: always read back; Infinity: never.
   */
  textInMemoryMax?: number;
  /**
   * A checkpoint whose BM25 snapshot part has at least this many bytes is read partly on a worker thread
   * while the records are decoded: the snapshot, and the heads of the vector parts whose rows stay in their
   * files (default SNAPSHOT_WORKER_MIN_BYTES; 0: always; Infinity: never).
   */
  snapshotWorkerMinBytes?: number;
  /**
   * A checkpoint in steps of a store with at least this many live records makes its parts' fsyncs on libuv's
   * thread pool (flusher.ts; default FLUSH_WORKER_MIN_RECORDS; 0: always; Infinity: never).
   */
  flushWorkerMinRecords?: number;
}

/** What the newest checkpoint on disk holds, so that the next one rewrites only the segments that changed. */
export interface CheckpointBasis {
  segmentDocs: number;
  docs: number;
  /** The change counts that checkpoint saw. */
  changes: Uint32Array;
  recordParts: PartRef[];
  /** Per segment, its record part's text index (null: none, a part written with its texts in memory). */
  textIndexParts: Array<PartRef | null>;
  /**
   * Per segment, whether its text index is of version 1, from before the records' heads: the next checkpoint
   * that reads texts back makes it again, with them. Absent: none is.
   */
  textIndexHeadless?: boolean[];
  statementParts: PartRef[];
  /** The snapshot (forgotten docs aside) and which docs it indexes. */
  bm25: { entry: Omit<Manifest["bm25"], "forgotten">; live: Uint8Array };
  spaces: Map<VectorIndex, SpaceBasis>;
}

interface SpaceBasis {
  overwrites: number;
  /** Each segment's vector part (null: none of its docs has a vector). */
  segments: Array<VectorSegment | null>;
  /** The index's listsGeneration the checkpoint holds the lists of; absent when it holds none. */
  lists?: number;
}

export interface RestoredState {
  records: Array<MemoryRecord | undefined>;
  /** The live records' doc numbers by id (unique: checked), handed to the state as its index of ids. */
  docById?: DocIds;
  /** Where the records' texts are read back from (a store above textInMemoryMax): `records` are paged already. */
  texts?: TextPages;
  /** Per doc, whether an assistant reply is a non-answer (replyKind), found while its text was at hand. */
  replies: Uint8Array;
  bm25: Bm25Index;
  vectors: VectorSpaces;
  /** What each doc states; absent when the checkpoint's statements came from another analyzer (they are then recomputed). */
  statements?: StatementImage;
  /** Journal byte offset and entry count the state covers: replay resumes there. */
  offset: number;
  entries: number;
}

/** A restore before its BM25 snapshot is taken: what loadCheckpoint's `prepare` is given. */
export type PreparedState = Omit<RestoredState, "bm25">;

export type CheckpointLoad = { state: RestoredState; basis?: CheckpointBasis; reason?: undefined } | { state?: undefined; basis?: undefined; reason: string };

export interface CheckpointWritten {
  offset: number;
  entries: number;
  /** Bytes written by this checkpoint (parts reused from earlier ones not counted) and bytes it names in all. */
  bytes: number;
  total_bytes: number;
  /** Parts written, and parts kept from the checkpoint before because their docs had not changed. */
  parts_written: number;
  parts_reused: number;
  created_ms: number;
}

/** A checkpoint written in steps gave up, because the state its remaining steps read was changed meanwhile. */
export class CheckpointAbandoned extends Error {}

/** A checkpoint's steps: FLUSH_PENDING for one that only waits on a flush made on another thread. */
export type CheckpointSteps = Generator<CheckpointStep, { written: CheckpointWritten; basis: CheckpointBasis }>;
export type CheckpointStep = void | typeof FLUSH_PENDING;

// 4,096 docs: a segment's records are about 2 MB of JSON and its 512-d vectors 8 MB, each written in
// slices well under the 50 ms a step may take; a million docs make 245 segments.
export const SEGMENT_DOCS = 4096;
// Where rows start being read back from the parts: the exact (flat) limit. A store under it keeps every
// row in memory (at most 400 MB at 512-d) and re-scores without a read (~90 reads of 2 KiB a hybrid
// search: +0.3 ms at 100k); above it, the rows are what would grow without bound.
export const ROWS_IN_MEMORY_MAX = 200_000;
// Where texts start being read back: a search reads the texts of the results it returns and of the candidates
// it checks (a few dozen reads); under the flat limit, keeping them costs less than 100 MB.
export const TEXT_IN_MEMORY_MAX = 200_000;
// Where an open has a worker thread read the BM25 snapshot (and the vector heads): ~80k memories. Starting
// the worker costs ~30 ms; at a million memories the snapshot (~400 MB) took ~4-5 s to read, check and
// decode, the heads ~2.5 s.
export const SNAPSHOT_WORKER_MIN_BYTES = 32 * 1024 * 1024;
// At 1M a full checkpoint writes ~3.5 GB, and single fsyncs of 4 MiB on the main thread stalled it for
// 37-131 ms. At 100k (~350 MB) its longest step was 27 ms either way, but adds acknowledged during it waited
// behind the flushes made off the main thread: p95 0.85-0.9 ms with fsyncs on the main thread, 2.8-4.1 ms
// without (measured with a worker thread making them; the thread pool's flushes wait the same way).
export const FLUSH_WORKER_MIN_RECORDS = 500_000;
// Indexing a doc's text at open costs about what replaying its journal entry would; past this many docs
// (or a 32nd of the snapshot's) a checkpoint writes a new BM25 snapshot.
const BM25_SLACK_DOCS = 8192;
// Vector rows a checkpoint step reads for a part it writes: 1,024 rows at 512-d.
const ROW_BYTES_PER_STEP = 2 * 1024 * 1024;

/**
 * Writes a checkpoint of `image` in one go (the CLI, close, tests); see checkpointSteps. A checkpoint can
 * not be abandoned here: nothing changes the state while it runs. `betweenSteps` runs after each step (the
 * store refreshes its lock there).
 */
export function writeCheckpoint(dir: string, image: StoreImage, basis?: CheckpointBasis, tuning: CheckpointTuning = {}, betweenSteps?: () => void): { written: CheckpointWritten; basis: CheckpointBasis } {
  return runToEnd(checkpointSteps(dir, image, basis, tuning), betweenSteps);
}

/**
 * A checkpoint of the state `image` shows at the first step, written in steps that the store may interleave
 * with writes and searches. That first step freezes what the rest will write: the record objects, act
 * codes, slots and vector doc lists of the segments that changed since `basis` (the others keep their
 * parts), and the BM25 snapshot when a new one is due. Parts go under fresh names; the manifest's rename is
 * the commit point, so a crash anywhere leaves the old checkpoint or the new one, never a mix. Files the new
 * manifest does not name (old parts, a crashed or abandoned write's leftovers) go last.
 */
export function* checkpointSteps(dir: string, image: StoreImage, basis: CheckpointBasis | undefined, tuning: CheckpointTuning = {}): CheckpointSteps {
  // What the indexes lent this checkpoint, given back however it ends (done, given up, or stopped by return()).
  const releases: Array<() => void> = [];
  try {
    return yield* writeInSteps(dir, image, basis, tuning, releases);
  } catch (cause) {
    if (typeof (cause as NodeJS.ErrnoException).code !== "string" || cause instanceof DreamError) throw cause;
    throw new DreamError("IO_ERROR", `could not write the checkpoint in ${dir}: ${(cause as Error).message}`, { cause });
  } finally {
    for (const release of releases) release();
  }
}

function* writeInSteps(dir: string, image: StoreImage, basis: CheckpointBasis | undefined, tuning: CheckpointTuning, releases: Array<() => void>): CheckpointSteps {
  const { offset, entries } = image.journal;
  const inMemoryMax = rowsInMemoryMax(tuning);
  const textMax = inMemoryLimit(tuning.textInMemoryMax ?? TEXT_IN_MEMORY_MAX, "textInMemoryMax", "records");
  // The first time texts are paged, every segment's records are written again, with their texts found.
  const pageTexts = image.texts !== undefined && (image.texts.active || image.live > textMax);
  const firstPaging = pageTexts && !image.texts!.active;
  const textParts: TextPart[] = [];
  const fingerprint = fingerprintJournal(image.journal.path, offset);
  if (!fingerprint) throw new Error(`checkpoint: the journal ${image.journal.path} does not end a line at byte ${offset}`);
  makeDirectory(dir);
  // Random, because a crashed write may have left files under any name derived from the offset or the clock.
  const generation = `o${offset.toString(36)}-${randomBytes(4).toString("hex")}`;
  const segmentDocs = basis?.segmentDocs ?? tuning.segmentDocs ?? SEGMENT_DOCS;
  if (segmentDocs % CHANGE_BLOCK_DOCS !== 0) throw new Error(`checkpoint: segmentDocs must be a multiple of ${CHANGE_BLOCK_DOCS}, got ${segmentDocs}`);
  const docs = image.records.length;
  const segments = Math.ceil(docs / segmentDocs);
  const changes = image.changes.slice();
  const jobs: Array<() => Generator<CheckpointStep, void>> = [];
  const counts = { written: 0, reused: 0, bytes: 0 };
  const write = function* (file: string, chunks: Iterable<Uint8Array>, stepPerChunk = false): Generator<CheckpointStep, PartRef> {
    const part = yield* writePartSteps(dir, `${generation}.${file}`, chunks, { stepPerChunk, flusher: image.flusher });
    counts.written++;
    counts.bytes += part.bytes;
    return part;
  };
  const reuse = <T>(part: T): T => (counts.reused++, part);
  // The records of each segment written as they are now (the others are not read at all), read in the
  // segment's jobs: none is copied now, only the blocks the state changes before the jobs read them.
  const changed = Array.from({ length: segments }, (_, s) => !basis || !sameSegment(basis, changes, s, docs));
  const recordsFreeze = image.freezeRecords();
  releases.push(() => recordsFreeze.release());
  if (recordsFreeze.length !== docs) throw new Error(`checkpoint: the records froze at ${recordsFreeze.length} docs, the image has ${docs}`);
  const frozen: Array<ReadonlyArray<MemoryRecord | undefined> | undefined> = new Array(segments);
  const recordsOf = (s: number): ReadonlyArray<MemoryRecord | undefined> => (frozen[s] ??= recordsFreeze.slice(s * segmentDocs, Math.min(docs, (s + 1) * segmentDocs)));

  // One line's bytes at a time, for every record part: each is written before the next is encoded.
  const lineScratch = new PartBuffer();
  const recordParts: PartRef[] = new Array(segments);
  const textIndexParts: Array<PartRef | null> = new Array(segments);
  const headless: boolean[] = new Array(segments).fill(false);
  const statementParts: PartRef[] = new Array(segments);
  // Each segment's slots in doc order, from one pass over the docs that have any (a lookup per doc cost
  // ~40 ms of a first step at 1M).
  const slotsOf: Array<Array<[number, StateSlot[]]>> = Array.from({ length: segments }, () => []);
  for (const [doc, list] of image.statements.slots) if (doc < docs) slotsOf[Math.floor(doc / segmentDocs)].push([doc, list]);
  for (let s = 0; s < segments; s++) {
    const from = s * segmentDocs;
    const to = Math.min(docs, from + segmentDocs);
    if (!changed[s] && !firstPaging) {
      const part = (recordParts[s] = reuse(basis!.recordParts[s]));
      const index = basis!.textIndexParts[s];
      headless[s] = index !== null && basis!.textIndexHeadless?.[s] === true;
      // A part from before format 6 (or written with its texts in memory) gets its index now, and one whose
      // index is from before the heads gets it again with them, a part a step: made from the part's bytes and
      // the segment's records.
      const upgrade = pageTexts && (!index || headless[s]);
      textIndexParts[s] = index && (upgrade ? index : reuse(index));
      if (upgrade) {
        jobs.push(function* () {
          // Taken in this step, not at the first (245 segments' records at once were ~65 ms of it at 1M), if
          // the segment is still as the part holds it; else its index is made at a later checkpoint.
          if (!sameSegment(basis!, image.changesNow(), s, docs)) return;
          const made = indexRecordPart(dir, part, image.records.slice(from, to));
          if (!made) return;
          textIndexParts[s] = yield* write(`texts-${s}.bin`, [made]);
          headless[s] = false;
        });
      }
      statementParts[s] = reuse(basis!.statementParts[s]);
      continue;
    }
    const acts = image.statements.acts.slice(from, to);
    const slots = slotsOf[s].sort((x, y) => x[0] - y[0]);
    jobs.push(function* () {
      const segment = recordsOf(s);
      const ranges = pageTexts ? { start: new Float64Array(segment.length), end: new Float64Array(segment.length), hashAt: new Float64Array(segment.length) } : undefined;
      const chars = new Int32Array(ranges ? segment.length : 0);
      // A line of RECORDS_PER_LINE records a step, texts in memory or read back.
      const lines = encodeRecordPart(segment, lineScratch);
      recordParts[s] = yield* write(`records-${s}.jsonl`, ranges ? withTextRanges(lines, segment.length, ranges, chars) : lines, true);
      // Its records' heads a line's worth a step, like the part's lines.
      textIndexParts[s] = ranges ? yield* write(`texts-${s}.bin`, [yield* textIndexInSteps(ranges, chars, segment, RECORDS_PER_LINE)]) : null;
      if (ranges) textParts.push({ file: path.join(dir, recordParts[s].file), from, records: segment, ranges });
      statementParts[s] = yield* write(`statements-${s}.jsonl`, encodeStatementPart({ from, acts, slots }));
    });
  }

  // One scratch for every vector part: the jobs run one after another, each writing its part before the next.
  const scratch = new VectorPartScratch();
  const spaces = image.vectors.list().map((space, i) => freezeSpace(space, i, { segmentDocs, segments, changed, recordsOf, scratch, releases }, basis?.spaces.get(space.index), jobs, write, reuse));

  const { k1, b } = image.bm25;
  const base = basis?.bm25;
  const forgotten = base ? forgottenSince(base.live, image.records) : [];
  const slack = Math.max(tuning.bm25SlackDocs ?? BM25_SLACK_DOCS, (base?.entry.docs ?? 0) >> 5);
  let bm25: CheckpointBasis["bm25"];
  if (base && base.entry.k1 === k1 && base.entry.b === b && docs - base.entry.docs <= slack && forgotten.length <= slack) {
    bm25 = reuse(base);
  } else {
    // Its first step takes what the snapshot holds; the rest packs it in steps like everything else.
    const snapshot = image.bm25.snapshotInSteps();
    snapshot.next();
    forgotten.length = 0;
    const live = liveFlags(image.records, docs);
    const entry = { k1, b, docs, part: undefined as unknown as PartRef };
    bm25 = { entry, live };
    jobs.push(function* () {
      // Made a chunk at a time as it is written and hashed, a chunk a step: never the whole snapshot at once.
      const chunks = yield* snapshot;
      entry.part = yield* write("bm25.bin", chunks, true);
    });
  }
  yield;

  for (const job of jobs) yield* job();
  // Every part is written: the paging after the commit replaces every record, which the freeze would copy.
  recordsFreeze.release();
  // The analyzers' ids are found once a process, by analysing probe texts: in steps of their own (the
  // statements' a probe text a step), not the commit's.
  analyzerId();
  yield;
  yield* statementsAnalyzerIdInSteps();
  // Rows were read as the steps went: a vector replaced meanwhile may have been read half old.
  for (const space of spaces) {
    if (space.index.overwrites !== space.overwrites) throw new CheckpointAbandoned(`a vector in ${space.entry.provider}/${space.entry.model} was replaced while the checkpoint was written`);
    if (space.index.disposed) throw new CheckpointAbandoned(`the vector space ${space.entry.provider}/${space.entry.model} was dropped while the checkpoint was written`);
    if (space.index.damagedRows !== space.damaged) throw new CheckpointAbandoned(`a vector in ${space.entry.provider}/${space.entry.model} was dropped for a damaged row while the checkpoint was written`);
  }
  const manifest: Manifest = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    created_ms: image.createdMs,
    analyzer: analyzerId(),
    journal: { offset, entries, last_line_offset: fingerprint.lineOffset, last_line_sha256: fingerprint.sha256 },
    docs,
    live: image.live,
    segment_docs: segmentDocs,
    records: recordParts,
    text_index: textIndexParts,
    bm25: { ...bm25.entry, forgotten },
    statements: { analyzer: statementsAnalyzerId(), parts: statementParts },
    vector_spaces: spaces.map((space) => ({
      ...space.entry,
      segments: space.segments.map((segment) => segment && { vectors: segment.vectors, part: segment.part, ...(segment.head ? { head: segment.head } : {}) }),
    })),
  };
  const temporary = `${MANIFEST_FILE}.${generation}.tmp`;
  writePart(dir, temporary, [Buffer.from(JSON.stringify(manifest, null, 1) + "\n")]);
  // The parts' directory entries must be durable before the rename that makes them current.
  syncDirectory(dir);
  renameWithRetry(path.join(dir, temporary), path.join(dir, MANIFEST_FILE));
  syncDirectory(dir);
  const paging = pageTexts ? image.texts!.page(textParts) : undefined;
  const named = manifestParts(manifest);
  const keep = new Set([MANIFEST_FILE, ...named.map((part) => part.file)]);
  const written: CheckpointWritten = {
    offset,
    entries,
    bytes: counts.bytes,
    total_bytes: named.reduce((sum, part) => sum + part.bytes, 0),
    parts_written: counts.written,
    parts_reused: counts.reused,
    created_ms: image.createdMs,
  };
  const next: CheckpointBasis = {
    segmentDocs,
    docs,
    changes,
    recordParts,
    textIndexParts,
    ...(headless.includes(true) ? { textIndexHeadless: headless } : {}),
    statementParts,
    bm25,
    spaces: new Map(spaces.map((space) => [space.index, { overwrites: space.overwrites, segments: space.segments, ...(space.lists === undefined ? {} : { lists: space.lists }) }])),
  };
  image.committed?.(written, next);
  // Before the old parts go, a part a step (a million rows moved at once were ~25 ms of the commit's step):
  // an index lets go of a part it reads rows from only when a new one holds them.
  for (const space of spaces) yield* pageSpaceSteps(dir, space.index, space.written, inMemoryMax, space.overwrites);
  // The texts' new parts opened a part a step, before the old ones go (no file is removed while open).
  if (paging) for (let step = paging.next(); !step.done && step.value !== TEXTS_OPENED; step = paging.next()) yield;
  // Then the files the manifest does not name, a file a step: removing the 737 parts of a million memories
  // (3.4 GB) took ~1 s in one step. Stopped before the end, what is left goes later (removeStaleParts).
  yield* removeStaleSteps(dir, keep);
  // And the texts that were in memory, paged a part a step (the first time, every record).
  if (paging) for (let step = paging.next(); !step.done; step = paging.next()) yield;
  return { written, basis: next };
}

/** Removes, a file a step, what `dir` holds beside the manifest and the parts in `keep`. */
function* removeStaleSteps(dir: string, keep: ReadonlySet<string>): Generator<void, void> {
  for (const name of fs.readdirSync(dir)) {
    if (keep.has(name)) continue;
    yield;
    yield* removeInSteps(path.join(dir, name));
  }
}

/**
 * Removes what a committed checkpoint left beside its parts when its last steps were stopped (a crash, an
 * error, the store closed): the files its manifest does not name. Nothing when the manifest cannot be read.
 */
export function removeStaleParts(dir: string): void {
  let manifest: Manifest;
  try {
    manifest = parseManifest(fs.readFileSync(path.join(dir, MANIFEST_FILE), "utf8"));
  } catch {
    return;
  }
  runToEnd(removeStaleSteps(dir, new Set([MANIFEST_FILE, ...manifestParts(manifest).map((part) => part.file)])));
}

/** Docs the snapshot indexes whose records are gone since. */
function forgottenSince(indexed: Uint8Array, records: ReadonlyArray<MemoryRecord | undefined>): number[] {
  const forgotten: number[] = [];
  for (let doc = 0; doc < indexed.length; doc++) if (indexed[doc] === 1 && records[doc] === undefined) forgotten.push(doc);
  return forgotten;
}

/** Whether segment `s` is as the basis wrote it: the same doc range, and no change counted in it since. */
function sameSegment(basis: CheckpointBasis, changes: Uint32Array, s: number, docs: number): boolean {
  const from = s * basis.segmentDocs;
  const to = Math.min(docs, from + basis.segmentDocs);
  if (Math.min(basis.docs, from + basis.segmentDocs) !== to) return false;
  for (let block = from / CHANGE_BLOCK_DOCS, end = Math.ceil(to / CHANGE_BLOCK_DOCS); block < end; block++) if (changes[block] !== basis.changes[block]) return false;
  return true;
}

interface FrozenSpace {
  index: VectorIndex;
  overwrites: number;
  /** The index's damagedRows at the first step: a vector dropped since abandons the checkpoint (its segment changed). */
  damaged: number;
  entry: Omit<SpaceEntry, "segments">;
  segments: Array<VectorSegment | null>;
  /** The vector parts this checkpoint wrote, the docs whose rows they hold in order, and where those rows lie. */
  written: WrittenRows[];
  /** The listsGeneration of the lists written, if the index had lists at the first step. */
  lists?: number;
}

interface WrittenRows {
  docs: Int32Array;
  part: PartRef;
  rows: Pick<DecodedVectorPart, "rowsAt" | "crcs">;
}

interface SegmentPlan {
  segmentDocs: number;
  segments: number;
  /** Whether each segment changed since the basis (a vector stored or removed counts as a change of its doc). */
  changed: boolean[];
  /** A segment's records as they were at the first step, read in its jobs. */
  recordsOf: (s: number) => ReadonlyArray<MemoryRecord | undefined>;
  /** Where each vector part is encoded, one after another. */
  scratch: VectorPartScratch;
  /** Gives back, when the checkpoint ends, what an index lent it. */
  releases: Array<() => void>;
}

/**
 * Plans a space's vector parts: a segment unchanged since the basis keeps its part (when the basis has this
 * very index and no vector was replaced since), the others are written from the index's memory.
 */
function freezeSpace(
  space: VectorSpace,
  i: number,
  plan: SegmentPlan,
  previous: SpaceBasis | undefined,
  jobs: Array<() => Generator<CheckpointStep, void>>,
  write: (file: string, chunks: Iterable<Uint8Array>) => Generator<CheckpointStep, PartRef>,
  reuse: <T>(part: T) => T,
): FrozenSpace {
  const { index, dim } = space;
  const { scratch } = plan;
  const written: FrozenSpace["written"] = [];
  const overwrites = index.overwrites;
  const damaged = index.damagedRows;
  const usable = previous?.overwrites === overwrites ? previous : undefined;
  const frozen: FrozenSpace["segments"] = new Array(plan.segments).fill(null);
  let vectors = 0;
  for (let s = 0; s < plan.segments; s++) {
    const from = s * plan.segmentDocs;
    // A part from before format 5 (no head) is written again, so that the next open reads only its head.
    if (usable && !plan.changed[s] && s < usable.segments.length && usable.segments[s]?.head !== undefined) {
      const kept = usable.segments[s];
      frozen[s] = kept && reuse(kept);
      vectors += kept?.vectors ?? 0;
      continue;
    }
    // Only the segments written are looked at: a pass over every live doc (and a fresh array of them) was
    // ~15 ms of an incremental checkpoint's first step at 1M.
    const docs = index.liveDocs(from, from + plan.segmentDocs);
    vectors += docs.length;
    if (docs.length === 0) continue;
    jobs.push(function* () {
      const records = plan.recordsOf(s);
      // The frozen records' hashes: a stored vector is always bound to its record's content hash (MemoryState.apply).
      const hashes = (i: number, into: Uint8Array, at: number) => writeContentDigest(records[docs[i] - from]!, into, at);
      // Rows are read now, in memory or from the part that held them, a run a step (8 MiB of fresh rows at
      // once made a step of 85 ms at 1M): a doc forgotten since the first step keeps its row until the index
      // settles at a commit, and a replaced one abandons the checkpoint (checked at the end).
      const views = scratch.take(dim, docs.length);
      const rowsPerStep = Math.max(64, Math.floor(ROW_BYTES_PER_STEP / (4 * dim)));
      for (let at = 0; at < docs.length; at += rowsPerStep) {
        if (index.disposed) throw new CheckpointAbandoned(`the vector space ${space.provider}/${space.model} was dropped while the checkpoint was written`);
        // A row dropped as damaged since the first step has no row left to write.
        if (index.damagedRows !== damaged) throw new CheckpointAbandoned(`a vector in ${space.provider}/${space.model} was dropped for a damaged row while the checkpoint was written`);
        const run = docs.subarray(at, at + rowsPerStep);
        try {
          index.readRows(run, views.rows.subarray(at * dim, (at + run.length) * dim));
        } catch (error) {
          if (!(error instanceof DamagedRowError)) throw error;
          // Dropped by the read: the next checkpoint writes this segment without them.
          throw new CheckpointAbandoned(error.message);
        }
        yield;
      }
      index.readCodes(docs, views.codes);
      const encoded = encodeVectorPart(dim, { docs, hashes, rows: views.rows, codes: views.codes }, views);
      const digest = new PartHasher();
      for (const chunk of encoded.head) digest.update(chunk);
      const head: PartHead = { bytes: encoded.head.reduce((sum, chunk) => sum + chunk.length, 0), ...digest.sum() };
      // Encoding a segment's head (its codes, CRCs) is a step of its own, before the writing ones.
      yield;
      const part = yield* write(`vectors-${i}-${s}.bin`, [...encoded.head, ...encoded.rows]);
      frozen[s] = { vectors: docs.length, part, head };
      // Only where the rows lie is kept for the commit: the part's bytes are the scratch's, the next part's.
      written.push({ docs, part, rows: { rowsAt: encoded.rowsAt, crcs: encoded.crcs } });
    });
  }
  // Every vector is in a segment the checkpoint kept or read: a change the counts missed would show here.
  if (vectors !== index.size) throw new Error(`checkpoint: ${vectors} vectors in the segments of ${space.provider}/${space.model}, ${index.size} in its index`);
  const lists = index.lendLists();
  const { provider, model, modelDigest, configHash } = space;
  const entry: FrozenSpace["entry"] = { provider, model, dim, modelDigest, configHash, vectors: index.size };
  if (lists) {
    // Given back when the checkpoint ends, written or not (checkpointSteps).
    plan.releases.push(lists.release);
    jobs.push(function* () {
      entry.lists = { count: lists.image.centroids.length / dim, part: yield* write(`lists-${i}.bin`, encodeListsPart(dim, lists.image)) };
    });
  }
  return { index, overwrites, damaged, entry, segments: frozen, written, ...(lists ? { lists: index.listsGeneration } : {}) };
}

/**
 * 1 for each doc below `docs` that holds a record. Not in the generator's body, where this loop measured
 * ~26 ms of a first step at 1M (the same loop alone, outside a store, ~4 ms).
 */
function liveFlags(records: ReadonlyArray<MemoryRecord | undefined>, docs: number): Uint8Array {
  const live = new Uint8Array(docs);
  for (let doc = 0; doc < docs; doc++) if (records[doc] !== undefined) live[doc] = 1;
  return live;
}

function rowsInMemoryMax(tuning: Pick<CheckpointTuning, "rowsInMemoryMax">): number {
  return inMemoryLimit(tuning.rowsInMemoryMax ?? ROWS_IN_MEMORY_MAX, "rowsInMemoryMax", "vectors");
}

/** The live records from which a checkpoint in steps flushes on the thread pool (CheckpointTuning.flushWorkerMinRecords). */
export function flushWorkerMinRecords(tuning: CheckpointTuning): number {
  return inMemoryLimit(tuning.flushWorkerMinRecords ?? FLUSH_WORKER_MIN_RECORDS, "flushWorkerMinRecords", "records");
}

function inMemoryLimit(max: number, name: string, unit: string): number {
  if (!(max >= 0)) throw new Error(`checkpoint.${name} must be a number of ${unit}, 0 or more (or Infinity), got ${String(max)}`);
  return max;
}

/**
 * The text index of a record part already written, made from its bytes (findTexts, jsonStringUnits: ~5 ms for
 * a segment's 2 MB) and the records it holds (their heads); undefined when the part cannot be read or is not
 * as its manifest names it (an open then scans it, and finds what is wrong).
 */
function indexRecordPart(dir: string, part: PartRef, records: ReadonlyArray<MemoryRecord | undefined>): Buffer | undefined {
  try {
    const count = records.length;
    const bytes = readPart(dir, part, "record");
    const ranges = findTexts(bytes, count, { hashes: true }) as Required<TextRanges>;
    const chars = new Int32Array(count);
    for (let i = 0; i < count; i++) if (ranges.start[i] >= 0) chars[i] = jsonStringUnits(bytes, ranges.start[i], ranges.end[i]);
    return encodeTextIndex(ranges, chars, records);
  } catch {
    return undefined;
  }
}

/**
 * Passes the lines of a record part through, finding each record's text and content hash in them (offsets
 * from the part's start) and measuring each text (its text index, encodeTextIndex).
 */
function* withTextRanges(lines: Iterable<Buffer>, count: number, ranges: Required<TextRanges>, chars: Int32Array): Generator<Buffer> {
  let base = 0;
  let done = 0;
  const at = (offset: number) => (offset < 0 ? -1 : base + offset);
  for (const line of lines) {
    const found = findTexts(line, Math.min(RECORDS_PER_LINE, count - done), { hashes: true });
    for (let i = 0; i < found.start.length; i++) {
      ranges.start[done + i] = at(found.start[i]);
      ranges.end[done + i] = at(found.end[i]);
      ranges.hashAt[done + i] = at(found.hashAt![i]);
      chars[done + i] = found.start[i] < 0 ? 0 : jsonStringUnits(line, found.start[i], found.end[i]);
    }
    done += found.start.length;
    base += line.length;
    yield line;
  }
  if (done !== count) throw new Error(`checkpoint: a record part held ${done} records, ${count} were written`);
}

/**
 * Has `index` read the rows of `parts` from those files from now on, and free what no live doc reads. A
 * part that cannot be opened (out of file handles) leaves its rows in memory: nothing is lost by that.
 */
function* pageSpaceSteps(dir: string, index: VectorIndex, parts: readonly WrittenRows[], inMemoryMax: number, overwrites: number): Generator<void, void> {
  // Once some rows are read back, all are (a space shrunk under the limit too): a part rewritten must not
  // leave docs reading the old one, which is removed next.
  if (index.disposed || (index.size <= inMemoryMax && index.rowFootprint().files === 0)) return;
  for (const { docs, part, rows: where } of parts) {
    yield;
    // Dropped (its space) since: nothing of it is read any more.
    if (index.disposed) return;
    let rows: RowFile | undefined;
    try {
      rows = openVectorRows(path.join(dir, part.file), index.dim, docs.length, where);
    } catch {
      rows = undefined;
    }
    // Writes go on between these steps: a vector replaced since the part was written stays in memory.
    if (rows) index.pageRows(rows, docs, overwrites);
  }
  yield;
  if (!index.disposed) index.settleRows();
}

/**
 * Restores the state a checkpoint holds, or says why it cannot be used. Reads nothing but `dir` and the journal.
 * `prepare` is given the records, vectors and statements before the BM25 snapshot is taken: a worker reads the
 * snapshot of a large store meanwhile, and the caller's own indexes of the records are built while it does
 * (~0.6 s at 1M). A restore refused after it returns a reason all the same: what `prepare` made is then of no use.
 */
export function loadCheckpoint(
  dir: string,
  journalPath: string,
  bm25Params: { k1: number; b: number },
  tuning: Pick<CheckpointTuning, "rowsInMemoryMax" | "textInMemoryMax" | "snapshotWorkerMinBytes"> = {},
  prepare?: (state: PreparedState) => void,
): CheckpointLoad {
  // An option out of range is the caller's error, not a reason to replay the journal.
  const inMemoryMax = rowsInMemoryMax(tuning);
  const textMax = inMemoryLimit(tuning.textInMemoryMax ?? TEXT_IN_MEMORY_MAX, "textInMemoryMax", "records");
  const workerMin = tuning.snapshotWorkerMinBytes ?? SNAPSHOT_WORKER_MIN_BYTES;
  if (!(workerMin >= 0)) throw new Error(`checkpoint.snapshotWorkerMinBytes must be a number of bytes, 0 or more (or Infinity), got ${String(workerMin)}`);
  const built: Opened = { indexes: [] };
  try {
    return restore(dir, journalPath, bm25Params, { rows: inMemoryMax, texts: textMax, snapshotWorker: workerMin }, built, prepare);
  } catch (thrown) {
    // Parts decoded before their hashes were checked (the worker's): damage there is what to report, not
    // what it broke.
    let error = thrown;
    try {
      built.checkHashed?.();
    } catch (damage) {
      error = damage;
    }
    // The indexes and texts restored before the failure read from the checkpoint's files: close them, and
    // stop the worker if it still reads.
    for (const index of built.indexes) index.dispose();
    built.texts?.dispose();
    built.reader?.cancel();
    if (error instanceof CheckpointRejected) return { reason: error.message };
    // A part its decoder refuses, an index that will not load: this checkpoint cannot be trusted, and the
    // journal can always rebuild the state, so the failure becomes the reason status reports.
    return { reason: `the checkpoint could not be restored: ${(error as Error).message}` };
  }
}

/** What a restore has opened files for, or started, so far. */
interface Opened {
  indexes: VectorIndex[];
  texts?: TextPages;
  reader?: CheckpointRead;
  /** Throws the damage of a part read without its hash checked, if there is one (once: then checked). */
  checkHashed?: () => void;
}

function restore(dir: string, journalPath: string, bm25Params: { k1: number; b: number }, limits: { rows: number; texts: number; snapshotWorker: number }, built: Opened, prepare?: (state: PreparedState) => void): { state: RestoredState; basis?: CheckpointBasis } {
  const manifestPath = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(manifestPath)) throw new CheckpointRejected("no checkpoint");
  const manifest = parseManifest(fs.readFileSync(manifestPath, "utf8"));
  if (manifest.bm25.k1 !== bm25Params.k1 || manifest.bm25.b !== bm25Params.b) {
    throw new CheckpointRejected(`the BM25 snapshot has k1 ${manifest.bm25.k1}, b ${manifest.bm25.b}; this store uses k1 ${bm25Params.k1}, b ${bm25Params.b}`);
  }
  checkJournal(journalPath, manifest.journal);
  const size = manifest.segment_docs;
  const bounds = (s: number) => ({ from: s * size, count: Math.min(manifest.docs, (s + 1) * size) - s * size });
  // The vector indexes are made, and sized, first: memory taken outside the JS heap (the codes) makes V8
  // collect every 64 MB or so, and with a million records in the heap a collection took ~200 ms (six of them
  // as the codes grew a part at a time). A worker may write their codes from here on.
  const indexes = manifest.vector_spaces.map((space) => {
    const index = new VectorIndex(space.dim);
    built.indexes.push(index);
    let last = space.segments.length - 1;
    while (last >= 0 && space.segments[last] === null) last--;
    if (last >= 0) index.reserveDocs(bounds(last).from + bounds(last).count);
    return index;
  });
  // Made now for the same reason, as is the index of ids below: 33 and 16 MB at 1M.
  const hashesBySpace = manifest.vector_spaces.map(() => {
    const hashes = new DocHashes();
    hashes.reserve(manifest.docs);
    return hashes;
  });
  // Above the limit rows stay in the files: of a part that keeps its codes, only the head is read (the rows,
  // 2 GiB at a million 512-d vectors, are checked row by row when a search reads them).
  const headOnly = (space: SpaceEntry, segment: VectorSegment) => space.vectors > limits.rows && ROWS_READ_IN_PLACE && segment.head !== undefined;
  const textsPaged = manifest.live > limits.texts;
  // Statements first, when this build can use them (else they are recomputed from the texts, and every segment
  // is written again at the next checkpoint: no basis): a reply's act says whether its text must be read.
  const statementsUsable = manifest.statements.analyzer === statementsAnalyzerId();
  // With the statements, the records are decoded without their texts and content hashes (kept as bytes),
  // found by the part's text index (format 6) or else by a scan of the part.
  const textIndex = (s: number) => (textsPaged && statementsUsable ? (manifest.text_index?.[s] ?? undefined) : undefined);
  // A large checkpoint has a worker thread read those heads and the BM25 snapshot meanwhile: each took
  // seconds at 1M, as long as the records together. The worker reads them unhashed, and this thread its own
  // parts with a SHA-256 (kept from a checkpoint before format 7; one with a CRC-32 is checked as it is read):
  // those are hashed last, by the worker and by this thread rather than wait for it, and nothing decoded
  // from them is used before they are found whole.
  let hashed: HashJob[] = [];
  if (manifest.bm25.part.bytes >= limits.snapshotWorker) {
    const heads: VectorHeadsJob[] = manifest.vector_spaces.map((space, i) => ({
      dim: space.dim,
      target: indexes[i].codesTarget(),
      parts: space.segments.flatMap((segment, s) => (segment && headOnly(space, segment) ? [{ segment: s, part: segment.part, head: segment.head!, vectors: segment.vectors, ...bounds(s) }] : [])),
    }));
    const jobs: HashJob[] = [
      // The snapshot the worker reads (unhashed then), checked first.
      { part: manifest.bm25.part, name: "BM25" },
      ...(statementsUsable ? manifest.statements.parts.map((part) => ({ part, name: "statements" })) : []),
      ...manifest.records.flatMap((part, s) => {
        const index = textIndex(s);
        return index ? [{ part, name: "record" }, { part: index, name: "text index" }] : [{ part, name: "record" }];
      }),
      // The heads the worker reads (unhashed, those with a SHA-256).
      ...heads.flatMap(({ parts }) => parts.map(({ part, head }) => ({ part, head, name: "vector" }))),
    ];
    // The worker's reads are the open's longer ones: theirs are hashed apart, mostly by this thread.
    hashed = jobs.filter(({ part, head }) => head !== undefined || part === manifest.bm25.part || !checkedAsRead(part));
    built.reader = startCheckpointRead(dir, manifest.bm25.part, heads, { hashed, bm25: bm25Params });
  }
  // The whole parts read here unhashed (a head job hashes only a vector part's head, which the worker reads).
  const unhashed = new Set(hashed.flatMap(({ part, head }) => (head ? [] : [part])));
  const readChecked = (part: PartRef, name: string, into: PartBuffer) => (unhashed.has(part) ? readPartUnhashed(dir, part, name, into) : readPart(dir, part, name, into));
  built.checkHashed = () => {
    built.checkHashed = undefined;
    if (hashed.length > 0) built.reader!.takeHashed();
  };
  const records: Array<MemoryRecord | undefined> = [];
  const docById = new DocIds(records, manifest.live);
  const texts = textsPaged ? (built.texts = new TextPages()) : undefined;
  // The segments whose text index is from before the records' heads.
  const headless: boolean[] = new Array(manifest.records.length).fill(false);
  texts?.reserve(manifest.docs);
  const replies = new Uint8Array(manifest.docs);
  const shared = new SharedValues();
  // Record, statement and vector parts are read into one buffer: nothing decoded from them keeps their bytes.
  const buffer = new PartBuffer();
  // A record line with its texts left out is copied into this one (decodeRecordPart).
  const lines = new PartBuffer();
  const indexBuffer = new PartBuffer();
  let statements: { acts: Uint8Array; slots: Map<number, StateSlot[]> } | undefined;
  if (statementsUsable) {
    statements = { acts: new Uint8Array(manifest.docs), slots: new Map<number, StateSlot[]>() };
    for (const [s, part] of manifest.statements.parts.entries()) decodeStatementPart(readChecked(part, "statements", buffer), bounds(s).from, bounds(s).count, statements);
  }
  manifest.records.forEach((part, s) => {
    const bytes = readChecked(part, "record", buffer);
    const { from, count } = bounds(s);
    const file = path.join(dir, part.file);
    const index = textIndex(s);
    const indexed = index ? decodeTextIndex(readChecked(index, "text index", indexBuffer), count, bytes) : undefined;
    if (indexed?.version === 1) headless[s] = true;
    const ranges = indexed?.ranges ?? (texts ? findTexts(bytes, count, { hashes: statements !== undefined }) : undefined);
    // Texts read back and acts known: the texts are not decoded at all, only measured (an acknowledgement's
    // reply excepted, to tell a non-answer).
    let kept = texts && ranges && statements ? adoptWithoutTexts(texts, bytes, { file, from, count, ranges }, { shared, lines }, statements.acts, replies, indexed) : undefined;
    if (!kept) {
      const decoded = decodeRecordPart(bytes, count, shared);
      decoded.forEach((record, i) => {
        if (record) replies[from + i] = replyKind(record);
      });
      // A part at a time: its texts are garbage before the next part is read.
      kept = (texts && texts.adopt({ file, from, records: decoded, ranges: ranges! })) ?? decoded;
    }
    for (const record of kept) records.push(record);
  });
  checkRecords(records, docById, manifest.live);
  // The heads the worker read first, their codes in the indexes already (undefined: none, or it stopped):
  // bound to the records while the worker still reads the snapshot.
  const heads = built.reader?.takeVectors();
  const vectors = new VectorSpaces();
  const spaces = new Map<VectorIndex, SpaceBasis>();
  for (const [i, space] of manifest.vector_spaces.entries()) {
    const contentHashByDoc = hashesBySpace[i];
    const docLists: Int32Array[] = [];
    const index = indexes[i];
    const paged = space.vectors > limits.rows;
    const segments = space.segments.map((segment, s) => {
      if (!segment) return null;
      const read = heads?.[i].get(s);
      const only = headOnly(space, segment);
      const part: Omit<DecodedVectorPart, "digests"> & { digests: Uint8Array } =
        read ?? decodeVectorPart(only ? readPartHead(dir, segment.part, segment.head!, "vector", buffer) : readPart(dir, segment.part, "vector", buffer), space.dim, segment.vectors, { headOnly: only });
      const { docs, rows } = part;
      const { from, count } = bounds(s);
      if (docs[0] < from || docs[docs.length - 1] >= from + count) throw new CheckpointRejected(`a vector part of segment ${s} holds docs outside it`);
      docs.forEach((doc, i) => {
        // The binding that keeps a vector from being served for text it did not embed.
        const record = records[doc];
        if (record === undefined || !contentDigestIs(record, part.digests, i * DIGEST_BYTES)) throw new CheckpointRejected(`the vector of doc ${doc} is not bound to that doc's text`);
        contentHashByDoc.setDigest(doc, part.digests, i * DIGEST_BYTES);
      });
      // A part at a time, read from its file from then on (never copied): the rows of a million vectors are
      // never all in memory.
      const file = paged ? openVectorRows(path.join(dir, segment.part.file), space.dim, segment.vectors, part) : undefined;
      if (rows) index.appendRows(docs, rows, file);
      else if (read) index.appendCodedInPlace(docs, read, file!);
      else index.appendCoded(docs, part.codes!, file!);
      // A copy when `docs` is a view of the part's bytes: keeping it would keep the whole part (rows included)
      // in memory. The worker's are a copy already.
      docLists.push(read ? docs : docs.slice());
      return segment;
    });
    if (index.size !== space.vectors) throw new CheckpointRejected(`the vector parts of ${space.provider}/${space.model} hold ${index.size} vectors; the manifest says ${space.vectors}`);
    const allDocs = new Int32Array(space.vectors);
    docLists.reduce((at, docs) => (allDocs.set(docs, at), at + docs.length), 0);
    if (space.lists) index.restoreLists(allDocs, decodeListsPart(readPart(dir, space.lists.part, "lists"), space.dim, space.lists.count, space.vectors));
    vectors.restore(space, index, contentHashByDoc);
    spaces.set(index, { overwrites: index.overwrites, segments, ...(space.lists ? { lists: index.listsGeneration } : {}) });
  }
  prepare?.({ records, docById, texts, replies, vectors, ...(statements ? { statements } : {}), offset: manifest.journal.offset, entries: manifest.journal.entries });
  // Read straight into the index's arrays: the snapshot of a million memories is ~400 MB.
  const bm25 = built.reader ? built.reader.takeSnapshot().bm25 : readSnapshot(dir, manifest.bm25.part);
  built.checkHashed?.();
  built.reader?.cancel();
  const indexed = catchUpLexical(bm25, records, manifest.bm25);
  if (bm25.size !== manifest.live || records.some((record, doc) => (record !== undefined) !== bm25.has(doc))) {
    throw new CheckpointRejected("the BM25 snapshot and the records disagree on which docs are live");
  }
  const state: RestoredState = { records, docById, texts, replies, bm25, vectors, offset: manifest.journal.offset, entries: manifest.journal.entries };
  // Statements from another analyzer are not wrong data, only another reading of the text: recompute them
  // (and write every segment again at the next checkpoint: no basis).
  if (!statements) return { state };
  state.statements = statements;
  const basis: CheckpointBasis = {
    segmentDocs: size,
    docs: manifest.docs,
    // A restored state starts its change counts at zero (MemoryState.adopt counts nothing).
    changes: new Uint32Array(Math.ceil(manifest.docs / CHANGE_BLOCK_DOCS)),
    recordParts: manifest.records,
    textIndexParts: manifest.text_index ?? manifest.records.map(() => null),
    ...(headless.includes(true) ? { textIndexHeadless: headless } : {}),
    statementParts: manifest.statements.parts,
    bm25: { entry: { k1: manifest.bm25.k1, b: manifest.bm25.b, docs: manifest.bm25.docs, part: manifest.bm25.part }, live: indexed },
    spaces,
  };
  return { state, basis };
}

/**
 * The records of a part whose texts are read back, made from their heads when its text index has them, else
 * decoded without their texts (decodeRecordPart's elide), and paged at once, with each reply's kind from its
 * act (replyKindOf); undefined when the part's file cannot be opened (the caller decodes it whole and keeps
 * its texts). Each text's UTF-16 length is measured on its JSON bytes unless the part's text index gives them.
 */
function adoptWithoutTexts(
  texts: TextPages,
  bytes: Buffer,
  { file, from, count, ranges }: { file: string; from: number; count: number; ranges: TextRanges },
  { shared, lines }: { shared: SharedValues; lines: PartBuffer },
  acts: Uint8Array,
  replies: Uint8Array,
  indexed?: { chars: Int32Array; heads?: RecordHeads },
): Array<MemoryRecord | undefined> | undefined {
  const replyOf = (record: MemoryRecord, i: number) => {
    const [start, end] = [ranges.start[i], ranges.end[i]];
    replies[from + i] = replyKindOf(record.source_type, actOfCode(acts[from + i]), () => JSON.parse(bytes.toString("utf8", start, end)) as string);
  };
  if (indexed?.heads) {
    const made = texts.adoptMade({ file, from, count, ranges }, indexed.chars, bytes, (made, doc) => recordsFromHeads(indexed.heads!, shared, made, doc));
    made?.forEach((record, i) => record && replyOf(record, i));
    return made;
  }
  const decoded = decodeRecordPart(bytes, count, shared, ranges, lines);
  const chars = indexed?.chars ?? new Int32Array(count);
  decoded.forEach((record, i) => {
    if ((record === undefined) !== ranges.start[i] < 0) throw new CheckpointRejected(`the text index does not match its record part at record ${i}`);
    if (!record) return;
    if (!indexed) chars[i] = jsonStringUnits(bytes, ranges.start[i], ranges.end[i]);
    replyOf(record, i);
  });
  return texts.adopt({ file, from, records: decoded, ranges }, chars, bytes);
}

/**
 * Brings a BM25 snapshot that covers the docs below `docs` up to the records: the docs forgotten since are
 * removed (each must be one the snapshot indexes and the records no longer hold), docs from `docs` on are
 * indexed from their text (as MemoryState.insert indexes them). Returns which docs the snapshot indexed.
 */
function catchUpLexical(bm25: Bm25Index, records: ReadonlyArray<MemoryRecord | undefined>, { docs, forgotten }: Manifest["bm25"]): Uint8Array {
  const indexed = new Uint8Array(docs);
  for (let doc = 0; doc < docs; doc++) indexed[doc] = bm25.has(doc) ? 1 : 0;
  for (const doc of forgotten) {
    if (indexed[doc] !== 1 || records[doc] !== undefined) throw new CheckpointRejected(`doc ${doc} is listed as forgotten since the BM25 snapshot, but the snapshot or the records disagree`);
  }
  // Their texts are gone: the index finds their terms in one pass over its postings.
  bm25.removeDocs(forgotten);
  for (let doc = docs; doc < records.length; doc++) {
    const record = records[doc];
    if (bm25.has(doc)) throw new CheckpointRejected(`the BM25 snapshot indexes doc ${doc}, past the ${docs} it covers`);
    if (record !== undefined) bm25.add(doc, documentTerms(record.text));
  }
  return indexed;
}

function checkJournal(journalPath: string, covered: Manifest["journal"]): void {
  if (!fs.existsSync(journalPath)) throw new CheckpointRejected("the journal is missing");
  const size = fs.statSync(journalPath).size;
  if (size < covered.offset) throw new CheckpointRejected(`the journal is ${size} bytes, shorter than the ${covered.offset} the checkpoint covers`);
  const fingerprint = fingerprintJournal(journalPath, covered.offset);
  if (fingerprint?.lineOffset !== covered.last_line_offset || fingerprint.sha256 !== covered.last_line_sha256) {
    throw new CheckpointRejected(`the journal line ending at byte ${covered.offset} is not the one the checkpoint covers (a different or rewritten journal)`);
  }
}

/** Indexes the records' ids in `ids` (empty, made over `records`), checking each is there once and `live` of them. */
function checkRecords(records: Array<MemoryRecord | undefined>, ids: DocIds, live: number): void {
  records.forEach((record, doc) => {
    if (record === undefined) return;
    if (!ids.add(record.id, doc)) throw new CheckpointRejected(`the record part holds id ${JSON.stringify(record.id)} twice`);
  });
  if (ids.size !== live) throw new CheckpointRejected(`the record part holds ${ids.size} live records; the manifest says ${live}`);
}

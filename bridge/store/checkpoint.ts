// Store checkpoints: the in-memory state (records, BM25 index, vectors) tied to one journal prefix, so that
// open restores it and replays only the journal tail. The journal stays the durable record: a checkpoint that
// disagrees with it in any checked way is ignored, and open falls back to a full replay.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Bm25Index } from "../index/bm25";
import { VectorIndex } from "../index/vector-index";
import { DreamError } from "../protocol/errors";
import { fingerprintJournal, readPart, writePart } from "./checkpoint-files";
import { makeDirectory } from "./make-dir";
import { analyzerId, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, CheckpointRejected, MANIFEST_FILE, type Manifest, parseManifest } from "./checkpoint-format";
import { decodeListsPart, decodeRecordPart, decodeVectorPart, encodeListsPart, encodeRecordPart, encodeVectorPart } from "./checkpoint-parts";
import { decodeStatementPart, encodeStatementPart, type StatementImage } from "./checkpoint-statements";
import { syncDirectory } from "./journal";
import { statementsAnalyzerId } from "./record-statements";
import type { MemoryRecord } from "./records";
import { VectorSpaces } from "./vector-spaces";
import { renameWithRetry } from "./fs-retry";

/** What a checkpoint captures; `journal.offset` must be the end of the last entry the state includes. */
export interface StoreImage {
  records: ReadonlyArray<MemoryRecord | undefined>;
  live: number;
  bm25: Bm25Index;
  vectors: VectorSpaces;
  statements: StatementImage;
  journal: { path: string; offset: number; entries: number };
  createdMs: number;
}

export interface RestoredState {
  records: Array<MemoryRecord | undefined>;
  bm25: Bm25Index;
  vectors: VectorSpaces;
  /** What each doc states; absent when the checkpoint's statements came from another analyzer (they are then recomputed). */
  statements?: StatementImage;
  /** Journal byte offset and entry count the state covers: replay resumes there. */
  offset: number;
  entries: number;
}

export type CheckpointLoad = { state: RestoredState; reason?: undefined } | { state?: undefined; reason: string };

export interface CheckpointWritten {
  offset: number;
  entries: number;
  bytes: number;
  created_ms: number;
}

/**
 * Writes the parts under fresh names, then the manifest to a temporary file, then renames it over the
 * current manifest: the rename is the commit point, so a crash anywhere leaves the old checkpoint or the
 * new one, never a mix. Files the new manifest does not name (old parts, a crashed write's leftovers) go last.
 */
export function writeCheckpoint(dir: string, image: StoreImage): CheckpointWritten {
  try {
    return writeFiles(dir, image);
  } catch (cause) {
    if (typeof (cause as NodeJS.ErrnoException).code !== "string" || cause instanceof DreamError) throw cause;
    throw new DreamError("IO_ERROR", `could not write the checkpoint in ${dir}: ${(cause as Error).message}`, { cause });
  }
}

function writeFiles(dir: string, image: StoreImage): CheckpointWritten {
  const { offset, entries } = image.journal;
  const fingerprint = fingerprintJournal(image.journal.path, offset);
  if (!fingerprint) throw new Error(`checkpoint: the journal ${image.journal.path} does not end a line at byte ${offset}`);
  makeDirectory(dir);
  // Random, because a crashed write may have left files under any name derived from the offset or the clock.
  const generation = `o${offset.toString(36)}-${randomBytes(4).toString("hex")}`;
  const records = writePart(dir, `${generation}.records.jsonl`, encodeRecordPart(image.records));
  const bm25 = writePart(dir, `${generation}.bm25.bin`, [image.bm25.serialize()]);
  const statements = writePart(dir, `${generation}.statements.jsonl`, encodeStatementPart(image.statements));
  const vectorSpaces = image.vectors.list().map((space, i) => {
    const { docs, rows } = space.index.exportRows();
    const hashes = Array.from(docs, (doc) => space.contentHashByDoc.get(doc)!);
    const part = writePart(dir, `${generation}.vectors-${i}.bin`, encodeVectorPart(space.dim, { docs, hashes, rows }));
    const image = space.index.exportLists(docs);
    const lists = image && { count: image.centroids.length / space.dim, part: writePart(dir, `${generation}.lists-${i}.bin`, encodeListsPart(space.dim, image)) };
    const { provider, model, dim, modelDigest, configHash } = space;
    return { provider, model, dim, modelDigest, configHash, vectors: docs.length, part, ...(lists ? { lists } : {}) };
  });
  const manifest: Manifest = {
    format: CHECKPOINT_FORMAT,
    version: CHECKPOINT_VERSION,
    created_ms: image.createdMs,
    analyzer: analyzerId(),
    journal: { offset, entries, last_line_offset: fingerprint.lineOffset, last_line_sha256: fingerprint.sha256 },
    docs: image.records.length,
    live: image.live,
    records,
    bm25: { k1: image.bm25.k1, b: image.bm25.b, part: bm25 },
    statements: { analyzer: statementsAnalyzerId(), part: statements },
    vector_spaces: vectorSpaces,
  };
  const temporary = `${MANIFEST_FILE}.${generation}.tmp`;
  writePart(dir, temporary, [Buffer.from(JSON.stringify(manifest, null, 1) + "\n")]);
  // The parts' directory entries must be durable before the rename that makes them current.
  syncDirectory(dir);
  renameWithRetry(path.join(dir, temporary), path.join(dir, MANIFEST_FILE));
  syncDirectory(dir);
  const spaceParts = vectorSpaces.flatMap((space) => (space.lists ? [space.part, space.lists.part] : [space.part]));
  const keep = new Set([MANIFEST_FILE, records.file, bm25.file, statements.file, ...spaceParts.map((part) => part.file)]);
  for (const name of fs.readdirSync(dir)) if (!keep.has(name)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  const bytes = [records, bm25, statements, ...spaceParts].reduce((sum, part) => sum + part.bytes, 0);
  return { offset, entries, bytes, created_ms: image.createdMs };
}

/** Restores the state a checkpoint holds, or says why it cannot be used. Reads nothing but `dir` and the journal. */
export function loadCheckpoint(dir: string, journalPath: string, bm25Params: { k1: number; b: number }): CheckpointLoad {
  try {
    return { state: restore(dir, journalPath, bm25Params) };
  } catch (error) {
    if (error instanceof CheckpointRejected) return { reason: error.message };
    // A part its decoder refuses, an index that will not load: this checkpoint cannot be trusted, and the
    // journal can always rebuild the state, so the failure becomes the reason status reports.
    return { reason: `the checkpoint could not be restored: ${(error as Error).message}` };
  }
}

function restore(dir: string, journalPath: string, bm25Params: { k1: number; b: number }): RestoredState {
  const manifestPath = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(manifestPath)) throw new CheckpointRejected("no checkpoint");
  const manifest = parseManifest(fs.readFileSync(manifestPath, "utf8"));
  if (manifest.bm25.k1 !== bm25Params.k1 || manifest.bm25.b !== bm25Params.b) {
    throw new CheckpointRejected(`the BM25 snapshot has k1 ${manifest.bm25.k1}, b ${manifest.bm25.b}; this store uses k1 ${bm25Params.k1}, b ${bm25Params.b}`);
  }
  checkJournal(journalPath, manifest.journal);
  const records = decodeRecordPart(readPart(dir, manifest.records, "record"), manifest.docs);
  checkRecords(records, manifest.live);
  const bm25 = Bm25Index.deserialize(readPart(dir, manifest.bm25.part, "BM25"));
  if (bm25.size !== manifest.live || records.some((record, doc) => (record !== undefined) !== bm25.has(doc))) {
    throw new CheckpointRejected("the BM25 snapshot and the records disagree on which docs are live");
  }
  const vectors = new VectorSpaces();
  for (const space of manifest.vector_spaces) {
    const { docs, hashes, rows } = decodeVectorPart(readPart(dir, space.part, "vector"), space.dim, space.vectors);
    const contentHashByDoc = new Map<number, string>();
    docs.forEach((doc, i) => {
      // The binding that keeps a vector from being served for text it did not embed.
      if (records[doc]?.content_hash !== hashes[i]) throw new CheckpointRejected(`the vector of doc ${doc} is not bound to that doc's text`);
      contentHashByDoc.set(doc, hashes[i]);
    });
    const index = VectorIndex.fromRows(space.dim, docs, rows);
    if (space.lists) index.restoreLists(docs, decodeListsPart(readPart(dir, space.lists.part, "lists"), space.dim, space.lists.count, space.vectors));
    vectors.restore(space, index, contentHashByDoc);
  }
  // Statements from another analyzer are not wrong data, only another reading of the text: recompute them.
  const statements = manifest.statements.analyzer === statementsAnalyzerId() ? decodeStatementPart(readPart(dir, manifest.statements.part, "statements"), manifest.docs) : undefined;
  return { records, bm25, vectors, statements, offset: manifest.journal.offset, entries: manifest.journal.entries };
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

function checkRecords(records: Array<MemoryRecord | undefined>, live: number): void {
  const ids = new Set<string>();
  for (const record of records) {
    if (record === undefined) continue;
    if (ids.has(record.id)) throw new CheckpointRejected(`the record part holds id ${JSON.stringify(record.id)} twice`);
    ids.add(record.id);
  }
  if (ids.size !== live) throw new CheckpointRejected(`the record part holds ${ids.size} live records; the manifest says ${live}`);
}

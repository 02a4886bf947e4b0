// The checkpoint's manifest: what a checkpoint claims to hold (journal prefix, analyzer, parts with their
// sizes and checksums), and its strict parser. A manifest this build cannot vouch for is rejected with a reason.
import { createHash } from "node:crypto";
import { ANALYZER_VERSION, documentTerms } from "../index/analyze";
import { isPartSum, type PartSum } from "./part-sum";
import { isPlainObject } from "./records";

export const CHECKPOINT_FORMAT = "dsh-dream-checkpoint";
// 2: vector spaces carry the model-file digest and redacted config hash of their binding.
// 3: a statements part (speech acts and state slots) under its own analyzer id.
// 4: records, statements and vectors in parts of `segment_docs` docs each, which later checkpoints reuse
//    while those docs are unchanged; the BM25 snapshot covers the docs below `bm25.docs` (later ones are
//    indexed from their records at open).
// 5: a vector segment written as a version 2 part names its head (all but the f32 rows) with its own size
//    and SHA-256, so that an open whose rows stay in the files reads only the heads. Version 4 manifests are
//    still read (their segments have no head: read whole, as before).
// 6: a record part whose texts are read back has a text index beside it (`text_index`: where each record's
//    text and content hash lie in the part, and the text's length), so that an open finds them without
//    scanning the part. Versions 4 and 5 are still read (their record parts are scanned, as before). A text
//    index of its own version 2 also holds the records' heads (record-heads.ts): an open makes the records
//    from them rather than parsing the part; version 1 indexes are still read (their parts parsed). A build
//    that reads only version 1 refuses such a checkpoint and replays the journal.
// 7: parts (and vector heads) are written with a CRC-32 (`crc32`, part-sum.ts) rather than a SHA-256: hashing
//    the parts was ~1.35 s of CPU of an open of a million records. A part kept from an earlier checkpoint keeps
//    its `sha256` until an open finds it whole (then the next checkpoint names its CRC-32), so a version 7
//    manifest may name parts of either. Versions 4 to 6 are still read.
export const CHECKPOINT_VERSION = 7;
const READABLE_VERSIONS = [4, 5, 6, CHECKPOINT_VERSION];
export const MANIFEST_FILE = "manifest.json";

/** A part: its file in the checkpoint directory, its size and its checksum. */
export type PartRef = { file: string; bytes: number } & PartSum;

/** The first `bytes` bytes of a part, with a checksum of their own. */
export type PartHead = { bytes: number } & PartSum;

/** A segment's vector part; `head` when the part keeps each row's code and CRC before the rows (checkpoint-parts.ts). */
export interface VectorSegment {
  vectors: number;
  part: PartRef;
  head?: PartHead;
}

export interface SpaceEntry {
  provider: string;
  model: string;
  dim: number;
  modelDigest: string | null;
  configHash: string | null;
  vectors: number;
  /** Per segment, the part holding its docs' vectors, or null when none of them has one. */
  segments: Array<VectorSegment | null>;
  /** The approximate index's lists, when the space had them built (checkpoint-parts.ts). */
  lists?: { count: number; part: PartRef };
}

export interface Manifest {
  format: string;
  version: number;
  created_ms: number;
  analyzer: string;
  /** The journal prefix the checkpoint covers, and the fingerprint of its last line. */
  journal: { offset: number; entries: number; last_line_offset: number; last_line_sha256: string };
  /** Doc numbers handed out so far (forgotten ones included) and how many are live. */
  docs: number;
  live: number;
  /** Docs per segment: segment s holds docs [s * segment_docs, (s + 1) * segment_docs). */
  segment_docs: number;
  /** One part per segment. */
  records: PartRef[];
  /**
   * Version 6: per segment, the index of its record part's texts (checkpoint-parts.ts encodeTextIndex), or
   * null when the part was written with its texts kept in memory.
   */
  text_index?: Array<PartRef | null>;
  /**
   * The snapshot indexes the docs below `docs` that were live when it was taken; of those, `forgotten` have
   * been forgotten since (removed at open), and docs from `docs` on are indexed from their records at open.
   */
  bm25: { k1: number; b: number; docs: number; forgotten: number[]; part: PartRef };
  statements: { analyzer: string; parts: PartRef[] };
  vector_spaces: SpaceEntry[];
}

/** Every part a manifest names, each once (a segment unchanged since an earlier checkpoint keeps its file). */
export function manifestParts(manifest: Manifest): PartRef[] {
  const parts = [...manifest.records, ...(manifest.text_index ?? []).filter((part): part is PartRef => part !== null), manifest.bm25.part, ...manifest.statements.parts];
  for (const space of manifest.vector_spaces) {
    for (const segment of space.segments) if (segment) parts.push(segment.part);
    if (space.lists) parts.push(space.lists.part);
  }
  return parts;
}

/** A checkpoint that must not be used; the message is the reason status reports. */
export class CheckpointRejected extends Error {}

// What documentTerms makes of a probe covering width folding, CJK bigrams, a lone CJK character, stemming and
// numbers. Hashed into the analyzer id, so a change that forgot to bump ANALYZER_VERSION still discards snapshots.
const ANALYZER_PROBE = "Ｆｕｌｌ-width ＡＢＣ running Runs relational caresses 2024年 我 钥匙放在鞋柜里 ponies naïve café";
let analyzerIdMemo: string | undefined;

export function analyzerId(): string {
  analyzerIdMemo ??= `${ANALYZER_VERSION} ${sha256Hex(JSON.stringify(documentTerms(ANALYZER_PROBE))).slice(0, 16)}`;
  return analyzerIdMemo;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Parses manifest text, refusing unknown formats and versions, other analyzers and any malformed field. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new CheckpointRejected(`the manifest is not JSON (${(cause as Error).message})`);
  }
  if (!isPlainObject(value) || value.format !== CHECKPOINT_FORMAT) throw new CheckpointRejected("the manifest is not a dsh-dream checkpoint manifest");
  if (!READABLE_VERSIONS.includes(value.version as number)) {
    throw new CheckpointRejected(`checkpoint format version ${String(value.version)} is unknown (this build reads ${READABLE_VERSIONS.slice(0, -1).join(", ")} and ${READABLE_VERSIONS.at(-1)})`);
  }
  if (value.analyzer !== analyzerId()) {
    throw new CheckpointRejected(`the BM25 snapshot was built by analyzer "${String(value.analyzer)}"; this build uses "${analyzerId()}"`);
  }
  const m = value as unknown as Manifest;
  const journal = m.journal as unknown;
  const ok =
    isCount(m.created_ms) &&
    isPlainObject(journal) &&
    [journal.offset, journal.entries, journal.last_line_offset].every(isCount) &&
    isSha(journal.last_line_sha256) &&
    m.journal.last_line_offset < m.journal.offset &&
    isCount(m.docs) &&
    isCount(m.live) &&
    m.live <= m.docs &&
    isCount(m.segment_docs) &&
    m.segment_docs > 0 &&
    isParts(m.records, segmentCount(m)) &&
    (m.version < 6 ? m.text_index === undefined : Array.isArray(m.text_index) && m.text_index.length === segmentCount(m) && m.text_index.every((part) => part === null || isPart(part))) &&
    isPlainObject(m.bm25) &&
    typeof m.bm25.k1 === "number" &&
    typeof m.bm25.b === "number" &&
    isCount(m.bm25.docs) &&
    m.bm25.docs <= m.docs &&
    Array.isArray(m.bm25.forgotten) &&
    m.bm25.forgotten.every((doc, i, all) => isCount(doc) && doc < m.bm25.docs && (i === 0 || doc > all[i - 1])) &&
    isPart(m.bm25.part) &&
    isPlainObject(m.statements) &&
    typeof m.statements.analyzer === "string" &&
    isParts(m.statements.parts, segmentCount(m)) &&
    Array.isArray(m.vector_spaces) &&
    m.vector_spaces.every((space) => isSpace(space, segmentCount(m)));
  if (!ok) throw new CheckpointRejected("the manifest is malformed");
  return m;
}

export function segmentCount(manifest: Pick<Manifest, "docs" | "segment_docs">): number {
  return Math.ceil(manifest.docs / manifest.segment_docs);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isSha(value: unknown): value is string {
  return typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
}

// Part names are plain file names inside the checkpoint directory: a manifest can never point elsewhere.
function isPart(value: unknown): value is PartRef {
  return isPlainObject(value) && typeof value.file === "string" && /^\w[\w.-]*$/.test(value.file) && isCount(value.bytes) && isPartSum(value);
}

function isHead(value: unknown, part: PartRef): value is PartHead {
  return isPlainObject(value) && isCount(value.bytes) && value.bytes <= part.bytes && isPartSum(value);
}

function isParts(value: unknown, count: number): value is PartRef[] {
  return Array.isArray(value) && value.length === count && value.every(isPart);
}

function isSpace(value: unknown, segments: number): value is SpaceEntry {
  return (
    isPlainObject(value) &&
    typeof value.provider === "string" &&
    typeof value.model === "string" &&
    isCount(value.dim) &&
    value.dim > 0 &&
    (value.modelDigest === null || typeof value.modelDigest === "string") &&
    (value.configHash === null || typeof value.configHash === "string") &&
    isCount(value.vectors) &&
    Array.isArray(value.segments) &&
    value.segments.length === segments &&
    value.segments.every((segment) => segment === null || (isPlainObject(segment) && isCount(segment.vectors) && segment.vectors > 0 && isPart(segment.part) && (segment.head === undefined || isHead(segment.head, segment.part)))) &&
    value.segments.reduce((sum: number, segment) => sum + ((segment as { vectors?: number } | null)?.vectors ?? 0), 0) === value.vectors &&
    (value.lists === undefined || (isPlainObject(value.lists) && isCount(value.lists.count) && value.lists.count > 0 && isPart(value.lists.part)))
  );
}

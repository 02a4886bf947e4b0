// Encodings of the checkpoint's record part (chunked JSON lines, doc numbers kept as positions) and vector
// parts (binary: doc numbers, the content hashes the vectors are bound to, f32 unit rows). The BM25 part is
// Bm25Index.serialize's own versioned format.
import fs from "node:fs";
import { crc32 } from "node:zlib";
import { runToEnd } from "../index/run-steps";
import { CheckpointRejected } from "./checkpoint-format";
import { PartBuffer } from "./checkpoint-files";
import { DIGEST_BYTES, HASH_PREFIX, writeDigest } from "./content-digests";
import { DamagedRowError, type RowFile } from "../index/row-pages";
import { isPlainObject, type MemoryRecord } from "./records";
import { decodeRecordHeads, recordHeadsInSteps, type RecordHeads } from "./record-heads";
import { plainRecords, type TextRanges } from "./text-pages";
import type { ListsImage } from "../index/vector-index";

// Bounded lines keep every string far below V8's string limit however large the store grows; a line is a
// checkpoint step (2,048 records, texts read back, took 13-52 ms in a 100k store). Any count per line reads back.
export const RECORDS_PER_LINE = 512;
const VECTOR_MAGIC = "DSHVECS\0";
// 2: each row's CRC-32 and int8 code in the head, so that an open reads the codes and leaves the rows in the file.
const VECTOR_PART_VERSION = 2;
// magic(8) version dim count reserved (u32 each); a multiple of 4 keeps the f32 rows aligned in the file.
const VECTOR_HEADER_BYTES = 24;
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
/** Whether rows are read where they lie in a vector part's file (openVectorRows): not on a big-endian host. */
export const ROWS_READ_IN_PLACE = LITTLE_ENDIAN;

/**
 * Records by doc number, forgotten docs as null, so positions are the doc numbers: a line of up to
 * RECORDS_PER_LINE records at a time, each line a JSON array. With `scratch`, each line is written into it
 * and is valid until the next one is asked for (a checkpoint writes it first); without, each line is its own.
 *
 * Each record is stringified and written into the line's bytes by itself: a line stringified whole was a
 * string of megabytes (two bytes a unit with Chinese text), flattened for its UTF-8 bytes in V8's
 * large-object space, which is old generation: ~1 GB of it in a full checkpoint at 1M.
 */
export function* encodeRecordPart(records: ReadonlyArray<MemoryRecord | undefined>, scratch?: PartBuffer): Generator<Buffer> {
  let line = scratch?.take(LINE_BYTES_MIN) ?? Buffer.allocUnsafe(LINE_BYTES_MIN);
  for (let start = 0; start < records.length; start += RECORDS_PER_LINE) {
    // Texts read back are read a run at a time, not one by one through each record's toJSON.
    const chunk = plainRecords(records.slice(start, start + RECORDS_PER_LINE));
    let at = 0;
    const put = (json: string, after: number): void => {
      // Room for the item, the byte after it and the line's newline.
      const need = at + Buffer.byteLength(json, "utf8") + 2;
      if (need > line.length) {
        const size = Math.max(need, 2 * line.length);
        const grown = scratch?.take(size) ?? Buffer.allocUnsafe(size);
        line.copy(grown, 0, 0, at);
        line = grown;
      }
      at += line.write(json, at, "utf8");
      line[at++] = after;
    };
    line[at++] = OPEN_BRACKET;
    // As JSON.stringify writes an array's items: a record by its own JSON (toJSON included), a forgotten doc as null.
    chunk.forEach((record, i) => put(record === null ? "null" : JSON.stringify(record), i + 1 < chunk.length ? COMMA : CLOSE_BRACKET));
    line[at++] = NEWLINE;
    yield scratch ? line.subarray(0, at) : Buffer.from(line.subarray(0, at));
  }
}

const LINE_BYTES_MIN = 1 << 20;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const NEWLINE = 0x0a;

/**
 * One value per distinct value of what many records repeat, for the records of one open:
 * - a session's id, the source type, the scope: JSON.parse makes a string per record of any value over 10
 *   characters (a session id of 36 over a session's turns, "assistant_message" over every reply), ~30
 *   bytes a record each;
 * - the metadata, as JSON, and each object, array and string inside it: a turn's capture facts (working
 *   directory, model) repeat over its session, the lists of tools used repeat across turns, and an empty
 *   metadata is still an object of ~56 bytes. A shared object or array is frozen (deeply), so that a
 *   change made through one record cannot reach the others: it throws.
 * Records of a session are neighbours (docs come in time order), so the values held are forgotten every
 * SHARED_VALUES_HELD: the keys stay few while an open of a million records runs, and what keeps recurring
 * is found again at once. A value whose JSON passes SHARED_VALUE_MAX_CHARS is not shared (nor frozen).
 */
export class SharedValues {
  private readonly strings = new Map<string, string>();
  private readonly objects = new Map<string, unknown>();

  share(value: string): string {
    const held = this.strings.get(value);
    if (held !== undefined) return held;
    if (this.strings.size >= SHARED_VALUES_HELD) this.strings.clear();
    this.strings.set(value, value);
    return value;
  }

  metadata(value: Record<string, unknown>): Record<string, unknown> {
    return this.shareValue(value) as Record<string, unknown>;
  }

  /** Whether a value whose JSON is `json` is shared (and frozen) by metadata(): else each record has its own. */
  sharesJson(json: string): boolean {
    return json.length <= SHARED_VALUE_MAX_CHARS;
  }

  private shareValue(value: unknown): unknown {
    // Strings of up to 10 characters JSON.parse shares already.
    if (typeof value === "string") return value.length > 10 ? this.share(value) : value;
    if (typeof value !== "object" || value === null) return value;
    const key = JSON.stringify(value);
    // A large value is left as it is: its key would cost more than sharing it saves.
    if (key.length > SHARED_VALUE_MAX_CHARS) return value;
    const held = this.objects.get(key);
    if (held !== undefined) return held;
    // A frozen value was shared already, by an open or a state before this one (a compaction gives one state's
    // records to the next): held as it is, its values as they are.
    if (!Object.isFrozen(value)) {
      const inner = value as Record<string, unknown>;
      for (const name of Object.keys(inner)) inner[name] = this.shareValue(inner[name]);
    }
    if (this.objects.size >= SHARED_VALUES_HELD) this.objects.clear();
    this.objects.set(key, Object.freeze(value));
    return value;
  }
}

/**
 * Gives a record, in place, the shared value of each field many records hold alike: its scope, source type and
 * session, and its metadata (frozen). An open does it to what it reads, the state to what it is given (a live
 * write, an import, a replay): records as JSON makes them, each with its own metadata object (`{}` too) and
 * its own string of every value over 10 characters, were a million objects a field at 1M for V8 to mark at
 * every full collection (docs/design.md).
 */
export function shareRecordValues(record: MemoryRecord, shared: SharedValues): void {
  record.scope = shared.share(record.scope);
  if (typeof record.source_type === "string") record.source_type = shared.share(record.source_type) as MemoryRecord["source_type"];
  if (record.session_id !== undefined) record.session_id = shared.share(record.session_id);
  if (isPlainObject(record.metadata)) record.metadata = shared.metadata(record.metadata);
}

const SHARED_VALUES_HELD = 1 << 14;
const SHARED_VALUE_MAX_CHARS = 1024;

/**
 * The records of a record part. With `elide` (its texts' ranges, findTexts), each text is decoded as "" (and
 * each content hash it places, `hashAt`, too): the
 * bytes around the texts are copied into `scratch` and parsed, the texts not (a store whose texts are read
 * back never keeps them, and decoding them is most of the work: Chinese text makes a line's string two bytes
 * a unit), ELIDED_GROUP records at a time: a line's string of ~400 KB went to V8's large-object space, pages
 * mapped in and zeroed for each line (~60k page faults, ~0.5 s at 1M on a VM).
 */
export function decodeRecordPart(bytes: Buffer, docs: number, shared = new SharedValues(), elide?: TextRanges, scratch = new PartBuffer()): Array<MemoryRecord | undefined> {
  const records: Array<MemoryRecord | undefined> = [];
  const take = (item: unknown): void => {
    if (item !== null && !isRecordShape(item)) throw new CheckpointRejected(`the record part holds a malformed record at doc ${records.length}`);
    if (item !== null) shareRecordValues(item, shared);
    records.push(item ?? undefined);
  };
  let text = 0;
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(0x0a, start);
    if (end === -1) throw new CheckpointRejected("the record part does not end with a newline");
    if (elide) {
      const line = scratch.take(end - start);
      let length = 0;
      let at = start;
      // A string's bytes [from, to) (quotes included) left out: "" in their place.
      const leaveOut = (from: number, to: number) => {
        length += bytes.copy(line, length, at, from);
        line[length++] = QUOTE;
        line[length++] = QUOTE;
        at = to;
      };
      for (; text < elide.start.length && elide.start[text] < end; text++) {
        if (elide.start[text] < 0) continue;
        const hash = elide.hashAt?.[text] ?? -1;
        // The hash's string: its quote and "sha256:" before the digits, the closing quote after them.
        const hashFrom = hash - 1 - HASH_PREFIX.length;
        const hashTo = hash + 2 * DIGEST_BYTES + 1;
        if (hash >= 0 && hashFrom < elide.start[text]) leaveOut(hashFrom, hashTo);
        leaveOut(elide.start[text], elide.end[text]);
        if (hash >= 0 && hashFrom > elide.start[text]) leaveOut(hashFrom, hashTo);
      }
      length += bytes.copy(line, length, at, end);
      parseArrayInGroups(line, length, ELIDED_GROUP, (group) => group.forEach(take));
    } else {
      const chunk: unknown = JSON.parse(bytes.toString("utf8", start, end));
      if (!Array.isArray(chunk)) throw new CheckpointRejected("the record part holds a line that is not an array");
      chunk.forEach(take);
    }
    start = end + 1;
  }
  if (records.length !== docs) throw new CheckpointRejected(`the record part holds ${records.length} docs; the manifest says ${docs}`);
  return records;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ELIDED_GROUP = 256;

const TEXT_INDEX_MAGIC = "DSHTEXTS";
// 2: the records' heads follow (record-heads.ts), so that an open makes the records without parsing the part.
const TEXT_INDEX_VERSION = 2;
// magic(8) version count (u32 each), then per record its text's start and end, its content hash's first hex
// digit (f64 each: a part may pass 4 GiB; -1 for none) and its text's UTF-16 length (i32); from version 2,
// the heads' size in bytes (u32, 0 for none) and the heads.
const TEXT_INDEX_HEADER_BYTES = 16;
const TEXT_INDEX_RECORD_BYTES = 3 * 8 + 4;

/**
 * A record part's text index: where findTexts (with `hashes`) placed each record's text and content hash, and
 * each text's UTF-16 length (jsonStringUnits), so that an open neither scans the part nor measures its texts
 * (~0.8 s of an open at 1M); with `records` (the part's), their heads too when they can be kept
 * (encodeRecordHeads).
 */
export function encodeTextIndex(ranges: Required<TextRanges>, chars: Int32Array, records?: ReadonlyArray<MemoryRecord | undefined>): Buffer {
  return runToEnd(textIndexInSteps(ranges, chars, records, Infinity));
}

/** encodeTextIndex with its records' heads made `perStep` records a step (recordHeadsInSteps). */
export function* textIndexInSteps(ranges: Required<TextRanges>, chars: Int32Array, records: ReadonlyArray<MemoryRecord | undefined> | undefined, perStep: number): Generator<void, Buffer> {
  const count = chars.length;
  if (ranges.start.length !== count || ranges.end.length !== count || ranges.hashAt.length !== count) throw new Error(`encodeTextIndex: ranges of ${ranges.start.length} records for ${count} lengths`);
  if (records && records.length !== count) throw new Error(`encodeTextIndex: ${records.length} records for ${count} lengths`);
  // Heads only for records the part holds where the ranges say (else an open would refuse them), each with
  // its content hash placed (one that is not keeps it as a field of its own: not in a head).
  const fits = (record: MemoryRecord | undefined, i: number) => (record === undefined ? ranges.start[i] < 0 : ranges.start[i] >= 0 && ranges.hashAt[i] >= 0);
  const heads = records && records.every(fits) ? yield* recordHeadsInSteps(records, perStep) : undefined;
  const bytes = Buffer.alloc(TEXT_INDEX_HEADER_BYTES + TEXT_INDEX_RECORD_BYTES * count + 4 + (heads?.length ?? 0));
  bytes.write(TEXT_INDEX_MAGIC, 0, "latin1");
  bytes.writeUInt32LE(TEXT_INDEX_VERSION, 8);
  bytes.writeUInt32LE(count, 12);
  let at = TEXT_INDEX_HEADER_BYTES;
  for (const column of [ranges.start, ranges.end, ranges.hashAt]) for (let i = 0; i < count; i++, at += 8) bytes.writeDoubleLE(column[i], at);
  for (let i = 0; i < count; i++, at += 4) bytes.writeInt32LE(chars[i], at);
  at = bytes.writeUInt32LE(heads?.length ?? 0, at);
  heads?.copy(bytes, at);
  return bytes;
}

/**
 * A text index read back, checked against its record part's bytes: each text range must be the string value
 * of a "text" key and each hash the digits of a "content_hash" one, in order, within the part. Anything else
 * (another part's index, a damaged one) refuses the checkpoint. Its records' heads too, when it has them.
 */
export function decodeTextIndex(index: Buffer, count: number, part: Uint8Array): { version: 1 | 2; ranges: Required<TextRanges>; chars: Int32Array; heads?: RecordHeads } {
  const body = TEXT_INDEX_HEADER_BYTES + TEXT_INDEX_RECORD_BYTES * count;
  const version = (index.length >= TEXT_INDEX_HEADER_BYTES ? index.readUInt32LE(8) : 0) as 1 | 2;
  const headsBytes = version === 2 && index.length >= body + 4 ? index.readUInt32LE(body) : 0;
  const size = version === 1 ? body : body + 4 + headsBytes;
  if (index.length !== size || index.toString("latin1", 0, 8) !== TEXT_INDEX_MAGIC || (version !== 1 && version !== 2) || index.readUInt32LE(12) !== count) {
    throw new CheckpointRejected(`a text index is not one of version 1 or ${TEXT_INDEX_VERSION} for ${count} records`);
  }
  const column = (c: number) => {
    const values = new Float64Array(count);
    for (let i = 0, at = TEXT_INDEX_HEADER_BYTES + 8 * c * count; i < count; i++, at += 8) values[i] = index.readDoubleLE(at);
    return values;
  };
  const ranges = { start: column(0), end: column(1), hashAt: column(2) };
  const chars = new Int32Array(count);
  for (let i = 0, at = TEXT_INDEX_HEADER_BYTES + 24 * count; i < count; i++, at += 4) chars[i] = index.readInt32LE(at);
  let after = 0;
  for (let i = 0; i < count; i++) {
    const [start, end, hashAt] = [ranges.start[i], ranges.end[i], ranges.hashAt[i]];
    if (start === -1 && end === -1 && hashAt === -1) continue;
    // Each from its key to its closing quote: the text's, then the hash's (either may come first), after the
    // record before.
    const [textFrom, textTo] = [start - TEXT_KEY.length, end];
    const [hashFrom, hashTo] = [hashAt - HASH_KEY_AND_PREFIX.length, hashAt + 2 * DIGEST_BYTES + 1];
    const textOk = Number.isSafeInteger(start) && textFrom >= after && end > start && end <= part.length && part[start] === QUOTE && part[end - 1] === QUOTE && endsWith(part, start, TEXT_KEY);
    const hashOk = hashAt === -1 || (Number.isSafeInteger(hashAt) && hashFrom >= after && hashTo <= part.length && (hashTo <= textFrom || hashFrom >= textTo) && part[hashTo - 1] === QUOTE && endsWith(part, hashAt, HASH_KEY_AND_PREFIX));
    if (!textOk || !hashOk || chars[i] < 0) throw new CheckpointRejected(`the text index does not match its record part at record ${i}`);
    after = Math.max(textTo, hashAt === -1 ? 0 : hashTo);
  }
  if (headsBytes === 0) return { version, ranges, chars };
  const heads = decodeRecordHeads(index.subarray(body + 4), count, (i) => ranges.start[i] === -1);
  for (let i = 0; i < count; i++) if (ranges.start[i] !== -1 && ranges.hashAt[i] === -1) throw new CheckpointRejected(`the text index holds the head of record ${i} but not where its content hash is`);
  return { version, ranges, chars, heads };
}

/** `"text":` and `"content_hash":"sha256:`, as UTF-8: what comes before a text's string and a hash's digits. */
const TEXT_KEY = Buffer.from('"text":');
const HASH_KEY_AND_PREFIX = Buffer.from(`"content_hash":"${HASH_PREFIX}`);

/** Whether `bytes` holds `suffix` just before `at`. */
function endsWith(bytes: Uint8Array, at: number, suffix: Uint8Array): boolean {
  if (at < suffix.length) return false;
  for (let i = 0; i < suffix.length; i++) if (bytes[at - suffix.length + i] !== suffix[i]) return false;
  return true;
}

/**
 * Parses the JSON array in `bytes[0, length)` (UTF-8) `size` items at a time: each group is cut at commas
 * outside any string, object or array, so no string made for it is large.
 */
function parseArrayInGroups(bytes: Uint8Array, length: number, size: number, each: (group: unknown[]) => void): void {
  if (length < 2 || bytes[0] !== 0x5b || bytes[length - 1] !== 0x5d) throw new CheckpointRejected("the record part holds a line that is not an array");
  const parse = (from: number, to: number): void => {
    const group: unknown = JSON.parse("[" + Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString("utf8") + "]");
    if (!Array.isArray(group)) throw new CheckpointRejected("the record part holds a line that is not an array");
    each(group);
  };
  let depth = 0;
  let from = 1;
  let items = 0;
  for (let i = 1; i < length - 1; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      for (i++; i < length && bytes[i] !== QUOTE; i++) if (bytes[i] === BACKSLASH) i++;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth === 0 && ++items === size) {
      parse(from, i);
      from = i + 1;
      items = 0;
    }
  }
  if (depth !== 0) throw new CheckpointRejected("the record part holds a line whose brackets do not balance");
  if (from < length - 1 || items > 0) parse(from, length - 1);
}

function isRecordShape(value: unknown): value is MemoryRecord {
  return (
    isPlainObject(value) &&
    typeof value.id === "string" &&
    typeof value.text === "string" &&
    typeof value.scope === "string" &&
    typeof value.content_hash === "string" &&
    (value.session_id === undefined || typeof value.session_id === "string") &&
    (value.turn === undefined || typeof value.turn === "number")
  );
}

export interface VectorRows {
  docs: Int32Array;
  /**
   * Content hash of each row's record at the time its vector was stored, or what writes row i's as its 32
   * bytes at `into[at]` (false when it is not a content hash): a checkpoint has the records' bytes at hand.
   */
  hashes: readonly string[] | ((i: number, into: Uint8Array, at: number) => boolean);
  rows: Float32Array;
}

const LISTS_MAGIC = "DSHLISTS";
const LISTS_PART_VERSION = 1;
// magic(8) version dim lists count (u32 each) recall share (f64 each) trained_at (f64): a multiple of 8.
const LISTS_HEADER_BYTES = 48;

/** The approximate index's lists: header, then centroids (f32, lists × dim), then each doc's list (i32). */
export function encodeListsPart(dim: number, image: ListsImage): Uint8Array[] {
  const header = Buffer.alloc(LISTS_HEADER_BYTES);
  header.write(LISTS_MAGIC, 0, "latin1");
  [LISTS_PART_VERSION, dim, image.centroids.length / dim, image.listOf.length].forEach((value, i) => header.writeUInt32LE(value, 8 + 4 * i));
  header.writeDoubleLE(image.recall, 24);
  header.writeDoubleLE(image.share, 32);
  header.writeDoubleLE(image.trainedAt, 40);
  return [header, littleEndianBytes(image.centroids), littleEndianBytes(image.listOf)];
}

export function decodeListsPart(bytes: Buffer, dim: number, lists: number, count: number): ListsImage {
  const expected = LISTS_HEADER_BYTES + 4 * (lists * dim + count);
  if (bytes.length !== expected || bytes.toString("latin1", 0, 8) !== LISTS_MAGIC) throw new CheckpointRejected("a lists part has the wrong size or magic");
  const [version, partDim, partLists, partCount] = [8, 12, 16, 20].map((at) => bytes.readUInt32LE(at));
  if (version !== LISTS_PART_VERSION || partDim !== dim || partLists !== lists || partCount !== count) {
    throw new CheckpointRejected(`a lists part has version ${version}, ${partLists} lists of ${partDim} for ${partCount} docs; expected version ${LISTS_PART_VERSION}, ${lists} of ${dim} for ${count}`);
  }
  const [recall, share, trainedAt] = [24, 32, 40].map((at) => bytes.readDoubleLE(at));
  if (!(recall >= 0 && recall <= 1 && share > 0 && share <= 1 && Number.isSafeInteger(trainedAt) && trainedAt > 0)) throw new CheckpointRejected("a lists part has a malformed header");
  const centroids = readLittleEndian(bytes, LISTS_HEADER_BYTES, lists * dim, Float32Array);
  const listOf = readLittleEndian(bytes, LISTS_HEADER_BYTES + 4 * lists * dim, count, Int32Array);
  return { centroids, listOf, recall, share, trainedAt };
}

/** A vector part's int8 codes as the index keeps them (VectorIndex.readCodes): `dim` codes a row, its scale and error norm. */
export interface VectorCodes {
  codes: Int8Array;
  scales: Float64Array;
  errors: Float64Array;
}

/** Where a vector part's sections start. Version 1 has no CRCs nor codes: its rows follow the digests. */
interface VectorLayout {
  version: number;
  docsAt: number;
  digestsAt: number;
  crcsAt: number;
  scalesAt: number;
  errorsAt: number;
  codesAt: number;
  /** The part's head ends here: everything an open reads. The rows are read when a search re-scores them. */
  rowsAt: number;
  bytes: number;
}

function vectorLayout(version: number, dim: number, count: number): VectorLayout {
  const docsAt = VECTOR_HEADER_BYTES;
  const digestsAt = docsAt + 4 * count;
  const crcsAt = digestsAt + DIGEST_BYTES * count;
  if (version === 1) return { version, docsAt, digestsAt, crcsAt, scalesAt: crcsAt, errorsAt: crcsAt, codesAt: crcsAt, rowsAt: crcsAt, bytes: crcsAt + 4 * dim * count };
  const scalesAt = crcsAt + 4 * count;
  const errorsAt = scalesAt + 8 * count;
  const codesAt = errorsAt + 8 * count;
  // Padded so the f32 rows stay 4-byte aligned in the file.
  const rowsAt = codesAt + Math.ceil((dim * count) / 4) * 4;
  return { version, docsAt, digestsAt, crcsAt, scalesAt, errorsAt, codesAt, rowsAt, bytes: rowsAt + 4 * dim * count };
}

/** A vector part's arrays, taken from a VectorPartScratch and filled before encodeVectorPart. */
export interface VectorPartViews {
  rows: Float32Array;
  codes: VectorCodes;
  digests: Buffer;
}

/**
 * The arrays a checkpoint encodes its vector parts in, one part after another: a segment's rows, codes,
 * scales, error norms and digests (~10.4 MB at 4,096 docs of 512) in one buffer the next part reuses.
 * Fresh arrays for each segment made V8 start a full collection every few segments ("external memory
 * pressure"); on a 2-core machine its marking threads took the CPU from the adds between the steps.
 */
export class VectorPartScratch {
  private memory = new ArrayBuffer(0);

  /** Views for a part of `count` rows of `dim`: those taken before are stale from now on. */
  take(dim: number, count: number): VectorPartViews {
    const codeBytes = Math.ceil((dim * count) / 4) * 4;
    const size = 16 * count + 4 * dim * count + codeBytes + DIGEST_BYTES * count;
    if (size > this.memory.byteLength) this.memory = new ArrayBuffer(size);
    // The doubles first, then the rows, so that every view is aligned; scales and errors are adjacent, as in the part.
    const scales = new Float64Array(this.memory, 0, count);
    const errors = new Float64Array(this.memory, 8 * count, count);
    const rows = new Float32Array(this.memory, 16 * count, dim * count);
    const codesAt = 16 * count + 4 * dim * count;
    const codes = new Int8Array(this.memory, codesAt, dim * count);
    // The padding after the codes is written as it is: zeros, whatever the last part left there.
    new Uint8Array(this.memory, codesAt + dim * count, codeBytes - dim * count).fill(0);
    const digests = Buffer.from(this.memory, codesAt + codeBytes, DIGEST_BYTES * count);
    return { rows, codes: { codes, scales, errors }, digests };
  }
}

/**
 * A vector part (version 2): header, docs, content-hash digests, each row's CRC-32, its int8 code's scale
 * and error norm, the codes, then the f32 rows. `head` is all but the rows: an open reads and checks only
 * that (its own SHA-256 is in the manifest), and the rows are read when a search re-scores them, each
 * checked against its CRC. `rows` may come in runs (views of the index's memory), written one after another.
 * With `views` (rows and codes filled in them), the part's chunks are views of that scratch: nothing is
 * copied, and they are valid until its next part.
 */
export function encodeVectorPart(
  dim: number,
  { docs, hashes, rows, codes }: Omit<VectorRows, "rows"> & { rows: Float32Array | readonly Float32Array[]; codes: VectorCodes },
  views?: VectorPartViews,
): { head: Uint8Array[]; rows: Uint8Array[]; crcs: Uint32Array; rowsAt: number } {
  const count = docs.length;
  const layout = vectorLayout(VECTOR_PART_VERSION, dim, count);
  if (views && (rows !== views.rows || codes !== views.codes)) throw new Error("encodeVectorPart: the rows and codes must be the views' own");
  const header = Buffer.alloc(VECTOR_HEADER_BYTES);
  header.write(VECTOR_MAGIC, 0, "latin1");
  [VECTOR_PART_VERSION, dim, count, 0].forEach((value, i) => header.writeUInt32LE(value, 8 + 4 * i));
  const digests = views?.digests ?? Buffer.alloc(count * DIGEST_BYTES);
  const write = typeof hashes === "function" ? hashes : (i: number, into: Uint8Array, at: number) => writeDigest(hashes[i], into, at);
  for (let i = 0; i < count; i++) {
    if (!write(i, digests, i * DIGEST_BYTES)) throw new Error(`vector of doc ${docs[i]} is bound to an unexpected content hash${typeof hashes === "function" ? "" : ` ${JSON.stringify(hashes[i])}`}`);
  }
  const runs = (Array.isArray(rows) ? rows : [rows]).map(littleEndianBytes);
  const crcs = new Uint32Array(count);
  let i = 0;
  for (const run of runs) for (let at = 0; at < run.length; at += 4 * dim) crcs[i++] = crc32(run.subarray(at, at + 4 * dim));
  if (i !== count || codes.codes.length !== dim * count || codes.scales.length !== count || codes.errors.length !== count) throw new Error(`a vector part of ${count} docs got ${i} rows and ${codes.scales.length} codes`);
  const codeBytes = layout.rowsAt - layout.codesAt;
  if (views && LITTLE_ENDIAN) {
    const numbers = new Uint8Array(codes.scales.buffer, codes.scales.byteOffset, 16 * count);
    const padded = new Uint8Array(codes.codes.buffer, codes.codes.byteOffset, codeBytes);
    return { head: [header, littleEndianBytes(docs), digests, littleEndianBytes(crcs), numbers, padded], rows: runs, crcs, rowsAt: layout.rowsAt };
  }
  const numbers = Buffer.alloc(16 * count);
  for (let j = 0; j < count; j++) {
    numbers.writeDoubleLE(codes.scales[j], 8 * j);
    numbers.writeDoubleLE(codes.errors[j], 8 * (count + j));
  }
  const padded = new Uint8Array(codeBytes);
  padded.set(new Uint8Array(codes.codes.buffer, codes.codes.byteOffset, codes.codes.byteLength));
  return { head: [header, littleEndianBytes(docs), digests, littleEndianBytes(crcs), numbers, padded], rows: runs, crcs, rowsAt: layout.rowsAt };
}

/** A decoded vector part: the content hashes as their 32-byte digests, compared as bytes (contentDigestIs: no string per doc). */
export interface DecodedVectorPart {
  docs: Int32Array;
  digests: Buffer;
  /** Absent when only the head was read. */
  rows?: Float32Array;
  /** Version 2 parts: each row's CRC-32 and the codes (version 1 parts have neither: codes are made from the rows). */
  crcs?: Uint32Array;
  codes?: VectorCodes;
  /** Where the rows start in the part's file. */
  rowsAt: number;
}

/**
 * Decodes a whole vector part (version 1 or 2), or only its head (`bytes` ends where the rows start): then
 * the part must be version 2, whose head holds the codes. The CRCs, scales and error norms it copies out are
 * made in `memory` (a worker makes them shared: see checkpoint-reader-worker.ts).
 */
export function decodeVectorPart(bytes: Buffer, dim: number, count: number, { headOnly = false, memory = (bytes: number): ArrayBufferLike => new ArrayBuffer(bytes) } = {}): DecodedVectorPart {
  if (bytes.length < VECTOR_HEADER_BYTES || bytes.toString("latin1", 0, 8) !== VECTOR_MAGIC) throw new CheckpointRejected("a vector part has the wrong size or magic");
  const [version, partDim, partCount] = [8, 12, 16].map((at) => bytes.readUInt32LE(at));
  if ((version !== 1 && version !== VECTOR_PART_VERSION) || (headOnly && version === 1) || partDim !== dim || partCount !== count) {
    throw new CheckpointRejected(`a vector part has version ${version}, ${partCount} rows of ${partDim}; expected version ${headOnly ? "" : "1 or "}${VECTOR_PART_VERSION}, ${count} of ${dim}`);
  }
  const layout = vectorLayout(version, dim, count);
  if (bytes.length !== (headOnly ? layout.rowsAt : layout.bytes)) throw new CheckpointRejected("a vector part has the wrong size or magic");
  const docs = readLittleEndian(bytes, layout.docsAt, count, Int32Array);
  const digests = bytes.subarray(layout.digestsAt, layout.digestsAt + count * DIGEST_BYTES);
  const rows = headOnly ? undefined : readLittleEndian(bytes, layout.rowsAt, count * dim, Float32Array);
  if (version === 1) return { docs, digests, rows, rowsAt: layout.rowsAt };
  const crcs = new Uint32Array(memory(4 * count));
  const scales = new Float64Array(memory(8 * count));
  const errors = new Float64Array(memory(8 * count));
  for (let i = 0; i < count; i++) {
    crcs[i] = bytes.readUInt32LE(layout.crcsAt + 4 * i);
    scales[i] = bytes.readDoubleLE(layout.scalesAt + 8 * i);
    errors[i] = bytes.readDoubleLE(layout.errorsAt + 8 * i);
  }
  const codes = new Int8Array(bytes.buffer, bytes.byteOffset + layout.codesAt, dim * count);
  return { docs, digests, rows, crcs, codes: { codes, scales, errors }, rowsAt: layout.rowsAt };
}

/**
 * The rows of a vector part as a RowFile, read where they lie in the file (the index reads rows from it
 * instead of keeping them in memory). Undefined on a big-endian host, whose rows would need swapping: it
 * keeps them in memory. The file is opened now, so it can be read after the checkpoint that named it is
 * replaced and the file removed (Windows too: Node opens files with FILE_SHARE_DELETE). With `crcs` (a
 * version 2 part), every row read is checked against its CRC-32: a damaged one throws DamagedRowError.
 */
export function openVectorRows(file: string, dim: number, count: number, { rowsAt, crcs }: Pick<DecodedVectorPart, "rowsAt" | "crcs">): RowFile | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  const fd = fs.openSync(file, "r");
  const rowBytes = 4 * dim;
  let open = true;
  return {
    read(slot: number, into: Float32Array): void {
      const rows = into.length / dim;
      if (!(Number.isInteger(rows) && rows >= 1 && slot >= 0 && slot + rows <= count)) throw new Error(`rows ${slot} to ${slot + rows} of a vector part of ${count} rows of ${dim} cannot be read into ${into.length} values`);
      const bytes = new Uint8Array(into.buffer, into.byteOffset, into.byteLength);
      for (let done = 0; done < bytes.length; ) {
        const read = fs.readSync(fd, bytes, done, bytes.length - done, rowsAt + slot * rowBytes + done);
        if (read === 0) throw new DamagedRowError(slot, `the vector part ${file} ends before row ${slot + rows} (read ${done} of ${bytes.length} bytes)`);
        done += read;
      }
      if (!crcs) return;
      for (let i = 0; i < rows; i++) {
        if (crc32(bytes.subarray(i * rowBytes, (i + 1) * rowBytes)) !== crcs[slot + i]) throw new DamagedRowError(slot + i, `row ${slot + i} of the vector part ${file} does not match its CRC-32 (damaged)`);
      }
    },
    close(): void {
      if (open) fs.closeSync(fd);
      open = false;
    },
  };
}

function littleEndianBytes(array: Int32Array | Uint32Array | Float32Array): Uint8Array {
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  return LITTLE_ENDIAN ? bytes : swapWords(bytes);
}

type WordArray<T> = { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; new (length: number): T };

// A view when the host is little-endian and the offset aligned (the usual case: no copy of 200 MB of rows).
function readLittleEndian<T extends Int32Array | Float32Array>(bytes: Buffer, at: number, length: number, Type: WordArray<T>): T {
  const aligned = (bytes.byteOffset + at) % 4 === 0;
  if (LITTLE_ENDIAN && aligned) return new Type(bytes.buffer as ArrayBuffer, bytes.byteOffset + at, length);
  const source = bytes.subarray(at, at + 4 * length);
  const copy = new Type(length);
  new Uint8Array(copy.buffer).set(LITTLE_ENDIAN ? source : swapWords(source));
  return copy;
}

function swapWords(bytes: Uint8Array): Uint8Array {
  const swapped = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += 4) {
    swapped[i] = bytes[i + 3];
    swapped[i + 1] = bytes[i + 2];
    swapped[i + 2] = bytes[i + 1];
    swapped[i + 3] = bytes[i];
  }
  return swapped;
}

// Encodings of the checkpoint's record part (chunked JSON lines, doc numbers kept as positions) and vector
// parts (binary: doc numbers, the content hashes the vectors are bound to, f32 unit rows). The BM25 part is
// Bm25Index.serialize's own versioned format.
import fs from "node:fs";
import { CheckpointRejected } from "./checkpoint-format";
import type { RowFile } from "../index/row-pages";
import { isPlainObject, type MemoryRecord } from "./records";
import { plainRecords } from "./text-pages";
import type { ListsImage } from "../index/vector-index";

// Bounded lines keep every string far below V8's string limit however large the store grows.
export const RECORDS_PER_LINE = 2048;
const VECTOR_MAGIC = "DSHVECS\0";
const VECTOR_PART_VERSION = 1;
// magic(8) version dim count reserved (u32 each); a multiple of 4 keeps the f32 rows aligned in the file.
const VECTOR_HEADER_BYTES = 24;
const DIGEST_BYTES = 32;
const HASH_PREFIX = "sha256:";
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** Records by doc number, forgotten docs as null, so positions are the doc numbers. */
export function* encodeRecordPart(records: ReadonlyArray<MemoryRecord | undefined>): Generator<Buffer> {
  for (let start = 0; start < records.length; start += RECORDS_PER_LINE) {
    // Texts read back are read a run at a time, not one by one through each record's toJSON.
    const chunk = plainRecords(records.slice(start, start + RECORDS_PER_LINE));
    yield Buffer.from(JSON.stringify(chunk) + "\n", "utf8");
  }
}

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

  private shareValue(value: unknown): unknown {
    // Strings of up to 10 characters JSON.parse shares already.
    if (typeof value === "string") return value.length > 10 ? this.share(value) : value;
    if (typeof value !== "object" || value === null) return value;
    const key = JSON.stringify(value);
    // A large value is left as it is: its key would cost more than sharing it saves.
    if (key.length > SHARED_VALUE_MAX_CHARS) return value;
    const held = this.objects.get(key);
    if (held !== undefined) return held;
    const inner = value as Record<string, unknown>;
    for (const name of Object.keys(inner)) inner[name] = this.shareValue(inner[name]);
    if (this.objects.size >= SHARED_VALUES_HELD) this.objects.clear();
    this.objects.set(key, Object.freeze(value));
    return value;
  }
}

const SHARED_VALUES_HELD = 1 << 14;
const SHARED_VALUE_MAX_CHARS = 1024;

export function decodeRecordPart(bytes: Buffer, docs: number, shared = new SharedValues()): Array<MemoryRecord | undefined> {
  const records: Array<MemoryRecord | undefined> = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(0x0a, start);
    if (end === -1) throw new CheckpointRejected("the record part does not end with a newline");
    const chunk: unknown = JSON.parse(bytes.toString("utf8", start, end));
    if (!Array.isArray(chunk)) throw new CheckpointRejected("the record part holds a line that is not an array");
    for (const item of chunk) {
      if (item !== null && !isRecordShape(item)) throw new CheckpointRejected(`the record part holds a malformed record at doc ${records.length}`);
      if (item !== null) {
        item.scope = shared.share(item.scope);
        if (typeof item.source_type === "string") item.source_type = shared.share(item.source_type) as MemoryRecord["source_type"];
        if (item.session_id !== undefined) item.session_id = shared.share(item.session_id);
        if (isPlainObject(item.metadata)) item.metadata = shared.metadata(item.metadata);
      }
      records.push(item ?? undefined);
    }
    start = end + 1;
  }
  if (records.length !== docs) throw new CheckpointRejected(`the record part holds ${records.length} docs; the manifest says ${docs}`);
  return records;
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
  /** Content hash of each row's record at the time its vector was stored. */
  hashes: string[];
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

/** `rows` may come in runs (views of the index's memory), written one after another. */
export function encodeVectorPart(dim: number, { docs, hashes, rows }: Omit<VectorRows, "rows"> & { rows: Float32Array | readonly Float32Array[] }): Uint8Array[] {
  const header = Buffer.alloc(VECTOR_HEADER_BYTES);
  header.write(VECTOR_MAGIC, 0, "latin1");
  [VECTOR_PART_VERSION, dim, docs.length, 0].forEach((value, i) => header.writeUInt32LE(value, 8 + 4 * i));
  const digests = Buffer.alloc(docs.length * DIGEST_BYTES);
  hashes.forEach((hash, i) => {
    if (!/^sha256:[0-9a-f]{64}$/.test(hash)) throw new Error(`vector of doc ${docs[i]} is bound to an unexpected content hash ${JSON.stringify(hash)}`);
    digests.write(hash.slice(HASH_PREFIX.length), i * DIGEST_BYTES, "hex");
  });
  return [header, littleEndianBytes(docs), digests, ...(Array.isArray(rows) ? rows : [rows]).map(littleEndianBytes)];
}

/** A decoded vector part: the content hashes as their 32-byte digests, compared with boundTo (no string per doc). */
export interface DecodedVectorPart {
  docs: Int32Array;
  digests: Buffer;
  rows: Float32Array;
}

/** Whether row i of a decoded part is bound to `contentHash` ("sha256:" and 64 lowercase hex digits). */
export function boundTo(part: DecodedVectorPart, i: number, contentHash: string): boolean {
  if (contentHash.length !== HASH_PREFIX.length + 2 * DIGEST_BYTES || !contentHash.startsWith(HASH_PREFIX)) return false;
  const at = i * DIGEST_BYTES;
  for (let j = 0; j < DIGEST_BYTES; j++) {
    const high = hexValue(contentHash.charCodeAt(HASH_PREFIX.length + 2 * j));
    const low = hexValue(contentHash.charCodeAt(HASH_PREFIX.length + 2 * j + 1));
    if (high < 0 || low < 0 || part.digests[at + j] !== high * 16 + low) return false;
  }
  return true;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

export function decodeVectorPart(bytes: Buffer, dim: number, count: number): DecodedVectorPart {
  const expected = VECTOR_HEADER_BYTES + count * (4 + DIGEST_BYTES + 4 * dim);
  if (bytes.length !== expected || bytes.toString("latin1", 0, 8) !== VECTOR_MAGIC) throw new CheckpointRejected("a vector part has the wrong size or magic");
  const [version, partDim, partCount] = [8, 12, 16].map((at) => bytes.readUInt32LE(at));
  if (version !== VECTOR_PART_VERSION || partDim !== dim || partCount !== count) {
    throw new CheckpointRejected(`a vector part has version ${version}, ${partCount} rows of ${partDim}; expected version ${VECTOR_PART_VERSION}, ${count} of ${dim}`);
  }
  const docs = readLittleEndian(bytes, VECTOR_HEADER_BYTES, count, Int32Array);
  const digestsAt = VECTOR_HEADER_BYTES + 4 * count;
  const digests = bytes.subarray(digestsAt, digestsAt + count * DIGEST_BYTES);
  const rows = readLittleEndian(bytes, digestsAt + count * DIGEST_BYTES, count * dim, Float32Array);
  return { docs, digests, rows };
}

/**
 * The rows of a vector part as a RowFile, read where they lie in the file (the index reads rows from it
 * instead of keeping them in memory). Undefined on a big-endian host, whose rows would need swapping: it
 * keeps them in memory. The file is opened now, so it can be read after the checkpoint that named it is
 * replaced and the file removed (Windows too: Node opens files with FILE_SHARE_DELETE).
 */
export function openVectorRows(file: string, dim: number, count: number): RowFile | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  const fd = fs.openSync(file, "r");
  const rowsAt = VECTOR_HEADER_BYTES + count * (4 + DIGEST_BYTES);
  const rowBytes = 4 * dim;
  let open = true;
  return {
    read(slot: number, into: Float32Array): void {
      const rows = into.length / dim;
      if (!(Number.isInteger(rows) && rows >= 1 && slot >= 0 && slot + rows <= count)) throw new Error(`rows ${slot} to ${slot + rows} of a vector part of ${count} rows of ${dim} cannot be read into ${into.length} values`);
      const bytes = new Uint8Array(into.buffer, into.byteOffset, into.byteLength);
      for (let done = 0; done < bytes.length; ) {
        const read = fs.readSync(fd, bytes, done, bytes.length - done, rowsAt + slot * rowBytes + done);
        if (read === 0) throw new Error(`the vector part ${file} ends before row ${slot + rows} (read ${done} of ${bytes.length} bytes)`);
        done += read;
      }
    },
    close(): void {
      if (open) fs.closeSync(fd);
      open = false;
    },
  };
}

function littleEndianBytes(array: Int32Array | Float32Array): Uint8Array {
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

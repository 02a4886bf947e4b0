// Where the text of a large store's records lives. A record written since the last checkpoint keeps its
// text in memory; once a checkpoint's record part holds it, the record is replaced by a paged one whose
// `text` is read back from that part (one positioned read of the JSON string) when something asks for it:
// a search's results and the candidates it inspects, a view, an export. Everything else a record holds
// (id, source, time, scope, session, tags, metadata, hash) stays in memory, and so do the indexes built from
// the text (BM25, statements), so a search reads only the texts it shows or checks. A record paged as a
// checkpoint is opened keeps its content hash here as 32 bytes (HASH_KEPT), not as a string of its own.
import fs from "node:fs";
import { grownCapacity, withHeadroom } from "../index/capacity";
import { copyDigest, DIGEST_BYTES, HASH_CHARS, HASH_PREFIX, hashMatchesDigest, hashOfDigest, sameDigest, writeDigest, writeDigestFromHex } from "./content-digests";
import type { MemoryRecord } from "./records";

const DOC = Symbol("doc");
const PAGES = Symbol("pages");
/** On the prototype of paged records whose content hash is kept as bytes by their TextPages. */
const HASH_KEPT = Symbol("hash kept");
const QUOTE = 0x22;
// readMany reads texts in one read while the bytes between them (a record's other fields) stay under this,
// up to RUN_BYTES at once.
const RUN_GAP_BYTES = 16 * 1024;
const RUN_BYTES = 4 * 1024 * 1024;
const BACKSLASH = 0x5c;

/** Byte ranges of each record's text in a record part (the JSON string, quotes included); -1 for a forgotten doc. */
export interface TextRanges {
  start: Float64Array;
  end: Float64Array;
  /**
   * With findTexts' `hashes`: where each record's content hash ("sha256:" and 64 lowercase hex digits, the
   * value of its own "content_hash" key) has its first hex digit; -1 for a forgotten doc or another value.
   */
  hashAt?: Float64Array;
}

/** A record part on disk: `records[i]` is doc `from + i`, and its text lies at `ranges` in `file`. */
export interface TextPart {
  file: string;
  from: number;
  records: ReadonlyArray<MemoryRecord | undefined>;
  ranges: TextRanges;
}

type PagedRecord = MemoryRecord & { [DOC]: number; [PAGES]: TextPages; [HASH_KEPT]?: true };

/** Whether `record`'s text is read back from a file. */
export function isPaged(record: MemoryRecord): boolean {
  return (record as Partial<PagedRecord>)[PAGES] !== undefined;
}

/**
 * `record` as a plain object with its text in memory (the same object when it is one): for a copy that must
 * outlive the store's files (a compaction's new state), or a spread that would leave a paged text behind.
 */
export function plainRecord(record: MemoryRecord): MemoryRecord {
  return isPaged(record) ? withText(record, record.text) : record;
}

/**
 * plainRecord for many records (forgotten docs as null), the texts of paged ones read in runs: a
 * checkpoint rewriting a segment reads its 4,096 texts in a few reads, not 4,096.
 */
export function plainRecords(records: ReadonlyArray<MemoryRecord | undefined>): Array<MemoryRecord | null> {
  const texts: Array<string | undefined> = new Array(records.length);
  let pages: TextPages | undefined;
  const docs: number[] = [];
  const at: number[] = [];
  records.forEach((record, i) => {
    const paged = record as Partial<PagedRecord> | undefined;
    if (!paged?.[PAGES] || (pages !== undefined && paged[PAGES] !== pages)) return;
    pages = paged[PAGES];
    docs.push(paged[DOC]!);
    at.push(i);
  });
  pages?.readMany(docs).forEach((text, j) => (texts[at[j]] = text));
  return records.map((record, i) => (record === undefined ? null : isPaged(record) ? withText(record, texts[i] ?? record.text) : record));
}

function withText(record: MemoryRecord, text: string): MemoryRecord {
  const plain: Record<string, unknown> = {};
  const hashKept = (record as Partial<PagedRecord>)[HASH_KEPT] === true;
  // The text goes where records have it, after the id, and a hash kept as bytes after the metadata
  // (validateRecordInput's order), so the JSON is unchanged.
  for (const [key, value] of Object.entries(record)) {
    plain[key] = value;
    if (key === "id") plain.text = text;
    if (key === "metadata" && hashKept) plain.content_hash = record.content_hash;
  }
  if (hashKept && plain.content_hash === undefined) plain.content_hash = record.content_hash;
  return plain as unknown as MemoryRecord;
}

/** Writes `record`'s content hash as its 32 bytes at `into[at]`; false if it is not "sha256:" and 64 hex digits. */
export function writeContentDigest(record: MemoryRecord, into: Uint8Array, at: number): boolean {
  const paged = record as Partial<PagedRecord>;
  if (paged[HASH_KEPT] !== true) return writeDigest(record.content_hash, into, at);
  paged[PAGES]!.copyDigest(paged[DOC]!, into, at);
  return true;
}

/**
 * Whether `record`'s content hash is the one whose digest lies at `digests[at, at + 32)`, making no string
 * (a vector's binding, checked for every vector at an open and by scans of every doc).
 */
export function contentDigestIs(record: MemoryRecord, digests: Uint8Array, at: number): boolean {
  const paged = record as Partial<PagedRecord>;
  return paged[HASH_KEPT] === true ? paged[PAGES]!.digestIs(paged[DOC]!, digests, at) : hashMatchesDigest(record.content_hash, digests, at);
}

/** The length of `record.text` in UTF-16 code units, without reading a paged text back. */
export function textLength(record: MemoryRecord): number {
  const paged = record as Partial<PagedRecord>;
  return paged[PAGES] ? paged[PAGES].length(paged[DOC]!) : record.text.length;
}

/**
 * Finds the text of each record in a record part (chunked JSON arrays of record objects or null, as
 * encodeRecordPart writes them): the string value of each object's own "text" key. `count` records are
 * expected; the part's JSON must already have been checked (decodeRecordPart). With `hashes`, also where
 * each one's content hash lies (TextRanges.hashAt).
 */
export function findTexts(bytes: Uint8Array, count: number, { hashes = false } = {}): TextRanges {
  const start = new Float64Array(count).fill(-1);
  const end = new Float64Array(count).fill(-1);
  const hashAt = hashes ? new Float64Array(count).fill(-1) : undefined;
  const isObject = new Uint8Array(count);
  let item = -1;
  let depth = 0;
  let keyNext = false;
  for (let at = 0; at < bytes.length; ) {
    const c = bytes[at];
    if (c === QUOTE) {
      const close = stringEnd(bytes, at);
      const isKey = depth === 2 && keyNext;
      const isTextKey = isKey && close - at === 5 && bytes[at + 1] === 0x74 && bytes[at + 2] === 0x65 && bytes[at + 3] === 0x78 && bytes[at + 4] === 0x74;
      const isHashKey = hashAt !== undefined && isKey && close - at === HASH_KEY.length - 1 && equalBytes(bytes, at, HASH_KEY);
      keyNext = false;
      at = close + 1;
      if (isTextKey && bytes[at] === 0x3a && bytes[at + 1] === QUOTE && item >= 0 && item < count) {
        const valueEnd = stringEnd(bytes, at + 1);
        start[item] = at + 1;
        end[item] = valueEnd + 1;
        at = valueEnd + 1;
      } else if (isHashKey && bytes[at] === 0x3a && item >= 0 && item < count && isContentHashAt(bytes, at + 1)) {
        hashAt[item] = at + 2 + HASH_PREFIX.length;
        at += 2 + HASH_CHARS + 1;
      }
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth === 2 && ++item < count) isObject[item] = 1;
      keyNext = c === 0x7b && depth === 2;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      keyNext = false;
    } else if (c === 0x2c) {
      keyNext = depth === 2;
    } else if (c === 0x6e && depth === 1) {
      // null: a forgotten doc
      item++;
      at += 4;
      continue;
    } else {
      keyNext = false;
    }
    at++;
  }
  if (item + 1 !== count) throw new Error(`the record part holds ${item + 1} records; ${count} were expected`);
  for (let i = 0; i < count; i++) if (isObject[i] === 1 && start[i] === -1) throw new Error(`record ${i} of the part has no text`);
  return hashAt ? { start, end, hashAt } : { start, end };
}

/** `"content_hash"`, quotes included, as UTF-8. */
const HASH_KEY = Buffer.from(JSON.stringify("content_hash"));
const HASH_PREFIX_BYTES = Buffer.from(HASH_PREFIX);

function equalBytes(bytes: Uint8Array, at: number, expected: Uint8Array): boolean {
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

/** Whether a JSON string at `at` is a content hash: "sha256:" and 64 lowercase hex digits, quotes around. */
function isContentHashAt(bytes: Uint8Array, at: number): boolean {
  if (bytes[at] !== QUOTE || bytes[at + 1 + HASH_CHARS] !== QUOTE || !equalBytes(bytes, at + 1, HASH_PREFIX_BYTES)) return false;
  for (let i = at + 1 + HASH_PREFIX.length, last = at + 1 + HASH_CHARS; i < last; i++) {
    const c = bytes[i];
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/**
 * The UTF-16 length of the string a JSON string literal at bytes [start, end) (quotes included, UTF-8, as
 * JSON.stringify writes it) stands for, without decoding it: an escape is one unit (a surrogate pair is
 * written as two \u escapes), a UTF-8 sequence of four bytes two, any other one.
 */
export function jsonStringUnits(bytes: Uint8Array, start: number, end: number): number {
  let units = 0;
  for (let i = start + 1, last = end - 1; i < last; units++) {
    const c = bytes[i];
    if (c < 0x80) i += c === BACKSLASH ? (bytes[i + 1] === 0x75 ? 6 : 2) : 1;
    else if (c < 0xe0) i += 2;
    else if (c < 0xf0) i += 3;
    else {
      i += 4;
      units++;
    }
  }
  return units;
}

/** The index of the quote that closes the JSON string opening at `open`. */
function stringEnd(bytes: Uint8Array, open: number): number {
  for (let from = open + 1; ; ) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote === -1) throw new Error("a string in the record part does not end");
    let escapes = 0;
    while (bytes[quote - 1 - escapes] === BACKSLASH) escapes++;
    if (escapes % 2 === 0) return quote;
    from = quote + 1;
  }
}

// where[doc]: NOT_PAGED, the id of the file its text is read from, or minus that id once released (still
// readable until the file closes, not counted).
const NOT_PAGED = 0;

/** What a paging of texts (MemoryState.pageTexts) yields once its new parts are open and the old ones let go. */
export const TEXTS_OPENED = "texts-opened";

/** The record texts of one store state that are read back from checkpoint parts. */
export class TextPages {
  private where = new Int32Array(0);
  private start = new Float64Array(0);
  private bytes = new Int32Array(0);
  private chars = new Int32Array(0);
  /** By doc, the content hash's digest of a record paged with HASH_KEPT (adopt's `hashes`). */
  private digests = new Uint8Array(0);
  private readonly files = new Map<number, number>();
  /** Per file id, how many docs read their text from it (a doc released or moved no longer counts). */
  private readonly refs = new Map<number, number>();
  /** The sum of refs: docs paged now. */
  private counted = 0;
  private nextFile = 1;
  private scratch = Buffer.alloc(64 * 1024);
  private readonly proto: object;
  /**
   * Makes the paged records: an object made by a constructor keeps the fields assigned to it in its own
   * slots, where one from Object.create(proto) put all but four in a separate array (~40 bytes a record).
   */
  private readonly Paged: new () => Record<string | symbol, unknown>;
  /** Makes paged records whose content hash is kept in `digests`, not in a string of their own. */
  private readonly PagedKeepingHash: new () => Record<string | symbol, unknown>;
  /** Whether any text was ever paged (a state once paged keeps paging whatever its size). */
  active = false;
  disposed = false;
  /** Texts read back so far (the benchmarks count them per search). */
  reads = 0;

  constructor() {
    const pages = this;
    this.proto = Object.create(Object.prototype, {
      text: {
        get(this: PagedRecord): string {
          return pages.read(this[DOC]);
        },
      },
      [PAGES]: { value: this },
      // JSON.stringify(record) (a checkpoint's part, a journal line) writes the text where it always was.
      toJSON: {
        value(this: PagedRecord) {
          return plainRecord(this);
        },
      },
    });
    const Paged = function () {} as unknown as new () => Record<string | symbol, unknown>;
    Paged.prototype = this.proto;
    this.Paged = Paged;
    const PagedKeepingHash = function () {} as unknown as new () => Record<string | symbol, unknown>;
    PagedKeepingHash.prototype = Object.create(this.proto, {
      content_hash: {
        get(this: PagedRecord): string {
          return pages.contentHash(this[DOC]);
        },
      },
      [HASH_KEPT]: { value: true },
    });
    this.PagedKeepingHash = PagedKeepingHash;
  }

  /**
   * Has the records of `part` that are paged already (and that `current` still returns) read their texts
   * from its file from now on: cheap, so a checkpoint does it at its commit, before the old parts go. Returns
   * the file's id for swap(), or undefined, changing nothing, when the file cannot be opened (out of file
   * handles): the texts then stay where they are.
   */
  open(part: TextPart, current: (doc: number) => MemoryRecord | undefined): number | undefined {
    const id = this.openFile(part.file, part.from + part.records.length);
    // None paged yet (the first paging: a million records at 1M): nothing to move.
    if (id === undefined || this.counted === 0) return id;
    part.records.forEach((record, i) => {
      const doc = part.from + i;
      if (record === undefined || current(doc) !== record || part.ranges.start[i] < 0 || !isPaged(record)) return;
      // A record already paged reads the new place through its doc number: it stays as it is.
      this.locate(doc, id, part, i, this.chars[doc]);
    });
    return id;
  }

  /**
   * The records of a part being opened, paged at once (each record's text is dropped as soon as its line
   * is done, so the texts of a large store are never all in the heap, nor leave it fragmented). `chars[i]`
   * is the UTF-16 length of record i's text when the records were decoded without their texts
   * (decodeRecordPart's `elide`). With `hashes` (the part's bytes), the records whose content hash
   * `part.ranges.hashAt` places were decoded without it: it is kept here as bytes (32 a doc, where its string
   * took 88 in the heap). Undefined, opening nothing, when the file cannot be opened: the texts then stay in
   * memory (decoded, if they were elided).
   */
  adopt(part: TextPart, chars?: Int32Array, hashes?: Uint8Array): Array<MemoryRecord | undefined> | undefined {
    const id = this.openFile(part.file, part.from + part.records.length);
    if (id === undefined) return undefined;
    if (hashes && part.ranges.hashAt) this.reserveDigests();
    return part.records.map((record, i) => {
      if (record === undefined || part.ranges.start[i] < 0) return record;
      const keep = this.place(id, part, i, chars ? chars[i] : record.text.length, hashes);
      return this.paged(record, part.from + i, keep);
    });
  }

  /**
   * adopt() for records made elsewhere rather than copied from decoded ones (record-heads.ts): `make` calls
   * `made(i, record)` with each record i the part holds, its fields and its doc number under `doc.key` (the
   * doc last, as paged() sets it) in it, and that record becomes a paged one (its prototype set): its text is
   * read from the part, and its content hash, where `part.ranges.hashAt` places it in `hashes`, kept as bytes.
   * No copy of each record (a million at an open). Undefined, making nothing, when the file cannot be opened.
   */
  adoptMade(
    part: { file: string; from: number; count: number; ranges: TextRanges },
    chars: Int32Array,
    hashes: Uint8Array,
    make: (made: (i: number, record: Record<string | symbol, unknown>) => void, doc: { key: symbol; from: number }) => void,
  ): Array<MemoryRecord | undefined> | undefined {
    const id = this.openFile(part.file, part.from + part.count);
    if (id === undefined) return undefined;
    if (part.ranges.hashAt) this.reserveDigests();
    const records: Array<Record<string | symbol, unknown> | undefined> = new Array(part.count).fill(undefined);
    const [keeping, plain] = [this.PagedKeepingHash.prototype as object, this.Paged.prototype as object];
    make(
      (i, record) => {
        if (record[DOC] !== part.from + i) throw new Error(`text pages: record ${i} of a part from doc ${part.from} was made with doc ${String(record[DOC])}`);
        records[i] = Object.setPrototypeOf(record, this.place(id, part, i, chars[i], hashes) ? keeping : plain) as Record<string | symbol, unknown>;
      },
      { key: DOC, from: part.from },
    );
    return records as unknown as Array<MemoryRecord | undefined>;
  }

  /**
   * Replaces, through `replace`, each record of `part` that still has its text in memory (and that `current`
   * still returns) by one that reads it from file `id` (from open()). A new object a record: a checkpoint
   * does this in steps after its commit.
   */
  swap(id: number, part: TextPart, current: (doc: number) => MemoryRecord | undefined, replace: (doc: number, record: MemoryRecord) => void, from = 0, to = part.records.length): void {
    if (!this.files.has(id)) return;
    for (let i = from; i < to; i++) {
      const record = part.records[i];
      const doc = part.from + i;
      if (record === undefined || current(doc) !== record || part.ranges.start[i] < 0 || isPaged(record)) continue;
      this.locate(doc, id, part, i, record.text.length);
      replace(doc, this.paged(record, doc));
    }
  }

  /**
   * Doc's record is gone or replaced by one with its text in memory: its file no longer counts it. The
   * place stays readable (as -id) until the file is closed at a settle: a checkpoint under way may hold the
   * paged record and write its text.
   */
  release(doc: number): void {
    if (doc >= this.where.length || this.where[doc] <= NOT_PAGED) return;
    this.unref(this.where[doc]);
    this.where[doc] = -this.where[doc];
  }

  /**
   * Closes the files no record reads any more (their docs released), except `pending` (opened, not swapped
   * yet). Paged records held elsewhere must not be read after this. Counts, not a scan: a commit at 1M
   * must not visit every doc.
   */
  settle(pending: ReadonlySet<number> = new Set()): void {
    for (const [id, fd] of this.files) {
      if (pending.has(id) || (this.refs.get(id) ?? 0) > 0) continue;
      this.files.delete(id);
      this.refs.delete(id);
      fs.closeSync(fd);
    }
  }

  /** How many files texts are read from. */
  get openFiles(): number {
    return this.files.size;
  }

  /** Closes every file: the paged records of this state can no longer be read. */
  dispose(): void {
    for (const fd of this.files.values()) fs.closeSync(fd);
    this.files.clear();
    this.refs.clear();
    this.counted = 0;
    this.where = new Int32Array(0);
    this.disposed = true;
  }

  /** The content hash of a doc paged with HASH_KEPT. */
  contentHash(doc: number): string {
    return hashOfDigest(this.digests, doc * DIGEST_BYTES);
  }

  /** Copies the content hash's digest of a doc paged with HASH_KEPT to `into[at]`. */
  copyDigest(doc: number, into: Uint8Array, at: number): void {
    copyDigest(this.digests, doc * DIGEST_BYTES, into, at);
  }

  /** Whether the content hash of a doc paged with HASH_KEPT has the digest at `digests[at, at + 32)`. */
  digestIs(doc: number, digests: Uint8Array, at: number): boolean {
    return sameDigest(this.digests, doc * DIGEST_BYTES, digests, at);
  }

  /** The UTF-16 length of a paged doc's text. */
  length(doc: number): number {
    return this.chars[doc];
  }

  /** A paged doc's text, read from its file. */
  read(doc: number): string {
    return this.readMany([doc])[0];
  }

  /**
   * The texts of `docs`, in order. Texts that lie one after another in a file (a part's records, in doc
   * order) are read with one read per run of up to RUN_BYTES.
   */
  readMany(docs: readonly number[]): string[] {
    const texts: string[] = new Array(docs.length);
    for (let i = 0; i < docs.length; ) {
      const first = docs[i];
      const id = first < this.where.length ? Math.abs(this.where[first]) : NOT_PAGED;
      const fd = this.files.get(id);
      if (fd === undefined) throw new Error(`the text of doc ${first} is no longer readable (its checkpoint part was let go)`);
      const from = this.start[first];
      let end = from + this.bytes[first];
      let next = i + 1;
      for (; next < docs.length; next++) {
        const doc = docs[next];
        if (Math.abs(this.where[doc]) !== id || this.start[doc] < end || this.start[doc] - end > RUN_GAP_BYTES || this.start[doc] + this.bytes[doc] - from > RUN_BYTES) break;
        end = this.start[doc] + this.bytes[doc];
      }
      const size = end - from;
      if (size > this.scratch.length) this.scratch = Buffer.alloc(Math.max(size, 2 * this.scratch.length));
      for (let done = 0; done < size; ) {
        const read = fs.readSync(fd, this.scratch, done, size - done, from + done);
        if (read === 0) throw new Error(`the checkpoint part holding the text of doc ${first} ends before it (read ${done} of ${size} bytes)`);
        done += read;
      }
      for (let k = i; k < next; k++) {
        const at = this.start[docs[k]] - from;
        const text: unknown = JSON.parse(this.scratch.toString("utf8", at, at + this.bytes[docs[k]]));
        if (typeof text !== "string") throw new Error(`the checkpoint part holding the text of doc ${docs[k]} has no string where the text was`);
        texts[k] = text;
      }
      this.reads += next - i;
      i = next;
    }
    return texts;
  }

  private openFile(file: string, end: number): number | undefined {
    if (this.disposed) return undefined;
    let fd: number;
    try {
      fd = fs.openSync(file, "r");
    } catch {
      return undefined;
    }
    const id = this.nextFile++;
    this.files.set(id, fd);
    this.active = true;
    this.reserve(end);
    return id;
  }

  private locate(doc: number, id: number, part: Pick<TextPart, "ranges">, i: number, chars: number): void {
    if (this.where[doc] > NOT_PAGED) this.unref(this.where[doc]);
    this.refs.set(id, (this.refs.get(id) ?? 0) + 1);
    this.counted++;
    this.where[doc] = id;
    this.start[doc] = part.ranges.start[i];
    this.bytes[doc] = part.ranges.end[i] - part.ranges.start[i];
    this.chars[doc] = chars;
  }

  private unref(id: number): void {
    this.refs.set(id, (this.refs.get(id) ?? 1) - 1);
    this.counted--;
  }

  /**
   * Has record i of `part` read its text from file `id`, and keeps its content hash as bytes when
   * `part.ranges.hashAt` places it in `hashes` (the part's bytes); returns whether it does.
   */
  private place(id: number, part: Pick<TextPart, "from" | "ranges">, i: number, chars: number, hashes?: Uint8Array): boolean {
    const doc = part.from + i;
    this.locate(doc, id, part, i, chars);
    const at = hashes ? (part.ranges.hashAt?.[i] ?? -1) : -1;
    if (at >= 0 && !writeDigestFromHex(hashes!, at, this.digests, doc * DIGEST_BYTES)) throw new Error(`the content hash of doc ${doc} is not 64 hex digits`);
    return at >= 0;
  }

  private paged(record: MemoryRecord, doc: number, hashKept = false): MemoryRecord {
    const paged = hashKept ? new this.PagedKeepingHash() : new this.Paged();
    // for...in, not Object.entries: no array a field (a million records paged at an open made ~8M of them,
    // ~0.3 s of collections). A record is a plain object: its prototype has nothing enumerable.
    const fields = record as unknown as Record<string, unknown>;
    for (const key in fields) if (key !== "text" && (!hashKept || key !== "content_hash")) paged[key] = fields[key];
    paged[DOC] = doc;
    return paged as unknown as MemoryRecord;
  }

  /**
   * Room for docs below `docs` (an eighth more), so that opening or paging a million records does not grow
   * the per-doc arrays a part at a time: the last doubling alone copied ~10 MB into ~20 MB of fresh pages in
   * one step. Fresh arrays are only address space until written.
   */
  reserve(docs: number): void {
    if (docs <= this.where.length) return;
    const size = this.where.length === 0 ? withHeadroom(docs) : grownCapacity(this.where.length, docs);
    const grow = <T extends Int32Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const grown = make(size);
      grown.set(old);
      return grown;
    };
    this.where = grow(this.where, (n) => new Int32Array(n));
    this.start = grow(this.start, (n) => new Float64Array(n));
    this.bytes = grow(this.bytes, (n) => new Int32Array(n));
    this.chars = grow(this.chars, (n) => new Int32Array(n));
    // Only once a hash is kept: a store that never opened from a checkpoint keeps none.
    if (this.digests.length > 0) this.reserveDigests();
  }

  private reserveDigests(): void {
    if (this.digests.length >= this.where.length * DIGEST_BYTES) return;
    const digests = new Uint8Array(this.where.length * DIGEST_BYTES);
    digests.set(this.digests);
    this.digests = digests;
  }
}

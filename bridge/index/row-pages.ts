// Where a vector index keeps its f32 unit rows. A row written since the last checkpoint lives in memory, in
// pages of PAGE_ROWS docs; a row a checkpoint holds is read back from that checkpoint's file when a search
// re-scores it (a few dozen rows a search), so the rows of a large store do not all stay in RAM.
// The int8 codes that bound every score stay in memory (quantize.ts): only exact scores read rows.

/** A file of rows of one index's dimension, row `slot` at a fixed place. */
export interface RowFile {
  /**
   * Reads the rows from `slot` on into `into` (a whole number of rows of the index's dimension). Throws
   * DamagedRowError when a row is not what was written (its checksum, or the file cut short).
   */
  read(slot: number, into: Float32Array): void;
  close(): void;
}

/** A row read back from a file is not what was written there; `slot` is its row in the file. */
export class DamagedRowError extends Error {
  constructor(
    readonly slot: number,
    message: string,
  ) {
    super(message);
    this.name = "DamagedRowError";
  }
}

// Small pages: after an open every row is in a file, and the first row stored in a page lies anywhere in it.
// A page covers its rows from the first, so pages of 4,096 rows made that add allocate (and the allocator
// zero) up to 8 MB at 512-d: an add of ~110 ms at 1M.
const PAGE_ROWS = 256;
// A page grows by doubling from this many rows, so a small index of wide vectors (3,072-d: 48 MiB a full
// page) takes about what its rows need.
const MIN_PAGE_ROWS = 64;
// where[doc]: no row, a row in memory, or (FIRST_FILE and up) the id of the file that holds it.
const NO_ROW = 0;
const IN_MEMORY = 1;
const FIRST_FILE = 2;

export class RowPages {
  private pages: Array<Float32Array | undefined> = [];
  private where = new Int32Array(0);
  private slot = new Int32Array(0);
  private files = new Map<number, RowFile>();
  private nextFile = FIRST_FILE;
  private readonly scratch: Float32Array;
  // Counts kept as rows move, so that settle() looks only at the docs released since the last one: a pass
  // over every doc was ~40 ms, and most of a checkpoint's commit step, at 1M. Rows in memory by page, docs
  // reading each file by id (ids are never reused: a few hundred at an open, a few a checkpoint).
  private inMemory = new Int32Array(0);
  private readers = new Int32Array(FIRST_FILE);
  private released: number[] = [];

  constructor(private readonly dim: number) {
    this.scratch = new Float32Array(dim);
  }

  reserve(rows: number): void {
    if (rows <= this.where.length) return;
    const where = new Int32Array(rows);
    where.set(this.where);
    this.where = where;
    const slot = new Int32Array(rows);
    slot.set(this.slot);
    this.slot = slot;
    const inMemory = new Int32Array(Math.ceil(rows / PAGE_ROWS));
    inMemory.set(this.inMemory);
    this.inMemory = inMemory;
  }

  has(doc: number): boolean {
    return doc >= 0 && doc < this.where.length && this.where[doc] !== NO_ROW;
  }

  /** Stores `row` (dim values) as doc's row in memory; returns the stored copy, valid until the next write. */
  write(doc: number, row: Float32Array | Float64Array): Float32Array {
    const dim = this.dim;
    const page = Math.floor(doc / PAGE_ROWS);
    const at = (doc - page * PAGE_ROWS) * dim;
    let memory = this.pages[page];
    if (memory === undefined || memory.length < at + dim) {
      const grown = new Float32Array(Math.min(PAGE_ROWS * dim, Math.max(at + dim, 2 * (memory?.length ?? 0), MIN_PAGE_ROWS * dim)));
      if (memory) grown.set(memory);
      this.pages[page] = memory = grown;
    }
    memory.set(row, at);
    this.move(doc, IN_MEMORY);
    return memory.subarray(at, at + dim);
  }

  /** Doc has no row from now on (a load that failed, a row damaged); settle() frees the memory. */
  forget(doc: number): void {
    if (this.has(doc)) this.move(doc, NO_ROW);
  }

  /**
   * Doc is no longer live: its row is dropped at the next settle() unless it is live again by then (rows are
   * read until then: a checkpoint under way writes the docs live at its first step).
   */
  release(doc: number): void {
    if (this.has(doc)) this.released.push(doc);
  }

  /**
   * Doc's row: a view of memory, or read from its file into a scratch row that the next row() call reuses.
   * Throws for a doc without a row.
   */
  row(doc: number): Float32Array {
    const where = doc >= 0 && doc < this.where.length ? this.where[doc] : NO_ROW;
    if (where === IN_MEMORY) {
      const page = Math.floor(doc / PAGE_ROWS);
      const at = (doc - page * PAGE_ROWS) * this.dim;
      return this.pages[page]!.subarray(at, at + this.dim);
    }
    const file = this.files.get(where);
    if (!file) throw new Error(`doc ${doc} has no stored row`);
    file.read(this.slot[doc], this.scratch);
    return this.scratch;
  }

  /**
   * Copies the rows of `docs` into `out`, joined in order; consecutive rows of one file are read at once (a
   * checkpoint rewriting a segment reads its 4,096 rows in a handful of reads). Throws for a doc without a row.
   */
  readRows(docs: Int32Array, out: Float32Array): void {
    const dim = this.dim;
    for (let i = 0; i < docs.length; ) {
      const doc = docs[i];
      const where = this.has(doc) ? this.where[doc] : NO_ROW;
      if (where !== IN_MEMORY && where !== NO_ROW) {
        let run = 1;
        while (i + run < docs.length && this.has(docs[i + run]) && this.where[docs[i + run]] === where && this.slot[docs[i + run]] === this.slot[doc] + run) run++;
        this.files.get(where)!.read(this.slot[doc], out.subarray(i * dim, (i + run) * dim));
        i += run;
      } else {
        out.set(this.row(doc), i * dim);
        i++;
      }
    }
  }

  /**
   * Reads rows from `file` from now on: row `slot` of it is the row of docs[slot], which must equal what
   * this index holds for that doc (the caller wrote the file from it). Docs without a row are skipped. The
   * memory and the files that no live doc needs any more are let go by settle(). Without `inMemoryToo`, only
   * docs read from a file move (a row written since the file was may be one of those in memory).
   */
  page(file: RowFile, docs: Int32Array, inMemoryToo = true): void {
    const id = this.nextFile++;
    this.files.set(id, file);
    // Docs come in increasing order: the pages touched are runs (a Set of them cost ~17 ms a commit at 1M).
    const touched: number[] = [];
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i];
      if (!this.has(doc) || (!inMemoryToo && this.where[doc] === IN_MEMORY)) continue;
      this.move(doc, id);
      this.slot[doc] = i;
      const page = Math.floor(doc / PAGE_ROWS);
      if (touched[touched.length - 1] !== page) touched.push(page);
    }
    // A page none of whose rows is in memory any more goes now (a store being opened pages a part at a time).
    for (const page of touched) if (this.inMemory[page] === 0) this.pages[page] = undefined;
  }

  /** Rows of docs loaded from `file` that were never in memory (an open): row i of it is the row of docs[i]. */
  attach(file: RowFile, docs: Int32Array): void {
    const id = this.nextFile++;
    this.files.set(id, file);
    this.readersOf(id);
    for (let i = 0; i < docs.length; i++) {
      this.move(docs[i], id);
      this.slot[docs[i]] = i;
    }
  }

  /**
   * Drops what no doc that is live now reads: the rows of the docs released and not live again, the memory
   * pages left without a row, the files left without one (closed). Rows read until now by anyone (a
   * checkpoint writing) must not be needed after this.
   */
  settle(live: Uint8Array, end: number): void {
    for (const doc of this.released) if (doc >= end || live[doc] !== 1) this.forget(doc);
    this.released = [];
    this.pages.forEach((page, i) => {
      if (page && this.inMemory[i] === 0) this.pages[i] = undefined;
    });
    for (const [id, file] of this.files) {
      if (this.readers[id] > 0) continue;
      this.files.delete(id);
      file.close();
    }
  }

  /** Bytes of rows held in memory, and how many files rows are read from. */
  footprint(): { memoryBytes: number; files: number } {
    const memoryBytes = this.pages.reduce((sum, page) => sum + (page?.byteLength ?? 0), 0);
    return { memoryBytes, files: this.files.size };
  }

  /** Closes every file; the rows are gone. */
  dispose(): void {
    for (const file of this.files.values()) file.close();
    this.files.clear();
    this.pages = [];
    this.where = new Int32Array(0);
    this.slot = new Int32Array(0);
    this.inMemory = new Int32Array(0);
    this.released = [];
  }

  /** Doc's row is in memory, in file `to`, or gone (NO_ROW) from now on; the counts follow. */
  private move(doc: number, to: number): void {
    const from = this.where[doc];
    if (from === to) return;
    if (from === IN_MEMORY) this.inMemory[Math.floor(doc / PAGE_ROWS)]--;
    else if (from !== NO_ROW) this.readers[from]--;
    if (to === IN_MEMORY) this.inMemory[Math.floor(doc / PAGE_ROWS)]++;
    else if (to !== NO_ROW) this.readersOf(to)[to]++;
    this.where[doc] = to;
  }

  /** The readers array, grown to hold file `id`. */
  private readersOf(id: number): Int32Array {
    if (id >= this.readers.length) {
      const readers = new Int32Array(Math.max(id + 1, 2 * this.readers.length));
      readers.set(this.readers);
      this.readers = readers;
    }
    return this.readers;
  }
}

// The BM25 index's term ids by term text. Almost every term is a Chinese bigram or a single character: a
// Map<string, number> spent ~64 bytes of heap on each (its entry and a string object), 175 MiB for the 2.7M
// terms of a 1M-memory store. A term of one or two UTF-16 units is packed into a 32-bit code and kept in an
// open-addressing table of term ids, compared through the codes by id (~10 bytes a term); any other
// term stays in a Map.
import { grownCapacity, withHeadroom } from "./capacity";

/** The code of a term not packed (see shortCode). */
const EMPTY = 0;
const NO_ID = -1;
// Resize once the table is three quarters full: linear probing stays short, and the arrays stay small.
const LOAD_NUMERATOR = 3;
const LOAD_DENOMINATOR = 4;
const MIN_BITS = 6;

/**
 * The code of a term of one or two UTF-16 units whose first unit is not NUL, else 0: one unit u gives u
 * (1..0xffff), two units u, v give u * 0x10000 + v (0x10000 and up), so no two terms share a code.
 */
function shortCode(term: string): number {
  if (term.length === 1) return term.charCodeAt(0);
  if (term.length === 2) {
    const first = term.charCodeAt(0);
    return first === 0 ? EMPTY : first * 0x10000 + term.charCodeAt(1);
  }
  return EMPTY;
}

function codeText(code: number): string {
  return code < 0x10000 ? String.fromCharCode(code) : String.fromCharCode(Math.floor(code / 0x10000), code % 0x10000);
}

/** A TermDictionary's state (image()): the table and codes as they are, and the terms not packed into a code. */
export interface TermsImage {
  bits: number;
  slots: Int32Array;
  shortCount: number;
  codes: Uint32Array;
  longTerms: Array<[number, string]>;
  count: number;
}

export class TermDictionary {
  private bits = MIN_BITS;
  /** The table: a short term's id at a slot found from its code (compared through `codes`), or -1. */
  private slots: Int32Array;
  private shortCount = 0;
  /** By id: the term's short code, or 0 for a term kept in `longIds`. */
  private codes: Uint32Array;
  private longIds = new Map<string, number>();
  private longTerms = new Map<number, string>();
  private count = 0;

  /** `memory` makes the arrays the dictionary grows into (a worker makes them shared: checkpoint-reader-worker.ts). */
  constructor(private readonly memory: (bytes: number) => ArrayBufferLike = (bytes) => new ArrayBuffer(bytes)) {
    this.slots = new Int32Array(memory(4 << MIN_BITS)).fill(NO_ID);
    this.codes = new Uint32Array(memory(4 * 64));
  }

  /**
   * The dictionary as plain arrays, for another thread to take over (TermDictionary.fromImage): a checkpoint's
   * snapshot is read in a worker (checkpoint-reader.ts), and a dictionary of 2.7M terms took ~0.8 s to build.
   */
  image(): TermsImage {
    return { bits: this.bits, slots: this.slots, shortCount: this.shortCount, codes: this.codes, longTerms: [...this.longTerms], count: this.count };
  }

  /** A dictionary made by image() (on this thread or another): its arrays are taken, not copied. */
  static fromImage(image: TermsImage): TermDictionary {
    const terms = new TermDictionary();
    if (image.slots.length !== 1 << image.bits || image.codes.length < image.count) throw new Error(`TermDictionary.fromImage: ${image.slots.length} slots for ${image.bits} bits, ${image.codes.length} codes for ${image.count} terms`);
    terms.bits = image.bits;
    terms.slots = image.slots;
    terms.shortCount = image.shortCount;
    terms.codes = image.codes;
    terms.longTerms = new Map(image.longTerms);
    terms.longIds = new Map(image.longTerms.map(([id, term]) => [term, id]));
    terms.count = image.count;
    return terms;
  }

  get size(): number {
    return this.count;
  }

  get(term: string): number | undefined {
    const code = shortCode(term);
    if (code === EMPTY) return this.longIds.get(term);
    const id = this.slots[this.find(code)];
    return id === NO_ID ? undefined : id;
  }

  /** Gives `term` the next id (the size before the call); a term already held is refused ("duplicate term ..."). */
  add(term: string): number {
    const id = this.count;
    const code = shortCode(term);
    if (code === EMPTY) {
      if (this.longIds.has(term)) throw new Error(`duplicate term ${JSON.stringify(term)}`);
      this.longIds.set(term, id);
      this.longTerms.set(id, term);
      this.setCode(id, EMPTY);
    } else this.addCode(code, id, term);
    this.count++;
    return id;
  }

  /**
   * Adds, in id order, the terms of a snapshot's term section: `text` holds their UTF-16 units, little-endian,
   * one term after the other; `lengths` gives each one's count of units. Short terms never become strings.
   * Throws, naming it, on a term already held, and on lengths that do not exactly cover the text.
   */
  addSnapshotTerms(text: Uint8Array, lengths: Int32Array): void {
    const units = text.length >> 1;
    let at = 0;
    this.reserve(this.count + lengths.length);
    for (let i = 0; i < lengths.length; i++) {
      const length = lengths[i];
      if (length < 0 || at + length > units) throw new Error("term lengths exceed the term text");
      const first = text[2 * at] | (text[2 * at + 1] << 8);
      if (first !== 0 && (length === 1 || length === 2)) {
        const code = length === 1 ? first : first * 0x10000 + (text[2 * at + 2] | (text[2 * at + 3] << 8));
        this.addCode(code, this.count, undefined);
        this.count++;
      } else this.add(Buffer.from(text.buffer, text.byteOffset + 2 * at, 2 * length).toString("utf16le"));
      at += length;
    }
    if (at !== units || 2 * units !== text.length) throw new Error("term lengths do not cover the term text");
  }

  /** The UTF-16 length of term `id` (below size), without making its string (a snapshot of 2.7M terms did). */
  termLength(id: number): number {
    const code = this.codes[id];
    return code === EMPTY ? this.longTerms.get(id)!.length : code < 0x10000 ? 1 : 2;
  }

  /** Writes term `id`'s UTF-16 units, little-endian, into `view` at byte `at`; returns where they end. */
  writeTerm(id: number, view: DataView, at: number): number {
    const code = this.codes[id];
    if (code === EMPTY) {
      const term = this.longTerms.get(id)!;
      for (let i = 0; i < term.length; i++, at += 2) view.setUint16(at, term.charCodeAt(i), true);
      return at;
    }
    if (code < 0x10000) {
      view.setUint16(at, code, true);
      return at + 2;
    }
    view.setUint16(at, Math.floor(code / 0x10000), true);
    view.setUint16(at + 2, code % 0x10000, true);
    return at + 4;
  }

  private addCode(code: number, id: number, term: string | undefined): void {
    if ((this.shortCount + 1) * LOAD_DENOMINATOR > this.slots.length * LOAD_NUMERATOR) this.resize();
    const slot = this.find(code);
    if (this.slots[slot] !== NO_ID) throw new Error(`duplicate term ${JSON.stringify(term ?? codeText(code))}`);
    this.setCode(id, code);
    this.slots[slot] = id;
    this.shortCount++;
  }

  private setCode(id: number, code: number): void {
    if (id >= this.codes.length) {
      const codes = new Uint32Array(this.memory(4 * grownCapacity(this.codes.length, id + 1)));
      codes.set(this.codes);
      this.codes = codes;
    }
    this.codes[id] = code;
  }

  /** The slot holding the id of the term with `code`, or the empty slot where it would go. */
  private find(code: number): number {
    const { slots, codes } = this;
    const mask = slots.length - 1;
    let slot = Math.imul(code, 0x9e3779b1) >>> (32 - this.bits);
    for (let id = slots[slot]; id !== NO_ID && codes[id] !== code; id = slots[slot]) slot = (slot + 1) & mask;
    return slot;
  }

  /**
   * Room for `terms` terms at once: a snapshot of 2.7M terms made the table double 16 times (each a rehash of
   * all before it, ~0.2 s in all) and its codes grow a copy at a time.
   */
  private reserve(terms: number): void {
    if (terms > this.codes.length) {
      const codes = new Uint32Array(this.memory(4 * withHeadroom(terms)));
      codes.set(this.codes.subarray(0, this.count));
      this.codes = codes;
    }
    let bits = this.bits;
    while (terms * LOAD_DENOMINATOR > (1 << bits) * LOAD_NUMERATOR) bits++;
    if (bits > this.bits) this.resize(bits);
  }

  private resize(bits = this.bits + 1): void {
    const old = this.slots;
    this.bits = bits;
    this.slots = new Int32Array(this.memory(4 * 2 ** this.bits)).fill(NO_ID);
    for (const id of old) if (id !== NO_ID) this.slots[this.find(this.codes[id])] = id;
  }
}

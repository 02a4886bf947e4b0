// The live records' doc numbers by id. A Map of a million ids cost ~0.7 s to build at an open of 1M (its
// table grown by doubling, each id hashed on the way in) and ~56 MB of one array in V8's heap, marked at each
// full collection; this table is two typed arrays outside the heap (16 MB at 1M) that V8 never marks.
import { grownCapacity } from "../index/capacity";

const EMPTY = -1;
/** A slot whose doc was deleted: lookups go on past it, an insert may reuse it. */
const DELETED = -2;
const MIN_SLOTS = 16;

/** FNV-1a over the id's UTF-16 units, as a signed 32-bit number. */
export function idHash(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  // Signed, as the table keeps it (the empty id's is the offset basis, past 2^31 unsigned).
  return hash | 0;
}

/**
 * Open addressing with linear probing over doc numbers; the ids themselves are not kept: a slot's id is read
 * from `records[doc].id`, so a doc's record must hold its id for as long as the doc is in the table (delete the
 * id before the record goes). Each slot keeps its id's hash beside it, so a probe compares ids only when
 * the hashes agree. At most half the slots are used (docs and deleted slots together).
 */
export class DocIds {
  private slots: Int32Array;
  private hashes: Int32Array;
  private count = 0;
  /** Slots holding a doc or DELETED. */
  private used = 0;

  /** `expected` ids fit without the table growing (an open knows how many it will add). */
  constructor(
    private readonly records: ReadonlyArray<{ readonly id: string } | undefined>,
    expected = 0,
  ) {
    this.slots = new Int32Array(DocIds.slotsFor(expected)).fill(EMPTY);
    this.hashes = new Int32Array(this.slots.length);
  }

  /** Whether this table reads its ids from `records` (the array a state holds). */
  readsFrom(records: ReadonlyArray<{ readonly id: string } | undefined>): boolean {
    return this.records === records;
  }

  get size(): number {
    return this.count;
  }

  get(id: string): number | undefined {
    const slot = this.find(id, idHash(id));
    return slot < 0 ? undefined : this.slots[slot];
  }

  has(id: string): boolean {
    return this.find(id, idHash(id)) >= 0;
  }

  /**
   * Adds `id` at `doc` (whose record must hold it already); returns false, changing nothing, when the id is
   * in the table already.
   */
  add(id: string, doc: number): boolean {
    if (!(Number.isInteger(doc) && doc >= 0)) throw new Error(`DocIds.add: doc ${doc} is not a doc number`);
    if (this.records[doc]?.id !== id) throw new Error(`DocIds.add: doc ${doc}'s record does not hold id ${JSON.stringify(id)}`);
    const hash = idHash(id);
    if (this.find(id, hash) >= 0) return false;
    if (2 * (this.used + 1) > this.slots.length) this.rebuild(DocIds.slotsFor(grownCapacity(this.count, this.count + 1)));
    const { slots, hashes } = this;
    const mask = slots.length - 1;
    let slot = hash & mask;
    while (slots[slot] >= 0) slot = (slot + 1) & mask;
    if (slots[slot] === EMPTY) this.used++;
    slots[slot] = doc;
    hashes[slot] = hash;
    this.count++;
    return true;
  }

  /** Removes `id` (its record still holding it); returns whether it was there. */
  delete(id: string): boolean {
    const slot = this.find(id, idHash(id));
    if (slot < 0) return false;
    this.slots[slot] = DELETED;
    this.count--;
    return true;
  }

  /** The slot holding `id`, or -1. */
  private find(id: string, hash: number): number {
    const { slots, hashes, records } = this;
    const mask = slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const doc = slots[slot];
      if (doc === EMPTY) return -1;
      if (doc >= 0 && hashes[slot] === hash && records[doc]?.id === id) return slot;
    }
  }

  /** The docs again in a table of `length` slots, without the deleted ones. */
  private rebuild(length: number): void {
    const [slots, hashes] = [this.slots, this.hashes];
    this.slots = new Int32Array(length).fill(EMPTY);
    this.hashes = new Int32Array(length);
    const mask = length - 1;
    for (let from = 0; from < slots.length; from++) {
      if (slots[from] < 0) continue;
      let slot = hashes[from] & mask;
      while (this.slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      this.slots[slot] = slots[from];
      this.hashes[slot] = hashes[from];
    }
    this.used = this.count;
  }

  /** A power of two of at least twice `ids` slots. */
  private static slotsFor(ids: number): number {
    let slots = MIN_SLOTS;
    while (slots < 2 * ids) slots *= 2;
    return slots;
  }
}

// The records as they were when a checkpoint began, without copying them then: the state tells each freeze
// before it replaces a record (keep), and the freeze copies that record's block first, once. A checkpoint at
// 1M copying all its segments' records at its first step made 8 MB of young arrays that the next two
// scavenges copied (~40-50 ms each on the benchmark VM), and one copy of the whole array was ~22 ms of fresh
// pages in that step.
import type { MemoryRecord } from "./records";

const BLOCK_BITS = 10;
const BLOCK_DOCS = 1 << BLOCK_BITS;

export class RecordsFreeze {
  /** Copies of the blocks changed since the freeze, by block number. */
  private readonly kept = new Map<number, ReadonlyArray<MemoryRecord | undefined>>();
  private released = false;

  /** `length`: docs [0, length) are frozen; docs appended later are not part of it. */
  constructor(
    private readonly records: ReadonlyArray<MemoryRecord | undefined>,
    readonly length: number,
    private readonly unregister: (freeze: RecordsFreeze) => void,
  ) {}

  /** Called before doc's record is replaced (or removed): its block is copied first, the first time. */
  keep(doc: number): void {
    if (doc >= this.length) return;
    const block = doc >>> BLOCK_BITS;
    if (!this.kept.has(block)) this.kept.set(block, this.records.slice(block * BLOCK_DOCS, Math.min(this.length, (block + 1) * BLOCK_DOCS)));
  }

  /** The records of docs [from, to) as they were at the freeze (`to` at most length). */
  slice(from: number, to: number): Array<MemoryRecord | undefined> {
    if (this.released) throw new Error("RecordsFreeze.slice: the freeze was released");
    if (!(from >= 0 && from <= to && to <= this.length)) throw new Error(`RecordsFreeze.slice: docs [${from}, ${to}) are not within the ${this.length} frozen`);
    const out = this.records.slice(from, to);
    if (this.kept.size === 0) return out;
    for (let block = from >>> BLOCK_BITS; block * BLOCK_DOCS < to; block++) {
      const copy = this.kept.get(block);
      if (!copy) continue;
      const start = Math.max(from, block * BLOCK_DOCS);
      const end = Math.min(to, (block + 1) * BLOCK_DOCS);
      for (let doc = start; doc < end; doc++) out[doc - from] = copy[doc - block * BLOCK_DOCS];
    }
    return out;
  }

  /** Blocks copied so far (tests). */
  get keptBlocks(): number {
    return this.kept.size;
  }

  /** Stops following changes; slice() may not be called after. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.kept.clear();
    this.unregister(this);
  }
}

// Bounded top-k selection shared by the lexical and dense retrievers.
// Order is total and deterministic: higher score first, then lower doc number (earlier insert).

export interface Scored {
  doc: number;
  score: number;
}

/** Min-heap of at most `k` entries keyed on (score asc, doc desc), so the root is the worst kept entry. */
export class TopK {
  private readonly docs: Int32Array;
  private readonly scores: Float64Array;
  private count = 0;

  constructor(private readonly k: number) {
    this.docs = new Int32Array(Math.max(k, 0));
    this.scores = new Float64Array(Math.max(k, 0));
  }

  get size(): number {
    return this.count;
  }

  /** Score an entry must beat to enter once the heap is full (-Infinity while it is not). */
  get threshold(): number {
    return this.count < this.k ? -Infinity : this.scores[0];
  }

  push(doc: number, score: number): void {
    if (this.k <= 0) return;
    if (this.count < this.k) {
      this.docs[this.count] = doc;
      this.scores[this.count] = score;
      this.siftUp(this.count++);
      return;
    }
    if (!this.better(doc, score, this.docs[0], this.scores[0])) return;
    this.docs[0] = doc;
    this.scores[0] = score;
    this.siftDown(0);
  }

  /** Entries best first. */
  sorted(): Scored[] {
    const out: Scored[] = [];
    for (let i = 0; i < this.count; i++) out.push({ doc: this.docs[i], score: this.scores[i] });
    return out.sort(compareScored);
  }

  private better(docA: number, scoreA: number, docB: number, scoreB: number): boolean {
    return scoreA > scoreB || (scoreA === scoreB && docA < docB);
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.better(this.docs[parent], this.scores[parent], this.docs[i], this.scores[i])) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < this.count && this.better(this.docs[worst], this.scores[worst], this.docs[left], this.scores[left])) worst = left;
      if (right < this.count && this.better(this.docs[worst], this.scores[worst], this.docs[right], this.scores[right])) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(a: number, b: number): void {
    const d = this.docs[a];
    this.docs[a] = this.docs[b];
    this.docs[b] = d;
    const s = this.scores[a];
    this.scores[a] = this.scores[b];
    this.scores[b] = s;
  }
}

export function compareScored(a: Scored, b: Scored): number {
  return b.score - a.score || a.doc - b.doc;
}

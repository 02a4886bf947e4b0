// The plain BM25 baseline of ../shared/data/locomo/README.md, with no dependencies: lowercase ASCII
// words plus CJK bigrams, k1 = 1.2, b = 0.75, idf ln(1 + (N - df + 0.5)/(df + 0.5)), query terms
// counted once, only positive scores ranked, ties to the earlier document.

const TOKEN_RUN = /[a-z0-9]+|\p{Script=Han}+/gu;

/** Lowercase ASCII words and CJK character bigrams (a lone CJK character stands as itself). */
export function tokenizePlain(text: string): string[] {
  const tokens: string[] = [];
  for (const [run] of text.toLowerCase().matchAll(TOKEN_RUN)) {
    if (run.charCodeAt(0) < 0x80) {
      tokens.push(run);
      continue;
    }
    const chars = Array.from(run);
    if (chars.length === 1) tokens.push(chars[0]);
    for (let i = 0; i + 1 < chars.length; i++) tokens.push(chars[i] + chars[i + 1]);
  }
  return tokens;
}

export interface PlainBm25Options {
  k1?: number;
  b?: number;
}

export class PlainBm25 {
  private readonly postings = new Map<string, Array<[doc: number, tf: number]>>();
  private readonly lengths: number[] = [];
  private readonly k1: number;
  private readonly b: number;
  private avgLength = 0;

  constructor(
    private readonly ids: readonly string[],
    texts: readonly string[],
    options: PlainBm25Options = {},
  ) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
    texts.forEach((text, doc) => {
      const tokens = tokenizePlain(text);
      this.lengths.push(tokens.length);
      const tf = new Map<string, number>();
      for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [term, count] of tf) {
        const list = this.postings.get(term) ?? [];
        list.push([doc, count]);
        this.postings.set(term, list);
      }
    });
    this.avgLength = this.lengths.reduce((a, n) => a + n, 0) / Math.max(1, this.lengths.length);
  }

  /** Ids of the top `k` documents with a positive score, best first, ties to the earlier document. */
  search(query: string, k: number): string[] {
    const n = this.lengths.length;
    const scores = new Map<number, number>();
    for (const term of new Set(tokenizePlain(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const [doc, tf] of list) {
        const norm = tf + this.k1 * (1 - this.b + (this.b * this.lengths[doc]) / this.avgLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (this.k1 + 1)) / norm);
      }
    }
    return [...scores]
      .filter(([, score]) => score > 0)
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, k)
      .map(([doc]) => this.ids[doc]);
  }
}

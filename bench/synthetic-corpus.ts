// Fixed, seeded synthetic corpus for the speed benchmarks: mixed English/Chinese memories with
// Zipf-distributed vocabulary and clustered 512-dimension vectors, plus queries drawn from it.

export interface SyntheticRecord {
  id: string;
  text: string;
  vector: number[];
}

export interface SyntheticQuery {
  text: string;
  vector: number[];
}

/**
 * Records 0..count-1 in batches, drawing about `wanted` queries from them on the way (pushed onto
 * `queries` before the batch holding their source is yielded). One seed, one draw order: every
 * benchmark that samples through here sees the same records and the same queries for the same count.
 */
export function* syntheticBatches(corpus: SyntheticCorpus, count: number, wanted: number, batchSize: number, queries: SyntheticQuery[]): Generator<SyntheticRecord[]> {
  for (let start = 0; start < count; start += batchSize) {
    const batch: SyntheticRecord[] = [];
    for (let i = start; i < Math.min(count, start + batchSize); i++) {
      const record = corpus.record(i);
      if (queries.length < wanted && corpus.random() < wanted / count + 0.001) queries.push(corpus.query(record));
      batch.push(record);
    }
    yield batch;
  }
}

export class SyntheticCorpus {
  private state: number;
  private readonly words: string[];
  private readonly centroids: Float32Array[];

  constructor(
    readonly dim = 512,
    seed = 20261129,
    private readonly clusters = 1000,
  ) {
    this.state = seed >>> 0;
    const syllables = ["ka", "lo", "mi", "ten", "ra", "su", "vel", "do", "pri", "an", "zo", "qui", "ber", "nu", "sha", "tor"];
    this.words = Array.from({ length: 8000 }, () => {
      const n = 1 + Math.floor(this.random() * 3);
      return Array.from({ length: n }, () => syllables[Math.floor(this.random() * syllables.length)]).join("");
    });
    this.centroids = Array.from({ length: clusters }, () => this.gaussianVector(1));
  }

  record(i: number): SyntheticRecord {
    const english = Array.from({ length: 20 + Math.floor(this.random() * 20) }, () => this.words[this.zipf(this.words.length)]);
    const chinese = Array.from({ length: 15 + Math.floor(this.random() * 15) }, () => String.fromCharCode(0x4e00 + this.zipf(3000)));
    const text = `${english.join(" ")} ${chinese.join("")}`;
    const centroid = this.centroids[i % this.clusters];
    const noise = this.gaussianVector(0.35);
    return { id: `syn-${i}`, text, vector: Array.from(centroid, (c, d) => c + noise[d]) };
  }

  /** A query about record `source`: a few of its words and characters, and a noisy copy of its vector. */
  query(source: SyntheticRecord): SyntheticQuery {
    const [english, chinese] = [source.text.split(" ").slice(0, -1), source.text.split(" ").at(-1)!];
    const words = Array.from({ length: 3 }, () => english[Math.floor(this.random() * english.length)]);
    const start = Math.floor(this.random() * Math.max(1, chinese.length - 4));
    const noise = this.gaussianVector(0.2);
    return { text: `${words.join(" ")} ${chinese.slice(start, start + 4)}`, vector: source.vector.map((x, d) => x + noise[d]) };
  }

  random(): number {
    this.state = (Math.imul(this.state, 1664525) + 1013904223) >>> 0;
    return this.state / 2 ** 32;
  }

  private zipf(n: number): number {
    // Inverse-CDF approximation of a Zipf(1) rank: frequent ranks dominate, the tail stays long.
    return Math.min(n - 1, Math.floor(Math.exp(this.random() * Math.log(n + 1)) - 1));
  }

  private gaussianVector(scale: number): Float32Array {
    const out = new Float32Array(this.dim);
    for (let d = 0; d < this.dim; d++) {
      const u = Math.max(this.random(), 1e-12);
      out[d] = scale * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.random());
    }
    return out;
  }
}

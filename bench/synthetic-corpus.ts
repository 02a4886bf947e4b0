// Fixed, seeded synthetic corpus for the speed benchmarks: mixed English/Chinese memories with
// Zipf-distributed vocabulary and 512-dimension vectors, plus queries drawn from it.
//
// Two vector shapes. "clustered": 1000 tight clusters around random centroids (records of a cluster have
// cosine ~0.9, clusters ~0): easy for a partitioned index. "anisotropic": shaped like sentence-embedding
// output instead: a shared mean direction (random pairs have cosine ~0.4), a power-law spectrum (a few
// directions carry most variance), and each record a mix of two of 300 overlapping topics plus its own
// noise, so neighbourhoods blur into each other. Partitioning is rotation-invariant, so the spectrum is
// laid on the coordinate axes without loss of generality.

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

export type VectorShape = "clustered" | "anisotropic";

const TOPICS = 300;
const SPECTRUM_POWER = 0.5;

export class SyntheticCorpus {
  private state: number;
  private readonly words: string[];
  private readonly centroids: Float32Array[];
  private readonly spectrum: Float32Array;
  private readonly mean: Float32Array;

  constructor(
    readonly dim = 512,
    seed = 20261129,
    private readonly clusters = 1000,
    readonly shape: VectorShape = "clustered",
  ) {
    this.state = seed >>> 0;
    const syllables = ["ka", "lo", "mi", "ten", "ra", "su", "vel", "do", "pri", "an", "zo", "qui", "ber", "nu", "sha", "tor"];
    this.words = Array.from({ length: 8000 }, () => {
      const n = 1 + Math.floor(this.random() * 3);
      return Array.from({ length: n }, () => syllables[Math.floor(this.random() * syllables.length)]).join("");
    });
    this.spectrum = Float32Array.from({ length: dim }, (_, d) => (1 + d) ** -SPECTRUM_POWER);
    if (shape === "clustered") {
      this.centroids = Array.from({ length: clusters }, () => this.gaussianVector(1));
      this.mean = new Float32Array(dim);
    } else {
      this.centroids = Array.from({ length: TOPICS }, () => this.spectralVector(1));
      this.mean = this.spectralVector(1.2);
    }
  }

  private vectorFor(i: number): number[] {
    if (this.shape === "clustered") {
      const centroid = this.centroids[i % this.clusters];
      const noise = this.gaussianVector(0.35);
      return Array.from(centroid, (c, d) => c + noise[d]);
    }
    const first = this.centroids[this.zipf(TOPICS)];
    const second = this.centroids[Math.floor(this.random() * TOPICS)];
    const mix = 0.5 + 0.4 * this.random();
    const noise = this.spectralVector(0.8);
    return Array.from(this.mean, (m, d) => m + mix * first[d] + (1 - mix) * second[d] + noise[d]);
  }

  record(i: number): SyntheticRecord {
    const english = Array.from({ length: 20 + Math.floor(this.random() * 20) }, () => this.words[this.zipf(this.words.length)]);
    const chinese = Array.from({ length: 15 + Math.floor(this.random() * 15) }, () => String.fromCharCode(0x4e00 + this.zipf(3000)));
    // One flat string, as JSON.parse hands the bridge a text: the template makes a string of parts (two more
    // objects a record that a store of 1M kept, for V8 to mark, where a real one has none).
    const text = Buffer.from(`${english.join(" ")} ${chinese.join("")}`, "utf8").toString("utf8");
    return { id: `syn-${i}`, text, vector: this.vectorFor(i) };
  }

  /** A query about record `source`: a few of its words and characters, and a noisy copy of its vector. */
  query(source: SyntheticRecord): SyntheticQuery {
    const [english, chinese] = [source.text.split(" ").slice(0, -1), source.text.split(" ").at(-1)!];
    const words = Array.from({ length: 3 }, () => english[Math.floor(this.random() * english.length)]);
    const start = Math.floor(this.random() * Math.max(1, chinese.length - 4));
    const noise = this.shape === "clustered" ? this.gaussianVector(0.2) : this.spectralVector(0.3);
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

  /** Gaussian with standard deviation scale * spectrum[d] in dimension d. */
  private spectralVector(scale: number): Float32Array {
    const out = this.gaussianVector(scale);
    for (let d = 0; d < this.dim; d++) out[d] *= this.spectrum[d];
    return out;
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

// A deterministic stand-in for an embedding model, so the hybrid path can be timed without one:
// CJK character bigrams and lowercase words, each hashed into a fixed seeded sparse random
// projection, summed and L2-normalised. Texts that share features land near each other; that is
// all it knows, so its rankings say nothing about a real model's.

export const HASHING_DIM = 512;
const HASHING_MODEL = { provider: "bench", model: "hashing-512" } as const;

/** Non-zero entries per feature: enough that two features rarely collide on every one. */
const NONZEROS = 16;
const SEED = 0x5eed_cafe;
const HAN_RUN = /\p{Script=Han}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

export function embedText(text: string, dim = HASHING_DIM): number[] {
  const sum = new Float64Array(dim);
  for (const feature of features(text)) addFeature(sum, feature);
  let norm = 0;
  for (const x of sum) norm += x * x;
  // A text with no features still needs a non-zero vector (the store refuses all-zero ones).
  if (norm === 0) return Array.from({ length: dim }, (_, d) => (d === 0 ? 1 : 0));
  const scale = 1 / Math.sqrt(norm);
  return Array.from(sum, (x) => x * scale);
}

export function embedding(text: string): { provider: string; model: string; vector: number[] } {
  return { ...HASHING_MODEL, vector: embedText(text) };
}

/** Bigrams of every Han run (a lone character stands for itself), then the words of what is left. */
export function features(text: string): string[] {
  const lower = text.normalize("NFKC").toLowerCase();
  const out: string[] = [];
  for (const [run] of lower.matchAll(HAN_RUN)) {
    const chars = [...run];
    if (chars.length === 1) out.push(chars[0]);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  }
  for (const [word] of lower.replace(HAN_RUN, " ").matchAll(WORD)) out.push(word);
  return out;
}

/** The feature's column of the projection: NONZEROS ±1 entries at positions drawn from its hash. */
function addFeature(sum: Float64Array, feature: string): void {
  let h = fnv1a(feature);
  for (let k = 0; k < NONZEROS; k++) {
    h = xorshift(h);
    const dim = h % sum.length;
    sum[dim] += h & 0x8000_0000 ? -1 : 1;
  }
}

function fnv1a(text: string): number {
  let h = SEED >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h || 1;
}

function xorshift(x: number): number {
  x ^= x << 13;
  x >>>= 0;
  x ^= x >>> 17;
  x ^= x << 5;
  return x >>> 0;
}

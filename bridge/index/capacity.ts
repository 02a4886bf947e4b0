// How far an array that ran out of room grows: doubling, and past a million slots by half (at 1M, a
// doubled term or doc array left up to 10 MiB unused each), so that appends stay amortised O(1).
export function grownCapacity(length: number, need: number, min = 16): number {
  return Math.max(need, length + (length < 1 << 20 ? length : length >> 1), min);
}

/**
 * `count` and an eighth more: what an index read from a snapshot reserves for the terms and docs to come.
 * Without it the first new term after opening 1M grew every per-term array from 2.7M (copies into ~64 MB
 * of fresh pages, ~0.2 s) and the first new doc every per-doc one.
 */
export function withHeadroom(count: number): number {
  return count + Math.ceil(count / 8);
}

// How far an array that ran out of room grows: doubling, and past a million slots by half (at 1M, a
// doubled term or doc array left up to 10 MiB unused each), so that appends stay amortised O(1).
export function grownCapacity(length: number, need: number, min = 16): number {
  return Math.max(need, length + (length < 1 << 20 ? length : length >> 1), min);
}

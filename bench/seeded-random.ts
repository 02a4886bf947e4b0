// A small seeded random source for the generated benchmark corpora: one seed, one sequence, on
// every machine (Math.random cannot be seeded, and the fixtures must be reproducible).

export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    // Mixing the seed once keeps neighbouring seeds (1, 2, 3) from starting on similar streams.
    this.state = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ 0xc2b2ae35) >>> 0;
  }

  /** mulberry32: uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  }

  /** Integer in [low, high], both ends included. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("cannot pick from an empty list");
    return items[Math.floor(this.next() * items.length)];
  }

  /** An item other than `avoid` (by index), so a drawn value always differs from the previous one. */
  pickOther<T>(items: readonly T[], avoid: T | undefined): T {
    if (items.length < 2) throw new Error("need at least two items to pick a different one");
    let chosen = this.pick(items);
    while (chosen === avoid) chosen = this.pick(items);
    return chosen;
  }

  /** Fisher–Yates on a copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}

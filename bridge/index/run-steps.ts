// Work written as a generator of steps (checkpoints, snapshots, compaction), run in one go where nothing
// needs to come between the steps.

/** Runs `steps` to the end and returns what the generator returns. */
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

// Bytes zeroed a step by zeroedInSteps: 1 MiB, 256 fresh pages (~2.6 ms where a first touch costs ~10 µs a page).
const ZERO_BYTES_PER_STEP = 1 << 20;

/**
 * A zeroed Int32Array of `length`, its pages touched a MiB a step. `new Int32Array(n)` zeroes it at once
 * when the allocator hands back memory it had before (a memset over every page): at 1M an 11 MB per-term
 * array was ~30 ms of one step that way.
 */
export function* zeroedInSteps(length: number): Generator<void, Int32Array> {
  const bytes = Buffer.allocUnsafeSlow(length * Int32Array.BYTES_PER_ELEMENT);
  const array = new Int32Array(bytes.buffer, bytes.byteOffset, length);
  const perStep = ZERO_BYTES_PER_STEP / Int32Array.BYTES_PER_ELEMENT;
  for (let from = 0; from < length; from += perStep) {
    array.fill(0, from, Math.min(length, from + perStep));
    yield;
  }
  return array;
}

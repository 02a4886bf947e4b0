// Work written as a generator of steps (checkpoints, snapshots, compaction), run in one go where nothing
// needs to come between the steps.

/** Runs `steps` to the end and returns what the generator returns; `between` runs after each step. */
export function runToEnd<T>(steps: Generator<unknown, T>, between?: () => void): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    between?.();
  }
}

// Bytes zeroed a step by zeroedInSteps: 1 MiB, 256 pages (~2.6 ms on the bench VM, where a first touch costs ~10 µs a page).
const ZERO_BYTES_PER_STEP = 1 << 20;

/** An Int32Array of `length` whose values are whatever the memory held: for one the caller writes whole. */
export function unzeroedInt32s(length: number): Int32Array {
  const bytes = Buffer.allocUnsafeSlow(length * Int32Array.BYTES_PER_ELEMENT);
  return new Int32Array(bytes.buffer, bytes.byteOffset, length);
}

/**
 * A zeroed Int32Array of `length`, its pages touched a MiB a step. `new Int32Array(n)` is zeroed at once
 * (calloc clears memory it hands back): at 1M, the step that made an 11 MB per-term array that way spent
 * ~35 ms in the function that made it (a profile; the clearing is the likely part, not measured alone).
 */
export function* zeroedInSteps(length: number): Generator<void, Int32Array> {
  const array = unzeroedInt32s(length);
  const perStep = ZERO_BYTES_PER_STEP / Int32Array.BYTES_PER_ELEMENT;
  for (let from = 0; from < length; from += perStep) {
    array.fill(0, from, Math.min(length, from + perStep));
    yield;
  }
  return array;
}

// Work written as a generator of steps (checkpoints, snapshots, compaction), run in one go where nothing
// needs to come between the steps.

/** Runs `steps` to the end and returns what the generator returns. */
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

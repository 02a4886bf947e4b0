// Printing a stored time never throws: `new Date(ms).toISOString()` does (RangeError) for a time a
// Date cannot hold, and one such memory must not take a search's output or a recall down with it.

/** The largest time a Date can hold (±8.64e15 ms, about the year 275760). */
export const MAX_TIME_MS = 8.64e15;

/** ISO 8601 for `ms`, or a plain description when no Date can hold it. */
export function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `(time ${String(ms)} out of range)` : date.toISOString();
}

// Times a person types: ISO dates and times, now/today/yesterday, and "N units ago". A date without a
// zone is local time, as a person means it; a bare date is its midnight.
import { DreamError } from "../protocol/errors";

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const UNITS: Array<[RegExp, string]> = [
  [/^(s|sec|secs|second|seconds)$/, "s"],
  [/^(m|min|mins|minute|minutes)$/, "m"],
  [/^(h|hr|hrs|hour|hours)$/, "h"],
  [/^(d|day|days)$/, "d"],
  [/^(w|wk|wks|week|weeks)$/, "w"],
];

/** Milliseconds since 1970 for `text`; BAD_ARGUMENTS naming `flag` and the accepted forms otherwise. */
export function parseWhen(text: string, flag: string, nowMs: number): number {
  const value = text.trim().toLowerCase();
  const startOfToday = () => {
    const date = new Date(nowMs);
    date.setHours(0, 0, 0, 0);
    return date.getTime();
  };
  if (value === "now") return nowMs;
  if (value === "today") return startOfToday();
  if (value === "yesterday") return startOfToday() - UNIT_MS.d;
  const ago = /^(\d+(?:\.\d+)?)\s*([a-z]+)\s+ago$/.exec(value) ?? /^-(\d+(?:\.\d+)?)\s*([a-z]+)$/.exec(value);
  if (ago) {
    const unit = UNITS.find(([pattern]) => pattern.test(ago[2]))?.[1];
    if (unit) return Math.round(nowMs - Number(ago[1]) * UNIT_MS[unit]);
  }
  if (/^\d{4}-\d{2}-\d{2}([t ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    const [date, time] = value.split(/[t ]/);
    const [year, month, day] = date.split("-").map(Number);
    // Date rolls 2026-13-01 over into 2027; a day that is not in the calendar is refused instead.
    const real = () => {
      const probe = new Date(year, month - 1, day);
      return probe.getFullYear() === year && probe.getMonth() === month - 1 && probe.getDate() === day;
    };
    if (time === undefined) return checked(new Date(year, month - 1, day).getTime(), text, flag, real);
    const parsed = /z|[+-]\d{2}:?\d{2}$/.test(time) ? Date.parse(value.replace(" ", "t").toUpperCase()) : new Date(`${date}T${time}`).getTime();
    return checked(parsed, text, flag, real);
  }
  throw invalid(text, flag);
}

function checked(ms: number, text: string, flag: string, valid: () => boolean): number {
  if (!Number.isFinite(ms) || !valid()) throw invalid(text, flag);
  return ms;
}

function invalid(text: string, flag: string): DreamError {
  return new DreamError(
    "BAD_ARGUMENTS",
    `--${flag} "${text}" is not a time I can read; use an ISO date or time (2026-03-01, 2026-03-01T09:30, 2026-03-01T09:30Z), now, today, yesterday, or "3 days ago" / "2h ago"`,
  );
}

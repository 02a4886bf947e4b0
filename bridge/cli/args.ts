// The argv parser: positionals, `--name value`, `--name=value`, declared switches, `-h`, and `--`
// (everything after it is a positional, so a query may start with "-"). Unknown options are errors
// that name the option and the nearest known one, so a typo never silently changes behaviour.
import { DreamError } from "../protocol/errors";

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

export interface FlagSpec {
  values: readonly string[];
  switches: readonly string[];
}

export function parseArgs(argv: readonly string[], spec: FlagSpec, where = ""): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  const known = [...spec.values, ...spec.switches];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h") {
      flags.set("help", true);
      continue;
    }
    if (/^-[^-\d]/.test(arg)) {
      throw new DreamError("BAD_ARGUMENTS", `unknown option ${arg}${where}${suggestion(arg.replace(/^-+/, ""), known, "--")}; a value that starts with "-" goes after --`);
    }
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (spec.switches.includes(name)) {
      if (eq !== -1) throw new DreamError("BAD_ARGUMENTS", `--${name} takes no value`);
      flags.set(name, true);
    } else if (spec.values.includes(name)) {
      const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new DreamError("BAD_ARGUMENTS", `--${name} needs a value`);
      if (flags.has(name)) throw new DreamError("BAD_ARGUMENTS", `--${name} is given twice`);
      flags.set(name, value);
    } else {
      throw new DreamError("BAD_ARGUMENTS", `unknown option --${name}${where}${suggestion(name, known, "--")}`);
    }
  }
  return { positionals, flags };
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === "string" ? value : undefined;
}

export function flagInt(args: ParsedArgs, name: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const value = flagString(args, name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new DreamError("BAD_ARGUMENTS", `--${name} must be a whole number (got "${value}")`);
  const number = Number(value);
  if (number < min || number > max) throw new DreamError("BAD_ARGUMENTS", `--${name} must be from ${min} to ${max} (got ${value})`);
  return number;
}

/** ", did you mean --top-k?" when a known name is close to `name` (a typo, a missing dash), else "". */
export function suggestion(name: string, known: readonly string[], prefix = ""): string {
  const near = nearest(name, known);
  return near === undefined ? "" : `; did you mean ${prefix}${near}?`;
}

/** The known name closest to `name`: within an edit distance of 2 (1 for short names), or one it starts. */
export function nearest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  const allowed = lower.length <= 4 ? 1 : 2;
  if (best !== undefined && bestDistance <= allowed) return best;
  const prefixed = known.filter((candidate) => lower.length >= 3 && candidate.startsWith(lower));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, and swaps of neighbours ("serach"). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

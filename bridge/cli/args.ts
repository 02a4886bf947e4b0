// A small argv parser: positionals, `--name value`, `--name=value`, and declared boolean switches.
// Unknown flags are errors that name the flag, so a typo never silently changes behaviour.
import { DreamError } from "../protocol/errors";

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

export interface FlagSpec {
  values: readonly string[];
  switches: readonly string[];
}

export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--") || arg === "--") {
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
      flags.set(name, value);
    } else {
      throw new DreamError("BAD_ARGUMENTS", `unknown option --${name}`);
    }
  }
  return { positionals, flags };
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === "string" ? value : undefined;
}

export function flagInt(args: ParsedArgs, name: string): number | undefined {
  const value = flagString(args, name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new DreamError("BAD_ARGUMENTS", `--${name} must be an integer (got "${value}")`);
  return Number(value);
}

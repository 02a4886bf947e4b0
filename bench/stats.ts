// Small helpers shared by the benchmark commands: percentiles, a description of the machine, and
// their positive-integer flags.
import os from "node:os";

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[rank] * 1000) / 1000;
}

export function machineInfo(): Record<string, string | number> {
  return {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? "unknown",
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    platform: `${process.platform}-${process.arch}`,
  };
}

/** `--name N` from the command line, or `fallback`; anything but a positive integer is refused. */
export function argValue(argv: string[], name: string, fallback: number): number {
  const at = argv.indexOf(`--${name}`);
  const value = at === -1 ? fallback : Number(argv[at + 1]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer`);
  return value;
}

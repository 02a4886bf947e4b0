// Small helpers shared by the benchmark commands: percentiles and a description of the machine.
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

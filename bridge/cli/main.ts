// Process entry for `dsh-dream`: the only place that reads argv and env, subscribes to signals and
// sets the exit code.
import os from "node:os";
import { runCli } from "./run";

declare const DSH_DREAM_VERSION: string;

const shutdownHandlers: Array<(signal: string) => void> = [];
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (shutdownHandlers.length === 0) process.exit(130);
    for (const handler of shutdownHandlers) handler(signal);
  });
}

runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  homeDir: os.homedir(),
  selfPath: process.argv[1],
  version: typeof DSH_DREAM_VERSION === "string" ? DSH_DREAM_VERSION : "0.0.0-dev",
  onShutdownSignal: (handler) => shutdownHandlers.push(handler),
}).then(
  (code) => (process.exitCode = code),
  (error) => {
    process.stderr.write(`internal error: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 70;
  },
);

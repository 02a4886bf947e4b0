// Process entry for `dsh-dream`: the only place that reads argv and env, subscribes to signals and
// sets the exit code.
import os from "node:os";
import { runCli } from "./run";

declare const DSH_DREAM_VERSION: string;

// Every file the CLI, the bridge and its children (Chroma, the embedding worker) create from here on
// is readable by its user alone: journal, audit log, logs, checkpoints, models, Chroma's folder. On
// Windows the umask means little; the data folder's ACL (store/owner-only.ts) does that there.
process.umask(0o077);

const shutdownHandlers: Array<(signal: string) => void> = [];
// SIGHUP: a closed terminal (on Windows, closing the console window of `serve`, after which the
// process has a few seconds); SIGBREAK: Ctrl+Break on Windows. Both shut down as cleanly as SIGTERM:
// a checkpoint, the lock released, Chroma stopped. Listening to SIGBREAK elsewhere is harmless.
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP", "SIGBREAK"] as const) {
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
  watchInput: (onClosed) => {
    const input = process.stdin;
    let fired = false;
    const closed = () => {
      if (!fired) (fired = true), onClosed();
    };
    input.on("end", closed);
    input.on("close", closed);
    input.on("error", closed);
    input.resume();
    return () => {
      input.off("end", closed).off("close", closed).off("error", closed);
      // Leaves the process free to exit: a read that is still pending would keep it alive.
      input.destroy();
    };
  },
}).then(
  (code) => (process.exitCode = code),
  (error) => {
    process.stderr.write(`internal error: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 70;
  },
);

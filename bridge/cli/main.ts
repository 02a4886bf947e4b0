// Process entry for `dsh-dream`: the only place that reads argv and env, subscribes to signals and
// sets the exit code.
import os from "node:os";
import { isDreamError } from "../protocol/errors";
import { osErrorToDreamError } from "../protocol/os-errors";
import { formatError } from "./format";
import { runCli } from "./run";
import { decodeText } from "../protocol/text-files";

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

// Node ignores SIGPIPE, so `dsh-dream status | head -1` meets a reader that went away as an 'error'
// event on stdout, which unhandled is a crash with a stack. EPIPE ends the process quietly, as
// SIGPIPE would (`serve` first shuts down cleanly); any other failure of an output is reported once
// and makes the exit code 1. Either way the stream is written no more: a write to a failed stream
// raises the error again.
const openOutputs = new Set<NodeJS.WriteStream>([process.stdout, process.stderr]);
let outputFailed = false;
for (const stream of openOutputs) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (!openOutputs.delete(stream)) return;
    if (error.code === "EPIPE") {
      if (shutdownHandlers.length === 0) process.exit();
      for (const handler of shutdownHandlers) handler("SIGPIPE");
      return;
    }
    outputFailed = true;
    const told = osErrorToDreamError(error);
    if (stream === process.stdout) write(process.stderr, told ? formatError(told) : `error: cannot write the output: ${error.message}\n`);
  });
}

function write(stream: NodeJS.WriteStream, text: string): void {
  if (openOutputs.has(stream)) stream.write(text);
}

const json = process.argv.slice(2).includes("--json");

runCli(process.argv.slice(2), {
  out: (text) => write(process.stdout, text),
  err: (text) => write(process.stderr, text),
  env: process.env,
  cwd: process.cwd(),
  homeDir: os.homedir(),
  selfPath: process.argv[1],
  version: typeof DSH_DREAM_VERSION === "string" ? DSH_DREAM_VERSION : "0.0.0-dev",
  onShutdownSignal: (handler) => shutdownHandlers.push(handler),
  stdinIsTty: process.stdin.isTTY === true,
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return decodeText(Buffer.concat(chunks), "stdin").text;
  },
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
  (code) => (process.exitCode = outputFailed && code === 0 ? 1 : code),
  (error) => {
    // A file operation the user's system refused (a file where the data directory should be, a full
    // disk, no permission) is told like any other error; only a bug gets a stack trace and 70.
    const refused = isDreamError(error) ? error : osErrorToDreamError(error);
    if (refused) {
      if (json) write(process.stdout, JSON.stringify({ error: refused.toJSON() }) + "\n");
      write(process.stderr, formatError(refused));
      process.exitCode = 1;
      return;
    }
    write(process.stderr, `internal error: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 70;
  },
);

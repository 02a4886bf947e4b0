// Process entry of the installer (install.cjs in the release): the only file that reads argv and
// env and sets the exit code. Progress goes to stderr, the report to stdout (JSON with --json).
import fs from "node:fs";
import os from "node:os";
import tty from "node:tty";
import { parseInstallArgs, USAGE, type InstallOptions } from "./args";
import { EXIT_BAD_ARGUMENTS, EXIT_FAILED, EXIT_OK, InstallError } from "./errors";
import { runInstaller } from "./installer";
import { failureReport, formatReport, type InstallReport } from "./report";

function main(argv: string[]): number {
  let options: InstallOptions;
  try {
    options = parseInstallArgs(argv);
  } catch (error) {
    if (!(error instanceof InstallError)) throw error;
    print(failureReport({}, error), argv.includes("--json"));
    return EXIT_BAD_ARGUMENTS;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return EXIT_OK;
  }
  // A person at a terminal who did not say is asked once, after a successful install.
  const interactive = !options.downloadModel && !options.json && tty.isatty(0) && tty.isatty(2);
  const report = runInstaller(options, {
    env: process.env,
    platform: process.platform,
    nodeVersion: process.versions.node,
    execPath: process.execPath,
    homeDir: os.homedir(),
    installerDir: __dirname,
    skipDependencies: process.env.DSH_DREAM_INSTALL_SKIP_DEPS === "1",
    log: (line: string) => process.stderr.write(`${line}\n`),
    askDownloadModel: interactive ? () => ask("Download the local embedding model now (about 25 MB, from huggingface.co or HF_ENDPOINT)? [y/N] ") : undefined,
  });
  print(report, options.json);
  return report.ok ? EXIT_OK : EXIT_FAILED;
}

/** A yes/no question on the terminal, read synchronously (the installer is one synchronous run). */
function ask(question: string): boolean {
  process.stderr.write(question);
  const buffer = Buffer.alloc(256);
  let answer = "";
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let read: number;
    try {
      read = fs.readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      // A terminal opened non-blocking answers EAGAIN until a line is typed.
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 50);
        continue;
      }
      return false; // no terminal after all: the default is no
    }
    if (read <= 0) break;
    answer += buffer.toString("utf8", 0, read);
    if (answer.includes("\n")) break;
  }
  return /^\s*y(es)?\s*$/i.test(answer.split("\n")[0] ?? "");
}

function print(report: InstallReport, json: boolean): void {
  if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else (report.ok ? process.stdout : process.stderr).write(formatReport(report));
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`DSH-DREAM installer: internal error (a bug; please report it with this output): ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = EXIT_FAILED;
}

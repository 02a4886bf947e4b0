// Process entry of the installer (install.cjs in the release): the only file that reads argv and
// env and sets the exit code. Progress goes to stderr, the report to stdout (JSON with --json).
import os from "node:os";
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
  const report = runInstaller(options, {
    env: process.env,
    platform: process.platform,
    nodeVersion: process.versions.node,
    execPath: process.execPath,
    homeDir: os.homedir(),
    installerDir: __dirname,
    skipDependencies: process.env.DSH_DREAM_INSTALL_SKIP_DEPS === "1",
    log: (line) => process.stderr.write(`${line}\n`),
  });
  print(report, options.json);
  return report.ok ? EXIT_OK : EXIT_FAILED;
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

// The `dsh-dream` command after an install: launchers in <DSH home>/bin that run the installed
// CLI on `node` with the DSH home the install used, so every hint that says "run dsh-dream …" works
// from a terminal. On Linux and macOS the command is also linked into ~/.local/bin when that folder
// is already on PATH (as pipx does); on Windows the PowerShell front end adds <DSH home>\bin to the
// user's PATH. Nothing here touches a file it did not write (each launcher carries a marker).
import fs from "node:fs";
import path from "node:path";
import type { Plan } from "./preflight";
import type { CommandEnv } from "./commands";
import { PACKAGE_NAME } from "./profile-manifest";
import { exists, linkTarget, removeIfPresent, type ProfileTransaction } from "./transaction";

const MARKER = "written by the DSH-DREAM installer";
const COMMAND = PACKAGE_NAME;

export interface CliReport {
  /** The launcher to run when `dsh-dream` is not on PATH. */
  launcher: string;
  binDir: string;
  onPath: boolean;
  /** ~/.local/bin/dsh-dream, when the installer linked it there. */
  linked?: string;
}

export function binDir(plan: Plan): string {
  return path.join(plan.dshHome, "bin");
}

export function writeLaunchers(plan: Plan, context: CommandEnv & { homeDir: string }, transaction: ProfileTransaction): CliReport {
  const dir = binDir(plan);
  if (!exists(dir)) {
    fs.mkdirSync(dir, { recursive: true });
    transaction.noteCreated(dir);
  }
  const cli = path.join(plan.installDir, "dist", "cli.cjs");
  const posix = path.join(dir, COMMAND);
  const windows = path.join(dir, `${COMMAND}.cmd`);
  for (const file of [posix, windows]) {
    refuseForeign(file);
    transaction.moveAside(file);
    transaction.noteCreated(file);
  }
  fs.writeFileSync(
    posix,
    `#!/bin/sh\n# The dsh-dream CLI, ${MARKER}; rewritten by a reinstall, removed by an uninstall.\n: "\${DSH_HOME:=${shellQuoted(plan.dshHome)}}"\nexport DSH_HOME\nexec node ${shellQuoted(cli)} "$@"\n`,
    { mode: 0o755 },
  );
  fs.writeFileSync(
    windows,
    `@echo off\r\nrem The dsh-dream CLI, ${MARKER}; rewritten by a reinstall, removed by an uninstall.\r\nsetlocal\r\nif not defined DSH_HOME set "DSH_HOME=${plan.dshHome}"\r\nnode "${cli}" %*\r\n`,
  );
  const report: CliReport = { launcher: context.platform === "win32" ? windows : posix, binDir: dir, onPath: onPath(dir, context) };
  if (report.onPath || context.platform === "win32") return report;
  const local = path.join(context.homeDir, ".local", "bin");
  if (!onPath(local, context) || !fs.existsSync(local)) return report;
  const link = path.join(local, COMMAND);
  const current = linkTarget(link);
  if (exists(link) && current !== posix) return report; // someone else's dsh-dream: leave it
  if (current === undefined) {
    fs.symlinkSync(posix, link);
    transaction.noteCreated(link);
  }
  return { ...report, onPath: true, linked: link };
}

/** Uninstall: our launchers and our ~/.local/bin link go; the bin folder too when it is left empty. */
export function removeLaunchers(plan: Plan, homeDir: string): void {
  const dir = binDir(plan);
  const posix = path.join(dir, COMMAND);
  const link = path.join(homeDir, ".local", "bin", COMMAND);
  if (linkTarget(link) === posix) removeIfPresent(link);
  for (const file of [posix, path.join(dir, `${COMMAND}.cmd`)]) if (isOurs(file)) removeIfPresent(file);
  if (fs.existsSync(dir) && fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
}

/** The line a person reads after the install. */
export function cliNote(report: CliReport, platform: NodeJS.Platform): string {
  if (report.linked) return `The dsh-dream command is ready (linked in ${path.dirname(report.linked)}): try \`dsh-dream status\`.`;
  if (report.onPath) return `The dsh-dream command is ready (${report.binDir} is on PATH): try \`dsh-dream status\`.`;
  if (platform === "win32") return `The dsh-dream command is in ${report.binDir}; the PowerShell installer adds that folder to your user PATH (open a new terminal), or run "${report.launcher}" directly.`;
  return `The dsh-dream command is in ${report.binDir}, which is not on PATH: add it (e.g. in ~/.profile: export PATH="${report.binDir}:$PATH"), or run ${report.launcher} directly.`;
}

function refuseForeign(file: string): void {
  if (exists(file) && !isOurs(file)) throw new Error(`${file} exists and was not written by this installer; move it aside and run the installer again`);
}

function isOurs(file: string): boolean {
  try {
    return fs.lstatSync(file).isFile() && fs.readFileSync(file, "utf8").includes(MARKER);
  } catch {
    return false;
  }
}

function onPath(dir: string, { env, platform }: CommandEnv): boolean {
  const value = (platform === "win32" ? (env.Path ?? env.PATH) : env.PATH) ?? "";
  const norm = (p: string) => (platform === "win32" ? path.win32.resolve(p).toLowerCase().replace(/\\+$/, "") : path.resolve(p).replace(/\/+$/, ""));
  return value.split(platform === "win32" ? ";" : ":").some((entry) => entry !== "" && norm(entry.replace(/^"(.*)"$/, "$1")) === norm(dir));
}

// Single quotes: nothing inside is expanded; a quote in the path is closed, escaped and reopened.
function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

// The two ways into a profile (dsh-host.md §1.3): the DSH CLI (`dsh plugin`, which runs pnpm and
// reconciles dsh.profile.bundles), and the same result written by hand when the CLI is missing.
// Both register a `link:` to the bundle's home (plugin-home.ts), never the unzip folder.
import fs from "node:fs";
import path from "node:path";
import { outputTail, runCommand, type CommandEnv } from "./commands";
import { InstallError } from "./errors";
import type { Plan } from "./preflight";
import { addBundleEntries, PACKAGE_NAME, readJsonFile, removeBundleEntries, writeJsonFile } from "./profile-manifest";
import { removeIfPresent } from "./transaction";

export interface StepContext extends CommandEnv {
  execPath: string;
  /** DSH_DREAM_INSTALL_SKIP_DEPS=1: tests only, so they need not download chromadb & co. */
  skipDependencies: boolean;
  log(line: string): void;
}

// pnpm 10 mis-resolves drive-letter paths written with backslashes; forward slashes work (§1.3).
export function linkSpec(plan: Plan, context: CommandEnv): string {
  return `link:${context.platform === "win32" ? plan.installDir.replace(/\\/g, "/") : plan.installDir}`;
}

/** `dsh plugin add` of a link to the bundle's home: pnpm records the link and installs nothing else. */
export function addWithDshCli(plan: Plan, context: StepContext): void {
  const spec = linkSpec(plan, context);
  context.log(`Running dsh plugin --profile ${plan.profile} add -w ${spec} (pnpm links the installed copy)...`);
  runDsh(plan, ["plugin", "--profile", plan.profile, "add", "-w", spec], context);
}

export function removeWithDshCli(plan: Plan, context: StepContext): void {
  context.log(`Running dsh plugin --profile ${plan.profile} remove ${PACKAGE_NAME}...`);
  runDsh(plan, ["plugin", "--profile", plan.profile, "remove", PACKAGE_NAME], context);
}

// DSH finds its home through DSH_HOME; without it a --dsh-home choice would not reach the CLI.
function runDsh(plan: Plan, args: string[], context: StepContext): void {
  const result = runCommand(plan.dsh as string, args, plan.profileDir, { ...context, env: { ...context.env, DSH_HOME: plan.dshHome } });
  if (result.error || result.status !== 0) {
    const why = result.error ? result.error.message : `exit code ${result.status}`;
    throw new InstallError("DSH_CLI_FAILED", `\`dsh ${args.join(" ")}\` failed (${why})${outputTail(result.output)}`);
  }
}

/**
 * Without the DSH CLI: what pnpm would have done for the same `link:` spec — the dependency, the
 * bundles entry, and node_modules/dsh-dream as a link (a junction on Windows, which needs no
 * privilege) — so a later `dsh plugin` command in the profile finds a consistent manifest.
 */
export function addManually(plan: Plan, context: StepContext): void {
  context.log(`DSH CLI not found on PATH: linking ${plan.packageDir} to ${plan.installDir} by hand`);
  fs.mkdirSync(path.dirname(plan.packageDir), { recursive: true });
  fs.symlinkSync(plan.installDir, plan.packageDir, context.platform === "win32" ? "junction" : "dir");
  const manifest = readJsonFile(plan.profileManifest);
  addBundleEntries(manifest, linkSpec(plan, context));
  writeJsonFile(plan.profileManifest, manifest);
}

/** Undoes the manual path; also clears what a CLI removal left behind. Says whether it changed anything. */
export function removeManually(plan: Plan): boolean {
  let changed = removeIfPresent(plan.packageDir);
  const manifest = readJsonFile(plan.profileManifest);
  if (removeBundleEntries(manifest)) {
    writeJsonFile(plan.profileManifest, manifest);
    changed = true;
  }
  return changed;
}

// The two ways into a profile (dsh-host.md §1.3): the DSH CLI (`dsh plugin`, which runs pnpm and
// reconciles dsh.profile.bundles), and the documented manual path when the CLI is missing.
import fs from "node:fs";
import path from "node:path";
import { findCommand, outputTail, runCommand, type CommandEnv } from "./commands";
import { InstallError } from "./errors";
import type { Plan } from "./preflight";
import { addBundleEntries, PACKAGE_NAME, readJsonFile, removeBundleEntries, writeJsonFile } from "./profile-manifest";

export interface StepContext extends CommandEnv {
  execPath: string;
  /** DSH_DREAM_INSTALL_SKIP_DEPS=1: tests only, so they need not download chromadb & co. */
  skipDependencies: boolean;
  log(line: string): void;
}

// pnpm 10 mis-resolves drive-letter paths written with backslashes; forward slashes work (§1.3).
function bundleSpecPath(plan: Plan, context: CommandEnv): string {
  return context.platform === "win32" ? plan.bundleDir.replace(/\\/g, "/") : plan.bundleDir;
}

export function addWithDshCli(plan: Plan, context: StepContext): void {
  context.log(`Running dsh plugin --profile ${plan.profile} add -w ${bundleSpecPath(plan, context)} (pnpm does the install)...`);
  runDsh(plan, ["plugin", "--profile", plan.profile, "add", "-w", bundleSpecPath(plan, context)], context);
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

/** Copy, install runtime dependencies, then list it in the profile: the manual path of §1.3. */
export function addManually(plan: Plan, context: StepContext): "installed" | "skipped" {
  context.log(`DSH CLI not found on PATH: installing by hand into ${plan.packageDir}`);
  copyBundle(plan.bundleDir, plan.packageDir);
  let dependencies: "installed" | "skipped" = "skipped";
  if (!context.skipDependencies) {
    installDependencies(plan.packageDir, context);
    dependencies = "installed";
  }
  const manifest = readJsonFile(plan.profileManifest);
  addBundleEntries(manifest, `file:${bundleSpecPath(plan, context)}`);
  writeJsonFile(plan.profileManifest, manifest);
  return dependencies;
}

/** Undoes the manual path; also clears what a CLI removal left behind. Says whether it changed anything. */
export function removeManually(plan: Plan): boolean {
  let changed = false;
  if (fs.existsSync(plan.packageDir)) {
    fs.rmSync(plan.packageDir, { recursive: true, force: true });
    changed = true;
  }
  const manifest = readJsonFile(plan.profileManifest);
  if (removeBundleEntries(manifest)) {
    writeJsonFile(plan.profileManifest, manifest);
    changed = true;
  }
  return changed;
}

// What npm would pack: package.json, the "files" entries, README and LICENSE.
function copyBundle(bundleDir: string, target: string): void {
  const pkg = JSON.parse(fs.readFileSync(path.join(bundleDir, "package.json"), "utf8").replace(/^\uFEFF/, "")) as { files?: string[] };
  const always = fs.readdirSync(bundleDir).filter((name) => /^(package\.json|readme|license)/i.test(name));
  const entries = pkg.files ? [...new Set([...always, ...pkg.files.map((entry) => entry.replace(/\/+$/, ""))])] : fs.readdirSync(bundleDir).filter((name) => name !== "node_modules" && name !== ".git");
  for (const entry of entries) {
    const from = path.join(bundleDir, entry);
    if (!fs.existsSync(from)) throw new InstallError("BUNDLE_INVALID", `the bundle lists "${entry}" in its files but ${from} does not exist`);
    fs.cpSync(from, path.join(target, entry), { recursive: true });
  }
}

function installDependencies(packageDir: string, context: StepContext): void {
  const npm = findCommand("npm", context) ?? npmBesideNode(context);
  if (!npm) throw new InstallError("NPM_MISSING", "npm was not found on PATH nor next to this Node.js, so dsh-dream's runtime dependencies cannot be installed");
  context.log("Installing dsh-dream's runtime dependencies with npm (chromadb, transformers); this can take a few minutes...");
  const args = ["install", "--omit=dev", "--no-audit", "--no-fund"];
  const result = runCommand(npm, args, packageDir, context);
  if (result.error || result.status !== 0) {
    const why = result.error ? result.error.message : `exit code ${result.status}`;
    throw new InstallError("NPM_INSTALL_FAILED", `\`npm ${args.join(" ")}\` in ${packageDir} failed (${why})${outputTail(result.output)}`);
  }
}

function npmBesideNode(context: StepContext): string | undefined {
  const candidate = path.join(path.dirname(context.execPath), context.platform === "win32" ? "npm.cmd" : "npm");
  return fs.existsSync(candidate) ? candidate : undefined;
}

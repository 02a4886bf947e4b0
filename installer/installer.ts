// The install and uninstall flows: preflight, then every change inside one ProfileTransaction, so
// a run either completes (and is verified) or leaves the profile as it found it.
import fs from "node:fs";
import path from "node:path";
import type { InstallOptions } from "./args";
import { patchFilesMentioningRow, prepareDataDir, removeDataDir } from "./data-dir";
import { InstallError, wrapFilesystemError } from "./errors";
import { preflight, type Plan, type PreflightContext } from "./preflight";
import { placeBundle, recordProfileBeforeInstall, removeOtherVersions, removePluginHome, tidyProfileAfterRemoval } from "./plugin-home";
import { addManually, addWithDshCli, removeManually, removeWithDshCli, type StepContext } from "./profile-steps";
import { bundlesOf, dependencySpec, PACKAGE_NAME, readJsonFile } from "./profile-manifest";
import { failureReport, type InstallReport } from "./report";
import { ProfileTransaction } from "./transaction";
import { verifyInstall } from "./verify";
import { cliNote, removeLaunchers, writeLaunchers } from "./launcher";
import { downloadModelNow, stopRunningBridge } from "./model-step";
import { protectDataDir } from "../bridge/store/owner-only";

export type InstallerContext = PreflightContext & StepContext & {
  /** At a terminal, when the user did not say: asks whether to download the model after the install. */
  askDownloadModel?(): boolean;
};

export function runInstaller(options: InstallOptions, context: InstallerContext): InstallReport {
  let plan: Plan;
  let version: string | undefined;
  try {
    plan = preflight(options, context);
    version = installedVersion(plan);
  } catch (error) {
    return failureReport({ action: options.uninstall ? "uninstall" : "install" }, wrapFilesystemError("preflight", error));
  }
  const base = { dshHome: plan.dshHome, profile: plan.profile, profileDir: plan.profileDir, dataDir: plan.dataDir };
  if (options.uninstall) return uninstall(options, plan, context, version, base);
  if (version !== undefined && !options.force) {
    const notes = [`${PACKAGE_NAME} is already installed (version ${version}); run with -Force to reinstall (--force for install.sh and install.cjs). Nothing was changed.`];
    const report: InstallReport = { ...base, ok: true, action: "already-installed", version, checks: [], notes };
    if (options.downloadModel) withModel(report, { ...plan, installDir: installedDir(plan) }, context, options.mirror);
    return report;
  }
  const report = install(plan, context, version, { ...base, bundleDir: plan.bundleDir });
  if (report.ok && (options.downloadModel || context.askDownloadModel?.() === true)) withModel(report, plan, context, options.mirror);
  return report;
}

/** Runs the installed CLI's download-model and records the outcome in the report. */
function withModel(report: InstallReport, plan: Plan, context: InstallerContext, mirror: string | undefined): void {
  const outcome = downloadModelNow(plan, context, mirror);
  report.model = outcome.ok ? "downloaded" : "failed";
  report.notes.push(outcome.note);
}

function installedCli(plan: Plan): string | undefined {
  const cli = path.join(installedDir(plan), "dist", "cli.cjs");
  return fs.existsSync(cli) ? cli : undefined;
}

// The folder node_modules/dsh-dream links to (an install of this installer), else that folder itself.
function installedDir(plan: Plan): string {
  try {
    return fs.realpathSync(plan.packageDir);
  } catch {
    return plan.installDir;
  }
}

/** undefined when dsh-dream is absent; an installed copy's version, or "unknown" for a partial install. */
function installedVersion(plan: Plan): string | undefined {
  const manifest = path.join(plan.packageDir, "package.json");
  if (fs.existsSync(manifest)) return String(readJsonFile(manifest).data.version ?? "unknown");
  const profile = readJsonFile(plan.profileManifest).data;
  return dependencySpec(profile) !== undefined || bundlesOf(profile)?.includes(PACKAGE_NAME) || fs.existsSync(plan.packageDir) ? "unknown" : undefined;
}

// `dsh plugin` is pnpm underneath: without pnpm it would fail after DSH has started changing things.
function beginTransaction(plan: Plan): ProfileTransaction {
  if (plan.dsh && !plan.pnpm) throw new InstallError("PNPM_MISSING", `found the DSH CLI (${plan.dsh}) but no pnpm on PATH, and \`dsh plugin\` runs pnpm; nothing was changed.`);
  return new ProfileTransaction(plan);
}

function install(plan: Plan, context: InstallerContext, previous: string | undefined, base: Partial<InstallReport>): InstallReport {
  const action = previous === undefined ? "install" : "reinstall";
  const notes: string[] = [];
  let transaction: ProfileTransaction;
  try {
    transaction = beginTransaction(plan);
  } catch (error) {
    return failureReport({ ...base, action }, wrapFilesystemError("snapshotting the profile", error));
  }
  let report: InstallReport;
  const stopped = previous !== undefined ? stopRunningBridge(plan, context, installedCli(plan)) : undefined;
  if (stopped) notes.push(stopped);
  try {
    if (previous !== undefined) removeFromProfile(plan, context, transaction);
    const installed = placeBundle(plan, context, transaction);
    const dependencies = installed === "installed" ? `installed by npm ci from the bundle's lockfile into ${plan.installDir}` : "NOT installed (DSH_DREAM_INSTALL_SKIP_DEPS=1, a test-only switch)";
    const method = plan.dsh ? "dsh-cli" : "manual";
    recordProfileBeforeInstall(plan);
    if (plan.dsh) addWithDshCli(plan, context);
    else addManually(plan, context);
    const data = prepareDataDir(plan.dataDir);
    if (data === "created") transaction.noteDataDirCreated(plan.dataDir);
    // Also a kept folder: one made before this fix, or by hand on another drive, still inherits its ACL.
    const access = protectDataDir(plan.dataDir, { platform: context.platform, env: context.env });
    if (access.warning) notes.push(access.warning);
    const cli = writeLaunchers(plan, context, transaction);
    notes.push(cliNote(cli, context.platform));
    const checks = verifyInstall(plan, context, !context.skipDependencies);
    const failed = checks.filter((check) => !check.ok);
    if (failed.length) throw new InstallError("VERIFY_FAILED", `the installed bundle failed ${failed.length} check(s): ${failed.map((check) => `${check.name}: ${check.detail}`).join("; ")}`);
    const version = String(readJsonFile(path.join(plan.installDir, "package.json")).data.version);
    report = { ...base, ok: true, action, method, version, dependencies, data, cli, checks, notes };
  } catch (error) {
    return failureReport({ ...base, action }, wrapFilesystemError(`installing into profile "${plan.profile}"`, error), transaction.rollback());
  }
  commit(transaction, notes);
  notes.push(...removeOtherVersions(plan));
  if (plan.dshHomeChosen === "desktop") notes.push(`Used DSH Desktop's home, ${plan.dshHome}, because ${path.join(context.homeDir, ".dsh")} does not exist; pass -DshHome / --dsh-home to choose another.`);
  if (plan.profileChosen === "desktop-only") notes.push(`Chose profile "desktop" (DSH Desktop) because ${path.join(plan.dshHome, "profiles", "web")} does not exist; pass -Profile / --profile to choose another.`);
  notes.push(
    "Next: restart DSH (a browser refresh is not enough) and open Settings > DSH-DREAM. It is installed switched off: \"Enable long-term memory\" turns on recall, the holo_* tools and storing the turns in which a fact is remembered; \"Holographic mode\" as well stores every turn in full. The local embedding model is downloaded there (Download) or with `dsh-dream download-model`; until then recall is by keywords.",
  );
  return report;
}

function uninstall(options: InstallOptions, plan: Plan, context: InstallerContext, version: string | undefined, base: Partial<InstallReport>): InstallReport {
  const notes: string[] = [];
  if (version !== undefined || options.removeData) {
    const stopped = stopRunningBridge(plan, context, installedCli(plan));
    if (stopped) notes.push(stopped);
  }
  if (version !== undefined) {
    let transaction: ProfileTransaction;
    try {
      transaction = beginTransaction(plan);
    } catch (error) {
      return failureReport({ ...base, action: "uninstall" }, wrapFilesystemError("snapshotting the profile", error));
    }
    try {
      removeFromProfile(plan, context, transaction);
    } catch (error) {
      return failureReport({ ...base, action: "uninstall" }, wrapFilesystemError(`removing dsh-dream from profile "${plan.profile}"`, error), transaction.rollback());
    }
    commit(transaction, notes);
    // After the commit, so the moved-aside copy is gone and node_modules can be seen to be empty.
    try {
      tidyProfileAfterRemoval(plan);
    } catch (error) {
      notes.push(`dsh-dream is removed, but tidying pnpm's files in ${plan.profileDir} failed (${(error as Error).message}); they are harmless.`);
    }
    notes.push(...removePluginHome(plan));
    try {
      if (!fs.existsSync(plan.pluginHome)) removeLaunchers(plan, context.homeDir);
    } catch (error) {
      notes.push(`Could not remove the dsh-dream command from ${path.join(plan.dshHome, "bin")} (${(error as Error).message}); delete it yourself.`);
    }
  }
  let data: InstallReport["data"];
  try {
    data = options.removeData ? removeDataDir(plan.dataDir) : fs.existsSync(plan.dataDir) ? "kept" : "absent";
  } catch (error) {
    return failureReport({ ...base, action: "uninstall" }, wrapFilesystemError(`deleting the memory data in ${plan.dataDir} (the bundle itself was removed)`, error));
  }
  if (data === "kept") notes.push(`Your memories are kept in ${plan.dataDir}; run the uninstall again with -RemoveData (--remove-data) to delete them.`);
  for (const file of patchFilesMentioningRow(plan)) notes.push(`${file} still mentions holo-memory; the installer never edits your patch files, so remove that row yourself.`);
  if (version !== undefined) notes.push("Restart DSH so it unloads the plugin.");
  return { ...base, ok: true, action: version === undefined ? "not-installed" : "uninstall", version, method: version === undefined ? undefined : plan.dsh ? "dsh-cli" : "manual", data, checks: [], notes };
}

/** The CLI removes what pnpm installed; the manual undo then clears anything either path left. */
function removeFromProfile(plan: Plan, context: InstallerContext, transaction: ProfileTransaction): void {
  const listed = dependencySpec(readJsonFile(plan.profileManifest).data) !== undefined;
  transaction.moveAsideInstalledPackage();
  if (plan.dsh && listed) removeWithDshCli(plan, context);
  removeManually(plan);
}

// The run has succeeded; failing to delete the moved-aside copy must not undo it.
function commit(transaction: ProfileTransaction, notes: string[]): void {
  try {
    transaction.commit();
  } catch (error) {
    notes.push(`Could not delete the previous copy kept during the run (${(error as Error).message}); delete that folder yourself.`);
  }
}

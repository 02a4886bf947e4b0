// The bundle's own home: <DSH home>/plugins/dsh-dream/<version>, a copy of the release's bundle with
// its runtime dependencies installed by `npm ci` from the bundle's own lockfile (so its pins hold:
// the Chroma binding for older glibc, sharp 0.33). The profile then links to it (pnpm's `link:`),
// so the profile never depends on the folder the zip was extracted to, and pnpm, which installs
// none of a linked package's dependencies, never has a build script to refuse (dsh-host.md §1.3).
import fs from "node:fs";
import path from "node:path";
import { findCommand, outputTail, runCommand } from "./commands";
import { InstallError } from "./errors";
import type { Plan } from "./preflight";
import { dependencySpec, isRecord, PACKAGE_NAME, readJsonFile } from "./profile-manifest";
import type { StepContext } from "./profile-steps";
import { exists, linkTarget, removeIfPresent, type ProfileTransaction } from "./transaction";
import { renameWithRetry } from "../bridge/store/fs-retry";

const LOCKFILE = "package-lock.json";

/**
 * Copies the bundle into a staging folder beside its final place, installs its dependencies there,
 * then renames it into place (a same-version copy already there is moved aside first). Says whether
 * the dependencies were installed.
 */
export function placeBundle(plan: Plan, context: StepContext, transaction: ProfileTransaction): "installed" | "skipped" {
  for (const dir of [path.dirname(plan.pluginHome), plan.pluginHome]) {
    if (!exists(dir)) {
      fs.mkdirSync(dir);
      transaction.noteCreated(dir);
    }
  }
  const staging = fs.mkdtempSync(path.join(plan.pluginHome, ".staging-"));
  transaction.noteCreated(staging);
  context.log(`Copying the bundle to ${plan.installDir}...`);
  copyBundle(plan.bundleDir, staging);
  let dependencies: "installed" | "skipped" = "skipped";
  if (!context.skipDependencies) {
    installDependencies(staging, context);
    dependencies = "installed";
  }
  transaction.moveAside(plan.installDir);
  renameWithRetry(staging, plan.installDir);
  transaction.noteCreated(plan.installDir);
  return dependencies;
}

/**
 * The version folders other profiles of this DSH home link to: several profiles (web, desktop) can
 * hold dsh-dream, and removing it from one must not break another.
 */
function versionsInUseElsewhere(plan: Plan): Set<string> {
  const inUse = new Set<string>();
  const profiles = path.join(plan.dshHome, "profiles");
  if (!fs.existsSync(profiles)) return inUse;
  for (const name of fs.readdirSync(profiles)) {
    const dir = path.join(profiles, name);
    if (dir === plan.profileDir) continue;
    try {
      const spec = dependencySpec(readJsonFile(path.join(dir, "package.json")).data);
      if (spec?.startsWith("link:")) inUse.add(path.resolve(dir, spec.slice("link:".length)));
    } catch {
      // not a profile (no or unreadable package.json): nothing of ours to keep for it
    }
  }
  return inUse;
}

/** After a successful run: other versions' folders and leftovers of interrupted runs go, unless another profile uses them. */
export function removeOtherVersions(plan: Plan): string[] {
  if (!fs.existsSync(plan.pluginHome)) return [];
  const notes: string[] = [];
  const keep = versionsInUseElsewhere(plan);
  for (const name of fs.readdirSync(plan.pluginHome)) {
    const full = path.join(plan.pluginHome, name);
    if (full === plan.installDir || keep.has(full) || name === RECORD) continue;
    try {
      removeIfPresent(full);
    } catch (error) {
      notes.push(`Could not delete ${full}, an older copy (${(error as Error).message}); stop DSH and delete that folder yourself.`);
    }
  }
  return notes;
}

/** Uninstall: the bundle's home goes once the profile no longer names it. */
export function removePluginHome(plan: Plan): string[] {
  const notes = removeOtherVersions({ ...plan, installDir: "" });
  const records = readRecords(plan);
  delete records[plan.profile];
  const recordFile = path.join(plan.pluginHome, RECORD);
  if (Object.keys(records).length === 0) removeIfPresent(recordFile);
  else if (fs.existsSync(plan.pluginHome)) fs.writeFileSync(recordFile, `${JSON.stringify(records, null, 2)}\n`);
  try {
    for (const dir of [plan.pluginHome, path.dirname(plan.pluginHome)]) {
      if (fs.existsSync(dir) && fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
    }
  } catch (error) {
    notes.push(`Could not delete the empty folder ${plan.pluginHome} (${(error as Error).message}).`);
  }
  return notes;
}

// What npm would pack: package.json, the "files" entries, README and LICENSE, plus the lockfile.
function copyBundle(bundleDir: string, target: string): void {
  const pkg = JSON.parse(fs.readFileSync(path.join(bundleDir, "package.json"), "utf8").replace(/^\uFEFF/, "")) as { files?: string[] };
  const always = fs.readdirSync(bundleDir).filter((name) => /^(package\.json|package-lock\.json|readme|license)/i.test(name));
  const entries = pkg.files ? [...new Set([...always, ...pkg.files.map((entry) => entry.replace(/\/+$/, ""))])] : fs.readdirSync(bundleDir).filter((name) => name !== "node_modules" && name !== ".git");
  for (const entry of entries) {
    const from = path.join(bundleDir, entry);
    if (!fs.existsSync(from)) throw new InstallError("BUNDLE_INVALID", `the bundle lists "${entry}" in its files but ${from} does not exist`);
    fs.cpSync(from, path.join(target, entry), { recursive: true });
  }
}

function installDependencies(dir: string, context: StepContext): void {
  if (!fs.existsSync(path.join(dir, LOCKFILE))) {
    throw new InstallError("BUNDLE_INVALID", `the bundle has no ${LOCKFILE}, so its runtime dependencies cannot be installed at the versions it was tested with`);
  }
  const npm = findCommand("npm", context) ?? npmBesideNode(context);
  if (!npm) throw new InstallError("NPM_MISSING", "npm was not found on PATH nor next to this Node.js, so dsh-dream's runtime dependencies cannot be installed");
  context.log("Installing dsh-dream's runtime dependencies with npm ci (chromadb, transformers); this can take a few minutes...");
  const args = ["ci", "--omit=dev", "--no-audit", "--no-fund"];
  const result = runCommand(npm, args, dir, context);
  if (result.error || result.status !== 0) {
    const why = result.error ? result.error.message : `exit code ${result.status}`;
    throw new InstallError("NPM_INSTALL_FAILED", `\`npm ${args.join(" ")}\` in ${dir} failed (${why})${outputTail(result.output)}`);
  }
}

function npmBesideNode(context: StepContext): string | undefined {
  const candidate = path.join(path.dirname(context.execPath), context.platform === "win32" ? "npm.cmd" : "npm");
  return fs.existsSync(candidate) ? candidate : undefined;
}

// What pnpm adds to a profile the first time anything is installed there. Uninstall removes what the
// install created once nothing else is installed, so the profile ends as it was before the install.
const PNPM_BOOKKEEPING = ["pnpm-lock.yaml", "node_modules/.modules.yaml", "node_modules/.pnpm-workspace-state-v1.json", "node_modules/.bin", "node_modules/.pnpm", "node_modules"];
const RECORD = "profiles.json";

interface ProfileRecord {
  /** The profile's package.json before the first install, base64. */
  manifest: string;
  /** PNPM_BOOKKEEPING entries that did not exist before the first install. */
  created: string[];
}

function readRecords(plan: Plan): Record<string, ProfileRecord> {
  const file = path.join(plan.pluginHome, RECORD);
  if (!fs.existsSync(file)) return {};
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, ProfileRecord>;
  } catch {
    return {}; // a damaged record only means uninstall leaves pnpm's files in place
  }
}

/** Before the first install into a profile: how it looked, for uninstall. A reinstall keeps the first record. */
export function recordProfileBeforeInstall(plan: Plan): void {
  const records = readRecords(plan);
  if (records[plan.profile]) return;
  records[plan.profile] = {
    manifest: fs.readFileSync(plan.profileManifest).toString("base64"),
    created: PNPM_BOOKKEEPING.filter((entry) => !exists(path.join(plan.profileDir, entry))),
  };
  fs.writeFileSync(path.join(plan.pluginHome, RECORD), `${JSON.stringify(records, null, 2)}\n`);
}

/**
 * After dsh-dream left the profile: pnpm's leftovers of our link (node_modules/.bin/dsh-dream), and,
 * when the profile holds nothing else, the files our install created and the manifest's old bytes.
 */
export function tidyProfileAfterRemoval(plan: Plan): void {
  const bin = path.join(plan.profileDir, "node_modules", ".bin", PACKAGE_NAME);
  for (const shim of [bin, `${bin}.cmd`, `${bin}.ps1`]) {
    const target = linkTarget(shim);
    const ours = target !== undefined ? target.includes(PACKAGE_NAME) : fs.existsSync(shim) && /dsh-dream[\\/]+dist[\\/]+cli\.cjs/.test(fs.readFileSync(shim, "utf8"));
    if (ours) removeIfPresent(shim);
  }
  const record = readRecords(plan)[plan.profile];
  if (!record) return;
  const current = readJsonFile(plan.profileManifest).data;
  if (Object.keys(isRecord(current.dependencies) ? current.dependencies : {}).length > 0) return;
  const before = Buffer.from(record.manifest, "base64");
  let original: Record<string, unknown>;
  try {
    original = JSON.parse(before.toString("utf8").replace(/^\uFEFF/, ""));
  } catch {
    return;
  }
  // pnpm drops an emptied "dependencies"; anything else changed since means the user edited it.
  if (JSON.stringify(withoutEmptyDependencies(original)) === JSON.stringify(withoutEmptyDependencies(current))) fs.writeFileSync(plan.profileManifest, before);
  for (const entry of record.created) {
    const full = path.join(plan.profileDir, entry);
    if (!exists(full)) continue;
    if (fs.lstatSync(full).isDirectory()) {
      if (fs.readdirSync(full).length === 0) fs.rmdirSync(full);
    } else removeIfPresent(full);
  }
}

function withoutEmptyDependencies(manifest: Record<string, unknown>): Record<string, unknown> {
  const { dependencies, ...rest } = manifest;
  return isRecord(dependencies) && Object.keys(dependencies).length > 0 ? { ...rest, dependencies } : rest;
}

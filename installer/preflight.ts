// Preflight: everything the installer needs is checked here, before anything is changed: the
// Node version, the DSH home and profile, the bundle folder, the Visual C++ runtime on Windows, and
// the dsh and pnpm programs.
import fs from "node:fs";
import path from "node:path";
import { missingVcRuntime, vcRuntimeInstallStep } from "../bridge/protocol/vc-runtime";
import type { InstallOptions } from "./args";
import { findCommand, type CommandEnv } from "./commands";
import { InstallError } from "./errors";
import { isRecord, PACKAGE_NAME, readJsonFile } from "./profile-manifest";

export const MIN_NODE_MAJOR = 22;

export interface PreflightContext extends CommandEnv {
  nodeVersion: string;
  homeDir: string;
  /** Folder of the running install.cjs; the release keeps the bundle at ../bundle from it. */
  installerDir: string;
  /** The Node that will load the bundle's native bindings; this process's (process.arch) unless given. */
  arch?: string;
}

export interface Plan {
  dshHome: string;
  /** How the DSH home was found, for the report. */
  dshHomeChosen: "option" | "DSH_HOME" | "default" | "desktop";
  profile: string;
  profileChosen: "option" | "default" | "desktop-only";
  profileDir: string;
  profileManifest: string;
  /** node_modules/dsh-dream in the profile: a link to installDir once installed. */
  packageDir: string;
  /** <DSH home>/plugins/dsh-dream: one folder per installed version. */
  pluginHome: string;
  /** pluginHome/<bundle version>: where the bundle and its runtime dependencies live. */
  installDir: string;
  dataDir: string;
  /** Absolute; only checked when installing. */
  bundleDir: string;
  dsh?: string;
  pnpm?: string;
}

export function checkNodeVersion(version: string): void {
  const major = Number(version.split(".")[0]);
  if (!(major >= MIN_NODE_MAJOR)) {
    throw new InstallError("NODE_TOO_OLD", `DSH-DREAM needs Node.js ${MIN_NODE_MAJOR} or newer (DSH itself does), but this is Node.js ${version}; nothing was changed.`);
  }
}

export function preflight(options: InstallOptions, context: PreflightContext): Plan {
  checkNodeVersion(context.nodeVersion);
  const { dshHome, chosen: dshHomeChosen, tried } = chooseDshHome(options, context);
  if (!fs.existsSync(dshHome)) throw new InstallError("DSH_HOME_MISSING", `no DSH home folder at ${tried.join(" or ")}; nothing was changed.`);
  const { profile, chosen } = chooseProfile(options.profile, dshHome);
  const profileDir = path.join(dshHome, "profiles", profile);
  const profileManifest = path.join(profileDir, "package.json");
  if (!fs.existsSync(profileManifest)) {
    const existing = listProfiles(dshHome);
    throw new InstallError("PROFILE_MISSING", `DSH profile "${profile}" not found: ${profileManifest} does not exist (profiles found: ${existing.join(", ") || "none"}); nothing was changed.`);
  }
  readJsonFile(profileManifest); // a broken manifest fails here, before any change
  const bundleDir = path.resolve(options.bundle ?? path.join(context.installerDir, "..", "bundle"));
  const bundleVersion = options.uninstall ? undefined : checkBundle(bundleDir);
  if (!options.uninstall) checkVcRuntime(context);
  const pluginHome = path.join(dshHome, "plugins", PACKAGE_NAME);
  return {
    dshHome,
    dshHomeChosen,
    profile,
    profileChosen: chosen,
    profileDir,
    profileManifest,
    packageDir: path.join(profileDir, "node_modules", PACKAGE_NAME),
    pluginHome,
    installDir: path.join(pluginHome, bundleVersion ?? "none"),
    dataDir: path.join(dshHome, PACKAGE_NAME),
    bundleDir,
    dsh: findCommand("dsh", context),
    pnpm: findCommand("pnpm", context),
  };
}

/**
 * An error, not a warning: the bridge would run without Chroma and embeddings (journal and BM25),
 * but the install's last check starts the bundle's Chroma and fails without the runtime, after npm
 * has installed everything and only to roll it all back. Installing the runtime is harmless where
 * the DLLs are only missing from System32 (found elsewhere on PATH).
 */
function checkVcRuntime(context: PreflightContext): void {
  const missing = missingVcRuntime({ platform: context.platform, arch: context.arch ?? process.arch, env: context.env });
  if (!missing) return;
  throw new InstallError(
    "VC_RUNTIME_MISSING",
    `${missing.problem}; Chroma's server binding and the local embedding runtime (onnxruntime) load it, and the install's last check starts Chroma; nothing was changed.`,
    { hint: `${vcRuntimeInstallStep(missing.arch)}, then run the installer again.` },
  );
}

/**
 * --dsh-home, else DSH_HOME, else ~/.dsh; on Windows, when ~/.dsh does not exist, DSH Desktop's
 * own home (%APPDATA%\DSH Desktop\harness), which Desktop sets as DSH_HOME only for its own
 * processes, so an ordinary PowerShell never sees it.
 */
export function chooseDshHome(options: InstallOptions, context: PreflightContext): { dshHome: string; chosen: Plan["dshHomeChosen"]; tried: string[] } {
  if (options.dshHome) return { dshHome: path.resolve(options.dshHome), chosen: "option", tried: [path.resolve(options.dshHome)] };
  if (context.env.DSH_HOME) return { dshHome: path.resolve(context.env.DSH_HOME), chosen: "DSH_HOME", tried: [path.resolve(context.env.DSH_HOME)] };
  const cli = path.join(context.homeDir, ".dsh");
  const desktop = desktopHome(context);
  if (!fs.existsSync(cli) && desktop !== undefined && fs.existsSync(desktop)) return { dshHome: desktop, chosen: "desktop", tried: [cli, desktop] };
  return { dshHome: cli, chosen: "default", tried: desktop === undefined ? [cli] : [cli, desktop] };
}

/** DSH Desktop 0.1.x keeps its DSH home under the roaming application data folder. */
export function desktopHome(context: Pick<PreflightContext, "platform" | "env">): string | undefined {
  const appData = context.platform === "win32" ? context.env.APPDATA : undefined;
  return appData ? path.join(appData, "DSH Desktop", "harness") : undefined;
}

// DSH Desktop uses profile "desktop" and never creates "web"; the CLI creates "web" on first run.
function chooseProfile(requested: string | undefined, dshHome: string): { profile: string; chosen: Plan["profileChosen"] } {
  if (requested) return { profile: requested, chosen: "option" };
  const profiles = path.join(dshHome, "profiles");
  if (!fs.existsSync(path.join(profiles, "web")) && fs.existsSync(path.join(profiles, "desktop"))) return { profile: "desktop", chosen: "desktop-only" };
  return { profile: "web", chosen: "default" };
}

function listProfiles(dshHome: string): string[] {
  const profiles = path.join(dshHome, "profiles");
  if (!fs.existsSync(profiles)) return [];
  return fs
    .readdirSync(profiles, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(profiles, entry.name, "package.json")))
    .map((entry) => entry.name)
    .sort();
}

/** The bundle must be this package and declare dsh.bundle, or DSH would install it inert. Returns its version. */
export function checkBundle(bundleDir: string): string {
  const manifest = path.join(bundleDir, "package.json");
  if (!fs.existsSync(manifest)) throw new InstallError("BUNDLE_INVALID", `no bundle at ${bundleDir} (${manifest} does not exist); nothing was changed.`);
  let pkg: unknown;
  try {
    pkg = JSON.parse(fs.readFileSync(manifest, "utf8").replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new InstallError("BUNDLE_INVALID", `${manifest} is not valid JSON: ${(error as Error).message}; nothing was changed.`, { cause: error });
  }
  if (!isRecord(pkg) || pkg.name !== PACKAGE_NAME) throw new InstallError("BUNDLE_INVALID", `${manifest} is not the ${PACKAGE_NAME} bundle (its name is ${JSON.stringify(isRecord(pkg) ? pkg.name : undefined)}); nothing was changed.`);
  if (!isRecord(pkg.dsh) || !isRecord(pkg.dsh.bundle)) throw new InstallError("BUNDLE_INVALID", `${manifest} has no "dsh.bundle" field, so DSH would not load it; nothing was changed.`);
  // The version names the bundle's folder under the DSH home.
  if (typeof pkg.version !== "string" || !/^[0-9][0-9A-Za-z.+-]*$/.test(pkg.version)) throw new InstallError("BUNDLE_INVALID", `${manifest} has no usable "version" (found ${JSON.stringify(pkg.version)}); nothing was changed.`);
  return pkg.version;
}

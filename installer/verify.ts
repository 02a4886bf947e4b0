// Verifies an install the way DSH will meet it at boot: listed in the profile as a link to the
// bundle's home, present with its dsh.bundle field and patch file, its runtime dependencies found
// from there, a host entry that imports with the module shape DSH expects, and — the installed code
// actually running — its bridge started on a scratch data directory with Chroma, a write and a
// search answered, then stopped.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Plan } from "./preflight";
import type { CommandEnv } from "./commands";
import { bundlesOf, dependencySpec, isRecord, PACKAGE_NAME, readJsonFile } from "./profile-manifest";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const REQUIRED_EXPORTS = ["apply", "Config", "inject", "name"];

export interface VerifyContext extends CommandEnv {
  execPath: string;
}

/** `dependenciesInstalled` is false only under the test-only DSH_DREAM_INSTALL_SKIP_DEPS switch. */
export function verifyInstall(plan: Plan, context: VerifyContext, dependenciesInstalled: boolean): Check[] {
  const checks: Check[] = [];
  const profile = readJsonFile(plan.profileManifest).data;
  const spec = dependencySpec(profile);
  const linked = spec?.startsWith("link:") === true && samePath(path.resolve(plan.profileDir, spec.slice("link:".length)), plan.installDir);
  checks.push({ name: "profile dependency", ok: linked, detail: spec === undefined ? `${plan.profileManifest} has no dependencies["${PACKAGE_NAME}"]` : `dependencies["${PACKAGE_NAME}"] = ${spec}${linked ? "" : ` (expected a link: to ${plan.installDir})`}` });
  const listed = bundlesOf(profile)?.includes(PACKAGE_NAME) ?? false;
  checks.push({ name: "profile bundles", ok: listed, detail: listed ? `dsh.profile.bundles lists ${PACKAGE_NAME}` : `dsh.profile.bundles in ${plan.profileManifest} does not list ${PACKAGE_NAME}` });

  const manifestPath = path.join(plan.packageDir, "package.json");
  const pkg = fs.existsSync(manifestPath) ? readJsonFile(manifestPath).data : undefined;
  const bundle = pkg && isRecord(pkg.dsh) && isRecord(pkg.dsh.bundle) ? pkg.dsh.bundle : undefined;
  const resolved = pkg ? fs.realpathSync(plan.packageDir) : undefined;
  const home = resolved !== undefined && samePath(resolved, fs.realpathSync(plan.installDir));
  checks.push({ name: "installed package", ok: bundle !== undefined && home, detail: !pkg ? `${manifestPath} is missing` : !bundle ? `${manifestPath} has no dsh.bundle` : home ? `${plan.packageDir} -> ${plan.installDir} (version ${String(pkg.version)}) declares dsh.bundle` : `${plan.packageDir} is ${resolved}, not a link to ${plan.installDir}` });
  if (!pkg || !bundle) return checks;

  const patches = ([] as unknown[]).concat(bundle.patch ?? []).map(String);
  const missing = patches.filter((patch) => !fs.existsSync(path.join(plan.packageDir, patch)));
  checks.push({ name: "patch file", ok: patches.length > 0 && missing.length === 0, detail: patches.length === 0 ? "dsh.bundle.patch names no file" : missing.length ? `missing: ${missing.join(", ")}` : `${patches.join(", ")} present` });

  if (dependenciesInstalled) checks.push(checkDependencies(plan.installDir, pkg.dependencies));
  const entry = hostEntry(pkg.exports);
  checks.push(entry ? checkHostEntry(path.join(plan.packageDir, entry), context.execPath) : { name: "host entry", ok: false, detail: `${manifestPath} has no exports["."]` });
  if (dependenciesInstalled && checks.every((check) => check.ok)) checks.push(checkBridge(plan, context));
  return checks;
}

function samePath(a: string, b: string): boolean {
  const norm = (p: string) => (process.platform === "win32" ? path.resolve(p).toLowerCase() : path.resolve(p));
  return norm(a) === norm(b);
}

// Node's lookup from the bundle's real folder: node_modules/<dep> there, then in each folder above.
function checkDependencies(packageDir: string, dependencies: unknown): Check {
  const names = isRecord(dependencies) ? Object.keys(dependencies) : [];
  const missing = names.filter((name) => {
    for (let dir = packageDir; ; dir = path.dirname(dir)) {
      if (fs.existsSync(path.join(dir, "node_modules", name, "package.json"))) return false;
      if (path.dirname(dir) === dir) return true;
    }
  });
  return { name: "runtime dependencies", ok: missing.length === 0, detail: missing.length ? `not found from ${packageDir}: ${missing.join(", ")}` : `${names.join(", ") || "none"} found` };
}

function hostEntry(exportsField: unknown): string | undefined {
  const root = isRecord(exportsField) && "." in exportsField ? exportsField["."] : exportsField;
  if (typeof root === "string") return root;
  if (isRecord(root)) return [root.import, root.node, root.default].find((target): target is string => typeof target === "string");
  return undefined;
}

// Imported in a child Node (this one, >= 22), as DSH imports it, so the installer's own process
// never runs plugin code and a hang or crash there is reported like any other failed check.
function checkHostEntry(file: string, execPath: string): Check {
  const script = "const m = await import(process.argv[1]); process.stdout.write('\\n' + JSON.stringify(Object.keys(m)));";
  const result = spawnSync(execPath, ["--input-type=module", "-e", script, pathToFileURL(file).href], { cwd: path.dirname(file), encoding: "utf8", timeout: 60_000, windowsHide: true });
  if (result.status !== 0) {
    const why = result.error?.message ?? (result.stderr || "").trim().split(/\r?\n/).slice(0, 3).join(" ");
    return { name: "host entry", ok: false, detail: `import of ${file} failed: ${why}` };
  }
  const keys = exportNames(result.stdout);
  if (!keys) return { name: "host entry", ok: false, detail: `import of ${file} printed no export list: ${result.stdout.slice(-200)}` };
  const absent = REQUIRED_EXPORTS.filter((key) => !keys.includes(key));
  const problems = [...(absent.length ? [`missing export(s) ${absent.join(", ")}`] : []), ...(keys.includes("default") ? ["has a default export, so DSH's loader would take it and drop the named inject and Config"] : [])];
  return { name: "host entry", ok: problems.length === 0, detail: problems.length ? `${file}: ${problems.join("; ")}` : `${file} exports ${REQUIRED_EXPORTS.join(", ")} and no default` };
}

function exportNames(stdout: string): string[] | undefined {
  try {
    const keys: unknown = JSON.parse(stdout.trim().split("\n").pop() ?? "");
    return Array.isArray(keys) ? keys.map(String) : undefined;
  } catch {
    return undefined; // the caller reports the output it could not read
  }
}

const BRIDGE_TIMEOUT_MS = 90_000;
const PROBE_TEXT = "dsh-dream installer check: the bridge stores and finds this line";

/**
 * The installed CLI (the same bridge code the plugin spawns) on a scratch data directory beside the
 * bundle: `add` starts the bridge and its embedded Chroma, `search` must return the record, `status`
 * must report Chroma healthy; then `stop`, and the scratch directory is deleted. The user's memory
 * directory is never touched.
 */
function checkBridge(plan: Plan, context: VerifyContext): Check {
  const scratch = fs.mkdtempSync(path.join(plan.pluginHome, ".verify-"));
  const cli = path.join(plan.installDir, "dist", "cli.cjs");
  const run = (args: string[]) => {
    const result = spawnSync(context.execPath, [cli, "--data-dir", scratch, ...args], { cwd: plan.installDir, env: context.env, encoding: "utf8", timeout: BRIDGE_TIMEOUT_MS, windowsHide: true });
    if (result.error || result.status !== 0) {
      const why = result.error?.message ?? `exit code ${result.status}: ${(result.stderr || result.stdout || "").trim().split(/\r?\n/).slice(-3).join(" ")}`;
      throw new Error(`dsh-dream ${args[0]} failed (${why})`);
    }
    return JSON.parse(result.stdout.trim().split("\n").pop() ?? "null") as Record<string, any>;
  };
  try {
    run(["add", "--text", PROBE_TEXT, "--source-type", "system_fact", "--id", "installer-check", "--json"]);
    const found = run(["search", "installer check bridge", "--json"]);
    const first = found.results?.[0]?.id;
    if (first !== "installer-check") throw new Error(`search returned ${JSON.stringify(first)} first, not the record just written`);
    const status = run(["status", "--json"]);
    if (status.chroma?.healthy !== true) throw new Error(`Chroma is not healthy: ${status.chroma?.last_error ?? JSON.stringify(status.chroma ?? null)}`);
    return { name: "bridge", ok: true, detail: `the installed bridge wrote and found a record; Chroma ${status.chroma.mode} healthy (${status.chroma.url})` };
  } catch (error) {
    return { name: "bridge", ok: false, detail: (error as Error).message };
  } finally {
    spawnSync(context.execPath, [cli, "--data-dir", scratch, "stop"], { cwd: plan.installDir, env: context.env, encoding: "utf8", timeout: BRIDGE_TIMEOUT_MS, windowsHide: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

// Verifies an install the way DSH will meet it at boot: listed in the profile, present with its
// dsh.bundle field and patch file, and a host entry that imports with the module shape DSH expects.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Plan } from "./preflight";
import { bundlesOf, dependencySpec, isRecord, PACKAGE_NAME, readJsonFile } from "./profile-manifest";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const REQUIRED_EXPORTS = ["apply", "Config", "inject", "name"];

/** `dependenciesInstalled` is false only under the test-only DSH_DREAM_INSTALL_SKIP_DEPS switch. */
export function verifyInstall(plan: Plan, execPath: string, dependenciesInstalled: boolean): Check[] {
  const checks: Check[] = [];
  const profile = readJsonFile(plan.profileManifest).data;
  const spec = dependencySpec(profile);
  checks.push({ name: "profile dependency", ok: spec !== undefined, detail: spec ? `dependencies["${PACKAGE_NAME}"] = ${spec}` : `${plan.profileManifest} has no dependencies["${PACKAGE_NAME}"]` });
  const listed = bundlesOf(profile)?.includes(PACKAGE_NAME) ?? false;
  checks.push({ name: "profile bundles", ok: listed, detail: listed ? `dsh.profile.bundles lists ${PACKAGE_NAME}` : `dsh.profile.bundles in ${plan.profileManifest} does not list ${PACKAGE_NAME}` });

  const manifestPath = path.join(plan.packageDir, "package.json");
  const pkg = fs.existsSync(manifestPath) ? readJsonFile(manifestPath).data : undefined;
  const bundle = pkg && isRecord(pkg.dsh) && isRecord(pkg.dsh.bundle) ? pkg.dsh.bundle : undefined;
  checks.push({ name: "installed package", ok: bundle !== undefined, detail: bundle ? `${manifestPath} (version ${String(pkg?.version)}) declares dsh.bundle` : `${manifestPath} is missing or has no dsh.bundle` });
  if (!pkg || !bundle) return checks;

  const patches = ([] as unknown[]).concat(bundle.patch ?? []).map(String);
  const missing = patches.filter((patch) => !fs.existsSync(path.join(plan.packageDir, patch)));
  checks.push({ name: "patch file", ok: patches.length > 0 && missing.length === 0, detail: patches.length === 0 ? "dsh.bundle.patch names no file" : missing.length ? `missing: ${missing.join(", ")}` : `${patches.join(", ")} present` });

  if (dependenciesInstalled) checks.push(checkDependencies(plan.packageDir, pkg.dependencies));
  const entry = hostEntry(pkg.exports);
  checks.push(entry ? checkHostEntry(path.join(plan.packageDir, entry), execPath) : { name: "host entry", ok: false, detail: `${manifestPath} has no exports["."]` });
  return checks;
}

// Node's lookup: node_modules/<dep> in the package, then in each folder above it (pnpm hoists
// into the profile's node_modules; npm in the manual path installs inside the package).
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

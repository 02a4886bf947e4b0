// Stand-in for the DSH CLI's `dsh plugin` (DSH itself is not on npm): a line-for-line port of
// runPlugin in DSH 0.1.1-rc.2's apps/cli/src/plugin.ts, with initProfile and resolveBundleDir from
// packages/boot/app-boot/src/profile.ts (dsh-host.md §1.3). It initialises a missing profile (web
// template, pnpm-workspace.yaml with the hoisted linker), anchors relative path specs to the
// invoking directory, runs the pnpm on PATH in the profile directory, and on exit 0 reconciles
// dsh.profile.bundles by installed state; on failure it prints DSH's message and reconciles nothing.
// The one difference: there is no DSH installation, so bundles resolve from the profile only.
// Each call is recorded in <this launcher's folder>/calls.jsonl.
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const { createRequire } = require("node:module");
const path = require("node:path");

const NAME = "dsh";
const args = process.argv.slice(2);
fs.appendFileSync(path.join(path.dirname(process.argv[1]), "calls.jsonl"), `${JSON.stringify({ tool: "dsh", args, dshHome: process.env.DSH_HOME })}\n`);
if (args[0] !== "plugin" || args[1] !== "--profile" || args.length < 3) {
  process.stderr.write(`stand-in dsh: only \`dsh plugin --profile <name> <pnpm args…>\` is implemented: ${args.join(" ")}\n`);
  process.exit(64);
}

const PROFILE_TEMPLATES = { web: ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app"], headless: ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-headless"] };
const DEFAULT_PROFILE_BUNDLES = ["@deepseek-ai/dsh-base"];
const PROFILE_PATCH_TEMPLATE = "# Your patch layer for this dsh profile, applied after every bundle layer:\n# a top-level YAML array of loader patch entries (id-targeted config\n# overrides, disables, and insert lists; `!!js` expressions allowed).\n[]\n";
const PROFILE_PNPM_WORKSPACE = "packages:\n  - .\n\nnodeLinker: hoisted\nautoInstallPeers: false\n";

function resolveProfileDir(name) {
  const home = process.env.DSH_HOME || path.join(require("node:os").homedir(), ".dsh");
  return path.join(home, "profiles", name);
}

function initProfile(dir, bundles) {
  fs.mkdirSync(dir, { recursive: true });
  const manifestPath = path.join(dir, "package.json");
  if (!fs.existsSync(manifestPath)) {
    const manifest = { name: `dsh-profile-${path.basename(dir)}`, private: true, dependencies: {}, dsh: { profile: { bundles: [...bundles] } } };
    fs.writeFileSync(manifestPath, JSON.stringify(manifest, undefined, 2) + "\n");
  }
  const patchPath = path.join(dir, "cordis.patch.yml");
  if (!fs.existsSync(patchPath)) fs.writeFileSync(patchPath, PROFILE_PATCH_TEMPLATE);
  const workspacePath = path.join(dir, "pnpm-workspace.yaml");
  if (!fs.existsSync(workspacePath)) fs.writeFileSync(workspacePath, PROFILE_PNPM_WORKSPACE);
}

function readProfileManifest(dir) {
  const parsed = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`${NAME}: profile manifest must hold a JSON object`);
  return parsed;
}

function writeProfileManifest(dir, manifest) {
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest, undefined, 2) + "\n");
}

function packageDirFromAnchor(anchor, packageName) {
  for (const searchPath of createRequire(anchor).resolve.paths(packageName) ?? []) {
    const candidate = path.join(searchPath, packageName);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
  }
  return undefined;
}

function exportsPatch(packageName, profileDir) {
  const dir = packageDirFromAnchor(path.join(profileDir, "package.json"), packageName);
  if (dir === undefined) return false;
  return readProfileManifest(dir).dsh?.bundle?.patch !== undefined;
}

function reconcilePlugins(before, profileDir) {
  const after = readProfileManifest(profileDir);
  const beforeDeps = new Set(Object.keys(before.dependencies ?? {}));
  const dependencies = Object.keys(after.dependencies ?? {});
  const plugins = after.dsh?.profile?.bundles ?? [];
  let changed = false;
  for (const packageName of dependencies) {
    const isBundle = exportsPatch(packageName, profileDir);
    if (isBundle && !plugins.includes(packageName)) {
      plugins.push(packageName);
      changed = true;
    } else if (!isBundle && !beforeDeps.has(packageName)) {
      process.stderr.write(`${NAME}: warning: ${packageName} declares no dsh.bundle — installed as a plain dependency, not a profile layer (a later update that gains one activates it automatically)\n`);
    }
  }
  const dependencySet = new Set(dependencies);
  for (const packageName of [...plugins]) {
    const wasDependency = beforeDeps.has(packageName) || dependencySet.has(packageName);
    const stillBundle = dependencySet.has(packageName) && exportsPatch(packageName, profileDir);
    if (wasDependency && !stillBundle) {
      plugins.splice(plugins.indexOf(packageName), 1);
      changed = true;
    }
  }
  if (!changed) return;
  after.dsh = { ...after.dsh, profile: { ...after.dsh?.profile, bundles: plugins } };
  writeProfileManifest(profileDir, after);
}

function anchorPathSpec(argument, cwd) {
  const match = /^(?<prefix>(?:file|link):)?(?<path>\.{1,2}(?:[/\\].*)?)$/.exec(argument);
  if (match?.groups?.path === undefined) return argument;
  return `${match.groups.prefix ?? ""}${path.resolve(cwd, match.groups.path)}`;
}

function runPlugin(profile, pnpmArgs) {
  const dir = resolveProfileDir(profile);
  if (!fs.existsSync(path.join(dir, "package.json"))) {
    initProfile(dir, PROFILE_TEMPLATES[profile] ?? DEFAULT_PROFILE_BUNDLES);
    process.stderr.write(`${NAME}: initialized profile ${profile} at ${dir}\n`);
  }
  const before = readProfileManifest(dir);
  const result = spawnSync("pnpm", pnpmArgs.map((argument) => anchorPathSpec(argument, process.cwd())), { cwd: dir, stdio: "inherit", shell: process.platform === "win32" });
  if (result.error !== undefined) {
    if (result.error.code === "ENOENT") {
      process.stderr.write(`${NAME}: pnpm not found on PATH — install pnpm to manage profile plugins\n`);
      return 127;
    }
    throw result.error;
  }
  const exitCode = result.status ?? 1;
  if (exitCode === 0) reconcilePlugins(before, dir);
  else process.stderr.write(`${NAME}: pnpm failed in profile directory ${dir}\n`);
  return exitCode;
}

process.exitCode = runPlugin(args[2], args.slice(3));

// Fixtures for the installer tests: a temporary DSH home with real profile layouts, a bundle
// assembled from this repo's built files, PATH folders holding stand-in dsh/pnpm programs, and a
// runner for the built dist/installer.cjs on Node >= 22 (the one DSH tests use).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { dshNode } from "../plugin/dsh-host-driver";

export const ROOT = path.resolve(__dirname, "..", "..");
export const INSTALLER = path.join(ROOT, "dist", "installer.cjs");
const STANDINS = path.join(__dirname, "standins");

// What DSH's initProfile writes (0.1.1-rc.2, packages/boot/app-boot/src/profile.ts): in-box
// bundles come from the installation, so the manifest has no dependencies of its own.
export const WEB_PROFILE = {
  name: "dsh-profile-web",
  private: true,
  dependencies: {},
  dsh: { profile: { bundles: ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app"] } },
};
export const PROFILE_PNPM_WORKSPACE = "packages:\n  - .\n\nnodeLinker: hoisted\nautoInstallPeers: false\n";

const temps: string[] = [];

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `dsh-dream-installer-${prefix}-`));
  temps.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A DSH home whose profiles are as DSH initialises them: package.json, cordis.patch.yml, pnpm-workspace.yaml. */
export function makeDshHome(profiles: string[] = ["web"]): string {
  const home = tempDir("home");
  for (const profile of profiles) {
    const dir = path.join(home, "profiles", profile);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ ...WEB_PROFILE, name: `dsh-profile-${profile}` }, null, 2)}\n`);
    fs.writeFileSync(path.join(dir, "cordis.patch.yml"), "# profile overrides\n[]\n");
    fs.writeFileSync(path.join(dir, "pnpm-workspace.yaml"), PROFILE_PNPM_WORKSPACE);
  }
  return home;
}

/** The bundle as the release ships it: the build's release package.json and lockfile, and the built files. */
export function makeBundle(options: { defaultExport?: boolean; version?: string } = {}): string {
  const bundle = tempDir("bundle");
  const built = ["dist/plugin/index.mjs", "dist/client/index.js", "dist/cli.cjs", "dist/chroma-launcher.cjs", "dist/THIRD_PARTY_NOTICES.md"];
  const release = [["dist/bundle-package/package.json", "package.json"], ["dist/bundle-package/package-lock.json", "package-lock.json"]];
  for (const [from, to] of [...release, ...["cordis.patch.yml", "README.md", "LICENSE", "locale", ...built].map((file) => [file, file])]) {
    if (!fs.existsSync(path.join(ROOT, from))) throw new Error(`${from} is missing: run \`node scripts/build.mjs\` before the installer tests`);
    fs.cpSync(path.join(ROOT, from), path.join(bundle, to), { recursive: true });
  }
  if (options.version) {
    const manifest = path.join(bundle, "package.json");
    fs.writeFileSync(manifest, `${JSON.stringify({ ...JSON.parse(fs.readFileSync(manifest, "utf8")), version: options.version }, null, 2)}\n`);
  }
  if (options.defaultExport) fs.appendFileSync(path.join(bundle, "dist/plugin/index.mjs"), "\nexport default { broken: true };\n");
  return bundle;
}

/** A PATH folder with the stand-ins asked for; each records its calls in <dir>/calls.jsonl. */
export function makeBinDir(tools: Array<"dsh" | "pnpm"> = []): string {
  const bin = tempDir("bin");
  for (const tool of tools) {
    const launcher = path.join(bin, tool);
    fs.writeFileSync(launcher, `#!${dshNode()}\nrequire(${JSON.stringify(path.join(STANDINS, `${tool}.cjs`))});\n`);
    fs.chmodSync(launcher, 0o755);
  }
  return bin;
}

/** One user's home per PATH folder, as on a real machine: pnpm keeps its store there, and a profile is tied to one store. */
export function userHome(bin: string): string {
  const home = path.join(bin, "user-home");
  fs.mkdirSync(home, { recursive: true });
  return home;
}

export function recordedCalls(bin: string): Array<{ tool: string; args: string[]; dshHome?: string }> {
  const log = path.join(bin, "calls.jsonl");
  return fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line)) : [];
}

export interface InstallerRun {
  status: number | null;
  stdout: string;
  stderr: string;
  report: { ok: boolean; action: string; method?: string; version?: string; dependencies?: string; data?: string; profile?: string; cli?: { launcher: string; binDir: string; onPath: boolean; linked?: string }; model?: string; checks: Array<{ name: string; ok: boolean; detail: string }>; notes: string[]; error?: { code: string; message: string; hint: string }; rollback?: { restored: string[]; failures: string[] } };
}

/** Runs dist/installer.cjs with --json; PATH is only `bin`, so no real dsh, pnpm or npm is found. */
export function runInstaller(args: string[], options: { bin: string; env?: Record<string, string>; node?: string }): InstallerRun {
  const result = spawnSync(options.node ?? dshNode(), [INSTALLER, ...args, "--json"], {
    encoding: "utf8",
    env: { PATH: options.bin, HOME: userHome(options.bin), DSH_DREAM_INSTALL_SKIP_DEPS: "1", ...options.env },
  });
  let report: InstallerRun["report"];
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`installer printed no JSON report (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, report };
}

export const VERSION: string = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version;

/** <home>/plugins/dsh-dream: the bundle's home, one folder per version. */
export function pluginHome(home: string): string {
  return path.join(home, "plugins", "dsh-dream");
}

export function installDir(home: string, version = VERSION): string {
  return path.join(pluginHome(home), version);
}

/** A small plugin bundle packed with `npm pack`, for the "later `dsh plugin add` still works" checks. */
export function makeTinyPlugin(): string {
  const dir = tempDir("tiny");
  const source = path.join(dir, "src");
  fs.mkdirSync(source);
  fs.writeFileSync(path.join(source, "package.json"), `${JSON.stringify({ name: "tiny-plugin", version: "1.0.0", type: "module", exports: { ".": "./index.js" }, files: ["index.js", "cordis.patch.yml"], dsh: { bundle: { patch: "./cordis.patch.yml" } } }, null, 2)}\n`);
  fs.writeFileSync(path.join(source, "index.js"), "export const name = 'tiny-plugin';\nexport function apply() {}\n");
  fs.writeFileSync(path.join(source, "cordis.patch.yml"), "- insert:\n    - id: tiny-plugin\n      name: tiny-plugin\n");
  const packed = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", ["pack", "--silent", "--pack-destination", dir], { cwd: source, encoding: "utf8", shell: process.platform === "win32" });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  return path.join(dir, packed.stdout.trim().split("\n").pop()!);
}

/** Runs the stand-in `dsh` from `bin` the way a user would, with only `bin` on PATH. */
export function runDsh(bin: string, home: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(path.join(bin, "dsh"), args, { encoding: "utf8", env: { PATH: bin, HOME: userHome(bin), DSH_HOME: home } });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/**
 * runInstaller without blocking this process: for tests whose servers (a local model hub) live in
 * the jest process and must answer while the installer runs.
 */
export async function runInstallerAsync(args: string[], options: { bin: string; env?: Record<string, string> }): Promise<InstallerRun> {
  const result = await runAsync(dshNode(), [INSTALLER, ...args, "--json"], { PATH: options.bin, HOME: userHome(options.bin), DSH_DREAM_INSTALL_SKIP_DEPS: "1", ...options.env });
  let report: InstallerRun["report"];
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`installer printed no JSON report (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return { ...result, report };
}

/** spawn, collecting output, with optional standard input. */
export function runAsync(command: string, args: string[], env: Record<string, string>, input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

export function profileDir(home: string, profile = "web"): string {
  return path.join(home, "profiles", profile);
}

export function readProfile(home: string, profile = "web"): Record<string, any> {
  return JSON.parse(fs.readFileSync(path.join(profileDir(home, profile), "package.json"), "utf8"));
}

/** Every file under a folder with its bytes, to prove a run changed nothing. */
export function snapshotTree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, full)] = entry.isFile() ? fs.readFileSync(full).toString("base64") : entry.isDirectory() ? "<dir>" : "<other>";
  }
  return files;
}

/**
 * What npm needs from this machine to reach the registry as the repository's own `npm ci` did (its
 * user config, CA certificates, proxies) and that install's cache (the same packages, nothing large
 * fetched again); the installer runs under a stand-in HOME.
 */
export function npmEnvironment(): Record<string, string> {
  const passed = Object.entries(process.env).filter((entry): entry is [string, string] => /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|https?_proxy|no_proxy)$/i.test(entry[0]) && entry[1] !== undefined);
  return {
    ...Object.fromEntries(passed),
    npm_config_userconfig: process.env.npm_config_userconfig ?? path.join(os.homedir(), ".npmrc"),
    npm_config_cache: process.env.npm_config_cache ?? path.join(os.homedir(), ".npm"),
  };
}

// Fixtures for the installer tests: a temporary DSH home with real profile layouts, a bundle
// assembled from this repo's built files, PATH folders holding stand-in dsh/pnpm programs, and a
// runner for the built dist/installer.cjs on Node >= 22 (the one DSH tests use).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { dshNode } from "../plugin/dsh-host-driver";

export const ROOT = path.resolve(__dirname, "..", "..");
export const INSTALLER = path.join(ROOT, "dist", "installer.cjs");
const STANDINS = path.join(__dirname, "standins");

export const WEB_PROFILE = {
  name: "dsh-profile-web",
  private: true,
  dependencies: { "@deepseek-ai/dsh-base": "0.2.0" },
  dsh: { profile: { bundles: ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app"] } },
};

const temps: string[] = [];

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `dsh-dream-installer-${prefix}-`));
  temps.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A DSH home whose profiles each have package.json, cordis.patch.yml and node_modules/. */
export function makeDshHome(profiles: string[] = ["web"]): string {
  const home = tempDir("home");
  for (const profile of profiles) {
    const dir = path.join(home, "profiles", profile);
    fs.mkdirSync(path.join(dir, "node_modules"), { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ ...WEB_PROFILE, name: `dsh-profile-${profile}` }, null, 2)}\n`);
    fs.writeFileSync(path.join(dir, "cordis.patch.yml"), "# profile overrides\n");
  }
  return home;
}

/** The bundle as the release ships it, from this repo's package.json and built files. */
export function makeBundle(options: { defaultExport?: boolean } = {}): string {
  const bundle = tempDir("bundle");
  const built = ["dist/plugin/index.mjs", "dist/client/index.js", "dist/cli.cjs", "dist/chroma-launcher.cjs", "dist/THIRD_PARTY_NOTICES.md"];
  for (const file of ["package.json", "cordis.patch.yml", "README.md", "LICENSE", "locale", ...built]) {
    if (!fs.existsSync(path.join(ROOT, file))) throw new Error(`${file} is missing: run \`node scripts/build.mjs\` before the installer tests`);
    fs.cpSync(path.join(ROOT, file), path.join(bundle, file), { recursive: true });
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

export function recordedCalls(bin: string): Array<{ tool: string; args: string[]; dshHome?: string }> {
  const log = path.join(bin, "calls.jsonl");
  return fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line)) : [];
}

export interface InstallerRun {
  status: number | null;
  stdout: string;
  stderr: string;
  report: { ok: boolean; action: string; method?: string; version?: string; dependencies?: string; data?: string; profile?: string; checks: Array<{ name: string; ok: boolean; detail: string }>; notes: string[]; error?: { code: string; message: string; hint: string }; rollback?: { restored: string[]; failures: string[] } };
}

/** Runs dist/installer.cjs with --json; PATH is only `bin`, so no real dsh, pnpm or npm is found. */
export function runInstaller(args: string[], options: { bin: string; env?: Record<string, string>; node?: string }): InstallerRun {
  const result = spawnSync(options.node ?? dshNode(), [INSTALLER, ...args, "--json"], {
    encoding: "utf8",
    env: { PATH: options.bin, HOME: tempDir("user"), DSH_DREAM_INSTALL_SKIP_DEPS: "1", ...options.env },
  });
  let report: InstallerRun["report"];
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`installer printed no JSON report (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, report };
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

// The user's path end to end: npm run release, expand the zip, run install.sh from where it was
// expanded into a DSH home with a real profile layout, then uninstall — the zip and the installer
// must fit together (paths, modes, the bundle the installer verifies by importing its host entry).
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { installDir, makeBinDir, makeDshHome, npmEnvironment, profileDir, readProfile, recordedCalls, removeTempDirs } from "../installer/installer-fixtures";
import { writeTinyModel } from "../embed/tiny-model";
import { dshNode } from "../plugin/dsh-host-driver";
import { tempDir } from "../store/helpers";
import { copyRepository, readZip, REPO_ROOT, runRelease } from "./release-tree";

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"));

function expand(zipEntries: Awaited<ReturnType<typeof readZip>>, into: string): void {
  for (const entry of zipEntries) {
    const target = path.join(into, ...entry.name.split("/"));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, entry.data, { mode: entry.mode & 0o777 });
  }
}

function runInstallSh(expanded: string, args: string[], bin: string, dshHome: string, env: NodeJS.ProcessEnv = {}): { status: number | null; report: any; stderr: string } {
  const result = spawnSync("sh", [path.join(expanded, "install.sh"), ...args, "--json"], {
    cwd: expanded,
    encoding: "utf8",
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: tempDir("user-"), DSH_HOME: dshHome, DSH_DREAM_INSTALL_SKIP_DEPS: "1", ...env },
  });
  let report: unknown = null;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`install.sh printed no JSON report (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return { status: result.status, report, stderr: result.stderr };
}

describe("the release zip, expanded and installed", () => {
  let expanded: string;
  let copy: string;

  beforeAll(async () => {
    copy = copyRepository();
    const out = path.join(copy, "out");
    const run = await runRelease(copy, out);
    if (run.exitCode !== 0) throw new Error(`release failed:\n${run.stderr}`);
    expanded = tempDir("expanded-");
    expand(await readZip(path.join(out, `DSH-DREAM-v${pkg.version}.zip`)), expanded);
  }, 240_000);

  afterAll(() => {
    fs.rmSync(copy, { recursive: true, force: true });
    removeTempDirs();
  });

  it("installs the bundle from the expanded zip with install.sh (no DSH CLI: the manual path), verifies it, and uninstalls keeping the data", () => {
    const dshHome = makeDshHome(["web"]);
    const bin = makeBinDir([]);
    fs.symlinkSync(dshNode(), path.join(bin, "node"));
    const before = fs.readFileSync(path.join(profileDir(dshHome), "package.json"), "utf8");

    const installed = runInstallSh(expanded, ["--profile", "web"], bin, dshHome);
    expect([installed.status, installed.report.ok, installed.report.action, installed.report.method]).toEqual([0, true, "install", "manual"]);
    expect(installed.report.checks.filter((c: { ok: boolean }) => !c.ok)).toEqual([]);
    expect(installed.report.checks.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining([expect.stringMatching(/import|entry|exports/i)]));
    const profile = readProfile(dshHome);
    expect(profile.dependencies["dsh-dream"]).toBe(`link:${installDir(dshHome)}`);
    expect(profile.dsh.profile.bundles).toEqual(["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app", "dsh-dream"]);
    const installedPkg = JSON.parse(fs.readFileSync(path.join(profileDir(dshHome), "node_modules", "dsh-dream", "package.json"), "utf8"));
    expect([installedPkg.name, installedPkg.version, installedPkg.engines.node]).toEqual(["dsh-dream", pkg.version, ">=22"]);
    expect(fs.existsSync(path.join(dshHome, "dsh-dream"))).toBe(true);
    fs.writeFileSync(path.join(dshHome, "dsh-dream", "journal.jsonl"), "kept\n");

    const removed = runInstallSh(expanded, ["--uninstall"], bin, dshHome);
    expect([removed.status, removed.report.ok, removed.report.action]).toEqual([0, true, "uninstall"]);
    expect(fs.readFileSync(path.join(profileDir(dshHome), "package.json"), "utf8")).toBe(before);
    expect(fs.existsSync(path.join(profileDir(dshHome), "node_modules", "dsh-dream"))).toBe(false);
    expect(fs.readFileSync(path.join(dshHome, "dsh-dream", "journal.jsonl"), "utf8")).toBe("kept\n");
  });

  it("installs the runtime dependencies for real with npm, and the installed bridge embeds offline with them", () => {
    const dshHome = makeDshHome(["web"]);
    const bin = makeBinDir([]);
    fs.symlinkSync(dshNode(), path.join(bin, "node"));
    const installed = runInstallSh(expanded, ["--profile", "web"], bin, dshHome, { DSH_DREAM_INSTALL_SKIP_DEPS: "", ...npmEnvironment() });
    expect([installed.status, installed.report.ok, installed.report.method, installed.report.dependencies]).toEqual([0, true, "manual", `installed by npm ci from the bundle's lockfile into ${installDir(dshHome)}`]);
    expect(installed.report.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toContainEqual(["bridge", true]);

    // The release's lockfile carries our pins into that install: sharp's binaries from the npm registry
    // (0.32's install script downloads from GitHub) and the Chroma binding that runs on glibc 2.36.
    const packageDir = path.join(profileDir(dshHome), "node_modules", "dsh-dream");
    const version = (name: string) => JSON.parse(fs.readFileSync(path.join(packageDir, "node_modules", name, "package.json"), "utf8")).version;
    expect(version("sharp")).toBe(pkg.overrides.sharp);
    if (process.platform === "linux" && process.arch === "x64") expect(version("chromadb-js-bindings-linux-x64-gnu")).toBe(pkg.overrides["chromadb-js-bindings-linux-x64-gnu"]);

    // The installed bridge, on DSH's Node, loads the installed transformers.js and Chroma.
    const dataDir = tempDir("installed-data-");
    writeTinyModel(path.join(dataDir, "models"), "Xenova/bge-small-zh-v1.5", 32, 3);
    const cli = (...args: string[]) => spawnSync(dshNode(), [path.join(packageDir, "dist", "cli.cjs"), "--data-dir", dataDir, ...args], { encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: tempDir("user-") } });
    try {
      expect(cli("add", "--text", "我把蓝色马克杯放在书房的窗台上了。", "--source-type", "user_message").status).toBe(0);
      let status: any;
      for (let i = 0; i < 120; i++) {
        status = JSON.parse(cli("status", "--json").stdout);
        if (status.embedding.coverage.current_vectors === 1 && status.chroma.pending_bytes === 0) break;
        spawnSync("sleep", ["0.5"]);
      }
      expect(status.embedding).toMatchObject({ provider: "local", state: "ready", dim: 32, coverage: { records: 1, current_vectors: 1 } });
      expect(status.chroma.pending_bytes).toBe(0);
      const search = JSON.parse(cli("search", "蓝色马克杯在哪里", "--json").stdout);
      expect(search.receipt.fallback_reason).toBeNull();
      expect(search.results.map((r: { text: string }) => r.text)).toEqual(["我把蓝色马克杯放在书房的窗台上了。"]);
    } finally {
      cli("stop");
      // 666 MB of runtime dependencies: not left behind in the temp folder.
      for (const dir of [dshHome, dataDir]) fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it("hands the expanded bundle to the DSH CLI when one is on PATH", () => {
    const dshHome = makeDshHome(["web"]);
    const bin = makeBinDir(["dsh", "pnpm"]);
    fs.symlinkSync(dshNode(), path.join(bin, "node"));
    const installed = runInstallSh(expanded, ["--force"], bin, dshHome);
    expect([installed.status, installed.report.ok, installed.report.method]).toEqual([0, true, "dsh-cli"]);
    expect(recordedCalls(bin).filter((call) => call.tool === "dsh").map((call) => call.args)).toEqual([["plugin", "--profile", "web", "add", "-w", `link:${installDir(dshHome)}`]]);
  });
});

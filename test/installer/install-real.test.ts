// A real install, end to end: the runtime dependencies installed by `npm ci` from the bundle's own
// lockfile, the real pnpm 11.7.0 under the `dsh plugin` port, verification by the installed bridge
// with its embedded Chroma, then the DSH agent loop from npm loading the bundle from the profile and
// capturing a turn, a later `dsh plugin add` in the profile, and an uninstall that leaves the
// profile as it was. Only `dsh` itself is a stand-in (DSH is not on npm).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { dshNode, DshHost, recallMessage } from "../plugin/dsh-host-driver";
import { bridgeClient, bridgeRecords, stopPluginBridge, waitFor } from "../plugin/plugin-helpers";
import { INSTALLER, installDir, makeBinDir, ROOT, runAsync, tempDir, userHome, makeBundle, makeDshHome, makeTinyPlugin, npmEnvironment, profileDir, readProfile, removeTempDirs, runDsh, runInstaller, snapshotTree, type InstallerRun } from "./installer-fixtures";

const INSTALL_TIMEOUT_MS = 10 * 60_000;

afterEach(removeTempDirs);

// npm from this machine (the installer looks for it on PATH); the npm cache that the project's own
// `npm ci` filled already holds every tarball the bundle's lockfile names.
const NPM_DIR = path.dirname(process.execPath);

function realInstall(home: string, bin: string, extra: string[] = []): InstallerRun {
  return runInstaller(["--dsh-home", home, "--bundle", makeBundle(), ...extra], {
    bin,
    env: { ...npmEnvironment(), PATH: `${bin}${path.delimiter}${NPM_DIR}`, DSH_DREAM_INSTALL_SKIP_DEPS: "", npm_config_prefer_offline: "true", npm_config_update_notifier: "false" },
  });
}

/** The release's folder as a user expands it: install.sh, installer/install.cjs and bundle/. */
function expandedRelease(): string {
  const release = tempDir("release");
  fs.copyFileSync(path.join(ROOT, "installer", "install.sh"), path.join(release, "install.sh"));
  fs.mkdirSync(path.join(release, "installer"));
  fs.copyFileSync(INSTALLER, path.join(release, "installer", "install.cjs"));
  fs.cpSync(makeBundle(), path.join(release, "bundle"), { recursive: true });
  return release;
}

/**
 * The DSH loop from npm with the installed bundle's host entry, as DSH would import it from the
 * profile: one turn is captured, and a later conversation's model request carries it as recall.
 */
async function captureOneTurn(home: string): Promise<string[]> {
  const entry = path.join(profileDir(home), "node_modules", "dsh-dream", "dist", "plugin", "index.mjs");
  const host = new DshHost({ ...process.env, DSH_HOME: home }, entry);
  const dataDir = path.join(home, "dsh-dream");
  try {
    await host.boot({ enabled: true, holographic: true, recall: { timeBudgetMs: 8000 } });
    await host.createAgent("s-install");
    await host.turn("s-install", "The spare key is under the blue flower pot.", [{ text: "Noted: under the blue flower pot." }]);
    const client = await bridgeClient(dataDir);
    const records = await waitFor(() => bridgeRecords(client), (found) => found.length === 2);
    const captured = records.map((record) => record.text);
    await host.createAgent("s-later");
    const later = await host.turn("s-later", "Where is the spare key?", [{ text: "Under the blue flower pot." }]);
    expect(recallMessage(later.requests[0]!)?.text).toContain("The spare key is under the blue flower pot.");
    const bridge = JSON.parse(fs.readFileSync(path.join(dataDir, "bridge.json"), "utf8")) as { pid: number };
    // The bridge runs the installed copy of the CLI, not this repository's build.
    if (process.platform === "linux") expect(fs.readFileSync(`/proc/${bridge.pid}/cmdline`, "utf8")).toContain(path.join(installDir(home), "dist", "cli.cjs"));
    expect(await host.shutdown()).toBe(0);
    return captured;
  } finally {
    host.kill();
    await stopPluginBridge(dataDir);
  }
}

describe("a real install into a DSH profile", () => {
  it(
    "install.sh with dsh on PATH: npm ci from the bundle's lockfile, the installed bridge verified, the bundle loaded by the DSH loop from the profile capturing and recalling, later plugin commands working, and uninstall leaving the profile as before",
    async () => {
      const home = makeDshHome();
      const profileBefore = snapshotTree(profileDir(home));
      const bin = makeBinDir(["dsh", "pnpm"]);
      // As the README says: `sh install.sh`, from the expanded zip, with Node 22+ first on PATH.
      const release = expandedRelease();
      const sh = await runAsync("sh", [path.join(release, "install.sh"), "--dsh-home", home, "--json"], {
        ...npmEnvironment(),
        PATH: [bin, path.dirname(dshNode()), NPM_DIR, "/usr/bin", "/bin"].join(path.delimiter),
        HOME: userHome(bin),
        npm_config_prefer_offline: "true",
        npm_config_update_notifier: "false",
      });
      const run = { ...sh, report: JSON.parse(sh.stdout) as InstallerRun["report"] };

      expect([run.status, run.report.error]).toEqual([0, undefined]);
      expect(run.report.dependencies).toBe(`installed by npm ci from the bundle's lockfile into ${installDir(home)}`);
      expect(run.report.checks.map((check) => [check.name, check.ok])).toEqual([
        ["profile dependency", true],
        ["profile bundles", true],
        ["installed package", true],
        ["patch file", true],
        ["runtime dependencies", true],
        ["host entry", true],
        ["bridge", true],
      ]);
      expect(run.report.checks.at(-1)?.detail).toMatch(/^the installed bridge wrote and found a record; Chroma embedded healthy/);
      // The pins of the bundle's lockfile hold where pnpm's would not (dsh-host.md §1.3).
      const pinned = (name: string) => JSON.parse(fs.readFileSync(path.join(installDir(home), "node_modules", name, "package.json"), "utf8")).version;
      const lock = JSON.parse(fs.readFileSync(path.join(installDir(home), "package-lock.json"), "utf8")).packages;
      for (const name of ["chromadb", "sharp", "@xenova/transformers"]) expect([name, pinned(name)]).toEqual([name, lock[`node_modules/${name}`].version]);
      if (process.platform === "linux" && process.arch === "x64") expect(pinned("chromadb-js-bindings-linux-x64-gnu")).toBe(lock["node_modules/chromadb-js-bindings-linux-x64-gnu"].version);
      expect(fs.readdirSync(path.join(home, "plugins", "dsh-dream")).sort()).toEqual(["0.1.0", "profiles.json"]);

      expect(await captureOneTurn(home)).toEqual(["The spare key is under the blue flower pot.", "Noted: under the blue flower pot."]);

      const add = runDsh(bin, home, ["plugin", "--profile", "web", "add", "-w", makeTinyPlugin()]);
      expect([add.status, add.output]).toEqual([0, expect.stringContaining("tiny-plugin")]);
      expect(runDsh(bin, home, ["plugin", "--profile", "web", "remove", "tiny-plugin"]).status).toBe(0);
      expect(readProfile(home).dsh.profile.bundles).toContain("dsh-dream");

      const uninstall = runInstaller(["--dsh-home", home, "--uninstall"], { bin });
      expect([uninstall.status, uninstall.report.action, uninstall.report.data]).toEqual([0, "uninstall", "kept"]);
      expect(snapshotTree(profileDir(home))).toEqual(profileBefore);
      expect(fs.existsSync(path.join(home, "plugins"))).toBe(false);
      expect(fs.readFileSync(path.join(home, "dsh-dream", "journal.jsonl"), "utf8")).toContain("blue flower pot");
    },
    INSTALL_TIMEOUT_MS,
  );

  it(
    "without dsh on PATH: the same bundle home and checks, and the DSH loop loads the bundle through the hand-made link",
    async () => {
      const home = makeDshHome();
      const run = realInstall(home, makeBinDir());

      expect([run.status, run.report.method, run.report.error]).toEqual([0, "manual", undefined]);
      expect(run.report.checks.every((check) => check.ok)).toBe(true);
      expect(run.report.checks.map((check) => check.name)).toContain("bridge");
      expect(await captureOneTurn(home)).toEqual(["The spare key is under the blue flower pot.", "Noted: under the blue flower pot."]);
    },
    INSTALL_TIMEOUT_MS,
  );

  it(
    "by hand, running the README's shell block as written: the DSH loop loads the bundle and captures a turn",
    async () => {
      const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
      const block = /<!-- by-hand-install:[^>]*-->\r?\n```sh\r?\n([\s\S]*?)```/.exec(readme)?.[1];
      expect(block).toBeDefined();
      const home = makeDshHome();
      const bin = makeBinDir(["dsh", "pnpm"]);
      const expanded = tempDir("expanded");
      fs.cpSync(makeBundle(), path.join(expanded, "bundle"), { recursive: true });
      const result = spawnSync("sh", ["-e", "-c", block!], {
        cwd: expanded,
        encoding: "utf8",
        env: { ...npmEnvironment(), PATH: `${bin}${path.delimiter}${NPM_DIR}${path.delimiter}/usr/bin${path.delimiter}/bin`, HOME: userHome(bin), DSH_HOME: home, npm_config_prefer_offline: "true", npm_config_update_notifier: "false" },
      });
      expect([result.status, result.stderr]).toEqual([0, expect.any(String)]);
      expect(readProfile(home).dependencies).toEqual({ "dsh-dream": `link:${installDir(home)}` });
      expect(readProfile(home).dsh.profile.bundles).toContain("dsh-dream");
      expect(await captureOneTurn(home)).toEqual(["The spare key is under the blue flower pot.", "Noted: under the blue flower pot."]);
    },
    INSTALL_TIMEOUT_MS,
  );
});

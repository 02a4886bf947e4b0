// The installer with the DSH CLI on PATH: a port of `dsh plugin` (stand-in dsh) running the real
// pnpm 11.7.0 in a profile laid out as DSH initialises it. What is called, what the profile holds
// afterwards, that later `dsh plugin` commands in the profile still work, and that a failure at any
// step, reinstall and uninstall leave the profile byte for byte as it was.
import fs from "node:fs";
import path from "node:path";
import {
  installDir,
  makeBinDir,
  makeBundle,
  makeDshHome,
  makeTinyPlugin,
  pluginHome,
  profileDir,
  readProfile,
  recordedCalls,
  removeTempDirs,
  runDsh,
  runInstaller,
  snapshotTree,
  VERSION,
} from "./installer-fixtures";

afterEach(removeTempDirs);

const linked = (home: string) => path.join(profileDir(home), "node_modules", "dsh-dream");

describe("installing with the DSH CLI", () => {
  it("copies the bundle to <home>/plugins/dsh-dream/<version>, then runs `dsh plugin --profile web add -w link:<that folder>` with DSH_HOME set", () => {
    const home = makeDshHome();
    const bundle = makeBundle();
    const bin = makeBinDir(["dsh", "pnpm"]);
    const run = runInstaller(["--dsh-home", home, "--bundle", path.relative(process.cwd(), bundle)], { bin });

    expect(run.status).toBe(0);
    expect(run.report).toMatchObject({ ok: true, action: "install", method: "dsh-cli", version: VERSION, data: "created" });
    const spec = `link:${installDir(home)}`;
    expect(recordedCalls(bin)).toEqual([
      { tool: "dsh", args: ["plugin", "--profile", "web", "add", "-w", spec], dshHome: home },
      expect.objectContaining({ tool: "pnpm", args: ["add", "-w", spec] }),
    ]);
    const profile = readProfile(home);
    expect(profile.dependencies).toEqual({ "dsh-dream": spec });
    expect(profile.dsh.profile.bundles).toEqual(["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app", "dsh-dream"]);
    expect(fs.realpathSync(linked(home))).toBe(fs.realpathSync(installDir(home)));
    expect(run.report.checks.map((check) => [check.name, check.ok])).toEqual([
      ["profile dependency", true],
      ["profile bundles", true],
      ["installed package", true],
      ["patch file", true],
      ["host entry", true],
    ]);
  });

  it("keeps working after the unzip folder is deleted: the profile links the bundle's home, not the folder it came from", () => {
    const home = makeDshHome();
    const bundle = makeBundle();
    expect(runInstaller(["--dsh-home", home, "--bundle", bundle], { bin: makeBinDir(["dsh", "pnpm"]) }).status).toBe(0);
    fs.rmSync(bundle, { recursive: true });

    for (const file of ["package.json", "cordis.patch.yml", "dist/plugin/index.mjs", "dist/client/index.js", "dist/cli.cjs", "locale/zh.json"]) {
      expect([file, fs.existsSync(path.join(linked(home), file))]).toEqual([file, true]);
    }
  });

  it("leaves later `dsh plugin add` and `remove` commands in the profile working (real pnpm, a packed plugin)", () => {
    const home = makeDshHome();
    const bin = makeBinDir(["dsh", "pnpm"]);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    const tarball = makeTinyPlugin();

    const add = runDsh(bin, home, ["plugin", "--profile", "web", "add", "-w", tarball]);
    expect([add.status, add.output]).toEqual([0, expect.any(String)]);
    const profile = readProfile(home);
    expect(Object.keys(profile.dependencies).sort()).toEqual(["dsh-dream", "tiny-plugin"]);
    expect(profile.dsh.profile.bundles).toEqual(["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app", "dsh-dream", "tiny-plugin"]);
    expect(fs.existsSync(path.join(profileDir(home), "node_modules", "tiny-plugin", "cordis.patch.yml"))).toBe(true);
    expect(fs.realpathSync(linked(home))).toBe(fs.realpathSync(installDir(home)));

    const remove = runDsh(bin, home, ["plugin", "--profile", "web", "remove", "tiny-plugin"]);
    expect(remove.status).toBe(0);
    expect(readProfile(home).dsh.profile.bundles).toEqual(["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app", "dsh-dream"]);
    expect(fs.realpathSync(linked(home))).toBe(fs.realpathSync(installDir(home)));
  });

  it("fails with the pnpm message and changes nothing when dsh is on PATH but pnpm is not", () => {
    const home = makeDshHome();
    const before = snapshotTree(home);
    const bin = makeBinDir(["dsh"]);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });

    expect(run.status).toBe(1);
    expect(run.report.error?.code).toBe("PNPM_MISSING");
    expect(run.report.error?.message).toContain("found the DSH CLI");
    expect(run.report.error?.hint).toContain("npm i -g pnpm");
    expect(recordedCalls(bin)).toEqual([]);
    expect(snapshotTree(home)).toEqual(before);
  });

  it("rolls back when pnpm fails after writing: exit 1, the DSH home byte for byte as before (pnpm's lockfile, .modules.yaml, .bin and the bundle's home gone)", () => {
    const home = makeDshHome();
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir(["dsh", "pnpm"]), env: { STANDIN_PNPM_FAIL_AFTER_WRITE: "1" } });

    expect(run.status).toBe(1);
    expect(run.report.error?.code).toBe("DSH_CLI_FAILED");
    expect(run.report.error?.message).toContain("`dsh plugin --profile web add -w link:");
    expect(run.report.error?.message).toContain("ERR_PNPM_IGNORED_BUILDS");
    expect(run.report.error?.message).toContain("dsh: pnpm failed in profile directory");
    expect(run.report.rollback?.failures).toEqual([]);
    expect(run.report.rollback?.restored).toEqual(
      expect.arrayContaining([
        `removed ${path.join(home, "plugins")}, which this run created`,
        `restored ${path.join(profileDir(home), "package.json")}`,
        `removed ${path.join(profileDir(home), "pnpm-lock.yaml")}, which this run created`,
        `removed ${path.join(profileDir(home), "node_modules")}, which this run created`,
      ]),
    );
    expect(snapshotTree(home)).toEqual(before);
  });

  it("fails with NPM_MISSING when the runtime dependencies must be installed and no npm is found, changing nothing", () => {
    const home = makeDshHome();
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir(["dsh", "pnpm"]), env: { DSH_DREAM_INSTALL_SKIP_DEPS: "" } });

    expect(run.status).toBe(1);
    expect(run.report.error?.code).toBe("NPM_MISSING");
    expect(run.report.rollback?.failures).toEqual([]);
    expect(snapshotTree(home)).toEqual(before);
  });
});

describe("installing again", () => {
  it("reports already installed without --force and leaves the DSH home byte-identical", () => {
    const home = makeDshHome();
    const bin = makeBinDir(["dsh", "pnpm"]);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });

    expect(run.status).toBe(0);
    expect(run.report.action).toBe("already-installed");
    expect(run.report.notes[0]).toContain(`already installed (version ${VERSION}); run with -Force to reinstall`);
    expect(recordedCalls(bin).filter((call) => call.tool === "dsh")).toHaveLength(1);
    expect(snapshotTree(home)).toEqual(before);
  });

  it.each([
    ["the DSH CLI", ["dsh", "pnpm"] as Array<"dsh" | "pnpm">],
    ["the manual path", [] as Array<"dsh" | "pnpm">],
  ])("reinstalls with --force through %s, ending with one dependency, one bundles entry, one bundle folder and the data kept", (_label, tools) => {
    const home = makeDshHome();
    const bin = makeBinDir(tools);
    const bundle = makeBundle();
    runInstaller(["--dsh-home", home, "--bundle", bundle], { bin });
    fs.writeFileSync(path.join(home, "dsh-dream", "journal.jsonl"), "{}\n");
    const run = runInstaller(["--dsh-home", home, "--bundle", bundle, "--force"], { bin });

    expect(run.status).toBe(0);
    expect(run.report).toMatchObject({ ok: true, action: "reinstall", data: "kept" });
    const profile = readProfile(home);
    expect(profile.dependencies).toEqual({ "dsh-dream": `link:${installDir(home)}` });
    expect(profile.dsh.profile.bundles.filter((name: string) => name === "dsh-dream")).toHaveLength(1);
    expect(fs.existsSync(path.join(linked(home), "dist", "plugin", "index.mjs"))).toBe(true);
    expect(fs.readdirSync(pluginHome(home)).sort()).toEqual([VERSION, "profiles.json"]);
    expect(fs.readFileSync(path.join(home, "dsh-dream", "journal.jsonl"), "utf8")).toBe("{}\n");
    expect(fs.readdirSync(path.join(profileDir(home), "node_modules")).filter((name) => name.includes("backup"))).toEqual([]);
    if (tools.length) expect(recordedCalls(bin).filter((call) => call.tool === "dsh").map((call) => call.args[3])).toEqual(["add", "remove", "add"]);
  });

  it("upgrades to a new version: the profile links the new folder, the old one is deleted, the data kept", () => {
    const home = makeDshHome();
    const bin = makeBinDir(["dsh", "pnpm"]);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    fs.writeFileSync(path.join(home, "dsh-dream", "journal.jsonl"), "{}\n");
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle({ version: "0.2.0" }), "--force"], { bin });

    expect(run.status).toBe(0);
    expect(run.report).toMatchObject({ action: "reinstall", version: "0.2.0" });
    expect(readProfile(home).dependencies).toEqual({ "dsh-dream": `link:${path.join(pluginHome(home), "0.2.0")}` });
    expect(fs.readdirSync(pluginHome(home)).sort()).toEqual(["0.2.0", "profiles.json"]);
    expect(fs.readFileSync(path.join(home, "dsh-dream", "journal.jsonl"), "utf8")).toBe("{}\n");
  });

  it("keeps a version another profile still links when upgrading one profile", () => {
    const home = makeDshHome(["web", "desktop"]);
    const bin = makeBinDir(["dsh", "pnpm"]);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle(), "--profile", "desktop"], { bin });
    runInstaller(["--dsh-home", home, "--bundle", makeBundle({ version: "0.2.0" })], { bin });

    expect(fs.readdirSync(pluginHome(home)).sort()).toEqual([VERSION, "0.2.0", "profiles.json"]);
    expect(fs.realpathSync(path.join(profileDir(home, "desktop"), "node_modules", "dsh-dream"))).toBe(fs.realpathSync(installDir(home)));
  });

  it("puts the previous install back when a --force reinstall fails", () => {
    const home = makeDshHome();
    const bin = makeBinDir(["dsh", "pnpm"]);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle(), "--force"], { bin, env: { STANDIN_PNPM_FAIL_AFTER_WRITE: "1" } });

    expect(run.status).toBe(1);
    expect(run.report.rollback?.failures).toEqual([]);
    expect(run.report.rollback?.restored.join("\n")).toContain(`put the previous ${installDir(home)} back`);
    expect(snapshotTree(home)).toEqual(before);
    expect(fs.realpathSync(linked(home))).toBe(fs.realpathSync(installDir(home)));
  });
});

describe("uninstalling", () => {
  it.each([
    ["the DSH CLI", ["dsh", "pnpm"] as Array<"dsh" | "pnpm">],
    ["the manual path", [] as Array<"dsh" | "pnpm">],
  ])("through %s leaves the profile byte for byte as before the install and keeps the data directory untouched", (_label, tools) => {
    const home = makeDshHome();
    const profileBefore = snapshotTree(profileDir(home));
    const bin = makeBinDir(tools);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    const dataFile = path.join(home, "dsh-dream", "journal.jsonl");
    fs.writeFileSync(dataFile, '{"id":"r1"}\n');
    const run = runInstaller(["--dsh-home", home, "--uninstall"], { bin });

    expect(run.status).toBe(0);
    expect(run.report).toMatchObject({ ok: true, action: "uninstall", data: "kept" });
    expect(run.report.notes.join("\n")).toContain(`Your memories are kept in ${path.join(home, "dsh-dream")}`);
    expect(snapshotTree(profileDir(home))).toEqual(profileBefore);
    expect(fs.existsSync(path.join(home, "plugins"))).toBe(false);
    expect(fs.readFileSync(dataFile, "utf8")).toBe('{"id":"r1"}\n');
    if (tools.length) expect(recordedCalls(bin).at(-2)).toEqual({ tool: "dsh", args: ["plugin", "--profile", "web", "remove", "dsh-dream"], dshHome: home });
  });

  it("keeps pnpm's files and the other plugin when the profile holds another plugin, removing only dsh-dream and its .bin link", () => {
    const home = makeDshHome();
    const bin = makeBinDir(["dsh", "pnpm"]);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    expect(runDsh(bin, home, ["plugin", "--profile", "web", "add", "-w", makeTinyPlugin()]).status).toBe(0);
    const run = runInstaller(["--dsh-home", home, "--uninstall"], { bin });

    expect(run.status).toBe(0);
    const profile = readProfile(home);
    expect(Object.keys(profile.dependencies)).toEqual(["tiny-plugin"]);
    expect(profile.dsh.profile.bundles).toEqual(["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app", "tiny-plugin"]);
    const modules = path.join(profileDir(home), "node_modules");
    expect(fs.existsSync(path.join(modules, "dsh-dream"))).toBe(false);
    expect(fs.existsSync(path.join(modules, ".bin", "dsh-dream"))).toBe(false);
    expect(fs.existsSync(path.join(modules, "tiny-plugin", "package.json"))).toBe(true);
    expect(fs.existsSync(path.join(profileDir(home), "pnpm-lock.yaml"))).toBe(true);
  });

  it("deletes the data directory with --uninstall --remove-data", () => {
    const home = makeDshHome();
    const bin = makeBinDir(["dsh", "pnpm"]);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    fs.writeFileSync(path.join(home, "dsh-dream", "journal.jsonl"), "{}\n");
    const run = runInstaller(["--dsh-home", home, "--uninstall", "--remove-data"], { bin });

    expect(run.status).toBe(0);
    expect(run.report.data).toBe("removed");
    expect(fs.existsSync(path.join(home, "dsh-dream"))).toBe(false);
  });

  it("mentions a holo-memory row in the profile patch file and leaves that file unedited", () => {
    const home = makeDshHome();
    const bin = makeBinDir();
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    const patch = path.join(profileDir(home), "cordis.patch.yml");
    fs.writeFileSync(patch, "- id: holo-memory\n  disabled: true\n");
    const run = runInstaller(["--dsh-home", home, "--uninstall"], { bin });

    expect(run.report.notes.join("\n")).toContain(`${patch} still mentions holo-memory`);
    expect(fs.readFileSync(patch, "utf8")).toBe("- id: holo-memory\n  disabled: true\n");
  });

  it("reports not installed and changes nothing when dsh-dream is absent", () => {
    const home = makeDshHome();
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--uninstall"], { bin: makeBinDir(["dsh", "pnpm"]) });

    expect(run.status).toBe(0);
    expect(run.report.action).toBe("not-installed");
    expect(snapshotTree(home)).toEqual(before);
  });
});

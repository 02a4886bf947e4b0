// The installer with a DSH CLI on PATH (a stand-in that runs a stand-in pnpm, as `dsh plugin`
// forwards to pnpm), plus reinstall and uninstall on both paths: the exact calls made, what the
// profile holds afterwards, and that a failure in the middle leaves the profile as it was.
import fs from "node:fs";
import path from "node:path";
import { makeBinDir, makeBundle, makeDshHome, profileDir, readProfile, recordedCalls, removeTempDirs, runInstaller, snapshotTree } from "./installer-fixtures";

afterEach(removeTempDirs);

const installedDir = (home: string) => path.join(profileDir(home), "node_modules", "dsh-dream");

describe("installing with the DSH CLI", () => {
  it("calls exactly `dsh plugin --profile web add -w <absolute bundle>` with DSH_HOME set, and verify passes", () => {
    const home = makeDshHome();
    const bundle = makeBundle();
    const bin = makeBinDir(["dsh", "pnpm"]);
    const run = runInstaller(["--dsh-home", home, "--bundle", path.relative(process.cwd(), bundle)], { bin });

    expect(run.status).toBe(0);
    expect(run.report).toMatchObject({ ok: true, action: "install", method: "dsh-cli", dependencies: "installed by pnpm (dsh plugin add)", data: "created" });
    expect(recordedCalls(bin)).toEqual([
      { tool: "dsh", args: ["plugin", "--profile", "web", "add", "-w", bundle], dshHome: home },
      expect.objectContaining({ tool: "pnpm", args: ["add", "-w", bundle] }),
    ]);
    expect(readProfile(home).dsh.profile.bundles).toEqual(["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app", "dsh-dream"]);
    expect(run.report.checks.every((check) => check.ok)).toBe(true);
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

  it("rolls back when pnpm fails after writing: exit 1, package.json byte-identical, no lockfile, no node_modules/dsh-dream", () => {
    const home = makeDshHome();
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir(["dsh", "pnpm"]), env: { STANDIN_PNPM_FAIL_AFTER_WRITE: "1" } });

    expect(run.status).toBe(1);
    expect(run.report.error?.code).toBe("DSH_CLI_FAILED");
    expect(run.report.error?.message).toContain("`dsh plugin --profile web add -w");
    expect(run.report.error?.message).toContain("ERR_PNPM_IGNORED_BUILDS");
    expect(run.report.rollback).toEqual({
      restored: [
        `restored ${path.join(profileDir(home), "package.json")}`,
        `removed ${path.join(profileDir(home), "pnpm-lock.yaml")}, which this run created`,
        `removed ${installedDir(home)}, which this run created`,
      ],
      failures: [],
    });
    expect(snapshotTree(home)).toEqual(before);
  });
});

describe("verifying runtime dependencies (checked unless DSH_DREAM_INSTALL_SKIP_DEPS=1)", () => {
  const noSkip = { DSH_DREAM_INSTALL_SKIP_DEPS: "" };

  it("rolls back when pnpm left dsh-dream's dependencies uninstalled, naming them", () => {
    const home = makeDshHome();
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir(["dsh", "pnpm"]), env: noSkip });

    expect(run.status).toBe(1);
    expect(run.report.error?.code).toBe("VERIFY_FAILED");
    expect(run.report.error?.message).toContain("runtime dependencies: not found from");
    expect(run.report.error?.message).toContain("@xenova/transformers, chromadb");
    expect(snapshotTree(home)).toEqual(before);
  });

  it("passes when the dependencies are hoisted into the profile's node_modules, as pnpm does", () => {
    const home = makeDshHome();
    for (const dep of ["chromadb", "@xenova/transformers"]) {
      fs.mkdirSync(path.join(profileDir(home), "node_modules", dep), { recursive: true });
      fs.writeFileSync(path.join(profileDir(home), "node_modules", dep, "package.json"), `{"name":"${dep}"}`);
    }
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir(["dsh", "pnpm"]), env: noSkip });

    expect(run.status).toBe(0);
    expect(run.report.checks.find((check) => check.name === "runtime dependencies")).toEqual({ name: "runtime dependencies", ok: true, detail: "@xenova/transformers, chromadb found" });
  });
});

describe("installing again", () => {
  it("reports already installed without --force and leaves the profile byte-identical", () => {
    const home = makeDshHome();
    const bin = makeBinDir(["dsh", "pnpm"]);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });

    expect(run.status).toBe(0);
    expect(run.report.action).toBe("already-installed");
    expect(run.report.notes[0]).toContain("already installed (version 0.1.0); run with -Force to reinstall");
    expect(recordedCalls(bin).filter((call) => call.tool === "dsh")).toHaveLength(1);
    expect(snapshotTree(home)).toEqual(before);
  });

  it.each([
    ["the DSH CLI", ["dsh", "pnpm"] as Array<"dsh" | "pnpm">],
    ["the manual path", [] as Array<"dsh" | "pnpm">],
  ])("reinstalls with --force through %s, ending with one dependency and one bundles entry and the data kept", (_label, tools) => {
    const home = makeDshHome();
    const bin = makeBinDir(tools);
    const bundle = makeBundle();
    runInstaller(["--dsh-home", home, "--bundle", bundle], { bin });
    fs.writeFileSync(path.join(home, "dsh-dream", "journal.jsonl"), "{}\n");
    const run = runInstaller(["--dsh-home", home, "--bundle", bundle, "--force"], { bin });

    expect(run.status).toBe(0);
    expect(run.report).toMatchObject({ ok: true, action: "reinstall", data: "kept" });
    const profile = readProfile(home);
    expect(Object.keys(profile.dependencies)).toEqual(["@deepseek-ai/dsh-base", "dsh-dream"]);
    expect(profile.dsh.profile.bundles.filter((name: string) => name === "dsh-dream")).toHaveLength(1);
    expect(fs.existsSync(path.join(installedDir(home), "dist", "plugin", "index.mjs"))).toBe(true);
    expect(fs.readFileSync(path.join(home, "dsh-dream", "journal.jsonl"), "utf8")).toBe("{}\n");
    expect(fs.readdirSync(profileDir(home)).filter((name) => name.startsWith(".dsh-dream-backup-"))).toEqual([]);
    if (tools.length) expect(recordedCalls(bin).filter((call) => call.tool === "dsh").map((call) => call.args[3])).toEqual(["add", "remove", "add"]);
  });

  it("puts the previous install back when a --force reinstall fails", () => {
    const home = makeDshHome();
    const bin = makeBinDir(["dsh", "pnpm"]);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle(), "--force"], { bin, env: { STANDIN_PNPM_FAIL_AFTER_WRITE: "1" } });

    expect(run.status).toBe(1);
    expect(run.report.rollback?.restored.join("\n")).toContain("put the previous");
    expect(snapshotTree(home)).toEqual(before);
  });
});

describe("uninstalling", () => {
  it.each([
    ["the DSH CLI", ["dsh", "pnpm"] as Array<"dsh" | "pnpm">],
    ["the manual path", [] as Array<"dsh" | "pnpm">],
  ])("removes dsh-dream through %s and keeps the data directory with its files untouched", (_label, tools) => {
    const home = makeDshHome();
    const bin = makeBinDir(tools);
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    const dataFile = path.join(home, "dsh-dream", "journal.jsonl");
    fs.writeFileSync(dataFile, '{"id":"r1"}\n');
    const run = runInstaller(["--dsh-home", home, "--uninstall"], { bin });

    expect(run.status).toBe(0);
    expect(run.report).toMatchObject({ ok: true, action: "uninstall", data: "kept" });
    expect(run.report.notes.join("\n")).toContain(`Your memories are kept in ${path.join(home, "dsh-dream")}`);
    const profile = readProfile(home);
    expect(profile.dependencies).toEqual({ "@deepseek-ai/dsh-base": "0.2.0" });
    expect(profile.dsh.profile.bundles).toEqual(["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app"]);
    expect(fs.existsSync(installedDir(home))).toBe(false);
    expect(fs.readFileSync(dataFile, "utf8")).toBe('{"id":"r1"}\n');
    if (tools.length) expect(recordedCalls(bin).at(-2)).toEqual({ tool: "dsh", args: ["plugin", "--profile", "web", "remove", "dsh-dream"], dshHome: home });
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

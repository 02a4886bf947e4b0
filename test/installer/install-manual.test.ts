// The installer's manual path (no DSH CLI on PATH), run from the built dist/installer.cjs against a
// temporary DSH home: what lands in the profile, what verify imports, and what a refusal leaves.
import fs from "node:fs";
import path from "node:path";
import { installDir, makeBinDir, makeBundle, makeDshHome, makeTinyPlugin, profileDir, readProfile, removeTempDirs, runDsh, runInstaller, snapshotTree, tempDir, WEB_PROFILE } from "./installer-fixtures";

afterEach(removeTempDirs);

describe("installing without the DSH CLI (the manual path)", () => {
  it("copies the bundle to <home>/plugins/dsh-dream/<version>, links it from the profile as pnpm would, keeps every other key, passes verify and creates the data directory", () => {
    const home = makeDshHome();
    const bundle = makeBundle();
    const run = runInstaller(["--dsh-home", home, "--bundle", bundle], { bin: makeBinDir() });

    expect(run.status).toBe(0);
    expect(run.report).toMatchObject({ ok: true, action: "install", method: "manual", profile: "web", version: "0.1.0", data: "created" });
    expect(run.report.dependencies).toMatch(/^NOT installed \(DSH_DREAM_INSTALL_SKIP_DEPS=1/);
    expect(readProfile(home)).toEqual({
      ...WEB_PROFILE,
      dependencies: { "dsh-dream": `link:${installDir(home)}` },
      dsh: { profile: { bundles: ["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app", "dsh-dream"] } },
    });
    const installed = path.join(profileDir(home), "node_modules", "dsh-dream");
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(true);
    expect(fs.realpathSync(installed)).toBe(fs.realpathSync(installDir(home)));
    for (const file of ["package.json", "package-lock.json", "cordis.patch.yml", "locale/en.json", "dist/plugin/index.mjs", "dist/client/index.js", "dist/cli.cjs", "dist/chroma-launcher.cjs", "README.md", "LICENSE", "dist/THIRD_PARTY_NOTICES.md"]) {
      expect([file, fs.readFileSync(path.join(installed, file)).equals(fs.readFileSync(path.join(bundle, file)))]).toEqual([file, true]);
    }
    expect(run.report.checks.map((check) => [check.name, check.ok])).toEqual([
      ["profile dependency", true],
      ["profile bundles", true],
      ["installed package", true],
      ["patch file", true],
      ["host entry", true],
    ]);
    expect(run.report.checks[4].detail).toContain("exports apply, Config, inject, name and no default");
    expect(run.report.dependencies).toContain("NOT installed");
    const dataDir = path.join(home, "dsh-dream");
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  it("leaves the profile one that `dsh plugin` (real pnpm 11.7.0) can add to and remove from afterwards", () => {
    const home = makeDshHome();
    expect(runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir() }).status).toBe(0);
    const bin = makeBinDir(["dsh", "pnpm"]);

    const add = runDsh(bin, home, ["plugin", "--profile", "web", "add", "-w", makeTinyPlugin()]);
    expect([add.status, add.output]).toEqual([0, expect.stringContaining("tiny-plugin")]);
    expect(readProfile(home).dsh.profile.bundles).toEqual(["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app", "dsh-dream", "tiny-plugin"]);
    expect(fs.realpathSync(path.join(profileDir(home), "node_modules", "dsh-dream"))).toBe(fs.realpathSync(installDir(home)));
    expect(runDsh(bin, home, ["plugin", "--profile", "web", "remove", "tiny-plugin"]).status).toBe(0);
    expect(fs.existsSync(path.join(profileDir(home), "node_modules", "dsh-dream", "dist", "plugin", "index.mjs"))).toBe(true);
  });

  it("keeps CRLF line endings, tab indentation and a BOM in the profile package.json it edits", () => {
    const home = makeDshHome();
    const manifest = path.join(profileDir(home), "package.json");
    fs.writeFileSync(manifest, `\uFEFF${JSON.stringify(WEB_PROFILE, null, "\t").replace(/\n/g, "\r\n")}\r\n`);
    expect(runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir() }).status).toBe(0);

    const text = fs.readFileSync(manifest, "utf8");
    expect(text.startsWith('\uFEFF{\r\n\t"name": "dsh-profile-web",\r\n')).toBe(true);
    expect(text.endsWith("}\r\n")).toBe(true);
    expect(text.replace(/\r\n/g, "").includes("\n")).toBe(false);
    expect(JSON.parse(text.slice(1)).dsh.profile.bundles).toEqual(["@deepseek-ai/dsh-base", "@deepseek-ai/dsh-web-app", "dsh-dream"]);
  });

  it("rolls back when verify fails on a host entry with a default export: exit 1, profile byte-identical, no node_modules/dsh-dream, no data directory", () => {
    const home = makeDshHome();
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle({ defaultExport: true })], { bin: makeBinDir() });

    expect(run.status).toBe(1);
    expect(run.report.error?.code).toBe("VERIFY_FAILED");
    expect(run.report.error?.message).toContain("host entry");
    expect(run.report.error?.message).toContain("has a default export");
    expect(run.report.rollback?.failures).toEqual([]);
    expect(snapshotTree(home)).toEqual(before);
  });

  it("refuses a bundle folder that is not the dsh-dream bundle before changing anything", () => {
    const home = makeDshHome();
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", tempDir("empty")], { bin: makeBinDir() });

    expect(run.status).toBe(1);
    expect(run.report.error?.code).toBe("BUNDLE_INVALID");
    expect(run.report.error?.message).toMatch(/no bundle at .*package\.json does not exist/);
    expect(snapshotTree(home)).toEqual(before);
  });

  it("refuses to run on Node 20 with the Node 22 message, exit 1, and changes nothing", () => {
    const home = makeDshHome();
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir(), node: process.execPath });

    expect(process.versions.node.startsWith("20.")).toBe(true);
    expect(run.status).toBe(1);
    expect(run.report.error?.code).toBe("NODE_TOO_OLD");
    expect(run.report.error?.message).toContain(`needs Node.js 22 or newer (DSH itself does), but this is Node.js ${process.versions.node}`);
    expect(run.report.error?.hint).toContain("https://nodejs.org/");
    expect(snapshotTree(home)).toEqual(before);
  });

  it("names the missing profile and the ones that exist when the chosen profile has no package.json", () => {
    const home = makeDshHome(["web", "headless"]);
    const run = runInstaller(["--dsh-home", home, "--profile", "desktop", "--bundle", makeBundle()], { bin: makeBinDir() });

    expect(run.status).toBe(1);
    expect(run.report.error?.code).toBe("PROFILE_MISSING");
    expect(run.report.error?.message).toContain('DSH profile "desktop" not found');
    expect(run.report.error?.message).toContain("profiles found: headless, web");
  });
});

describe("choosing the DSH home and profile", () => {
  it("chooses the desktop profile when only DSH Desktop's profile exists, and says so", () => {
    const home = makeDshHome(["desktop"]);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir() });

    expect(run.status).toBe(0);
    expect(run.report.profile).toBe("desktop");
    expect(readProfile(home, "desktop").dsh.profile.bundles).toContain("dsh-dream");
    expect(run.report.notes.join("\n")).toContain('Chose profile "desktop" (DSH Desktop)');
  });

  it("installs into web when both web and desktop exist and no profile is given", () => {
    const home = makeDshHome(["web", "desktop"]);
    expect(runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir() }).report.profile).toBe("web");
    expect(readProfile(home, "desktop").dsh.profile.bundles).not.toContain("dsh-dream");
  });

  it("honours DSH_HOME when --dsh-home is not given", () => {
    const home = makeDshHome();
    const run = runInstaller(["--bundle", makeBundle()], { bin: makeBinDir(), env: { DSH_HOME: home } });

    expect(run.status).toBe(0);
    expect(readProfile(home).dependencies["dsh-dream"]).toBe(`link:${installDir(home)}`);
  });

  it("falls back to ~/.dsh when neither --dsh-home nor DSH_HOME is set", () => {
    const user = tempDir("user");
    const home = path.join(user, ".dsh");
    fs.cpSync(makeDshHome(), home, { recursive: true });
    const run = runInstaller(["--bundle", makeBundle()], { bin: makeBinDir(), env: { HOME: user } });

    expect(run.status).toBe(0);
    expect(fs.existsSync(path.join(home, "profiles", "web", "node_modules", "dsh-dream", "package.json"))).toBe(true);
  });
});

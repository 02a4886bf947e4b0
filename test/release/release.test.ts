// npm run release, for real: builds a scratch copy of the repository, writes the zip, and checks
// what a user unpacks against the package's `files`, exports, manifest and screenshots.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { copyRepository, listTree, readZip, REPO_ROOT, runRelease, type ReleaseRun, type ZipEntryRead } from "./release-tree";

const BUILD_TIMEOUT_MS = 120_000;
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"));
const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "manifest.json"), "utf8"));
const screenshots: Array<{ file: string }> = JSON.parse(readFileSync(path.join(REPO_ROOT, "screenshots.json"), "utf8"));
/** Entries sit at the zip's root: expanded, the installer is right where the user is. */
const top = "";
const zipName = `DSH-DREAM-v${pkg.version}.zip`;

function expectedEntries(copy: string): string[] {
  const bundle = (pkg.files as string[])
    .flatMap((entry) => listTree(copy, entry))
    .filter((file) => !file.endsWith(".map"))
    .map((file) => `bundle/${file}`);
  const extras = ["manifest.json", "screenshots.json", "README.md", "LICENSE", ...listTree(REPO_ROOT, "logo"), ...screenshots.map((shot) => shot.file)];
  const installers = ["install-agent-memory-plugin.ps1", "install.sh", "installer/install.cjs"];
  return [...new Set([...bundle, "bundle/package.json", "bundle/package-lock.json", ...extras, ...installers])].map((name) => top + name).sort();
}

describe("npm run release", () => {
  let copy: string;
  let first: ReleaseRun;
  let second: ReleaseRun;
  let entries: ZipEntryRead[];
  const byName = (name: string) => entries.find((entry) => entry.name === top + name);

  beforeAll(async () => {
    copy = copyRepository();
    first = await runRelease(copy, path.join(copy, "out-1"));
    second = await runRelease(copy, path.join(copy, "out-2"));
    if (first.exitCode === 0) entries = await readZip(path.join(copy, "out-1", zipName));
  }, 2 * BUILD_TIMEOUT_MS);

  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it("builds and writes DSH-DREAM-v<version>.zip into --out", () => {
    expect(first).toMatchObject({ exitCode: 0 });
    expect(first.stdout).toContain(zipName);
  });

  it("holds exactly the bundle's files (no source maps), its package.json, the installers and the storefront files, sorted", () => {
    const names = entries.map((entry) => entry.name);
    expect(names).toEqual(expectedEntries(copy));
    expect(names.some((name) => name.endsWith(".map"))).toBe(false);
  });

  it("ships a release package.json that keeps the DSH fields and the overrides, drops the development ones and asks for Node 22", () => {
    const released = JSON.parse(byName("bundle/package.json")!.data.toString("utf8"));
    for (const key of ["name", "version", "description", "license", "bin", "exports", "files", "dsh", "dependencies", "overrides", "peerDependencies", "peerDependenciesMeta"]) {
      expect(released[key]).toEqual(pkg[key]);
    }
    expect(released.overrides).toMatchObject({ sharp: expect.any(String) });
    for (const key of ["private", "scripts", "devDependencies"]) expect(released).not.toHaveProperty(key);
    // npm 11's install-script list, cut to the packages the bundle installs.
    expect(released.allowScripts).toEqual({ sharp: pkg.allowScripts.sharp, protobufjs: pkg.allowScripts.protobufjs });
    expect(released.engines).toEqual({ ...pkg.engines, node: ">=22" });
  });

  it("ships a lockfile of exactly the runtime closure, at the versions the repo's lockfile pins (overrides applied)", () => {
    const bundleLock = JSON.parse(byName("bundle/package-lock.json")!.data.toString("utf8"));
    const repoLock = JSON.parse(readFileSync(path.join(REPO_ROOT, "package-lock.json"), "utf8")).packages;
    expect(bundleLock.packages[""].dependencies).toEqual(pkg.dependencies);
    const runtime = Object.keys(repoLock).filter((key) => key !== "" && !repoLock[key].dev).sort();
    expect(Object.keys(bundleLock.packages).filter((key) => key !== "").sort()).toEqual(runtime);
    for (const key of runtime) expect(bundleLock.packages[key].version).toBe(repoLock[key].version);
    expect(bundleLock.packages["node_modules/chromadb-js-bindings-linux-x64-gnu"].version).toBe(pkg.overrides["chromadb-js-bindings-linux-x64-gnu"]);
    expect(bundleLock.packages["node_modules/sharp"].version).toBe(pkg.overrides.sharp);
    for (const dev of ["node_modules/jest", "node_modules/esbuild", "node_modules/opencc-js"]) expect(bundleLock.packages).not.toHaveProperty(dev);
  });

  it("contains every target the release package.json exports and its bin", () => {
    const released = JSON.parse(byName("bundle/package.json")!.data.toString("utf8"));
    const targets = [...Object.values(released.exports as Record<string, string>), ...Object.values(released.bin as Record<string, string>)];
    for (const target of targets) expect(byName(`bundle/${target.replace(/^\.\//, "")}`)).toBeDefined();
  });

  it("lists the npm packages bundled into the shipped code with their licence texts", () => {
    const notices = byName("bundle/dist/THIRD_PARTY_NOTICES.md")!.data.toString("utf8");
    const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, "package-lock.json"), "utf8")).packages;
    for (const name of ["opencc-js", "conf", "chromadb"]) expect(notices).toContain(`## ${name} ${lock[`node_modules/${name}`].version} (`);
    expect(notices).toContain("Apache License");
    expect(notices).toContain("Permission is hereby granted");
  });

  it("carries the repository's manifest.json and screenshots.json unchanged, at the package's version", () => {
    expect(byName("manifest.json")!.data.equals(readFileSync(path.join(REPO_ROOT, "manifest.json")))).toBe(true);
    expect(byName("screenshots.json")!.data.equals(readFileSync(path.join(REPO_ROOT, "screenshots.json")))).toBe(true);
    expect(JSON.parse(byName("manifest.json")!.data.toString("utf8")).version).toBe(pkg.version);
  });

  it("contains every file the manifest and screenshots.json name, byte for byte", () => {
    const { host, client, bridge, installer } = manifest.entryPoints;
    for (const named of [host, client, bridge, installer.windows, installer.unix]) expect(byName(named)).toBeDefined();
    for (const named of [manifest.icon, manifest.logo, ...screenshots.map((shot) => shot.file)]) {
      expect(byName(named)?.data.equals(readFileSync(path.join(REPO_ROOT, named)))).toBe(true);
    }
  });

  it("marks install.sh and the bridge executable, every other file 0644, all dated 2026-01-01", () => {
    const executables = [`${top}install.sh`, `${top}bundle/dist/cli.cjs`];
    for (const entry of entries) {
      expect({ name: entry.name, mode: entry.mode }).toEqual({ name: entry.name, mode: executables.includes(entry.name) ? 0o100755 : 0o100644 });
      expect(entry.lastModified.getTime()).toBe(new Date(2026, 0, 1).getTime());
    }
  });

  it("ships install.sh with LF line endings (a CRLF shebang line breaks it), whatever the checkout's settings", () => {
    expect(byName("install.sh")!.data.includes(0x0d)).toBe(false);
    expect(readFileSync(path.join(REPO_ROOT, ".gitattributes"), "utf8")).toMatch(/^\*\.sh text eol=lf$/m);
  });

  it("writes byte-identical zips on two runs", () => {
    expect(second).toMatchObject({ exitCode: 0 });
    const a = readFileSync(path.join(copy, "out-1", zipName));
    const b = readFileSync(path.join(copy, "out-2", zipName));
    expect(a.equals(b)).toBe(true);
  });
});

describe("npm run release refuses", () => {
  let copy: string;

  beforeEach(() => {
    copy = copyRepository();
  });

  afterEach(() => rmSync(copy, { recursive: true, force: true }));

  it("when manifest.json's version differs from package.json's, before building and without writing a zip", async () => {
    const changed = { ...manifest, version: "9.9.9" };
    writeFileSync(path.join(copy, "manifest.json"), JSON.stringify(changed, null, 2));
    const run = await runRelease(copy, path.join(copy, "out"));
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`manifest.json says version 9.9.9 but package.json says ${pkg.version}`);
    expect(existsSync(path.join(copy, "dist/plugin"))).toBe(false);
    expect(existsSync(path.join(copy, "out"))).toBe(false);
  });

  it("when a required input is missing, naming it, before building and without writing a zip", async () => {
    rmSync(path.join(copy, "installer/install.sh"));
    rmSync(path.join(copy, screenshots[0].file));
    const run = await runRelease(copy, path.join(copy, "out"));
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("these are missing:\n  installer/install.sh\n");
    expect(run.stderr).toContain(screenshots[0].file);
    expect(existsSync(path.join(copy, "dist/plugin"))).toBe(false);
    expect(existsSync(path.join(copy, "out"))).toBe(false);
  });
});

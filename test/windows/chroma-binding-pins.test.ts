// Finding 6 of issue 14: every platform's Chroma server binding is pinned to one exact version, the
// same in package.json's overrides, the repo's lockfile and the bundle's lockfile that the installer
// runs `npm ci` from, and the launcher knows each one by name. Before, only the Linux binding was
// pinned and Windows got whatever `^1.3.4` resolved to at install time.
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(__dirname, "../..");
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), "utf8"));

const chromadbPackage = readJson("node_modules/chromadb/package.json");
const bindings = Object.keys(chromadbPackage.optionalDependencies).filter((name) => name.startsWith("chromadb-js-bindings-"));
const launcherSource = fs.readFileSync(path.join(root, "bridge/chroma/chroma-launcher.cjs"), "utf8");

describe("the Chroma server bindings", () => {
  it("are the five platforms chromadb ships, Windows x64 among them", () => {
    expect(bindings.sort()).toEqual([
      "chromadb-js-bindings-darwin-arm64",
      "chromadb-js-bindings-darwin-x64",
      "chromadb-js-bindings-linux-arm64-gnu",
      "chromadb-js-bindings-linux-x64-gnu",
      "chromadb-js-bindings-win32-x64-msvc",
    ]);
  });

  it.each(bindings)("%s is pinned exactly, the same in package.json, the lockfile and the bundle's lockfile", (name) => {
    const pinned = readJson("package.json").overrides[name];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/); // an exact version, not a range
    expect(readJson("package-lock.json").packages[`node_modules/${name}`].version).toBe(pinned);
    expect(readJson("dist/bundle-package/package-lock.json").packages[`node_modules/${name}`].version).toBe(pinned);
    expect(readJson("dist/bundle-package/package.json").overrides[name]).toBe(pinned);
  });

  it.each(bindings)("%s is one the launcher loads by name", (name) => {
    expect(launcherSource).toContain(`"${name}"`);
  });

  it("pins Windows x64 to the build whose DLL imports docs/windows.md lists", () => {
    const pinned = readJson("package.json").overrides["chromadb-js-bindings-win32-x64-msvc"];
    const doc = fs.readFileSync(path.join(root, "docs/windows.md"), "utf8");
    expect(doc).toContain(`chromadb-js-bindings-win32-x64-msvc@${pinned}`);
  });
});

// The bundle as DSH's loader reads it: package.json's dsh fields and exports point at files that
// exist after the build, the patch inserts one row whose config is every default, and the peer
// range admits the DSH releases it is meant for (DSH checks with includePrerelease).
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { DEFAULT_CONFIG, validateConfig } from "../../plugin/config";

const ROOT = path.resolve(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));

describe("the bundle manifest", () => {
  it("declares the patch and the web client, and every export resolves to a built file listed in files", () => {
    expect(pkg.dsh).toEqual({ bundle: { patch: "./cordis.patch.yml" }, client: { platform: "web", inject: [] } });
    expect(Object.keys(pkg.exports).sort()).toEqual([".", "./client", "./cordis.patch.yml", "./package.json"]);
    for (const target of Object.values(pkg.exports) as string[]) {
      expect([target, fs.existsSync(path.join(ROOT, target))]).toEqual([target, true]);
      const inFiles = (pkg.files as string[]).some((entry) => path.normalize(target).startsWith(path.normalize("./" + entry)) || target === "./package.json");
      expect([target, inFiles]).toEqual([target, true]);
    }
    expect(pkg.exports["."]).toMatch(/\.mjs$/);
    expect(pkg.files).toEqual(expect.arrayContaining(["locale/", "cordis.patch.yml", "dist/cli.cjs", "dist/chroma-launcher.cjs"]));
  });

  it("has a host entry that imports no @deepseek-ai package and has no default export", () => {
    const entry = fs.readFileSync(path.join(ROOT, pkg.exports["."]), "utf8");
    expect(entry).not.toMatch(/from\s+["']@deepseek-ai\//);
    expect(entry).not.toMatch(/import\(\s*["']@deepseek-ai\//);
    expect(entry).not.toMatch(/export\s+default\b|as default\b/);
    expect(entry).toMatch(/export\s*\{[^}]*\bapply\b[^}]*\}/);
  });

  it("has a client bundle that registers itself with the module loader and requires only baseline modules", () => {
    const client = fs.readFileSync(path.join(ROOT, pkg.exports["./client"]), "utf8");
    expect(client).toContain(`window.__ModuleLoader__.load({\n  id: "${pkg.name}",`);
    const required = [...new Set([...client.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]))];
    expect(required).toEqual(["react"]);
  });

  it("inserts one row, holo-memory, whose config restates every default and validates", () => {
    const patch = parse(fs.readFileSync(path.join(ROOT, "cordis.patch.yml"), "utf8"));
    expect(patch).toHaveLength(1);
    expect(patch[0].insert).toHaveLength(1);
    const row = patch[0].insert[0];
    expect(row.id).toBe("holo-memory");
    expect(row.name).toBe(pkg.name);
    expect(row.config).toEqual(DEFAULT_CONFIG);
    expect(validateConfig(row.config)).toEqual({ value: DEFAULT_CONFIG });
  });

  it("peers on DSH only through optional ranges that admit 0.1.x and 0.2 prereleases", () => {
    expect(Object.keys(pkg.peerDependencies)).toEqual(["@deepseek-ai/dsh"]);
    expect(pkg.peerDependenciesMeta).toEqual({ "@deepseek-ai/dsh": { optional: true } });
    const semver = require("semver") as { satisfies(v: string, r: string, o?: { includePrerelease?: boolean }): boolean };
    const range = pkg.peerDependencies["@deepseek-ai/dsh"];
    for (const version of ["0.1.0-rc.8", "0.1.1-rc.2", "0.1.7", "0.2.0-rc.2", "0.2.0"]) expect([version, semver.satisfies(version, range, { includePrerelease: true })]).toEqual([version, true]);
    expect(semver.satisfies("0.2.0-rc.2", range)).toBe(true); // pnpm's plain check, too
    expect(semver.satisfies("0.3.0", range, { includePrerelease: true })).toBe(false);
  });
});

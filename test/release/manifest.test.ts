// The storefront manifest agrees with the package, its locales, its patch row and the files it
// names, without building anything.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { REPO_ROOT } from "./release-tree";

const readJson = (relative: string) => JSON.parse(readFileSync(path.join(REPO_ROOT, relative), "utf8"));
const pkg = readJson("package.json");
const manifest = readJson("manifest.json");

/** Width and height from a PNG's IHDR chunk; throws on anything that is not a PNG. */
function pngSizePx(relative: string): [number, number] {
  const data = readFileSync(path.join(REPO_ROOT, relative));
  if (!data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) throw new Error(`${relative} is not a PNG`);
  return [data.readUInt32BE(16), data.readUInt32BE(20)];
}

describe("manifest.json", () => {
  it("has the package's name and version, and the locales' descriptions", () => {
    expect(manifest).toMatchObject({ id: pkg.name, version: pkg.version, license: pkg.license });
    expect(manifest.dsh.package).toBe(pkg.name);
    expect(manifest.description).toEqual({ en: readJson("locale/en.json").meta.description, zh: readJson("locale/zh.json").meta.description });
  });

  it("names the row cordis.patch.yml inserts and DSH's peer range, on Node 22", () => {
    const rows = (parse(readFileSync(path.join(REPO_ROOT, "cordis.patch.yml"), "utf8")) as Array<{ insert?: Array<{ id: string; name: string }> }>).flatMap((patch) => patch.insert ?? []);
    expect(rows).toContainEqual(expect.objectContaining({ id: manifest.dsh.row, name: pkg.name }));
    expect(manifest.dsh.requires).toEqual({ node: ">=22", dsh: pkg.peerDependencies["@deepseek-ai/dsh"] });
  });

  it("points its host, client and bridge entries at the bundle's exports and bin", () => {
    const inBundle = (target: string) => `bundle/${target.replace(/^\.\//, "")}`;
    expect(manifest.entryPoints).toMatchObject({
      host: inBundle(pkg.exports["."]),
      client: inBundle(pkg.exports["./client"]),
      bridge: inBundle(pkg.bin["dsh-dream"]),
      installer: { windows: "install-agent-memory-plugin.ps1", unix: "install.sh" },
    });
  });

  it("uses a 256 px PNG icon and a square SVG logo, with 32 and 512 px PNGs beside the icon", () => {
    expect(manifest.icon).toBe("logo/dsh-dream-256.png");
    expect(readFileSync(path.join(REPO_ROOT, manifest.logo), "utf8")).toMatch(/^<svg [^>]*viewBox="0 0 256 256"/);
    for (const sizePx of [32, 256, 512]) expect(pngSizePx(`logo/dsh-dream-${sizePx}.png`)).toEqual([sizePx, sizePx]);
  });

  it("lists screenshots that are PNG files in assets/", () => {
    const screenshots: Array<{ file: string; locale: string }> = readJson(manifest.screenshots);
    // Each view in both of the panel's languages.
    const locales = screenshots.map((shot) => shot.locale);
    expect(new Set(locales)).toEqual(new Set(["en", "zh"]));
    expect(locales.filter((locale) => locale === "en").length).toBe(locales.filter((locale) => locale === "zh").length);
    for (const shot of screenshots) {
      expect(shot.file).toMatch(/^assets\/[^/]+\.png$/);
      expect(pngSizePx(shot.file)[0]).toBeGreaterThan(0);
    }
  });

  it("declares the loopback network, the data directory, child processes and the optional embedding API", () => {
    const declared = manifest.permissions.map((permission: { kind: string; scope: string }) => `${permission.kind}:${permission.scope}`);
    expect(declared).toEqual(["network:loopback", "filesystem:$DSH_HOME/dsh-dream", "process:bridge", "network:embedding API (optional)"]);
    for (const permission of manifest.permissions) expect(Object.keys(permission.why).sort()).toEqual(["en", "zh"]);
  });
});

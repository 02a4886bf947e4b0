// Editing a profile's package.json: both entries added once and removed cleanly, with the file's
// own formatting (one line or indented, LF or CRLF, BOM or not) kept on the way back out.
import fs from "node:fs";
import path from "node:path";
import { addBundleEntries, readJsonFile, removeBundleEntries, writeJsonFile } from "../../installer/profile-manifest";
import { removeTempDirs, tempDir } from "./installer-fixtures";

afterEach(removeTempDirs);

function roundTrip(text: string, edit: (json: ReturnType<typeof readJsonFile>) => void): string {
  const file = path.join(tempDir("manifest"), "package.json");
  fs.writeFileSync(file, text);
  const json = readJsonFile(file);
  edit(json);
  writeJsonFile(file, json);
  return fs.readFileSync(file, "utf8");
}

describe("the profile package.json editor", () => {
  it("creates dependencies and dsh.profile.bundles when absent, and keeps a one-line file on one line", () => {
    expect(roundTrip('{"name":"p","private":true}', (json) => addBundleEntries(json, "file:/b"))).toBe(
      '{"name":"p","private":true,"dependencies":{"dsh-dream":"file:/b"},"dsh":{"profile":{"bundles":["dsh-dream"]}}}',
    );
  });

  it("adds the bundles entry once however often it is called, and removal restores the original text", () => {
    const original = '{\n    "name": "p",\n    "dependencies": {\n        "a": "1"\n    },\n    "dsh": {\n        "profile": {\n            "bundles": [\n                "a"\n            ]\n        }\n    }\n}\n';
    const added = roundTrip(original, (json) => {
      addBundleEntries(json, "file:/b");
      addBundleEntries(json, "file:/b");
    });
    expect(JSON.parse(added).dsh.profile.bundles).toEqual(["a", "dsh-dream"]);
    expect(roundTrip(added, (json) => expect(removeBundleEntries(json)).toBe(true))).toBe(original);
  });

  it("reads a file with a BOM and CRLF line endings and writes both back", () => {
    const text = roundTrip('\uFEFF{\r\n  "name": "p"\r\n}\r\n', (json) => addBundleEntries(json, "file:/b"));
    expect(text.startsWith('\uFEFF{\r\n  "name": "p",\r\n  "dependencies": {\r\n')).toBe(true);
    expect(text.split("\n").every((line, i, all) => i === all.length - 1 || line.endsWith("\r"))).toBe(true);
  });

  it("refuses invalid JSON with PROFILE_MANIFEST_INVALID naming the file", () => {
    const file = path.join(tempDir("manifest"), "package.json");
    fs.writeFileSync(file, '{"name": "p",}');
    expect(() => readJsonFile(file)).toThrow(expect.objectContaining({ code: "PROFILE_MANIFEST_INVALID", message: expect.stringContaining(`${file} is not valid JSON`) }));
  });

  it("refuses a dependencies field that is not an object instead of overwriting it", () => {
    expect(() => roundTrip('{"dependencies": ["x"]}', (json) => addBundleEntries(json, "file:/b"))).toThrow('the profile package.json field "dependencies" must be an object');
  });
});

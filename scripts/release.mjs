// Release: builds everything, then writes DSH-DREAM-v<version>.zip holding what a user needs — the
// installers, the DSH bundle (the package's `files` plus a release package.json) and the storefront
// metadata — at the zip's root. Same tree in, same bytes out (sorted entries, fixed mtimes).
//
//   node scripts/release.mjs [--out DIR]     (npm run release; DIR defaults to release/)
import { spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import yazl from "yazl";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// DOS timestamps are local time: a date built from local fields encodes the same bytes in every
// time zone, which the Info-ZIP UTC field would not, so that field is switched off below.
const FIXED_MTIME = new Date(2026, 0, 1, 0, 0, 0);
const FILE_MODE = 0o100644;
const EXECUTABLE_MODE = 0o100755;
// bundle/package.json and bundle/package-lock.json are written by the build (scripts/build.mjs,
// writeBundleManifest): the runtime manifest and the runtime closure of the repo's lockfile, from
// which the installer runs `npm ci`.
const BUNDLE_MANIFEST = ["dist/bundle-package/package.json", "dist/bundle-package/package-lock.json"];
const INSTALLERS = [
  ["installer/install-agent-memory-plugin.ps1", "install-agent-memory-plugin.ps1", FILE_MODE],
  ["installer/install.sh", "install.sh", EXECUTABLE_MODE],
];
const INSTALLER_PROGRAM = ["dist/installer.cjs", "installer/install.cjs"];

class ReleaseError extends Error {}

function readJson(relative) {
  const file = path.join(root, relative);
  if (!existsSync(file)) throw new ReleaseError(`${relative} is missing`);
  return JSON.parse(readFileSync(file, "utf8"));
}

function requireInputs(relatives, why) {
  const missing = relatives.filter((relative) => !existsSync(path.join(root, relative)));
  if (missing.length > 0) throw new ReleaseError(`${why}, but these are missing:\n  ${missing.join("\n  ")}`);
}

/** Every file under `relative` (a file or a folder), sorted, without source maps. */
function listFiles(relative) {
  const clean = relative.replace(/\/$/, "");
  if (!statSync(path.join(root, clean)).isDirectory()) return [clean];
  return readdirSync(path.join(root, clean), { withFileTypes: true })
    .flatMap((entry) => {
      const child = `${clean}/${entry.name}`;
      if (entry.isDirectory()) return listFiles(child);
      return entry.isFile() && !entry.name.endsWith(".map") ? [child] : [];
    })
    .sort();
}

function checkManifest(pkg, manifest) {
  if (manifest.version !== pkg.version) {
    throw new ReleaseError(`manifest.json says version ${manifest.version} but package.json says ${pkg.version}; make them agree before releasing`);
  }
}

/** The source inputs (not build outputs) the zip needs; checked before building so a gap fails fast. */
function sourceInputs(manifest, screenshots) {
  return [
    ...INSTALLERS.map(([from]) => from),
    "README.md", "LICENSE", "manifest.json", "screenshots.json", "logo",
    manifest.icon, manifest.logo,
    ...screenshots.map((shot) => shot.file),
  ];
}

function build() {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["run", "build"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
  if (result.error) throw new ReleaseError(`npm run build could not start: ${result.error.message}`);
  if (result.status !== 0) throw new ReleaseError(`npm run build failed (exit ${result.status})`);
}

/** [zipPath, source (repo-relative path or Buffer), mode] for every entry, before sorting. */
function collectEntries(pkg, screenshots) {
  // No enclosing folder: the README's (and the seed's) steps expand the zip into a folder of the
  // user's choosing and run .\install-agent-memory-plugin.ps1 right there.
  const top = "";
  const executables = new Set(Object.values(pkg.bin ?? {}).map((target) => target.replace(/^\.\//, "")));
  const entries = INSTALLERS.map(([from, to, mode]) => [top + to, from, mode]);
  entries.push([top + INSTALLER_PROGRAM[1], INSTALLER_PROGRAM[0], FILE_MODE]);
  for (const entry of pkg.files) {
    for (const file of listFiles(entry)) entries.push([`${top}bundle/${file}`, file, executables.has(file) ? EXECUTABLE_MODE : FILE_MODE]);
  }
  for (const file of BUNDLE_MANIFEST) entries.push([`${top}bundle/${path.basename(file)}`, file, FILE_MODE]);
  const extras = ["manifest.json", "screenshots.json", "README.md", "LICENSE", ...listFiles("logo"), ...screenshots.map((shot) => shot.file)];
  for (const file of extras) entries.push([top + file, file, FILE_MODE]);
  return entries;
}

function sortedUnique(entries) {
  const byPath = new Map();
  for (const entry of entries) {
    const previous = byPath.get(entry[0]);
    if (previous && previous[1] !== entry[1]) throw new ReleaseError(`two inputs want the zip path ${entry[0]}`);
    byPath.set(entry[0], entry);
  }
  return [...byPath.values()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

async function writeZip(entries, target) {
  const zip = new yazl.ZipFile();
  for (const [zipPath, source, mode] of entries) {
    const data = Buffer.isBuffer(source) ? source : readFileSync(path.join(root, source));
    zip.addBuffer(data, zipPath, { mtime: FIXED_MTIME, mode, compressionLevel: 9, forceDosTimestamp: true });
  }
  zip.end();
  mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  await new Promise((resolve, reject) => {
    const out = createWriteStream(partial);
    out.on("close", resolve).on("error", reject);
    zip.outputStream.on("error", reject).pipe(out);
  });
  renameSync(partial, target);
}

async function main() {
  const { values } = parseArgs({ options: { out: { type: "string", default: path.join(root, "release") } } });
  const pkg = readJson("package.json");
  const manifest = readJson("manifest.json");
  const screenshots = readJson("screenshots.json");
  checkManifest(pkg, manifest);
  requireInputs(sourceInputs(manifest, screenshots), "the release needs its installers, metadata, logo and screenshots");
  build();
  requireInputs([INSTALLER_PROGRAM[0], ...BUNDLE_MANIFEST, ...pkg.files], "the release needs these build outputs (npm run build writes them)");
  const entries = sortedUnique(collectEntries(pkg, screenshots));
  const target = path.resolve(values.out, `DSH-DREAM-v${pkg.version}.zip`);
  await writeZip(entries, target);
  console.log(`release: wrote ${target} (${entries.length} files, ${statSync(target).size} bytes)`);
}

main().catch((error) => {
  if (!(error instanceof ReleaseError)) throw error;
  console.error(`release: ${error.message}`);
  process.exitCode = 1;
});

// A scratch copy of the repository to run scripts/release.mjs in (it builds into its own tree),
// the release run itself, and reading a zip back with yauzl.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import yauzl from "yauzl";

export const REPO_ROOT = path.resolve(__dirname, "../..");
const NOT_COPIED = new Set([".git", "dist", "release", ".dsh-dream-demo", "bench/results"]);

// The installer front ends and their Node program land in their own issue; until a file is in the
// repository its stand-in takes its place in the copy (never in the repository itself).
const INSTALLER_STAND_INS: Array<[string, string]> = [
  ["installer/install-agent-memory-plugin.ps1", "param([switch]$Force)\n"],
  ["installer/install.sh", "#!/bin/sh\n"],
  ["dist/installer.cjs", "// stand-in: installer/main.ts is not in this tree yet\n"],
];

/** Copies the repository (without node_modules, .git or build output) and links node_modules. */
export function copyRepository(): string {
  const copy = mkdtempSync(path.join(os.tmpdir(), "dsh-dream-release-"));
  cpSync(REPO_ROOT, copy, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(REPO_ROOT, source).split(path.sep).join("/");
      return path.basename(source) !== "node_modules" && !NOT_COPIED.has(relative);
    },
  });
  symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(copy, "node_modules"), "dir");
  const installerSourceLanded = existsSync(path.join(REPO_ROOT, "installer/main.ts"));
  for (const [relative, body] of INSTALLER_STAND_INS) {
    const isBuildOutput = relative.startsWith("dist/");
    if (isBuildOutput ? installerSourceLanded : existsSync(path.join(copy, relative))) continue;
    mkdirSync(path.dirname(path.join(copy, relative)), { recursive: true });
    writeFileSync(path.join(copy, relative), body);
  }
  return copy;
}

export interface ReleaseRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs the copy's scripts/release.mjs with `--out outDir`, from the copy's root. */
export function runRelease(copy: string, outDir: string): Promise<ReleaseRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(copy, "scripts/release.mjs"), "--out", outDir], { cwd: copy, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const exitCode = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ exitCode, stdout, stderr });
    });
  });
}

/** Every file under `relative` in `base`, repository-relative with forward slashes, sorted. */
export function listTree(base: string, relative: string): string[] {
  const clean = relative.replace(/\/$/, "");
  if (!statSync(path.join(base, clean)).isDirectory()) return [clean];
  return readdirSync(path.join(base, clean), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? listTree(base, `${clean}/${entry.name}`) : [`${clean}/${entry.name}`]))
    .sort();
}

export interface ZipEntryRead {
  name: string;
  mode: number;
  lastModified: Date;
  data: Buffer;
}

/** The zip's entries in the order they are stored. */
export function readZip(file: string): Promise<ZipEntryRead[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (openError, zip) => {
      if (openError) return reject(openError);
      const entries: ZipEntryRead[] = [];
      zip.on("error", reject);
      zip.on("end", () => resolve(entries));
      zip.on("entry", (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("error", reject);
          stream.on("end", () => {
            entries.push({ name: entry.fileName, mode: entry.externalFileAttributes >>> 16, lastModified: entry.getLastModDate(), data: Buffer.concat(chunks) });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

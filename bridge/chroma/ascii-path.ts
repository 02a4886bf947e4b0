// Chroma's server opens its HNSW files with narrow (ANSI code page) paths on Windows, so a data
// directory under `C:\Users\张三\…` fails with "Cannot open header file" and the replica breaks.
// There, Chroma is given an ASCII junction to its folder instead: `%ProgramData%\dsh-dream-<hash>`.
// A junction needs no administrator rights, holds no data (the folder it points to keeps its own
// access rules) and is found again by the same hash on every start. Elsewhere paths pass as they are.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { makeDirectory } from "../store/make-dir";

export interface ChromaPathOptions {
  platform?: NodeJS.Platform;
  env?: Readonly<Record<string, string | undefined>>;
}

export interface ChromaPath {
  /** The path to hand to Chroma. */
  path: string;
  /** The junction used, when the folder's own path is not ASCII. */
  junction?: string;
  /** Why Chroma gets a non-ASCII path after all (it will likely fail to open its index files). */
  warning?: string;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export function isAscii(text: string): boolean {
  return PRINTABLE_ASCII.test(text);
}

/** The path Chroma should be given for `chromaDir` (created when a junction must point at it). */
export function chromaPathFor(chromaDir: string, options: ChromaPathOptions = {}): ChromaPath {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  if (platform !== "win32" || isAscii(chromaDir)) return { path: chromaDir };
  const base = env.ProgramData ?? env.PROGRAMDATA ?? (env.SystemDrive ? `${env.SystemDrive}\\ProgramData` : undefined);
  const fallback = (why: string): ChromaPath => ({
    path: chromaDir,
    warning:
      `Chroma's folder ${chromaDir} has non-ASCII characters, which Chroma cannot open on Windows, and ${why}; ` +
      `move the data directory to an ASCII path (set DSH_HOME, e.g. C:\\dsh) to keep the Chroma replica working`,
  });
  if (base === undefined || !isAscii(base)) return fallback(`no ASCII folder for a junction was found (ProgramData is ${base ?? "not set"})`);
  const junction = path.join(base, `dsh-dream-${createHash("sha256").update(chromaDir).digest("hex").slice(0, 16)}`);
  try {
    // A junction needs its target; Chroma would create the folder anyway.
    makeDirectory(chromaDir);
    if (pointsAt(junction, chromaDir)) return { path: junction, junction };
    // Anything else under our name (a junction left by a moved data directory) is replaced.
    unlinkIfPresent(junction);
    fs.symlinkSync(chromaDir, junction, "junction");
    return { path: junction, junction };
  } catch (error) {
    return fallback(`the junction ${junction} could not be made (${(error as Error).message})`);
  }
}

/** Removes a link (on Windows unlink removes a junction, never what it points to); a real folder is refused. */
function unlinkIfPresent(link: string): void {
  try {
    fs.unlinkSync(link);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

function pointsAt(link: string, target: string): boolean {
  try {
    return path.resolve(fs.readlinkSync(link)) === path.resolve(target);
  } catch {
    return false;
  }
}

// Nothing half-installed. Before any change the profile is snapshotted where pnpm and the installer
// write — the files at its top (package.json, pnpm-lock.yaml, pnpm-workspace.yaml, …) and the
// entries of node_modules, its scopes, .bin and .pnpm, with file bytes and link targets — and every
// folder the run replaces is moved aside rather than deleted. A failure at any later step removes
// what the run created, moves the old folders back and rewrites the snapshotted bytes, so the
// profile is as it was, byte for byte, whatever pnpm left behind.
import fs from "node:fs";
import path from "node:path";
import type { Plan } from "./preflight";
import { renameWithRetry } from "../bridge/store/fs-retry";

export interface RollbackOutcome {
  restored: string[];
  failures: string[];
}

type Entry = { kind: "file"; bytes: Buffer; mode: number } | { kind: "link"; target: string } | { kind: "dir" } | { kind: "other" };

/** One folder's entries, or null when the folder did not exist. */
type Listing = Map<string, Entry> | null;

export class ProfileTransaction {
  private readonly listings = new Map<string, Listing>();
  private readonly movedAside: Array<{ original: string; backup: string }> = [];
  private readonly created: string[] = [];
  private dataDirCreated?: string;

  constructor(private readonly plan: Plan) {
    for (const dir of watchedFolders(plan.profileDir)) this.listings.set(dir, list(dir));
  }

  /** Moves a file, link or folder into a backup beside it (same disk, so a rename); undone by rollback. */
  moveAside(target: string): void {
    if (!exists(target)) return;
    const backup = fs.mkdtempSync(path.join(path.dirname(target), `.${path.basename(target)}-backup-`));
    renameWithRetry(target, path.join(backup, "moved"));
    this.movedAside.push({ original: target, backup });
  }

  /** node_modules/dsh-dream (a copy or pnpm's link) goes aside before a reinstall or uninstall. */
  moveAsideInstalledPackage(): void {
    this.moveAside(this.plan.packageDir);
  }

  /** A folder this run created outside the profile (the bundle's home, the data directory): rollback removes it. */
  noteCreated(target: string): void {
    this.created.push(target);
  }

  /** The memory folder is removed on rollback only while it is still empty. */
  noteDataDirCreated(dir: string): void {
    this.dataDirCreated = dir;
  }

  /** The run succeeded: the moved-aside copies are no longer needed. */
  commit(): void {
    for (const { backup } of this.movedAside.splice(0)) fs.rmSync(backup, { recursive: true, force: true });
    this.created.length = 0;
    this.dataDirCreated = undefined;
  }

  /** Tries every step even when one fails, and says what it restored and what it could not. */
  rollback(): RollbackOutcome {
    const outcome: RollbackOutcome = { restored: [], failures: [] };
    const step = (what: string, action: () => boolean) => {
      try {
        if (action()) outcome.restored.push(what);
      } catch (error) {
        outcome.failures.push(`${what}: ${(error as Error).message}`);
      }
    };
    for (const target of this.created.splice(0).reverse()) step(`removed ${target}, which this run created`, () => removeIfPresent(target));
    for (const { original, backup } of this.movedAside.splice(0).reverse()) {
      step(`put the previous ${original} back`, () => {
        removeIfPresent(original);
        renameWithRetry(path.join(backup, "moved"), original);
        fs.rmdirSync(backup);
        return true;
      });
    }
    for (const [dir, before] of this.listings) restoreFolder(dir, before, this.listings, step);
    const dataDir = this.dataDirCreated;
    if (dataDir) step(`removed ${dataDir}, which this run created`, () => fs.existsSync(dataDir) && fs.readdirSync(dataDir).length === 0 && (fs.rmdirSync(dataDir), true));
    return outcome;
  }
}

/** Where `dsh plugin` (pnpm) and the installer write inside a profile. */
function watchedFolders(profileDir: string): string[] {
  const modules = path.join(profileDir, "node_modules");
  const scopes = fs.existsSync(modules) ? fs.readdirSync(modules).filter((name) => name.startsWith("@")).map((name) => path.join(modules, name)) : [];
  return [profileDir, modules, path.join(modules, ".bin"), path.join(modules, ".pnpm"), ...scopes];
}

// Files are kept whole up to this size; a bigger one (none is expected here) is only checked for presence.
const MAX_SNAPSHOT_BYTES = 16 * 1024 * 1024;

function list(dir: string): Listing {
  if (!exists(dir)) return null;
  const entries = new Map<string, Entry>();
  for (const name of fs.readdirSync(dir)) {
    const full = path.join(dir, name);
    const stat = fs.lstatSync(full);
    if (stat.isSymbolicLink()) entries.set(name, { kind: "link", target: fs.readlinkSync(full) });
    else if (stat.isDirectory()) entries.set(name, { kind: "dir" });
    else if (stat.isFile() && stat.size <= MAX_SNAPSHOT_BYTES) entries.set(name, { kind: "file", bytes: fs.readFileSync(full), mode: stat.mode });
    else entries.set(name, { kind: "other" });
  }
  return entries;
}

function restoreFolder(dir: string, before: Listing, listings: Map<string, Listing>, step: (what: string, action: () => boolean) => void): void {
  if (before === null) {
    // A folder inside another watched folder that did not exist either is removed with its parent.
    const parent = listings.get(path.dirname(dir));
    if (parent === undefined || parent !== null) step(`removed ${dir}, which this run created`, () => removeIfPresent(dir));
    return;
  }
  if (!exists(dir)) fs.mkdirSync(dir, { recursive: true });
  for (const name of fs.readdirSync(dir)) {
    if (!before.has(name)) step(`removed ${path.join(dir, name)}, which this run created`, () => removeIfPresent(path.join(dir, name)));
  }
  for (const [name, entry] of before) {
    const full = path.join(dir, name);
    if (entry.kind === "file") step(`restored ${full}`, () => restoreFile(full, entry.bytes, entry.mode));
    else if (entry.kind === "link") step(`restored the link ${full}`, () => restoreLink(full, entry.target));
    else if (!exists(full)) throw new Error(`${full} was removed during the run and cannot be restored from the snapshot`);
  }
}

function restoreFile(file: string, bytes: Buffer, mode: number): boolean {
  const stat = lstatOrUndefined(file);
  if (stat?.isFile() && fs.readFileSync(file).equals(bytes)) return false;
  if (stat) removeIfPresent(file);
  fs.writeFileSync(file, bytes, { mode: mode & 0o777 });
  return true;
}

function restoreLink(link: string, target: string): boolean {
  const stat = lstatOrUndefined(link);
  if (stat?.isSymbolicLink() && fs.readlinkSync(link) === target) return false;
  if (stat) removeIfPresent(link);
  fs.symlinkSync(target, link, process.platform === "win32" ? "junction" : undefined);
  return true;
}

function lstatOrUndefined(target: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Where a symbolic link (or junction) points, or undefined when `file` is no link. */
export function linkTarget(file: string): string | undefined {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
}

// lstat, so that a link pnpm made is removed as a link and its target is left alone.
export function exists(target: string): boolean {
  return lstatOrUndefined(target) !== undefined;
}

export function removeIfPresent(target: string): boolean {
  const stat = lstatOrUndefined(target);
  if (!stat) return false;
  if (stat.isSymbolicLink()) fs.unlinkSync(target);
  else fs.rmSync(target, { recursive: true, force: true });
  return true;
}

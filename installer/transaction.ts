// Nothing half-installed: before any change the profile's package.json and pnpm lockfile are
// snapshotted (bytes) and an existing node_modules/dsh-dream is moved aside, so a failure at any
// later step puts the profile back exactly as it was and removes what the run created.
import fs from "node:fs";
import path from "node:path";
import type { Plan } from "./preflight";

export interface RollbackOutcome {
  restored: string[];
  failures: string[];
}

export class ProfileTransaction {
  private readonly snapshots = new Map<string, Buffer | null>();
  private readonly hadModulesDir: boolean;
  private readonly modulesDir: string;
  private backupDir?: string;
  private dataDirCreated?: string;

  constructor(private readonly plan: Plan) {
    for (const file of [plan.profileManifest, path.join(plan.profileDir, "pnpm-lock.yaml")]) {
      this.snapshots.set(file, fs.existsSync(file) ? fs.readFileSync(file) : null);
    }
    this.modulesDir = path.dirname(plan.packageDir);
    this.hadModulesDir = fs.existsSync(this.modulesDir);
  }

  /** Moves an installed node_modules/dsh-dream into a backup folder in the profile (same disk, so a rename). */
  moveAsideInstalledPackage(): void {
    if (!exists(this.plan.packageDir) || this.backupDir) return;
    this.backupDir = fs.mkdtempSync(path.join(this.plan.profileDir, ".dsh-dream-backup-"));
    fs.renameSync(this.plan.packageDir, path.join(this.backupDir, "package"));
  }

  noteDataDirCreated(dir: string): void {
    this.dataDirCreated = dir;
  }

  /** The run succeeded: the moved-aside copy is no longer needed. */
  commit(): void {
    if (this.backupDir) fs.rmSync(this.backupDir, { recursive: true, force: true });
    this.backupDir = undefined;
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
    for (const [file, bytes] of this.snapshots) {
      step(bytes ? `restored ${file}` : `removed ${file}, which this run created`, () => restoreFile(file, bytes));
    }
    step(`removed ${this.plan.packageDir}, which this run created`, () => removeIfPresent(this.plan.packageDir));
    if (this.backupDir) {
      const backup = this.backupDir;
      step(`put the previous ${this.plan.packageDir} back`, () => {
        fs.renameSync(path.join(backup, "package"), this.plan.packageDir);
        fs.rmdirSync(backup);
        return true;
      });
    }
    if (!this.hadModulesDir) step(`removed ${this.modulesDir}, which this run created`, () => removeEmptyDir(this.modulesDir));
    if (this.dataDirCreated) step(`removed ${this.dataDirCreated}, which this run created`, () => removeEmptyDir(this.dataDirCreated as string));
    return outcome;
  }
}

function restoreFile(file: string, bytes: Buffer | null): boolean {
  if (bytes === null) return removeIfPresent(file);
  if (fs.existsSync(file) && fs.readFileSync(file).equals(bytes)) return false;
  fs.writeFileSync(file, bytes);
  return true;
}

// lstat, so that a link pnpm made is removed as a link and its target is left alone.
function exists(target: string): boolean {
  try {
    fs.lstatSync(target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

function removeIfPresent(target: string): boolean {
  if (!exists(target)) return false;
  fs.rmSync(target, { recursive: true, force: true });
  return true;
}

function removeEmptyDir(dir: string): boolean {
  if (!fs.existsSync(dir) || fs.readdirSync(dir).length > 0) return false;
  fs.rmdirSync(dir);
  return true;
}

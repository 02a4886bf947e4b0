// The memory data directory (<DSH home>/dsh-dream, the plugin's default dataDir) and the user's own
// patch files: the installer creates the first if absent, deletes it only on --remove-data, and
// never edits the second.
import fs from "node:fs";
import path from "node:path";
import type { Plan } from "./preflight";

/** Creates the data directory owner-only; existing data is left exactly as it is. */
export function prepareDataDir(dataDir: string): "created" | "kept" {
  if (fs.existsSync(dataDir)) {
    if (!fs.statSync(dataDir).isDirectory()) throw new Error(`${dataDir} exists but is not a folder; move it aside so dsh-dream can keep its memory data there`);
    return "kept";
  }
  // The records are the user's conversations: 0700 where the OS has modes (ignored on Windows).
  fs.mkdirSync(dataDir, { mode: 0o700 });
  return "created";
}

export function removeDataDir(dataDir: string): "removed" | "absent" {
  if (!fs.existsSync(dataDir)) return "absent";
  fs.rmSync(dataDir, { recursive: true, force: true });
  return "removed";
}

/** Patch files (profile, then home) that still name the holo-memory row after an uninstall. */
export function patchFilesMentioningRow(plan: Plan): string[] {
  return [path.join(plan.profileDir, "cordis.patch.yml"), path.join(plan.dshHome, "cordis.patch.yml")].filter(
    (file) => fs.existsSync(file) && fs.readFileSync(file, "utf8").includes("holo-memory"),
  );
}

// What the installer reports: one object, printed as JSON with --json or as lines for a person.
import type { InstallError } from "./errors";
import type { RollbackOutcome } from "./transaction";
import type { Check } from "./verify";
import type { CliReport } from "./launcher";

export type Action = "install" | "reinstall" | "uninstall" | "already-installed" | "not-installed" | "none";

export interface InstallReport {
  ok: boolean;
  action: Action;
  dshHome?: string;
  profile?: string;
  profileDir?: string;
  bundleDir?: string;
  method?: "dsh-cli" | "manual";
  version?: string;
  dependencies?: string;
  dataDir?: string;
  data?: "created" | "kept" | "removed" | "absent";
  /** The dsh-dream command the install wrote. */
  cli?: CliReport;
  /** With --download-model: whether the local model was downloaded. */
  model?: "downloaded" | "failed";
  checks: Check[];
  notes: string[];
  error?: { code: string; message: string; hint: string };
  rollback?: RollbackOutcome;
}

export function failureReport(base: Partial<InstallReport>, error: InstallError, rollback?: RollbackOutcome): InstallReport {
  return { checks: [], notes: [], ...base, ok: false, action: base.action ?? "none", error: { code: error.code, message: error.message, hint: error.hint }, rollback };
}

const HEADLINES: Record<Action, string> = {
  install: "DSH-DREAM installed",
  reinstall: "DSH-DREAM reinstalled",
  uninstall: "DSH-DREAM removed",
  "already-installed": "DSH-DREAM is already installed",
  "not-installed": "DSH-DREAM is not installed, so there was nothing to remove,",
  none: "DSH-DREAM installer",
};

export function formatReport(report: InstallReport): string {
  const lines: string[] = [];
  if (report.error) {
    const what = report.action === "uninstall" ? "uninstall" : report.action === "none" ? "installer" : "install";
    lines.push(`DSH-DREAM ${what} failed [${report.error.code}]: ${report.error.message}`);
    lines.push(`What to do: ${report.error.hint}`);
  } else {
    const where = report.profile ? ` ${report.action === "uninstall" ? "from" : "in"} DSH profile "${report.profile}" (${report.profileDir})` : "";
    const how = report.method ? (report.method === "dsh-cli" ? " with the DSH CLI" : " by hand (no DSH CLI on PATH)") : "";
    lines.push(`${HEADLINES[report.action]}${where}${how}.`);
  }
  if (report.checks.length) {
    lines.push("Checks:");
    for (const check of report.checks) lines.push(`  ${check.ok ? "ok  " : "FAIL"} ${check.name}: ${check.detail}`);
  }
  if (report.dependencies) lines.push(`Runtime dependencies: ${report.dependencies}`);
  if (report.dataDir && report.data) lines.push(`Memory data: ${report.dataDir} (${report.data})`);
  for (const done of report.rollback?.restored ?? []) lines.push(`Rolled back: ${done}`);
  for (const failed of report.rollback?.failures ?? []) lines.push(`Could NOT roll back: ${failed}`);
  if (report.rollback && !report.rollback.failures.length) lines.push("The profile is as it was before this run.");
  for (const note of report.notes) lines.push(note);
  return lines.join("\n") + "\n";
}

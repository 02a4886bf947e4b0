// What the installer asks of the installed CLI: `download-model` (--download-model and the
// interactive offer), run on this Node with the DSH home of the install, its progress on stderr
// (a failed download never undoes the install), and `stop` for a bridge that still runs.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Plan } from "./preflight";

export interface ModelStepContext {
  execPath: string;
  env: NodeJS.ProcessEnv;
}

export function downloadModelNow(plan: Plan, context: ModelStepContext, mirror: string | undefined): { ok: boolean; note: string } {
  const cli = path.join(plan.installDir, "dist", "cli.cjs");
  const args = [cli, "download-model", ...(mirror ? ["--remote-host", mirror] : [])];
  // The child's stdout would mix with this program's report (JSON with --json): both its streams go to stderr.
  const result = spawnSync(context.execPath, args, { env: { ...context.env, DSH_HOME: plan.dshHome }, stdio: ["ignore", 2, 2], windowsHide: true });
  if (result.status === 0) return { ok: true, note: "The local embedding model is downloaded: dense recall starts once DSH-DREAM is switched on." };
  const why = result.error ? result.error.message : `exit code ${result.status}`;
  return { ok: false, note: `The model download did not finish (${why}; its message is above). The install itself is complete. Resume it with \`dsh-dream download-model\` or the Download button in Settings > DSH-DREAM.` };
}

/**
 * A bridge still serving the data directory holds files in the bundle's folder (Chroma's native
 * binding, onnxruntime) and keeps writing the data directory: Windows refuses to move or delete
 * them, and a removal would race its writes. It is stopped first, through the installed CLI (or the
 * new one when none is installed). Says what happened, for the report; never throws.
 */
export function stopRunningBridge(plan: Plan, context: ModelStepContext, installedCli: string | undefined): string | undefined {
  if (!fs.existsSync(path.join(plan.dataDir, "bridge.json"))) return undefined;
  const cli = [installedCli, path.join(plan.bundleDir, "dist", "cli.cjs")].find((file): file is string => file !== undefined && fs.existsSync(file));
  if (!cli) return `A memory bridge may be running for ${plan.dataDir}, and no dsh-dream CLI was found to stop it; if the install fails, stop DSH and run it again.`;
  const result = spawnSync(context.execPath, [cli, "--data-dir", plan.dataDir, "stop"], { env: { ...context.env, DSH_HOME: plan.dshHome }, encoding: "utf8", timeout: 30_000, windowsHide: true });
  if (result.status === 0) return `Stopped the memory bridge that was running for ${plan.dataDir} (DSH starts it again when it needs it).`;
  const why = result.error ? result.error.message : (result.stderr || result.stdout || `exit code ${result.status}`).trim().split(/\r?\n/)[0];
  return `Could not stop the memory bridge running for ${plan.dataDir} (${why}); if the install fails, stop DSH and run it again.`;
}

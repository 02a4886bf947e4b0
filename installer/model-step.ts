// --download-model (and the interactive offer): the installed CLI's `download-model`, run on this
// Node with the DSH home of the install, its progress shown on stderr. A failed download never
// undoes the install: the report says what happened and how to resume.
import { spawnSync } from "node:child_process";
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

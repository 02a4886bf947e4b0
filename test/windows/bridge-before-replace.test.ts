// Issue 14, finding 3: Windows refuses to move node_modules\dsh-dream (or the bundle's folder)
// while a bridge has Chroma's .node and onnxruntime.dll loaded, and -RemoveData raced a bridge
// that kept writing. The installer now stops a running bridge first: checked here with a real one.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { isProcessAlive } from "../../bridge/store/lock";
import { CLI } from "../cli/run-cli";
import { makeBinDir, makeBundle, makeDshHome, removeTempDirs, runInstaller } from "../installer/installer-fixtures";
import { dshNode } from "../plugin/dsh-host-driver";
import { waitFor } from "../plugin/plugin-helpers";

afterEach(removeTempDirs);

async function startBridge(dataDir: string): Promise<number> {
  fs.writeFileSync(path.join(dataDir, "bridge-config.json"), JSON.stringify({ chroma: { mode: "off" } }));
  // Started through a short-lived parent, as DSH starts it: not a child of this (blocked) test
  // process, which could not reap it, so its exit is seen as an exit.
  const launch = "require('node:child_process').spawn(process.execPath, process.argv.slice(1), { detached: true, stdio: 'ignore' }).unref()";
  spawnSync(dshNode(), ["-e", launch, CLI, "--data-dir", dataDir, "serve"], { stdio: "ignore" });
  const info = await waitFor(async () => JSON.parse(fs.readFileSync(path.join(dataDir, "bridge.json"), "utf8")) as { pid: number }, (value) => value.pid > 0);
  return info.pid;
}

it.each([
  ["a --force reinstall", ["--force"]],
  ["an uninstall with --remove-data", ["--uninstall", "--remove-data"]],
])("stops the bridge serving the data directory before %s, and says so", async (_label, args) => {
  const home = makeDshHome();
  const bin = makeBinDir();
  expect(runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin }).status).toBe(0);
  const dataDir = path.join(home, "dsh-dream");
  const pid = await startBridge(dataDir);
  try {
    const run = runInstaller(["--dsh-home", home, ...(args.includes("--uninstall") ? [] : ["--bundle", makeBundle()]), ...args], { bin });
    expect(run.status).toBe(0);
    expect(run.report.notes).toContain(`Stopped the memory bridge that was running for ${dataDir} (DSH starts it again when it needs it).`);
    expect(isProcessAlive(pid)).toBe(false);
    if (args.includes("--remove-data")) expect(fs.existsSync(dataDir)).toBe(false);
  } finally {
    if (isProcessAlive(pid)) process.kill(pid, "SIGKILL");
  }
});

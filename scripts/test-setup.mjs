// What `npm test` needs beyond the project's own node_modules (run by pretest):
// 1. the DSH test host (test/dsh-host: DSH's agent loop and web server from npm, and Node 24),
//    installed from its own lockfile;
// 2. a headless Chromium with a CJK font for the settings-panel tests: Debian's `chromium` and
//    `fonts-wqy-microhei`, installed with apt-get when missing and this process may (root).
// Set DSH_DREAM_CHROMIUM to use another Chromium/Chrome binary instead.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", shell: process.platform === "win32" && command.endsWith(".cmd"), ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
}

run(npm, ["ci", "--prefix", path.join(root, "test", "dsh-host"), "--no-audit", "--no-fund"]);

const chromium = process.env.DSH_DREAM_CHROMIUM ?? "/usr/bin/chromium";
const font = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";
if (process.env.DSH_DREAM_CHROMIUM === undefined && process.platform === "linux" && (!existsSync(chromium) || !existsSync(font))) {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (isRoot && existsSync("/usr/bin/apt-get")) {
    console.log("test-setup: installing chromium and fonts-wqy-microhei for the settings-panel tests");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    run("apt-get", ["update", "-qq"], { env });
    run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "chromium", "fonts-wqy-microhei"], { env });
  } else {
    console.warn(
      "test-setup: the settings-panel tests need Chromium and a CJK font: run\n" +
        "  sudo apt-get install -y chromium fonts-wqy-microhei\n" +
        "or set DSH_DREAM_CHROMIUM to a Chromium/Chrome binary.",
    );
  }
}

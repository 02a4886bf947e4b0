// pnpm on PATH for the installer tests: the real pnpm 11.7.0 (as DSH pins it; installed with the
// test host), run on the test host's Node. Each call is recorded in <launcher folder>/calls.jsonl.
// Fault injection, on top of the real run: STANDIN_PNPM_FAIL_AFTER_WRITE=1 makes `add` exit 1 after
// pnpm has written everything, as pnpm 11 does when it refuses a build script after linking.
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const args = process.argv.slice(2);
fs.appendFileSync(path.join(path.dirname(process.argv[1]), "calls.jsonl"), `${JSON.stringify({ tool: "pnpm", args, cwd: process.cwd() })}\n`);
const pnpm = path.resolve(__dirname, "..", "..", "dsh-host", "node_modules", "pnpm", "bin", "pnpm.mjs");
const result = spawnSync(process.execPath, [pnpm, ...args], { stdio: "inherit" });
if (result.error) throw result.error;
if (result.status === 0 && args[0] === "add" && process.env.STANDIN_PNPM_FAIL_AFTER_WRITE === "1") {
  console.error("ERR_PNPM_IGNORED_BUILDS  Ignored build scripts: dsh-dream (injected failure)");
  process.exit(1);
}
process.exit(result.status ?? 1);

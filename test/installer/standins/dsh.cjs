// Stand-in for the DSH CLI (DSH cannot be installed here). It records its arguments, then does
// what `dsh plugin` does (dsh-host.md §1.3): runs pnpm with the rest of the arguments in
// $DSH_HOME/profiles/<profile>, then reconciles dsh.profile.bundles with the dependencies pnpm
// added (those declaring dsh.bundle) or removed.
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const args = process.argv.slice(2);
fs.appendFileSync(path.join(path.dirname(process.argv[1]), "calls.jsonl"), `${JSON.stringify({ tool: "dsh", args, dshHome: process.env.DSH_HOME })}\n`);
if (args[0] !== "plugin" || args[1] !== "--profile" || !process.env.DSH_HOME) {
  console.error(`stand-in dsh: unsupported call (DSH_HOME=${process.env.DSH_HOME}): ${args.join(" ")}`);
  process.exit(64);
}
const profileDir = path.join(process.env.DSH_HOME, "profiles", args[2]);
const manifestPath = path.join(profileDir, "package.json");
const readManifest = () => JSON.parse(fs.readFileSync(manifestPath, "utf8"));
const before = Object.keys(readManifest().dependencies ?? {});

const pnpm = spawnSync("pnpm", args.slice(3), { cwd: profileDir, stdio: "inherit" });
if (pnpm.error) {
  console.error(`dsh plugin: could not run pnpm (${pnpm.error.message}); is pnpm on PATH?`);
  process.exit(1);
}
if (pnpm.status !== 0) process.exit(pnpm.status ?? 1);

const manifest = readManifest();
const after = Object.keys(manifest.dependencies ?? {});
manifest.dsh ??= {};
manifest.dsh.profile ??= {};
let bundles = manifest.dsh.profile.bundles ?? [];
for (const name of after.filter((dep) => !before.includes(dep))) {
  const pkg = JSON.parse(fs.readFileSync(path.join(profileDir, "node_modules", name, "package.json"), "utf8"));
  if (pkg.dsh?.bundle && !bundles.includes(name)) bundles.push(name);
}
bundles = bundles.filter((name) => !before.includes(name) || after.includes(name));
manifest.dsh.profile.bundles = bundles;
fs.writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

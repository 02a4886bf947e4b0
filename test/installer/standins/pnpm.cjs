// Stand-in for pnpm as `dsh plugin` runs it in a profile (pnpm cannot reach a registry here):
// `add -w <dir>` copies the package into node_modules and lists it in dependencies and the
// lockfile; `remove <name>` undoes that. STANDIN_PNPM_FAIL_AFTER_WRITE=1 makes `add` fail after
// it has written everything, as pnpm does when a build script is refused after linking.
const fs = require("node:fs");
const path = require("node:path");

const args = process.argv.slice(2);
fs.appendFileSync(path.join(path.dirname(process.argv[1]), "calls.jsonl"), `${JSON.stringify({ tool: "pnpm", args, cwd: process.cwd() })}\n`);
const manifestPath = path.join(process.cwd(), "package.json");
const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8"));
manifest.dependencies ??= {};

function save() {
  fs.writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  const lines = Object.entries(manifest.dependencies).map(([name, spec]) => `  ${name}: ${spec}`);
  fs.writeFileSync(path.join(process.cwd(), "pnpm-lock.yaml"), `lockfileVersion: '9.0'\ndependencies:\n${lines.join("\n")}\n`);
}

if (args[0] === "add" && args[1] === "-w" && args.length === 3) {
  const spec = args[2];
  const { name } = JSON.parse(fs.readFileSync(path.join(spec, "package.json"), "utf8"));
  fs.cpSync(spec, path.join(process.cwd(), "node_modules", name), { recursive: true, filter: (from) => path.basename(from) !== "node_modules" });
  manifest.dependencies[name] = `file:${spec}`;
  save();
  if (process.env.STANDIN_PNPM_FAIL_AFTER_WRITE === "1") {
    console.error("ERR_PNPM_IGNORED_BUILDS  Ignored build scripts: dsh-dream (stand-in failure)");
    process.exit(1);
  }
} else if (args[0] === "remove" && args.length === 2) {
  if (!(args[1] in manifest.dependencies)) {
    console.error(`ERR_PNPM_CANNOT_REMOVE_MISSING_DEPS  Cannot remove '${args[1]}': no such dependency found`);
    process.exit(1);
  }
  delete manifest.dependencies[args[1]];
  fs.rmSync(path.join(process.cwd(), "node_modules", args[1]), { recursive: true, force: true });
  save();
} else {
  console.error(`stand-in pnpm: unsupported call: ${args.join(" ")}`);
  process.exit(64);
}

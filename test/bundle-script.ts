// For tests that need real processes running project code (racers, writers killed with SIGKILL, a
// host that launches a bridge): bundles a small CommonJS script, which may require the TypeScript
// sources by absolute path, into `<dir>/<name>` with esbuild, and returns its path.
import path from "node:path";
import { buildSync } from "esbuild";

export function bundleScript(dir: string, name: string, contents: string): string {
  const outfile = path.join(dir, name);
  buildSync({ stdin: { contents, resolveDir: dir, loader: "js" }, bundle: true, platform: "node", format: "cjs", outfile, logLevel: "silent" });
  return outfile;
}

// Where the memory lives: --data-dir, else $DSH_HOME/dsh-dream, with DSH_HOME defaulting to ~/.dsh.
import path from "node:path";
import type { CliIo } from "./io";

export function resolveDataDir(flag: string | undefined, io: CliIo): string {
  if (flag !== undefined) return path.resolve(io.cwd, flag);
  const dshHome = io.env.DSH_HOME ? path.resolve(io.cwd, io.env.DSH_HOME) : path.join(io.homeDir, ".dsh");
  return path.join(dshHome, "dsh-dream");
}

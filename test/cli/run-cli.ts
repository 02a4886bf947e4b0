// Runs the built CLI (dist/cli.cjs) as a real process, without a shell.
import { spawnSync } from "node:child_process";
import path from "node:path";

export const CLI = path.resolve(__dirname, "../../dist/cli.cjs");

export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

// Runs the built CLI (dist/cli.cjs) as a real process, without a shell.
import { spawn, spawnSync } from "node:child_process";
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

/**
 * Like runCli, but lets this process keep serving (a test's own HTTP server, for instance) meanwhile;
 * `input`, when given, is written to the CLI's stdin and then closed. An env value of undefined unsets it.
 */
export function runCliAsync(args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const stdin = options.input === undefined ? "ignore" : "pipe";
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...options.env } as NodeJS.ProcessEnv, stdio: [stdin, "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

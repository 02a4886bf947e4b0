// Finding programs on PATH and running them without a shell. The one exception is Windows batch
// files (dsh.cmd, pnpm.cmd, npm.cmd), which only cmd.exe can run: quoting for it lives here alone.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export interface CommandEnv {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
}

export interface CommandResult {
  status: number | null;
  output: string;
  error?: Error;
}

/** Walks PATH like the OS would (PATHEXT on Windows, executables only elsewhere), never the cwd. */
export function findCommand(name: string, { env, platform }: CommandEnv): string | undefined {
  const isWindows = platform === "win32";
  const pathValue = (isWindows ? (env.Path ?? env.PATH) : env.PATH) ?? "";
  // Lower case: Windows file names are case-insensitive, and tests on Linux create "dsh.cmd".
  const extensions = isWindows
    ? [...(env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean).map((ext) => ext.toLowerCase()), ".ps1"]
    : [""];
  for (const dir of pathValue.split(isWindows ? ";" : ":")) {
    if (!dir) continue;
    for (const ext of extensions) {
      const candidate = path.join(dir.replace(/^"(.*)"$/, "$1"), name + ext);
      if (isRunnableFile(candidate, isWindows)) return candidate;
    }
  }
  return undefined;
}

function isRunnableFile(file: string, isWindows: boolean): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (!isWindows) fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false; // absent or not executable: keep walking PATH, as the OS does
  }
}

/** Runs a program found by findCommand and captures its output; never throws for a failed run. */
export function runCommand(file: string, args: readonly string[], cwd: string, { env, platform }: CommandEnv): CommandResult {
  const { command, commandArgs, verbatim } = platform === "win32" ? windowsInvocation(file, args, env) : { command: file, commandArgs: [...args], verbatim: false };
  const result = spawnSync(command, commandArgs, {
    cwd,
    env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    windowsVerbatimArguments: verbatim,
    windowsHide: true,
  });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}`, error: result.error };
}

function windowsInvocation(file: string, args: readonly string[], env: NodeJS.ProcessEnv): { command: string; commandArgs: string[]; verbatim: boolean } {
  const ext = path.extname(file).toLowerCase();
  if (ext === ".cmd" || ext === ".bat") {
    return { command: env.ComSpec ?? env.COMSPEC ?? "cmd.exe", commandArgs: ["/d", "/s", "/c", cmdCommandLine(file, args)], verbatim: true };
  }
  if (ext === ".ps1") {
    return { command: "powershell.exe", commandArgs: ["-NoProfile", "-ExecutionPolicy", "Bypass", "-File", file, ...args], verbatim: false };
  }
  return { command: file, commandArgs: [...args], verbatim: false };
}

// cmd.exe metacharacters, escaped with ^ (cross-spawn's table, after robvanderwoude.com/escapechars).
const CMD_META = /([()\][%!^"`<>&|;, *?])/g;

/**
 * The `/c` argument for cmd.exe running a batch file: cross-spawn's algorithm (qntm.org/cmd).
 * Each argument is quoted for the program's CRT parser, then every metacharacter is ^-escaped for
 * cmd.exe; npm's node_modules/.bin shims re-parse their %*, so their arguments are escaped twice.
 */
export function cmdCommandLine(file: string, args: readonly string[]): string {
  const doubleEscape = /node_modules[\\/]\.bin[\\/][^\\/]+\.cmd$/i.test(file);
  const quoted = args.map((arg) => {
    let escaped = arg.replace(/(?=(\\+?)?)\1"/g, '$1$1\\"').replace(/(?=(\\+?)?)\1$/, "$1$1");
    escaped = `"${escaped}"`.replace(CMD_META, "^$1");
    return doubleEscape ? escaped.replace(CMD_META, "^$1") : escaped;
  });
  return `"${[path.win32.normalize(file).replace(CMD_META, "^$1"), ...quoted].join(" ")}"`;
}

/** The last lines of a command's output, for error messages. */
export function outputTail(output: string, lines = 20): string {
  const kept = output.trimEnd().split(/\r?\n/).slice(-lines).join("\n");
  return kept ? `\n--- last output ---\n${kept}` : "";
}

// The installer's one table of error codes: each code names what failed and carries the default
// "what to do" hint a user sees; throw sites add the specifics (paths, versions, command output).
import { vcRuntimeInstallStep } from "../bridge/protocol/vc-runtime";

export const INSTALL_ERRORS = {
  BAD_ARGUMENTS: "Run the installer with --help (PowerShell: Get-Help .\\install-agent-memory-plugin.ps1) for the options.",
  NODE_TOO_OLD: "Install Node.js 22 or newer from https://nodejs.org/ (or `nvm install 22`), then run the installer again.",
  // The x64 package; on an ARM64 Node the throw site names the ARM64 one.
  VC_RUNTIME_MISSING: `${vcRuntimeInstallStep("x64")}, then run the installer again.`,
  DSH_HOME_MISSING: "Install DSH and start it once so it creates its home folder (DSH Desktop: %APPDATA%\\DSH Desktop\\harness), or point -DshHome / --dsh-home (or DSH_HOME) at it.",
  PROFILE_MISSING: "Start DSH once with that profile (`dsh --profile <name>`) so it creates it, or choose an existing one with -Profile / --profile.",
  BUNDLE_INVALID: "Extract the whole release zip and run the installer from that folder (bundle/ must sit next to it), or pass --bundle <dir>.",
  PNPM_MISSING: "`dsh plugin` installs through pnpm: install it with `npm i -g pnpm`, open a new terminal, and run the installer again.",
  NPM_MISSING: "npm ships with Node.js: reinstall Node.js 22+ from https://nodejs.org/ so that npm is on PATH.",
  PROFILE_MANIFEST_INVALID: "Fix the JSON syntax of the profile's package.json (DSH reads the same file), then run the installer again.",
  DSH_CLI_FAILED: "Read the dsh/pnpm output above, fix its cause (network, pnpm version, a running DSH holding files), and run the installer again.",
  NPM_INSTALL_FAILED: "Read the npm output above, fix its cause (network, disk space, permissions), and run the installer again.",
  FILESYSTEM: "Stop DSH (it may hold files in the profile), check the folder is writable and the disk is not full, then run the installer again.",
  VERIFY_FAILED: "The installed bundle did not pass the checks listed; re-extract the release zip and run the installer again.",
} as const;

export type InstallErrorCode = keyof typeof INSTALL_ERRORS;

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_BAD_ARGUMENTS = 2;

export class InstallError extends Error {
  readonly code: InstallErrorCode;
  readonly hint: string;

  constructor(code: InstallErrorCode, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "InstallError";
    this.code = code;
    this.hint = options.hint ?? INSTALL_ERRORS[code];
  }
}

/** File system failures become FILESYSTEM errors that say which step and which path failed. */
export function wrapFilesystemError(step: string, error: unknown): InstallError {
  if (error instanceof InstallError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new InstallError("FILESYSTEM", `${step} failed: ${detail}`, { cause: error });
}

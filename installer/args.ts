// Command-line options of the Node installer (the PowerShell and sh front ends map theirs onto
// these); a bad option is an InstallError with code BAD_ARGUMENTS, which main turns into exit 2.
import { InstallError } from "./errors";

export interface InstallOptions {
  force: boolean;
  uninstall: boolean;
  removeData: boolean;
  json: boolean;
  help: boolean;
  /** After the install, fetch the local embedding model with the installed CLI. */
  downloadModel: boolean;
  /** With --download-model: a hub mirror speaking Hugging Face's file protocol. */
  mirror?: string;
  profile?: string;
  dshHome?: string;
  bundle?: string;
}

export const USAGE = `DSH-DREAM installer: adds the dsh-dream bundle to a DSH profile.

Usage: node install.cjs [options]
  --force            reinstall when dsh-dream is already installed (memory data is kept)
  --profile <name>   DSH profile (default: web; desktop when only DSH Desktop's profile exists)
  --dsh-home <dir>   DSH home (default: $DSH_HOME, else ~/.dsh)
  --uninstall        remove dsh-dream from the profile; memory data is kept
  --remove-data      with --uninstall: also delete the memory data (<dsh home>/dsh-dream)
  --download-model   after installing, download the local embedding model (about 25 MB; it can
                     also be done later from Settings > DSH-DREAM or with \`dsh-dream download-model\`)
  --mirror <url>     with --download-model: a mirror of the Hugging Face hub (default: HF_ENDPOINT,
                     else https://huggingface.co/)
  --bundle <dir>     the bundle folder to install (default: ../bundle next to install.cjs)
  --json             print the report as one JSON object
  --help             print this help

Environment: DSH_HOME (the DSH home when --dsh-home is not given);
  DSH_DREAM_INSTALL_SKIP_DEPS=1 is for tests only: it skips installing the runtime dependencies
  (chromadb & co) and their check, and the report says they were not installed.

Exit codes: 0 done (or nothing to do), 1 failed and rolled back, 2 bad arguments.
`;

const FLAGS = { "--force": "force", "--uninstall": "uninstall", "--remove-data": "removeData", "--download-model": "downloadModel", "--json": "json", "--help": "help", "-h": "help" } as const;
const VALUED = { "--profile": "profile", "--dsh-home": "dshHome", "--bundle": "bundle", "--mirror": "mirror" } as const;

export function parseInstallArgs(argv: readonly string[]): InstallOptions {
  const options: InstallOptions = { force: false, uninstall: false, removeData: false, downloadModel: false, json: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inlineValue] = splitInline(argv[i]);
    if (flag in FLAGS && inlineValue === undefined) {
      options[FLAGS[flag as keyof typeof FLAGS]] = true;
      continue;
    }
    if (!(flag in VALUED)) throw new InstallError("BAD_ARGUMENTS", `unknown option ${JSON.stringify(argv[i])}`);
    const value = inlineValue ?? argv[++i];
    if (value === undefined || value === "" || (inlineValue === undefined && value.startsWith("--"))) {
      throw new InstallError("BAD_ARGUMENTS", `${flag} needs a value`);
    }
    const key = VALUED[flag as keyof typeof VALUED];
    if (options[key] !== undefined) throw new InstallError("BAD_ARGUMENTS", `${flag} was given twice`);
    options[key] = value;
  }
  if (options.removeData && !options.uninstall) {
    throw new InstallError("BAD_ARGUMENTS", "--remove-data only works together with --uninstall (installing never deletes memory data)");
  }
  if (options.downloadModel && options.uninstall) throw new InstallError("BAD_ARGUMENTS", "--download-model goes with an install, not with --uninstall");
  if (options.mirror !== undefined && !options.downloadModel) throw new InstallError("BAD_ARGUMENTS", "--mirror only works together with --download-model");
  if (options.mirror !== undefined && !/^https?:\/\/[^\s]+$/.test(options.mirror)) {
    throw new InstallError("BAD_ARGUMENTS", `--mirror must be an http:// or https:// URL such as https://hf-mirror.com/, not ${JSON.stringify(options.mirror)}`);
  }
  if (options.profile !== undefined && !isPlainName(options.profile)) {
    throw new InstallError("BAD_ARGUMENTS", `--profile must be a profile name such as web or desktop, not a path: ${JSON.stringify(options.profile)}`);
  }
  return options;
}

function splitInline(arg: string): [string, string | undefined] {
  const eq = arg.indexOf("=");
  return arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
}

// A profile is a folder under <home>/profiles; a name with separators would escape it.
function isPlainName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name);
}

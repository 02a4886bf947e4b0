// Command dispatch for `dsh-dream`: parses the command line against the command table (specs.ts),
// answers help and --version, connects to (or starts) the bridge for memory commands, and turns
// DreamErrors into the message + hint a user sees (or a JSON error object).
import { DreamError, isDreamError } from "../protocol/errors";
import type { RpcMethod } from "../protocol/wire";
import { osErrorToDreamError } from "../protocol/os-errors";
import { flagString, type ParsedArgs } from "./args";
import { chatCommand } from "./chat";
import { addCommand, exportCommand, lifecycleCommand, purgeCommand, receiptCommand, searchCommand, searchVectorCommand, statusCommand, type MemoryApi } from "./commands";
import { connectBridge } from "./connect";
import { resolveDataDir } from "./data-dir";
import { demoCommand } from "./demo";
import { downloadModelCommand, reembedCommand } from "./embedding-commands";
import { formatError } from "./format";
import { importCommand } from "./import-command";
import type { CliIo } from "./io";
import { editCommand, getCommand, historyCommand, listCommand, statsCommand } from "./manage-commands";
import { serveCommand, stopCommand } from "./serve";
import { commandHelp, COMMANDS, commandSpec, overview, parseInvocation } from "./specs";

type MemoryCommand = (api: MemoryApi, args: ParsedArgs, io: CliIo) => Promise<number>;

const MEMORY_COMMANDS: Record<string, MemoryCommand> = {
  import: importCommand,
  add: addCommand,
  search: searchCommand,
  "search-vector": searchVectorCommand,
  receipt: receiptCommand,
  status: statusCommand,
  export: exportCommand,
  list: listCommand,
  get: getCommand,
  history: historyCommand,
  edit: editCommand,
  stats: statsCommand,
  forget: (api, args, io) => lifecycleCommand(api, "forget", args, io),
  quarantine: (api, args, io) => lifecycleCommand(api, "quarantine", args, io),
  release: (api, args, io) => lifecycleCommand(api, "release", args, io),
  reembed: reembedCommand,
  purge: purgeCommand,
};

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let json = argv.includes("--json");
  // Known before parsing, so that a bad option names the command's own help.
  let commandName = argv.find((arg) => !arg.startsWith("-") && COMMANDS.some((spec) => spec.name === arg));
  try {
    const { spec, args } = parseInvocation(argv);
    json = args.flags.has("json");
    commandName = spec?.name;
    if (spec === undefined) {
      if (args.flags.has("version")) {
        io.out(`dsh-dream ${io.version}\n`);
        return 0;
      }
      // No command: the overview, on stdout when asked for, and as a usage error when not.
      if (args.flags.has("help")) {
        io.out(overview(io.version));
        return 0;
      }
      io.err(overview(io.version));
      return 2;
    }
    if (spec.name === "help") {
      io.out(args.positionals[0] === undefined ? overview(io.version) : commandHelp(commandSpec(args.positionals[0])));
      return 0;
    }
    if (args.flags.has("help")) {
      io.out(commandHelp(spec));
      return 0;
    }
    const dataDirFlag = flagString(args, "data-dir");
    const dataDir = resolveDataDir(dataDirFlag, io);
    const command = spec.name;
    if (command === "demo") return await demoCommand(io, dataDirFlag === undefined ? undefined : dataDir);
    if (command === "serve") return await serveCommand(dataDir, args, io);
    if (command === "stop") return await stopCommand(dataDir, io);
    if (command === "chat") return await chatCommand(dataDir, args, io, { input: process.stdin, interactive: process.stdout.isTTY === true });
    if (command === "download-model") return await downloadModelCommand(dataDir, args, io);
    const handler = MEMORY_COMMANDS[command];
    if (!handler) throw new DreamError("BAD_ARGUMENTS", `unknown command "${command}"`);
    // The bridge is reached (and started) at the first call: a command refuses bad arguments before that.
    let client: Promise<MemoryApi> | undefined;
    const api: MemoryApi = { call: async (method, params) => (await (client ??= connectBridge(dataDir, io))).call(method as RpcMethod, params) };
    return await handler(api, args, io);
  } catch (caught) {
    const error = isDreamError(caught) ? caught : osErrorToDreamError(caught);
    if (!error) throw caught;
    if (json) io.out(JSON.stringify({ error: error.toJSON() }) + "\n");
    // A usage mistake points at that command's own help, which has its options and examples.
    const usage = error.code === "BAD_ARGUMENTS" && commandName !== undefined && commandName !== "help";
    io.err(usage ? `error [${error.code}]: ${error.message}\nhint: run \`dsh-dream ${commandName} --help\` for its options and examples.\n` : formatError(error));
    return error.code === "BAD_ARGUMENTS" ? 2 : 1;
  }
}

// Command dispatch for `dsh-dream`: parses flags, connects to (or starts) the bridge for memory
// commands, and turns DreamErrors into the message + hint a user sees (or a JSON error object).
import { DreamError, isDreamError } from "../protocol/errors";
import { flagString, parseArgs } from "./args";
import {
  addCommand,
  exportCommand,
  importCommand,
  lifecycleCommand,
  receiptCommand,
  searchCommand,
  searchVectorCommand,
  statusCommand,
  type MemoryApi,
  purgeCommand,
} from "./commands";
import { chatCommand } from "./chat";
import { connectBridge } from "./connect";
import { downloadModelCommand, reembedCommand } from "./embedding-commands";
import { resolveDataDir } from "./data-dir";
import { demoCommand } from "./demo";
import { formatError } from "./format";
import type { CliIo } from "./io";
import { serveCommand, stopCommand } from "./serve";

const FLAGS = {
  values: [
    "data-dir", "top-k", "scope", "batch", "text", "source-type", "timestamp-ms", "id", "session-id", "turn", "reason",
    "query-embedding", "idle-exit-ms", "owner-pid", "chroma-url", "model", "model-dir", "remote-host",
    "session", "base-url", "matching",
  ],
  switches: ["json", "timeline", "help", "with-vectors", "no-chroma", "llm", "owner-pipe", "now", "yes"],
} as const;

export const USAGE = `usage: dsh-dream [--data-dir DIR] <command> [options]

memory commands (they talk to the bridge for the data directory, starting one if none runs):
  import FILE.jsonl                     import one record per line; bad lines are reported and skipped
  add --text T --source-type S [--timestamp-ms N] [--id ID] [--scope S] [--session-id ID] [--turn N]
  search QUERY [--top-k N] [--timeline] [--scope S] [--query-embedding FILE] [--json]
  search --batch QUERIES.jsonl [--top-k N] --json
  search-vector --query-embedding FILE [--top-k N] [--scope S] [--json]   dense-only diagnostics
  receipt [--id RECEIPT_ID] [--json]    why the last search (or that one) returned what it did
  status [--json]
  forget ID [--now] | quarantine ID --reason R | release ID
  forget --session S | --scope P | --matching TEXT [--yes] [--now]
                                        shows the memories of a session, a scope or containing TEXT;
                                        --yes forgets them
  purge                                 erase forgotten memories from every file now (journal, checkpoint,
                                        receipts, Chroma); the bridge also does it a minute or two after a forget
  export FILE.jsonl [--with-vectors]    every memory in the import format
  reembed [--json]                      follow re-embedding with the configured model (progress bar)

embeddings:
  download-model [--model M] [--model-dir D] [--remote-host URL]   the one command that downloads a model;
                                        it checks sizes, hashes and disk space, and resumes an interrupted
                                        download (a mirror: --remote-host URL or HF_ENDPOINT)

bridge:
  serve [--chroma-url URL | --no-chroma] [--idle-exit-ms N] [--owner-pid PID] [--owner-pipe]
                                        run the bridge in the foreground (until PID exits, if given,
                                        or with --owner-pipe until stdin closes: the owner holds it)
  stop                                  stop the bridge for the data directory

  chat [--llm] [--model M] [--base-url U] [--session S]
                                        chat with memory, one message per stdin line (/quit ends);
                                        --llm uses an OpenAI-compatible endpoint (DeepSeek by default,
                                        key in DEEPSEEK_API_KEY), else an offline scripted model
  demo                                  offline walk-through in a temporary data directory

source types: user_message, assistant_message, system_fact, tool_result
data directory: --data-dir, else $DSH_HOME/dsh-dream (DSH_HOME defaults to ~/.dsh)
`;

type MemoryCommand = (api: MemoryApi, args: ReturnType<typeof parseArgs>, io: CliIo) => Promise<number>;

const MEMORY_COMMANDS: Record<string, MemoryCommand> = {
  import: importCommand,
  add: addCommand,
  search: searchCommand,
  "search-vector": searchVectorCommand,
  receipt: receiptCommand,
  status: statusCommand,
  export: exportCommand,
  forget: (api, args, io) => lifecycleCommand(api, "forget", args, io),
  quarantine: (api, args, io) => lifecycleCommand(api, "quarantine", args, io),
  release: (api, args, io) => lifecycleCommand(api, "release", args, io),
  reembed: reembedCommand,
  purge: purgeCommand,
};

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let json = argv.includes("--json");
  try {
    const args = parseArgs(argv, FLAGS);
    json = args.flags.has("json");
    const [command, ...rest] = args.positionals;
    if (command === undefined || command === "help" || args.flags.has("help")) {
      io.out(USAGE);
      return command === undefined && !args.flags.has("help") ? 2 : 0;
    }
    const sub = { ...args, positionals: rest };
    const dataDirFlag = flagString(args, "data-dir");
    const dataDir = resolveDataDir(dataDirFlag, io);
    if (command === "demo") return await demoCommand(io, dataDirFlag === undefined ? undefined : dataDir);
    if (command === "serve") return await serveCommand(dataDir, sub, io);
    if (command === "stop") return await stopCommand(dataDir, io);
    if (command === "chat") return await chatCommand(dataDir, sub, io, { input: process.stdin, interactive: process.stdout.isTTY === true });
    if (command === "download-model") return await downloadModelCommand(dataDir, sub, io);
    const handler = MEMORY_COMMANDS[command];
    if (!handler) throw new DreamError("BAD_ARGUMENTS", `unknown command "${command}"`);
    return await handler(await connectBridge(dataDir, io), sub, io);
  } catch (error) {
    if (!isDreamError(error)) throw error;
    if (json) io.out(JSON.stringify({ error: error.toJSON() }) + "\n");
    io.err(formatError(error));
    return error.code === "BAD_ARGUMENTS" ? 2 : 1;
  }
}

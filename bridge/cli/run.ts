// Command dispatch for `dsh-dream`: parses flags, opens the store for commands that need it,
// and turns DreamErrors into the message + hint a user sees (or a JSON error object).
import { DreamError, isDreamError } from "../protocol/errors";
import { MemoryStore } from "../store/memory-store";
import { flagString, parseArgs } from "./args";
import { addCommand, importCommand, lifecycleCommand, searchCommand, searchVectorCommand, statusCommand } from "./commands";
import { resolveDataDir } from "./data-dir";
import { demoCommand } from "./demo";
import { formatError } from "./format";
import type { CliIo } from "./io";

const FLAGS = {
  values: ["data-dir", "top-k", "scope", "batch", "text", "source-type", "timestamp-ms", "id", "session-id", "turn", "reason", "query-embedding"],
  switches: ["json", "timeline", "help"],
} as const;

export const USAGE = `usage: dsh-dream [--data-dir DIR] <command> [options]

commands:
  import FILE.jsonl                     import one record per line; bad lines are reported and skipped
  add --text T --source-type S [--timestamp-ms N] [--id ID] [--scope S] [--session-id ID] [--turn N]
  search QUERY [--top-k N] [--timeline] [--scope S] [--query-embedding FILE] [--json]
  search --batch QUERIES.jsonl [--top-k N] --json
  search-vector --query-embedding FILE [--top-k N] [--scope S] [--json]   dense-only diagnostics
  status [--json]
  forget ID | quarantine ID --reason R | release ID
  demo                                  offline walk-through in a temporary data directory

source types: user_message, assistant_message, system_fact, tool_result
data directory: --data-dir, else $DSH_HOME/dsh-dream (DSH_HOME defaults to ~/.dsh)
`;

export function runCli(argv: readonly string[], io: CliIo): number {
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
    if (command === "demo") return demoCommand(io, flagString(args, "data-dir") === undefined ? undefined : resolveDataDir(flagString(args, "data-dir"), io));
    const handlers: Record<string, (store: MemoryStore) => number> = {
      import: (store) => importCommand(store, sub, io),
      add: (store) => addCommand(store, sub, io),
      search: (store) => searchCommand(store, sub, io),
      "search-vector": (store) => searchVectorCommand(store, sub, io),
      status: (store) => statusCommand(store, sub, io),
      forget: (store) => lifecycleCommand(store, "forget", sub, io),
      quarantine: (store) => lifecycleCommand(store, "quarantine", sub, io),
      release: (store) => lifecycleCommand(store, "release", sub, io),
    };
    const handler = handlers[command];
    if (!handler) throw new DreamError("BAD_ARGUMENTS", `unknown command "${command}"`);
    const store = MemoryStore.open({ dataDir: resolveDataDir(flagString(args, "data-dir"), io) });
    try {
      return handler(store);
    } finally {
      store.close();
    }
  } catch (error) {
    if (!isDreamError(error)) throw error;
    if (json) io.out(JSON.stringify({ error: error.toJSON() }) + "\n");
    io.err(formatError(error));
    return error.code === "BAD_ARGUMENTS" ? 2 : 1;
  }
}

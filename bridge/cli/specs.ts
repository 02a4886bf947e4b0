// Every command of `dsh-dream`: its options, how many arguments it takes, and its help page (usage,
// options with their defaults, examples). The parser, `--help` and "did you mean" all read this table.
import { DreamError } from "../protocol/errors";
import { SEARCH_LIMITS } from "../store/search-request";
import { nearest, parseArgs, suggestion, type ParsedArgs } from "./args";

interface OptionSpec {
  name: string;
  /** The value's placeholder; absent for a switch. */
  arg?: string;
  about: string;
}

export interface CommandSpec {
  name: string;
  group: "memory" | "manage" | "embeddings" | "bridge" | "other";
  summary: string;
  usage: string[];
  options: OptionSpec[];
  /** Positional arguments allowed: [min, max]; max Infinity joins them (a query of several words). */
  args: [number, number];
  /** Named in messages when the arguments are wrong. */
  argName?: string;
  examples: string[];
  notes?: string[];
}

const GLOBAL: OptionSpec[] = [
  { name: "data-dir", arg: "DIR", about: "the data directory (default $DSH_HOME/dsh-dream; DSH_HOME defaults to ~/.dsh)" },
  { name: "json", about: "machine-readable output: one JSON object (errors too, as {\"error\": …})" },
  { name: "help", about: "this help (also -h)" },
];

const WHEN = "an ISO date or time (2026-03-01, 2026-03-01T09:30), now, today, yesterday, or N minutes/hours/days/weeks ago (3d ago, 2 weeks ago)";

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "add",
    group: "memory",
    summary: "store one memory",
    usage: ["add TEXT…", "add --text-file FILE", "echo TEXT | dsh-dream add"],
    options: [
      { name: "text", arg: "TEXT", about: "the memory's text (or give it as words, a file, or on stdin)" },
      { name: "text-file", arg: "FILE", about: "read the text from FILE (UTF-8 or UTF-16 with a BOM); - reads stdin" },
      { name: "source-type", arg: "TYPE", about: "user_message (default), assistant_message, system_fact or tool_result" },
      { name: "at", arg: "WHEN", about: `when it was said (default now): ${WHEN}` },
      { name: "timestamp-ms", arg: "N", about: "when it was said, in milliseconds since 1970 (instead of --at)" },
      { name: "id", arg: "ID", about: "the memory's id (default: a new mem_… id)" },
      { name: "scope", arg: "SCOPE", about: "global (default) or project:NAME" },
      { name: "session-id", arg: "ID", about: "the conversation it belongs to" },
      { name: "turn", arg: "N", about: "its turn in that conversation" },
      { name: "tags", arg: "A,B", about: "comma-separated tags" },
    ],
    args: [0, Infinity],
    argName: "TEXT",
    examples: [
      'dsh-dream add "My passport is in the desk drawer."',
      'dsh-dream add --at yesterday "我把钥匙放在花盆下面了。"',
      "dsh-dream add --source-type system_fact --scope project:web --text-file notes.txt",
    ],
  },
  {
    name: "import",
    group: "memory",
    summary: "import memories from a JSONL file, one record per line",
    usage: ["import FILE.jsonl"],
    options: [],
    args: [1, 1],
    argName: "FILE.jsonl",
    examples: ["dsh-dream import memories.jsonl"],
    notes: [
      'Each line is {"text", "source_type", "id"?, "timestamp_ms"?, "scope"?, "session_id"?, "turn"?, "tags"?, "metadata"?, "quarantined"?, "embedding"?}.',
      "A bad or oversized line is reported by its number and skipped; the rest is imported, and a summary is always printed.",
      "A line without an id gets one derived from its text, time, source type, scope, session and turn, so importing the same file again adds nothing twice.",
    ],
  },
  {
    name: "search",
    group: "memory",
    summary: "search memories as recall would, with the receipt saying why",
    usage: ["search QUERY…", "search --batch QUERIES.jsonl --json"],
    options: [
      { name: "top-k", arg: "N", about: `how many memories (default ${SEARCH_LIMITS.defaultTopK}, at most ${SEARCH_LIMITS.maxTopK})` },
      { name: "timeline", about: "every value over time instead of only the latest" },
      { name: "scope", arg: "SCOPE", about: "only project:NAME (plus global); default: everything" },
      { name: "full", about: "print each memory's whole text instead of one line" },
      { name: "query-embedding", arg: "FILE", about: "a precomputed query vector (JSON {provider, model, vector})" },
      { name: "batch", arg: "FILE", about: 'one {"query", "top_k"?, "timeline"?, "scope"?} per line; one JSON answer per line (needs --json)' },
    ],
    args: [0, Infinity],
    argName: "QUERY",
    examples: ['dsh-dream search "where is my passport?"', 'dsh-dream search "蓝色马克杯的完整历史" --timeline --top-k 5', "dsh-dream search -- -3 degrees"],
  },
  {
    name: "search-vector",
    group: "memory",
    summary: "dense-only diagnostics with a precomputed query vector",
    usage: ["search-vector --query-embedding FILE"],
    options: [
      { name: "query-embedding", arg: "FILE", about: "the query vector (JSON {provider, model, vector}); required" },
      { name: "top-k", arg: "N", about: `how many (default ${SEARCH_LIMITS.defaultTopK})` },
      { name: "scope", arg: "SCOPE", about: "only project:NAME (plus global)" },
    ],
    args: [0, 0],
    examples: ["dsh-dream search-vector --query-embedding q.json --top-k 10"],
  },
  {
    name: "receipt",
    group: "memory",
    summary: "why the last search (or receipt ID) returned what it did",
    usage: ["receipt [RECEIPT_ID]"],
    options: [{ name: "id", arg: "RECEIPT_ID", about: "the receipt (default: the newest)" }],
    args: [0, 1],
    argName: "RECEIPT_ID",
    examples: ["dsh-dream receipt", "dsh-dream receipt rcpt_0f6c… --json"],
  },
  {
    name: "list",
    group: "manage",
    summary: "list memories, newest first, with filters and pages",
    usage: ["list [options]"],
    options: [
      { name: "scope", arg: "SCOPE", about: "only this scope (global or project:NAME)" },
      { name: "source-type", arg: "TYPE", about: "only user_message, assistant_message, system_fact or tool_result" },
      { name: "tag", arg: "TAG", about: "only memories with this tag" },
      { name: "session", arg: "ID", about: "only this conversation" },
      { name: "contains", arg: "TEXT", about: "only memories whose text contains TEXT (any case)" },
      { name: "since", arg: "WHEN", about: `only from then on: ${WHEN}` },
      { name: "until", arg: "WHEN", about: "only before then" },
      { name: "quarantined", about: "only quarantined memories" },
      { name: "active", about: "only memories recall may use (not quarantined)" },
      { name: "oldest", about: "oldest first" },
      { name: "limit", arg: "N", about: "memories per page (default 20, at most 200)" },
      { name: "page", arg: "N", about: "which page (default 1)" },
    ],
    args: [0, 0],
    examples: ["dsh-dream list", "dsh-dream list --since '7 days ago' --source-type user_message", "dsh-dream list --contains passport --page 2"],
  },
  {
    name: "get",
    group: "manage",
    summary: "one memory in full: text, details, what it states, its slot's history, receipts that used it",
    usage: ["get ID"],
    options: [],
    args: [1, 1],
    argName: "ID",
    examples: ["dsh-dream get mem_3f1c…"],
  },
  {
    name: "history",
    group: "manage",
    summary: "a thing's values over time (where the passport was, each time it moved)",
    usage: ["history SUBJECT…"],
    options: [],
    args: [1, Infinity],
    argName: "SUBJECT",
    examples: ["dsh-dream history passport", "dsh-dream history 钥匙"],
  },
  {
    name: "edit",
    group: "manage",
    summary: "correct a memory: a new statement replaces it; the old one stays in its history",
    usage: ["edit ID --text TEXT", "edit ID --text-file FILE"],
    options: [
      { name: "text", arg: "TEXT", about: "the corrected text" },
      { name: "text-file", arg: "FILE", about: "read the corrected text from FILE; - reads stdin" },
    ],
    args: [1, 1],
    argName: "ID",
    examples: ['dsh-dream edit mem_3f1c… --text "My passport is in the safe."'],
    notes: [
      "The correction keeps the memory's time, session and tags; the old memory is quarantined (recall no longer uses it) with the reason \"edited: replaced by NEW_ID\" and stays in its slot's history; `release` brings it back.",
      "To record that something changed (the passport moved), add a new memory instead: recall then answers with the newest.",
    ],
  },
  {
    name: "forget",
    group: "manage",
    summary: "forget memories: by id, or those a search, a session, a scope or a phrase finds (a preview first)",
    usage: ["forget ID… [--now]", "forget --query QUERY [--top-k N] [--yes] [--now]", "forget --session ID | --scope SCOPE | --matching TEXT [--yes] [--now]"],
    options: [
      { name: "query", arg: "QUERY", about: "the memories this search returns" },
      { name: "top-k", arg: "N", about: "with --query: how many search results (default 5)" },
      { name: "session", arg: "ID", about: "every memory of this conversation" },
      { name: "scope", arg: "SCOPE", about: "every memory of exactly this scope" },
      { name: "matching", arg: "TEXT", about: "every memory whose text contains TEXT (any case)" },
      { name: "yes", about: "forget what the preview shows (without it nothing changes)" },
      { name: "now", about: "erase the text from every file at once (else within a minute or two)" },
    ],
    args: [0, 100],
    argName: "ID",
    examples: ["dsh-dream forget mem_3f1c…", 'dsh-dream forget --query "old wifi password"', 'dsh-dream forget --query "old wifi password" --yes --now'],
  },
  {
    name: "quarantine",
    group: "manage",
    summary: "keep a memory but stop recall from using it",
    usage: ["quarantine ID --reason REASON"],
    options: [{ name: "reason", arg: "REASON", about: "why (shown in receipts and `get`); required" }],
    args: [1, 1],
    argName: "ID",
    examples: ['dsh-dream quarantine mem_3f1c… --reason "out of date"'],
  },
  {
    name: "release",
    group: "manage",
    summary: "let recall use a quarantined memory again",
    usage: ["release ID"],
    options: [],
    args: [1, 1],
    argName: "ID",
    examples: ["dsh-dream release mem_3f1c…"],
  },
  {
    name: "purge",
    group: "manage",
    summary: "erase forgotten memories from every file now (journal, checkpoint, receipts, Chroma)",
    usage: ["purge"],
    options: [],
    args: [0, 0],
    examples: ["dsh-dream purge"],
    notes: ["The bridge also does it by itself a minute or two after a forget."],
  },
  {
    name: "stats",
    group: "manage",
    summary: "how many memories, of which kind, scope and month",
    usage: ["stats"],
    options: [],
    args: [0, 0],
    examples: ["dsh-dream stats"],
  },
  {
    name: "status",
    group: "manage",
    summary: "the bridge: memories, replica, embedding model, sizes, last recall",
    usage: ["status"],
    options: [],
    args: [0, 0],
    examples: ["dsh-dream status", "dsh-dream status --json"],
  },
  {
    name: "export",
    group: "manage",
    summary: "write every memory in the import format",
    usage: ["export FILE.jsonl", "export -"],
    options: [
      { name: "with-vectors", about: "include each memory's current vector" },
      { name: "force", about: "replace FILE if it exists" },
    ],
    args: [1, 1],
    argName: "FILE.jsonl",
    examples: ["dsh-dream export all.jsonl", "dsh-dream export - | gzip > all.jsonl.gz"],
  },
  {
    name: "reembed",
    group: "embeddings",
    summary: "follow re-embedding with the configured model (progress bar)",
    usage: ["reembed"],
    options: [],
    args: [0, 0],
    examples: ["dsh-dream reembed"],
  },
  {
    name: "download-model",
    group: "embeddings",
    summary: "download the local embedding model (the one command that downloads)",
    usage: ["download-model [--model M] [--model-dir D] [--remote-host URL]"],
    options: [
      { name: "model", arg: "M", about: "the model (default: the configured one)" },
      { name: "model-dir", arg: "D", about: "where models are kept (default DATA_DIR/models)" },
      { name: "remote-host", arg: "URL", about: "a Hugging Face mirror (or set HF_ENDPOINT)" },
    ],
    args: [0, 0],
    examples: ["dsh-dream download-model", "dsh-dream download-model --remote-host https://hf-mirror.com"],
    notes: ["It checks sizes, hashes and disk space, and resumes an interrupted download."],
  },
  {
    name: "serve",
    group: "bridge",
    summary: "run the bridge in the foreground",
    usage: ["serve [--chroma-url URL | --no-chroma] [--idle-exit-ms N] [--owner-pid PID] [--owner-pipe]"],
    options: [
      { name: "chroma-url", arg: "URL", about: "use this Chroma server instead of the embedded one" },
      { name: "no-chroma", about: "no Chroma replica: the journal only" },
      { name: "idle-exit-ms", arg: "N", about: "exit after N ms without requests" },
      { name: "owner-pid", arg: "PID", about: "exit when that process exits" },
      { name: "owner-pipe", about: "exit when stdin closes (the owner holds the other end)" },
    ],
    args: [0, 0],
    examples: ["dsh-dream serve", "dsh-dream serve --no-chroma"],
  },
  {
    name: "stop",
    group: "bridge",
    summary: "stop the bridge for the data directory",
    usage: ["stop"],
    options: [],
    args: [0, 0],
    examples: ["dsh-dream stop"],
  },
  {
    name: "chat",
    group: "other",
    summary: "chat with memory, one message per line of stdin (/help lists commands)",
    usage: ["chat [--llm] [--model M] [--base-url U] [--session S]"],
    options: [
      { name: "llm", about: "use an OpenAI-compatible endpoint (DeepSeek by default, key in DEEPSEEK_API_KEY); else an offline scripted model" },
      { name: "model", arg: "M", about: "with --llm: the model (default deepseek-chat)" },
      { name: "base-url", arg: "U", about: "with --llm: the endpoint (default https://api.deepseek.com)" },
      { name: "session", arg: "S", about: "continue this conversation (default: one per day)" },
    ],
    args: [0, 0],
    examples: ["printf '我把护照放在书桌抽屉里了。\\n护照在哪里？\\n' | dsh-dream chat", "DEEPSEEK_API_KEY=sk-… dsh-dream chat --llm"],
  },
  {
    name: "demo",
    group: "other",
    summary: "an offline walk-through in a temporary data directory",
    usage: ["demo"],
    options: [],
    args: [0, 0],
    examples: ["dsh-dream demo"],
  },
  {
    name: "help",
    group: "other",
    summary: "this overview, or one command's help",
    usage: ["help [COMMAND]"],
    options: [],
    args: [0, 1],
    argName: "COMMAND",
    examples: ["dsh-dream help search"],
  },
];

const BY_NAME = new Map(COMMANDS.map((spec) => [spec.name, spec]));

export function commandSpec(name: string): CommandSpec {
  const spec = BY_NAME.get(name);
  if (spec) return spec;
  throw new DreamError("BAD_ARGUMENTS", `unknown command "${name}"${suggestion(name, [...BY_NAME.keys()])}; \`dsh-dream help\` lists them`);
}

export interface Invocation {
  /** Undefined when no command was given. */
  spec: CommandSpec | undefined;
  args: ParsedArgs;
}

/**
 * Finds the command (the first word that is not an option or the value of --data-dir) and parses the
 * rest with that command's options and the global ones; checks how many arguments it was given.
 */
export function parseInvocation(argv: readonly string[]): Invocation {
  let at = -1;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--") break;
    if (argv[i] === "--data-dir") i++;
    else if (!argv[i].startsWith("-")) {
      at = i;
      break;
    }
  }
  const spec = at === -1 ? undefined : commandSpec(argv[at]);
  const rest = at === -1 ? argv : [...argv.slice(0, at), ...argv.slice(at + 1)];
  const options = [...GLOBAL, ...(spec?.options ?? [{ name: "version", about: "" }])];
  const args = parseArgs(
    rest,
    { values: options.filter((o) => o.arg !== undefined).map((o) => o.name), switches: options.filter((o) => o.arg === undefined).map((o) => o.name) },
    spec ? ` for ${spec.name}` : "",
  );
  if (spec && !args.flags.has("help")) {
    const [min, max] = spec.args;
    const count = args.positionals.length;
    if (count < min) throw new DreamError("BAD_ARGUMENTS", `${spec.name} needs ${spec.argName ?? "an argument"}: usage: dsh-dream ${spec.usage[0]}`);
    if (count > max) {
      const extra = args.positionals[max];
      const asCommand = max === 0 && nearest(extra, [...BY_NAME.keys()]) === extra ? ` (one command at a time)` : "";
      throw new DreamError(
        "BAD_ARGUMENTS",
        max === 0
          ? `${spec.name} takes no arguments (got "${extra}")${asCommand}; usage: dsh-dream ${spec.usage[0]}`
          : `${spec.name} takes at most ${max} ${spec.argName ?? "argument"}${max === 1 ? "" : "s"} (got an extra "${extra}"); put text with spaces in quotes`,
      );
    }
  }
  return { spec, args };
}

export function commandHelp(spec: CommandSpec): string {
  const lines = [`usage: ${spec.usage.map((u) => (u.startsWith("echo") || u.startsWith("printf") ? u : `dsh-dream ${u}`)).join("\n       ")}`, "", `${spec.summary}.`];
  if (spec.notes) lines.push("", ...spec.notes);
  const options = [...spec.options, ...GLOBAL];
  lines.push("", "options:");
  const width = Math.max(...options.map((o) => label(o).length));
  for (const option of options) lines.push(`  ${label(option).padEnd(width)}  ${option.about}`);
  lines.push("", "examples:", ...spec.examples.map((e) => `  ${e.startsWith("printf") || e.startsWith("DEEPSEEK") ? e : e}`));
  return lines.join("\n") + "\n";
}

const GROUPS: Array<[CommandSpec["group"], string]> = [
  ["memory", "memories"],
  ["manage", "see and manage them"],
  ["embeddings", "embeddings"],
  ["bridge", "the bridge"],
  ["other", "more"],
];

export function overview(version: string): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = [`dsh-dream ${version}: local-first long-term memory for LLM agents`, "", "usage: dsh-dream [--data-dir DIR] COMMAND [options]    (dsh-dream COMMAND --help for one command)"];
  for (const [group, title] of GROUPS) {
    lines.push("", `${title}:`);
    for (const spec of COMMANDS.filter((c) => c.group === group)) lines.push(`  ${spec.name.padEnd(width)}  ${spec.summary}`);
  }
  lines.push(
    "",
    "Memory commands talk to the bridge for the data directory and start one if none runs.",
    "data directory: --data-dir DIR, else $DSH_HOME/dsh-dream (DSH_HOME defaults to ~/.dsh)",
    "exit codes: 0 done, 1 refused or failed (message and hint on stderr), 2 bad usage",
    "`npx dsh-dream` spends about 3 s finding the package on every call; `node <folder>/dist/cli.cjs` starts at once.",
  );
  return lines.join("\n") + "\n";
}

function label(option: OptionSpec): string {
  return option.name === "help" ? "-h, --help" : `--${option.name}${option.arg ? ` ${option.arg}` : ""}`;
}

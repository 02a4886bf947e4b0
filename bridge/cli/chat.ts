// `dsh-dream chat`: an interactive, persistent chat through the MemoryAgent. Lines come from stdin
// (a terminal or a pipe) until `/quit` or EOF; each reply is followed by one dim recall line, and a
// slash command (/help, /why, /forget, /quit) is answered here and never stored. `--llm` talks to an
// OpenAI-compatible endpoint; without it the model is scripted.
import type { Readable } from "node:stream";
import readline from "node:readline";
import { ChatModelError, DEEPSEEK_DEFAULTS, type ChatModel } from "../agent/chat-model";
import { MemoryAgent, type MemoryApi, type Responder, type TurnOutcome } from "../agent/memory-agent";
import { OpenAiChatClient } from "../agent/openai-chat-client";
import { scriptedReply } from "../agent/scripted-model";
import { readSessionHistory } from "../agent/session-history";
import { DreamError } from "../protocol/errors";
import type { FallbackReason, ReceiptResponse } from "../store/receipts";
import { flagString, type ParsedArgs } from "./args";
import { connectBridge } from "./connect";
import { formatError } from "./format";
import type { CliIo } from "./io";
import { formatReceipt } from "./views";

const RECENT_TURNS = 3;
const SESSION_PATTERN = /^[\p{L}\p{N}_.-]{1,100}$/u;

export interface ChatStreams {
  input: Readable;
  /** Whether stdout is a terminal: then prompts are shown and the status line is dimmed. */
  interactive: boolean;
}

export async function chatCommand(dataDir: string, args: ParsedArgs, io: CliIo, streams: ChatStreams): Promise<number> {
  if (args.positionals.length > 0) throw new DreamError("BAD_ARGUMENTS", `chat takes no arguments (got "${args.positionals[0]}"); type messages on stdin`);
  const llm = args.flags.has("llm");
  // Everything the user can get wrong is checked before a bridge starts or anything is written.
  const model = llm ? chatModelFrom(args, io) : undefined;
  if (!llm && (flagString(args, "model") !== undefined || flagString(args, "base-url") !== undefined)) {
    throw new DreamError("BAD_ARGUMENTS", "--model and --base-url apply only with --llm");
  }
  const sessionId = flagString(args, "session") ?? `chat-${new Date().toISOString().slice(0, 10)}`;
  if (!SESSION_PATTERN.test(sessionId)) throw new DreamError("BAD_ARGUMENTS", "--session must be 1-100 letters, digits, '_', '.' or '-'");

  // The bridge has no use for the chat key, so it never enters the bridge's environment.
  const { [DEEPSEEK_DEFAULTS.keyVariable]: _key, ...bridgeEnv } = io.env;
  const memory = await connectBridge(dataDir, { ...io, env: bridgeEnv });
  const history = await readSessionHistory(memory, sessionId, RECENT_TURNS);
  const agent = new MemoryAgent({
    memory,
    responder: model ? modelResponder(model) : scriptedResponder,
    rewriter: model,
    sessionId,
    nextTurn: history.nextTurn,
    recent: history.recent,
    nowMs: Date.now,
    recentTurns: RECENT_TURNS,
    onPlan: (plan) => {
      if (plan.fallback) io.err(`note: ${plan.fallback}; searched with the message and the heuristic intent\n`);
    },
  });
  const via = model ? `${model.model} at ${model.host}` : "offline scripted model";
  io.err(`chat session ${sessionId}, turn ${agent.nextTurn} (${via}); /help lists commands, /quit or end of input ends the chat\n`);
  return await converse(new ChatSession(agent, memory, io, streams.interactive), streams);
}

async function converse(session: ChatSession, streams: ChatStreams): Promise<number> {
  const lines = readline.createInterface({ input: streams.input, terminal: false, crlfDelay: Infinity });
  const prompt = (): void => (streams.interactive ? session.io.out("you> ") : undefined);
  try {
    prompt();
    for await (const raw of lines) {
      const message = raw.trim();
      const command = COMMAND.exec(message);
      if (command) {
        const next = await session.command(command[1]!.toLowerCase(), command[2]?.trim() ?? "");
        if (next === "quit") break;
      } else if (message !== "") {
        if (!(await session.turn(message))) return 1;
      }
      prompt();
    }
  } finally {
    lines.close();
  }
  return 0;
}

/**
 * A line is a command when it is "/" and a word of ASCII letters, then a space or the end of the line:
 * "/help", "/forget chat:s:1:user", "/xyz" (unknown, refused). A lone "/" ("/ not a command") or a path
 * ("/usr/bin is where…": the word runs into another "/") is a message and is stored like any other.
 */
const COMMAND = /^\/([A-Za-z]+)(?:\s+(.*))?$/s;

const HELP = [
  "/help        list these commands",
  "/why         how the last reply's memories were recalled: rank, retrievers, what was withheld and why",
  "/forget ID   forget one memory (/why shows the ids)",
  "/quit, /exit end the chat (so does the end of input)",
  "Anything else is a message, and is stored with the reply.",
];

/** What one chat run keeps between lines: the last turn (for /why) and which recall mode it has explained. */
class ChatSession {
  readonly io: CliIo;
  readonly #agent: MemoryAgent;
  readonly #memory: MemoryApi;
  readonly #color: boolean;
  #last: TurnOutcome | undefined;
  /** The fallback last explained in full; dense + FTS (null) needs no explaining until it changes. */
  #explained: FallbackReason | null = null;

  constructor(agent: MemoryAgent, memory: MemoryApi, io: CliIo, color: boolean) {
    this.#agent = agent;
    this.#memory = memory;
    this.io = io;
    this.#color = color;
  }

  /** One turn; false when a chat model could not answer (the chat ends with its message and hint, and that turn is not stored). */
  async turn(message: string): Promise<boolean> {
    let outcome: TurnOutcome;
    try {
      outcome = await this.#agent.turn(message);
    } catch (error) {
      if (!(error instanceof ChatModelError)) throw error;
      this.io.err(`error [${error.code}]: ${error.message}\nhint: ${error.hint}\n`);
      return false;
    }
    this.#last = outcome;
    const status = [recallLine(outcome)];
    // The long reason is said once, and again only when it changes (the model got downloaded, or failed).
    if (outcome.fallback !== this.#explained) status.push(`· ${outcome.recall}`);
    this.#explained = outcome.fallback;
    this.io.out(`${outcome.reply}\n${status.map((line) => dim(line, this.#color)).join("\n")}\n`);
    return true;
  }

  async command(name: string, argument: string): Promise<"quit" | "continue"> {
    if (name === "quit" || name === "exit") return "quit";
    try {
      if (name === "help") this.io.out(HELP.join("\n") + "\n");
      else if (name === "why") await this.#why();
      else if (name === "forget") await this.#forget(argument);
      else this.io.err(`unknown command /${name}; /help lists them\n`);
    } catch (error) {
      // A refused command (an unknown id, a purged receipt) is reported; the chat goes on.
      if (!(error instanceof DreamError)) throw error;
      this.io.err(formatError(error));
    }
    return "continue";
  }

  async #why(): Promise<void> {
    if (this.#last === undefined) {
      this.io.out("no reply yet in this chat; /why explains the recall behind the last one\n");
      return;
    }
    const { receipt } = await this.#memory.call<ReceiptResponse>("receipt", { receipt_id: this.#last.audit.receiptId });
    this.io.out(formatReceipt(receipt, new Map(this.#last.memories.map((m) => [m.id, m.text]))));
  }

  async #forget(id: string): Promise<void> {
    if (id === "" || /\s/.test(id)) {
      this.io.err("/forget takes one memory id, e.g. /forget chat:s:1:user (/why shows the ids)\n");
      return;
    }
    await this.#memory.call("forget", { id });
    this.io.out(`forgot ${id}\n`);
  }
}

function recallLine(outcome: TurnOutcome): string {
  const n = outcome.memories.length;
  const mode = outcome.plan.intent === "timeline" ? ", timeline" : "";
  return `· recall: ${n} ${n === 1 ? "memory" : "memories"}${mode} · ${outcome.fallback ? "FTS only" : "dense + FTS"} · /why for details`;
}

function dim(text: string, color: boolean): string {
  return color ? `\x1b[2m${text}\x1b[22m` : text;
}

function chatModelFrom(args: ParsedArgs, io: CliIo): OpenAiChatClient {
  const name = DEEPSEEK_DEFAULTS.keyVariable;
  const apiKey = io.env[name];
  if (apiKey === undefined || apiKey.trim() === "") {
    throw new DreamError(
      "BAD_ARGUMENTS",
      `--llm needs an API key in the environment variable ${name}; set it (export ${name}=...) and run again, or leave out --llm to chat with the offline scripted model`,
    );
  }
  try {
    return new OpenAiChatClient({
      baseUrl: flagString(args, "base-url") ?? DEEPSEEK_DEFAULTS.baseUrl,
      model: flagString(args, "model") ?? DEEPSEEK_DEFAULTS.model,
      apiKey: apiKey.trim(),
      keyName: name,
    });
  } catch (error) {
    if (error instanceof ChatModelError) throw new DreamError("BAD_ARGUMENTS", error.message);
    throw error;
  }
}

function modelResponder(model: ChatModel): Responder {
  return { reply: ({ messages }) => model.complete(messages) };
}

const scriptedResponder: Responder = {
  reply: async (input) => scriptedReply(input),
};

// `dsh-dream chat`: an interactive, persistent chat through the MemoryAgent. Lines come from stdin
// (a terminal or a pipe) until `/quit` or EOF; each reply is followed by one dim line of recall,
// intent and receipt. `--llm` talks to an OpenAI-compatible endpoint; without it the model is scripted.
import type { Readable } from "node:stream";
import readline from "node:readline";
import { ChatModelError, DEEPSEEK_DEFAULTS, type ChatModel } from "../agent/chat-model";
import { MemoryAgent, type Responder, type TurnOutcome } from "../agent/memory-agent";
import { OpenAiChatClient } from "../agent/openai-chat-client";
import { scriptedReply } from "../agent/scripted-model";
import { readSessionHistory } from "../agent/session-history";
import { DreamError } from "../protocol/errors";
import { flagString, type ParsedArgs } from "./args";
import { connectBridge } from "./connect";
import type { CliIo } from "./io";

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
  io.err(`chat session ${sessionId}, turn ${agent.nextTurn} (${via}); /quit or end of input to stop\n`);
  return await converse(agent, io, streams);
}

async function converse(agent: MemoryAgent, io: CliIo, streams: ChatStreams): Promise<number> {
  const lines = readline.createInterface({ input: streams.input, terminal: false, crlfDelay: Infinity });
  const prompt = (): void => (streams.interactive ? io.out("you> ") : undefined);
  try {
    prompt();
    for await (const raw of lines) {
      const message = raw.trim();
      if (message === "/quit") break;
      if (message !== "") {
        const outcome = await runTurn(agent, message, io);
        if (outcome === undefined) return 1;
        io.out(`${outcome.reply}\n${dim(statusLine(outcome), streams.interactive)}\n`);
      }
      prompt();
    }
  } finally {
    lines.close();
  }
  return 0;
}

/** One turn; a chat model that cannot answer ends the chat with its message and hint (that turn is not stored). */
async function runTurn(agent: MemoryAgent, message: string, io: CliIo): Promise<TurnOutcome | undefined> {
  try {
    return await agent.turn(message);
  } catch (error) {
    if (!(error instanceof ChatModelError)) throw error;
    io.err(`error [${error.code}]: ${error.message}\nhint: ${error.hint}\n`);
    return undefined;
  }
}

function statusLine(outcome: TurnOutcome): string {
  return `${outcome.recall} · intent ${outcome.plan.intent} (${outcome.plan.source}) · turn ${outcome.turn} · receipt ${outcome.audit.receiptId}`;
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
  reply: async ({ message, memories, intent }) => scriptedReply(message, memories, intent),
};

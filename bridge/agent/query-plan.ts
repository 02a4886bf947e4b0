// Which search a user message becomes: with a chat model, a standalone query and intent rewritten by
// it (a strict, validated JSON answer); without one, or when the answer is unusable, the message
// itself and the zh/en heuristic — and the plan says which, and why.
import { detectIntent, type RecallIntent } from "../../plugin/recall/intent";
import { ChatModelError, type ChatMessage, type ChatModel } from "./chat-model";

export interface QueryPlan {
  query: string;
  intent: RecallIntent;
  source: "llm" | "heuristic";
  /** Why the heuristic was used although a model was given; absent otherwise. */
  fallback?: string;
}

const QUERY_MAX_CHARS = 1000;

export const REWRITE_PROMPT =
  "You turn the user's latest chat message into a search over their long-term memory. " +
  'Answer with one JSON object and nothing else: {"query": "...", "intent": "latest" | "timeline"}. ' +
  '"query" is a short standalone search query in the language of the message, with pronouns and ' +
  'references resolved from the earlier turns. "intent" is "timeline" when the user asks how ' +
  "something went over time (history, order of events, every time, what happened), and " +
  '"latest" when they want the current state.';

export function heuristicPlan(message: string): QueryPlan {
  return { query: message, intent: detectIntent(message), source: "heuristic" };
}

export async function planQuery(message: string, recent: readonly ChatMessage[], model: ChatModel | undefined): Promise<QueryPlan> {
  if (model === undefined) return heuristicPlan(message);
  const earlier = recent.map((m) => `${m.role}: ${m.content}`).join("\n");
  const messages: ChatMessage[] = [
    { role: "system", content: REWRITE_PROMPT },
    { role: "user", content: (earlier ? `Earlier turns:\n${earlier}\n\n` : "") + `Latest message:\n${message}` },
  ];
  let answer: string;
  try {
    answer = await model.complete(messages, { json: true });
  } catch (error) {
    if (!(error instanceof ChatModelError)) throw error;
    return { ...heuristicPlan(message), fallback: `query rewrite failed: ${error.message}` };
  }
  const parsed = parseRewrite(answer);
  return typeof parsed === "string" ? { ...heuristicPlan(message), fallback: `query rewrite unusable: ${parsed}` } : { ...parsed, source: "llm" };
}

/** The validated rewrite, or why it was refused. Strict: exactly the two fields, nothing around them. */
export function parseRewrite(answer: string): { query: string; intent: RecallIntent } | string {
  let value: unknown;
  try {
    value = JSON.parse(answer);
  } catch {
    return "not a JSON object";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const { query, intent, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) return `unexpected field "${extra[0]}"`;
  if (typeof query !== "string" || query.trim() === "") return "query must be a non-empty string";
  if (query.length > QUERY_MAX_CHARS) return `query is longer than ${QUERY_MAX_CHARS} characters`;
  if (intent !== "latest" && intent !== "timeline") return 'intent must be "latest" or "timeline"';
  return { query: query.trim(), intent };
}

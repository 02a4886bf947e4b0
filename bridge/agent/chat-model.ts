// What the MemoryAgent needs from a chat model: one completion for a list of messages, optionally
// constrained to a JSON object, and a typed error that is safe to show (it never holds the key).
import type { ErrorCode } from "../protocol/errors";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface CompleteOptions {
  /** Ask for a JSON object answer (OpenAI/DeepSeek `response_format: {type: "json_object"}`). */
  json?: boolean;
}

export interface ChatModel {
  readonly model: string;
  complete(messages: readonly ChatMessage[], options?: CompleteOptions): Promise<string>;
}

/**
 * The chat model could not answer: bad key, unknown model, rate limits or outages past the retries,
 * timeouts. Its code is in the one error table (LLM_UNAVAILABLE); the hint here is specific to the cause.
 */
export class ChatModelError extends Error {
  readonly code: ErrorCode = "LLM_UNAVAILABLE";
  readonly hint: string;

  constructor(message: string, hint: string) {
    super(message);
    this.name = "ChatModelError";
    this.hint = hint;
  }
}

export const DEEPSEEK_DEFAULTS = {
  baseUrl: "https://api.deepseek.com",
  model: "deepseek-chat",
  keyVariable: "DEEPSEEK_API_KEY",
} as const;

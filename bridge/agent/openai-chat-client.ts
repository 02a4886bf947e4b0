// An OpenAI-compatible chat client (POST {baseUrl}/chat/completions; DeepSeek by default) with
// bounded retries on 429/5xx/unreachable, a per-request timeout, and errors that never hold the key.
import { ChatModelError, type ChatMessage, type ChatModel, type CompleteOptions } from "./chat-model";
import { backoffMs, retryAfterMs, serverMessage } from "../client/remote-api";

export interface OpenAiChatOptions {
  /** e.g. https://api.deepseek.com or http://127.0.0.1:8080/v1; no credentials, no query. */
  baseUrl: string;
  model: string;
  apiKey: string;
  /** Named in error hints ("check DEEPSEEK_API_KEY"); the value itself never is. */
  keyName: string;
  timeoutMs?: number;
  maxRetries?: number;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

type Attempt = { ok: true; content: string } | { ok: false; retry: boolean; message: string; hint: string; retryAfterMs?: number };

export class OpenAiChatClient implements ChatModel {
  readonly model: string;
  readonly host: string;
  readonly #endpoint: string;
  // Private, so neither JSON.stringify nor util.inspect of the client can show the key.
  readonly #apiKey: string;
  readonly #keyName: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;

  constructor(options: OpenAiChatOptions) {
    const url = parseBaseUrl(options.baseUrl);
    this.#endpoint = url.origin + url.pathname.replace(/\/+$/, "") + "/chat/completions";
    this.host = url.host;
    this.model = options.model;
    // fetch quotes an invalid header value in its error, so a malformed key must stop here, unquoted.
    if (!/^[\x21-\x7e]+$/.test(options.apiKey)) throw new ChatModelError(`${options.keyName} must be one line of visible ASCII characters`, `Set ${options.keyName} to the key exactly as issued.`);
    this.#apiKey = options.apiKey;
    this.#keyName = options.keyName;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#maxRetries = options.maxRetries ?? 3;
  }

  async complete(messages: readonly ChatMessage[], options: CompleteOptions = {}): Promise<string> {
    const body = JSON.stringify({
      model: this.model,
      messages,
      stream: false,
      ...(options.json ? { response_format: { type: "json_object" } } : {}),
    });
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#post(body);
      if (outcome.ok) return outcome.content;
      if (!outcome.retry || attempt > this.#maxRetries) {
        throw new ChatModelError(outcome.message + (attempt > 1 ? ` after ${attempt} attempts` : ""), outcome.hint);
      }
      await new Promise((resolve) => setTimeout(resolve, outcome.retryAfterMs ?? backoffMs(attempt, BACKOFF_BASE_MS, BACKOFF_MAX_MS)));
    }
  }

  async #post(body: string): Promise<Attempt> {
    const headers = { "Content-Type": "application/json", Authorization: `Bearer ${this.#apiKey}` };
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.#endpoint, { method: "POST", headers, body, signal });
      text = await response.text();
    } catch (error) {
      if (signal.aborted) return { ok: false, retry: false, message: `no answer within ${this.#timeoutMs} ms from ${this.host}`, hint: "Try again later, or check the network and --base-url." };
      // Only the error code travels on: fetch's messages and causes are not ours to vouch for.
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      return { ok: false, retry: true, message: `could not reach ${this.host}${typeof code === "string" ? ` (${code})` : ""}`, hint: "Check the network and --base-url." };
    }
    return this.#judge(response, text);
  }

  #judge(response: Response, text: string): Attempt {
    const status = response.status;
    if (response.ok) return readContent(text, this.host);
    // The server's own words are left out here: OpenAI-style 401 bodies quote part of the key.
    if (status === 401 || status === 403) {
      return { ok: false, retry: false, message: `authentication failed (HTTP ${status}) at ${this.host}`, hint: `Check ${this.#keyName}: it must be a valid key for ${this.host}.` };
    }
    if (status === 404) {
      return { ok: false, retry: false, message: `model or endpoint not found (HTTP 404) at ${this.host} (model "${this.model}")`, hint: "Check --model and --base-url." };
    }
    const detail = serverMessage(text, this.#apiKey);
    const suffix = detail ? `: ${detail}` : "";
    if (status === 429) return { ok: false, retry: true, message: `rate limited (HTTP 429) by ${this.host}${suffix}`, hint: "Wait a moment and try again, or check the account's rate limits and balance.", retryAfterMs: retryAfterMs(response) };
    if (status >= 500) return { ok: false, retry: true, message: `${this.host} failed (HTTP ${status})${suffix}`, hint: "The provider is having trouble; try again later.", retryAfterMs: retryAfterMs(response) };
    return { ok: false, retry: false, message: `${this.host} rejected the request (HTTP ${status})${suffix}`, hint: "Check --model and --base-url." };
  }
}

function readContent(text: string, host: string): Attempt {
  const bad = (why: string): Attempt => ({ ok: false, retry: false, message: `the answer from ${host} ${why}`, hint: "Check that --base-url points at an OpenAI-compatible chat endpoint." });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return bad("was not valid JSON");
  }
  const choices = isObject(body) && Array.isArray(body.choices) ? body.choices : [];
  const message = isObject(choices[0]) ? choices[0].message : undefined;
  const content = isObject(message) ? message.content : undefined;
  return typeof content === "string" ? { ok: true, content } : bad("has no choices[0].message.content string");
}

function parseBaseUrl(value: string): URL {
  // The value itself is never echoed: a pasted URL may carry a key.
  const fail = (why: string): never => {
    throw new ChatModelError(`--base-url ${why}`, "Pass an http(s) URL such as https://api.deepseek.com.");
  };
  if (!URL.canParse(value)) fail("is not a URL");
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") fail("must use http or https");
  if (url.username !== "" || url.password !== "") fail("must not contain credentials; the key comes from the environment");
  if (url.search !== "" || url.hash !== "") fail("must not have a query string or fragment");
  return url;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

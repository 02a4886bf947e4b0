// The `openai_compatible` embedding provider: POST {baseUrl}/embeddings in batches, with bounded
// retries, per-request timeouts, and errors that may name the host but never hold the API key.
import { createHash } from "node:crypto";
import { DreamError } from "../protocol/errors";
import { EmbeddingUnavailable, type EmbeddingBinding, type EmbeddingProvider } from "./provider";
import { backoffMs, retryAfterMs, serverMessage } from "../client/remote-api";

export interface OpenAiCompatibleOptions {
  /** e.g. https://api.openai.com/v1: http(s), no credentials, no query; a trailing slash is ignored. */
  baseUrl: string;
  model: string;
  /** The resolved secret. Empty means none (local servers such as Ollama need no key). */
  apiKey?: string;
  timeoutMs?: number;
  maxRetries?: number;
  batchSize?: number;
  /** Sent as the request's `dimensions` field only when set; answers must then have this length. */
  dimensions?: number;
}

const PROBE_TEXT = "dimension probe";
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 8_000;

/** A failed attempt keeps the server's own words (`detail`) apart, so they come last in the message. */
type Attempt = { ok: true; body: unknown } | { ok: false; retry: boolean; message: string; detail?: string; retryAfterMs?: number };

export class OpenAiCompatibleProvider implements EmbeddingProvider {
  readonly kind = "openai_compatible" as const;
  readonly model: string;
  /** host[:port] only: the part of the endpoint that errors may name. */
  readonly host: string;
  readonly #baseUrl: string;
  // A private field, so neither JSON.stringify nor util.inspect of the provider can show the key.
  readonly #apiKey: string | undefined;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #batchSize: number;
  readonly #dimensions: number | undefined;
  readonly #closed = new AbortController();
  #dim: number | undefined;

  constructor(options: OpenAiCompatibleOptions) {
    const url = parseBaseUrl(options.baseUrl);
    this.#baseUrl = url.origin + url.pathname.replace(/\/+$/, "");
    this.host = url.host;
    if (typeof options.model !== "string" || options.model.trim() === "") throw invalid("model", "must be a non-empty string");
    this.model = options.model;
    this.#apiKey = parseApiKey(options.apiKey);
    this.#timeoutMs = positiveInt(options.timeoutMs, "timeoutMs", 30_000);
    this.#maxRetries = positiveInt(options.maxRetries, "maxRetries", 3, 0);
    this.#batchSize = positiveInt(options.batchSize, "batchSize", 64);
    this.#dimensions = options.dimensions === undefined ? undefined : positiveInt(options.dimensions, "dimensions", 1);
  }

  async open(): Promise<EmbeddingBinding> {
    if (this.#dim === undefined) {
      const [probe] = await this.#embedBatch([PROBE_TEXT], this.#dimensions, this.#timeoutMs);
      this.#dim = probe.length;
    }
    // Keys in sorted order, so this literal is the canonical JSON; no key, so rotating it keeps vectors.
    const config = JSON.stringify({ baseUrl: this.#baseUrl, dimensions: this.#dimensions ?? null, model: this.model });
    const configHash = "sha256:" + createHash("sha256").update(config, "utf8").digest("hex");
    return { provider: this.kind, model: this.model, dim: this.#dim, modelDigest: null, configHash };
  }

  async embed(texts: string[], options: { timeoutMs?: number } = {}): Promise<Float32Array[]> {
    const timeoutMs = positiveInt(options.timeoutMs, "timeoutMs", this.#timeoutMs);
    if (!texts.every((text) => typeof text === "string")) throw invalid("texts", "must all be strings");
    let dim = this.#dim ?? this.#dimensions;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      const batch = await this.#embedBatch(texts.slice(start, start + this.#batchSize), dim, timeoutMs);
      dim = batch[0].length;
      vectors.push(...batch);
    }
    return vectors;
  }

  async close(): Promise<void> {
    this.#closed.abort();
  }

  async #embedBatch(input: string[], expectedDim: number | undefined, timeoutMs: number): Promise<Float32Array[]> {
    const body = JSON.stringify({ model: this.model, input, ...(this.#dimensions === undefined ? {} : { dimensions: this.#dimensions }) });
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#post(body, timeoutMs);
      if (outcome.ok) return readVectors(outcome.body, input.length, expectedDim);
      if (!outcome.retry || attempt > this.#maxRetries || this.#closed.signal.aborted) {
        const detail = outcome.detail ? `: ${outcome.detail}` : "";
        throw unavailable(outcome.message + (attempt > 1 ? ` after ${attempt} attempts` : "") + detail);
      }
      await sleep(outcome.retryAfterMs ?? backoffMs(attempt, BACKOFF_BASE_MS, BACKOFF_MAX_MS), this.#closed.signal);
    }
  }

  async #post(body: string, timeoutMs: number): Promise<Attempt> {
    if (this.#closed.signal.aborted) return { ok: false, retry: false, message: "the embedding provider was closed" };
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (this.#apiKey !== undefined) headers.Authorization = `Bearer ${this.#apiKey}`;
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#closed.signal]);
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.#baseUrl}/embeddings`, { method: "POST", headers, body, signal });
      text = await response.text();
    } catch (error) {
      if (this.#closed.signal.aborted) return { ok: false, retry: false, message: "the embedding provider was closed" };
      if (signal.aborted) return { ok: false, retry: false, message: `no answer within ${timeoutMs} ms from ${this.host}` };
      // Only the error code travels on: fetch's messages and causes are not ours to vouch for.
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      return { ok: false, retry: true, message: `could not reach ${this.host}${typeof code === "string" ? ` (${code})` : ""}` };
    }
    return this.#judge(response, text);
  }

  #judge(response: Response, text: string): Attempt {
    const status = response.status;
    if (response.ok) {
      try {
        return { ok: true, body: JSON.parse(text) };
      } catch {
        return { ok: false, retry: false, message: `the answer from ${this.host} was not valid JSON (HTTP ${status})` };
      }
    }
    // The server's own words are left out here: OpenAI's 401 body quotes part of the key.
    if (status === 401 || status === 403) return { ok: false, retry: false, message: `authentication failed (HTTP ${status}) — check the embedding API key` };
    if (status === 404) return { ok: false, retry: false, message: `model or endpoint not found (HTTP 404) at ${this.host} (model "${this.model}")` };
    const detail = serverMessage(text, this.#apiKey);
    if (status === 429) return { ok: false, retry: true, message: `rate limited (HTTP 429) by ${this.host}`, detail, retryAfterMs: retryAfterMs(response) };
    if (status >= 500) return { ok: false, retry: true, message: `${this.host} failed (HTTP ${status})`, detail, retryAfterMs: retryAfterMs(response) };
    return { ok: false, retry: false, message: `${this.host} rejected the request (HTTP ${status})`, detail };
  }
}

function readVectors(body: unknown, count: number, expectedDim: number | undefined): Float32Array[] {
  const data = isObject(body) && Array.isArray(body.data) ? body.data : undefined;
  if (data === undefined) throw unavailable("the answer has no data array");
  if (data.length !== count) throw unavailable(`the provider returned ${data.length} embeddings for ${count} inputs`);
  const vectors: Float32Array[] = new Array(count);
  let firstDim: number | undefined;
  data.forEach((item: unknown, position: number) => {
    // Servers that omit `index` answer in input order; OpenAI documents it as the input position.
    const index = isObject(item) && item.index !== undefined ? item.index : position;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) {
      throw unavailable(`the answer has a missing, repeated or out-of-range index (${JSON.stringify(index)})`);
    }
    const embedding = isObject(item) ? item.embedding : undefined;
    if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === "number" && Number.isFinite(x))) {
      throw unavailable(`the embedding for input ${index} is not an array of finite numbers`);
    }
    if (expectedDim !== undefined && embedding.length !== expectedDim) {
      throw unavailable(`the provider returned ${embedding.length}-dimensional vectors, expected ${expectedDim}`);
    }
    firstDim ??= embedding.length;
    if (embedding.length !== firstDim) throw unavailable(`the provider returned vectors of different lengths in one answer (${firstDim} and ${embedding.length})`);
    vectors[index] = normalise(embedding as number[], index);
  });
  return vectors;
}

/** Cosine is what Chroma and the dense index compute; unit length makes it a plain dot product. */
function normalise(values: number[], index: number): Float32Array {
  let sum = 0;
  for (const value of values) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm === 0 || !Number.isFinite(norm)) throw unavailable(`the provider returned a zero vector for input ${index}`);
  return Float32Array.from(values, (value) => value / norm);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function parseBaseUrl(value: unknown): URL {
  const example = "such as https://api.openai.com/v1";
  // The value itself is never echoed: a pasted URL may carry a key.
  if (typeof value !== "string" || !URL.canParse(value)) throw invalid("baseUrl", `must be an http(s) URL ${example}`);
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("baseUrl", `must use http or https (got "${url.protocol}"), ${example}`);
  if (url.username !== "" || url.password !== "") throw invalid("baseUrl", "must not contain credentials; pass the key as apiKey");
  if (url.search !== "" || url.hash !== "") throw invalid("baseUrl", "must not have a query string or fragment");
  return url;
}

function parseApiKey(value: unknown): string | undefined {
  if (value === undefined || value === "") return undefined;
  // fetch quotes an invalid header value in its error, so a malformed key must stop here, unquoted.
  if (typeof value !== "string" || !/^[\x21-\x7e]+$/.test(value)) throw invalid("apiKey", "must be one line of visible ASCII characters");
  return value;
}

function positiveInt(value: unknown, field: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) throw invalid(field, `must be an integer >= ${min} (got ${String(value)})`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(field: string, message: string): DreamError {
  return new DreamError("INVALID_FIELD", `openai_compatible ${field} ${message}`, { field });
}

function unavailable(message: string): EmbeddingUnavailable {
  return new EmbeddingUnavailable("provider_error", message);
}

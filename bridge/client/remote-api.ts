// What our two clients of remote OpenAI-compatible APIs (embeddings, chat) share: the server's
// error text made safe to show, Retry-After, and jittered backoff. Secrets never pass through here
// except to be cut out of what a server echoed back.

const SERVER_MESSAGE_CHARS = 200;
const RETRY_AFTER_MAX_MS = 30_000;

/** The server's error text, flattened and short, with any word sharing four characters with the key removed. */
export function serverMessage(text: string, secret: string | undefined): string {
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Plain-text error bodies are used as they are.
  }
  const error = isObject(parsed) ? (isObject(parsed.error) ? parsed.error.message : (parsed.error ?? parsed.message)) : parsed;
  const message = typeof error === "string" ? error : "";
  const words = message.split(/[\s\u0000-\u001f\u007f]+/).filter((word) => word !== "");
  const clean = words.map((word) => (secret !== undefined && sharesFragment(word, secret) ? "[redacted]" : word)).join(" ");
  // A key spelled out with spaces or dashes, or encoded, shares no four-character run with any one word.
  if (secret !== undefined && quotesSecret(clean, secret)) return "(the server's message is not shown: it quoted the API key)";
  return clean.length > SERVER_MESSAGE_CHARS ? clean.slice(0, SERVER_MESSAGE_CHARS) + "…" : clean;
}

const FRAGMENT_CHARS = 8;

/** Whether `text` holds eight characters of the key in a row once spacing and punctuation are gone, plainly or base64/hex encoded. */
export function quotesSecret(text: string, secret: string): boolean {
  const key = squash(secret);
  if (key.length === 0) return false;
  const size = Math.min(FRAGMENT_CHARS, key.length);
  const holds = (candidate: string) => {
    const hay = squash(candidate);
    for (let i = 0; i + size <= key.length; i++) if (hay.includes(key.slice(i, i + size))) return true;
    return false;
  };
  if (holds(text)) return true;
  for (const token of text.match(/[A-Za-z0-9+/_-]{12,}={0,2}/g) ?? []) {
    if (holds(Buffer.from(token, "base64").toString("latin1")) || holds(Buffer.from(token, "base64url").toString("latin1"))) return true;
  }
  for (const token of text.match(/(?:[0-9a-fA-F]{2}){8,}/g) ?? []) if (holds(Buffer.from(token, "hex").toString("latin1"))) return true;
  return false;
}

function squash(text: string): string {
  return text.replace(/[^A-Za-z0-9]/g, "").toLowerCase();
}

function sharesFragment(word: string, secret: string): boolean {
  const size = Math.min(4, secret.length);
  for (let i = 0; i + size <= secret.length; i++) if (word.includes(secret.slice(i, i + size))) return true;
  return false;
}

/** A numeric Retry-After header in ms, capped; undefined when absent or a date. */
export function retryAfterMs(response: Response): number | undefined {
  const header = response.headers.get("retry-after")?.trim();
  if (header === undefined || !/^\d+(\.\d+)?$/.test(header)) return undefined;
  return Math.min(Number(header) * 1000, RETRY_AFTER_MAX_MS);
}

/** Exponential with equal jitter, so clients rate-limited together do not retry in step. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Keeps secrets out of every route answer: any string under a key that names a secret is
// replaced before the body is serialised, however deep it sits.

export const REDACTED = "[redacted]";

// Anchored at the end so names *about* a secret survive: `apiKeyEnv` names an environment variable,
// `maxTokens` is a budget. Matching is on the key alone because a leaked key has no telltale shape.
const SECRET_KEY = /(api[_-]?key|token|secret|password|authorization)$/i;

/**
 * Returns a copy of `value` as JSON would see it, with every non-empty string stored under a
 * secret-named key replaced by "[redacted]". Objects with `toJSON` (Date, DreamError) are read
 * through it first, so nothing JSON.stringify would emit escapes the check.
 */
export function redactSecrets(value: unknown): unknown {
  const json = value !== null && typeof value === "object" ? (value as { toJSON?: unknown }).toJSON : undefined;
  // Called once and its result walked as is, as JSON.stringify does (a toJSON returning `this` must not loop).
  const seen = typeof json === "function" ? (json as () => unknown).call(value) : value;
  if (seen === null || typeof seen !== "object") return seen;
  if (Array.isArray(seen)) return seen.map(redactSecrets);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(seen)) {
    out[key] = SECRET_KEY.test(key) && typeof inner === "string" && inner !== "" ? REDACTED : redactSecrets(inner);
  }
  return out;
}

// Validation of untrusted search requests (CLI flags, batch lines, later the bridge wire).
import { DreamError } from "../protocol/errors";
import { describe, isPlainObject, LIMITS, validateEmbedding, validateScope } from "./records";
import type { SearchRequest } from "./search";

export const SEARCH_LIMITS = { queryChars: 8192, maxTopK: 200, defaultTopK: 5, contextTagChars: 128, maxExcludeIds: 200 } as const;

export function parseSearchRequest(input: unknown): SearchRequest {
  if (!isPlainObject(input)) throw new DreamError("INVALID_FIELD", "a search request must be a JSON object", { field: "request" });
  const known = new Set(["query", "top_k", "timeline", "scope", "query_embedding", "dense_extra", "window_hash", "anchor_version", "exclude_ids"]);
  for (const key of Object.keys(input)) {
    if (!known.has(key)) throw new DreamError("INVALID_FIELD", `unknown field "${key}"; allowed: ${[...known].join(", ")}`, { field: key });
  }
  const { query } = input;
  if (typeof query !== "string" || query.trim() === "") {
    throw new DreamError("INVALID_FIELD", `query must be a non-empty string (got ${describe(query)})`, { field: "query" });
  }
  if (query.length > SEARCH_LIMITS.queryChars) {
    throw new DreamError("INPUT_TOO_LARGE", `query is ${query.length} characters; the limit is ${SEARCH_LIMITS.queryChars}`, { field: "query" });
  }
  const request: SearchRequest = {
    query,
    topK: input.top_k === undefined ? SEARCH_LIMITS.defaultTopK : boundedInt(input.top_k, "top_k", 1, SEARCH_LIMITS.maxTopK),
    timeline: input.timeline === undefined ? false : requireBoolean(input.timeline, "timeline"),
  };
  if (input.scope !== undefined) request.scope = validateScope(input.scope);
  if (input.query_embedding !== undefined) request.queryEmbedding = validateEmbedding(input.query_embedding, "query_embedding");
  if (input.dense_extra !== undefined) request.denseExtra = boundedInt(input.dense_extra, "dense_extra", 0, SEARCH_LIMITS.maxTopK);
  if (input.window_hash !== undefined) request.windowHash = contextTag(input.window_hash, "window_hash");
  if (input.anchor_version !== undefined) request.anchorVersion = contextTag(input.anchor_version, "anchor_version");
  if (input.exclude_ids !== undefined) request.excludeIds = excludeIds(input.exclude_ids);
  return request;
}

/** An opaque tag the caller computed (hash of its context window, version of its anchors); echoed into the receipt. */
function contextTag(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "" || value.length > SEARCH_LIMITS.contextTagChars) {
    throw new DreamError("INVALID_FIELD", `${field} must be a non-empty string of at most ${SEARCH_LIMITS.contextTagChars} characters (got ${describe(value)})`, { field });
  }
  return value;
}

/** Memory ids the caller already holds in its recent window; unknown ids are allowed (they simply match nothing). */
function excludeIds(value: unknown): ReadonlySet<string> {
  const max = SEARCH_LIMITS.maxExcludeIds;
  if (!Array.isArray(value) || value.length > max) {
    throw new DreamError("INVALID_FIELD", `exclude_ids must be an array of at most ${max} memory ids (got ${Array.isArray(value) ? `${value.length} items` : describe(value)})`, {
      field: "exclude_ids",
    });
  }
  value.forEach((id, i) => {
    if (typeof id !== "string" || id === "" || id.length > LIMITS.idChars) {
      throw new DreamError("INVALID_FIELD", `exclude_ids[${i}] must be a memory id: a non-empty string of at most ${LIMITS.idChars} characters (got ${describe(id)})`, {
        field: "exclude_ids",
      });
    }
  });
  return new Set(value as string[]);
}

function boundedInt(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new DreamError("INVALID_FIELD", `${field} must be an integer from ${min} to ${max} (got ${describe(value)})`, { field });
  }
  return value;
}

function requireBoolean(value: unknown, field: string): boolean {
  if (typeof value !== "boolean") throw new DreamError("INVALID_FIELD", `${field} must be true or false (got ${describe(value)})`, { field });
  return value;
}

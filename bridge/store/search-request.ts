// Validation of untrusted search requests (CLI flags, batch lines, later the bridge wire).
import { DreamError } from "../protocol/errors";
import { describe, isPlainObject, validateEmbedding, validateScope } from "./records";
import type { SearchRequest } from "./search";

export const SEARCH_LIMITS = { queryChars: 8192, maxTopK: 200, defaultTopK: 5 } as const;

export function parseSearchRequest(input: unknown): SearchRequest {
  if (!isPlainObject(input)) throw new DreamError("INVALID_FIELD", "a search request must be a JSON object", { field: "request" });
  const known = new Set(["query", "top_k", "timeline", "scope", "query_embedding", "dense_extra"]);
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
  return request;
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

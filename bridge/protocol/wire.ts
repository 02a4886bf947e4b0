// The wire contract between the bridge and its clients (CLI, DSH plugin): paths, method names,
// size limits, the HTTP status of each error code, and validation of the request envelope.
import { DreamError, type ErrorCode } from "./errors";

/** Bumped on any incompatible change; the bridge file and /v1/health report it. */
export const PROTOCOL_VERSION = 1;

export const RPC_PATH = "/v1/rpc";
export const HEALTH_PATH = "/v1/health";

export const RPC_METHODS = [
  "add",
  "import",
  "search",
  "search_vector",
  "get",
  "list",
  "inspect",
  "history",
  "edit",
  "stats",
  "forget",
  "forget_matching",
  "quarantine",
  "release",
  "status",
  "export",
  "receipt",
  "reembed",
  "purge",
  "shutdown",
] as const;
export type RpcMethod = (typeof RPC_METHODS)[number];

export const RPC_LIMITS = {
  maxBodyBytes: 16 * 1024 * 1024,
  maxImportRecords: 5_000,
  maxBatchQueries: 1_000,
  maxExportPage: 1_000,
} as const;

/** Codes not listed answer 500: they are failures of the bridge or its disk, not of the request. */
export const HTTP_STATUS_BY_CODE: Readonly<Partial<Record<ErrorCode, number>>> = {
  INVALID_FIELD: 400,
  MISSING_FIELD: 400,
  INVALID_SOURCE_TYPE: 400,
  VECTOR_MISMATCH: 400,
  BAD_JSON: 400,
  BAD_ENCODING: 400,
  BAD_ARGUMENTS: 400,
  UNKNOWN_METHOD: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  UNKNOWN_ROUTE: 404,
  METHOD_NOT_ALLOWED: 405,
  ID_CONFLICT: 409,
  INPUT_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  DATA_DIR_LOCKED: 423,
  CHROMA_UNAVAILABLE: 503,
  DISK_FULL: 507,
};

export function httpStatusFor(code: ErrorCode): number {
  return HTTP_STATUS_BY_CODE[code] ?? 500;
}

export interface RpcEnvelope {
  method: RpcMethod;
  params: Record<string, unknown>;
}

export type WireError = ReturnType<DreamError["toJSON"]>;
export type RpcResponseBody = { result: unknown } | { error: WireError };

export interface HealthResult {
  ok: true;
  pid: number;
  protocol: number;
}

/** Validates a parsed request body; `params` may be omitted (status, shutdown) and then is `{}`. */
export function parseRpcEnvelope(body: unknown): RpcEnvelope {
  if (!isPlainObject(body)) {
    throw new DreamError("INVALID_FIELD", `the request body must be a JSON object {"method", "params"} (got ${describeValue(body)})`, { field: "request" });
  }
  for (const key of Object.keys(body)) {
    if (key !== "method" && key !== "params") {
      throw new DreamError("INVALID_FIELD", `unknown field "${truncate(key)}"; allowed: method, params`, { field: key });
    }
  }
  const { method, params } = body;
  if (typeof method !== "string") {
    throw new DreamError("INVALID_FIELD", `method must be a string (got ${describeValue(method)})`, { field: "method" });
  }
  if (!(RPC_METHODS as readonly string[]).includes(method)) {
    throw new DreamError("UNKNOWN_METHOD", `unknown method ${describeValue(method)}; allowed: ${RPC_METHODS.join(", ")}`, { field: "method" });
  }
  if (params !== undefined && !isPlainObject(params)) {
    throw new DreamError("INVALID_FIELD", `params must be a JSON object (got ${describeValue(params)})`, { field: "params" });
  }
  return { method: method as RpcMethod, params: params ?? {} };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Request values are echoed into error messages, so they are shortened: a hostile or buggy
// client must not be able to make the bridge reflect megabytes back.
function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(truncate(value));
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : String(value);
}

function truncate(text: string): string {
  return text.length > 60 ? text.slice(0, 60) + "…" : text;
}

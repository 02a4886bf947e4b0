// The bridge's request handler: validates each RPC's params and calls the memory store. The
// transport (rpc-server.ts) knows nothing of memories; the store knows nothing of the wire.
import { DreamError } from "../protocol/errors";
import type { MemoryStore } from "../store/memory-store";
import { describe, isPlainObject, validateEmbedding, validateScope } from "../store/records";
import type { ReceiptResponse } from "../store/receipts";
import { parseSearchRequest, SEARCH_LIMITS } from "../store/search-request";
import { RPC_LIMITS, type RpcMethod } from "../protocol/wire";
import type { QueryVector } from "../embed/embedding-service";

export interface ServiceHooks {
  /** Extra status sections (bridge process, Chroma, sync). */
  status(): Promise<Record<string, unknown>>;
  /** Asks the bridge to shut down after the reply is sent. */
  shutdown(): void;
  /** Embeds a query with the configured provider, or says why dense recall cannot take part. */
  embedQuery(text: string): Promise<QueryVector>;
  /** Starts (or reports) re-embedding; throws REEMBED_REFUSED with what to do when it may not run. */
  reembed(): Record<string, unknown>;
}

// Receipt ids are "rcpt_" + a UUID; the bound only keeps a hostile id out of the NOT_FOUND message.
const RECEIPT_ID_MAX_CHARS = 128;

export function createBridgeService(store: MemoryStore, hooks: ServiceHooks): (method: RpcMethod, params: Record<string, unknown>) => Promise<unknown> {
  const handlers: Record<RpcMethod, (params: Record<string, unknown>) => unknown> = {
    add: (params) => store.add(params),
    import: (params) => {
      const records = params.records;
      if (!Array.isArray(records)) throw new DreamError("INVALID_FIELD", "records must be an array of record objects", { field: "records" });
      if (records.length > RPC_LIMITS.maxImportRecords) {
        throw new DreamError("INPUT_TOO_LARGE", `records holds ${records.length} items; send at most ${RPC_LIMITS.maxImportRecords} per call`, { field: "records" });
      }
      return store.importRecords(records);
    },
    search: async (params) => {
      const request = parseSearchRequest(params);
      if (!request.queryEmbedding) {
        const query = await hooks.embedQuery(request.query);
        if (query.embedding) request.queryEmbedding = query.embedding;
        else request.denseFallback = query.fallback;
      }
      return store.search(request);
    },
    receipt: (params): ReceiptResponse => ({ receipt: store.receipts.require(optionalReceiptId(params.receipt_id)) }),
    reembed: () => hooks.reembed(),
    search_vector: (params) => {
      const embedding = validateEmbedding(params.query_embedding, "query_embedding");
      const topK = optionalInt(params.top_k, "top_k", 1, SEARCH_LIMITS.maxTopK) ?? SEARCH_LIMITS.defaultTopK;
      const scope = params.scope === undefined ? undefined : validateScope(params.scope);
      return { results: store.searchVector(embedding, topK, scope) };
    },
    get: (params) => {
      const record = store.get(requireId(params));
      if (!record) throw new DreamError("NOT_FOUND", `no memory with id "${requireId(params)}"`, { field: "id" });
      return { record };
    },
    forget: (params) => ({ forgotten: store.forget(requireId(params)) }),
    quarantine: (params) => {
      if (typeof params.reason !== "string") throw new DreamError("MISSING_FIELD", "reason is required", { field: "reason" });
      return { quarantined: store.quarantine(requireId(params), params.reason) };
    },
    release: (params) => ({ released: store.release(requireId(params)) }),
    status: async () => ({ ...store.status(), ...(await hooks.status()) }),
    export: (params) => {
      const after = optionalInt(params.after, "after", 0, Number.MAX_SAFE_INTEGER) ?? 0;
      const limit = optionalInt(params.limit, "limit", 1, RPC_LIMITS.maxExportPage) ?? RPC_LIMITS.maxExportPage;
      if (params.with_vectors !== undefined && typeof params.with_vectors !== "boolean") {
        throw new DreamError("INVALID_FIELD", "with_vectors must be true or false", { field: "with_vectors" });
      }
      return store.exportPage(after, limit, params.with_vectors === true);
    },
    shutdown: () => {
      hooks.shutdown();
      return { stopping: true };
    },
  };
  return async (method, params) => {
    if (!isPlainObject(params)) throw new DreamError("INVALID_FIELD", "params must be a JSON object", { field: "params" });
    return handlers[method](params);
  };
}

function requireId(params: Record<string, unknown>): string {
  if (typeof params.id !== "string" || params.id === "") {
    throw new DreamError("INVALID_FIELD", `id must be a non-empty string (got ${describe(params.id)})`, { field: "id" });
  }
  return params.id;
}

function optionalReceiptId(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "" || value.length > RECEIPT_ID_MAX_CHARS) {
    throw new DreamError("INVALID_FIELD", `receipt_id must be a non-empty string of at most ${RECEIPT_ID_MAX_CHARS} characters (got ${describe(value)})`, {
      field: "receipt_id",
    });
  }
  return value;
}

function optionalInt(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new DreamError("INVALID_FIELD", `${field} must be an integer from ${min} to ${max} (got ${describe(value)})`, { field });
  }
  return value;
}

// The bridge's request handler: validates each RPC's params and calls the memory store. The
// transport (rpc-server.ts) knows nothing of memories; the store knows nothing of the wire.
import { DreamError } from "../protocol/errors";
import type { MemoryStore } from "../store/memory-store";
import { describe, isPlainObject, LIMITS, validateEmbedding, validateScope, validateSourceType } from "../store/records";
import { VIEW_LIMITS } from "../store/memory-views";
import { MAX_TIME_MS } from "../protocol/time";
import { redactSecrets } from "../store/redact";
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
  /** Erases forgotten memories from every file of the data directory now (journal, checkpoint, receipts, replica). */
  purge(): Promise<Record<string, unknown>>;
}

// Receipt ids are "rcpt_" + a UUID; the bound only keeps a hostile id out of the NOT_FOUND message.
const RECEIPT_ID_MAX_CHARS = 128;
// A forget_matching answer lists at most this many memories, each cut to this many characters.
const PREVIEW_MAX = 200;
const PREVIEW_CHARS = 160;

export interface ServiceOptions {
  /** Replace secrets in what is written with `[redacted: <kind>]` (bridge-config.json privacy.redactSecrets). */
  redactSecrets: boolean;
}

export function createBridgeService(store: MemoryStore, hooks: ServiceHooks, options: ServiceOptions = { redactSecrets: true }): (method: RpcMethod, params: Record<string, unknown>) => Promise<unknown> {
  // Redactions since the bridge started, by kind: counts only, never a value.
  const redacted: Record<string, number> = {};
  /** Every write passes here before validation, so a secret never reaches the journal. */
  const scrub = (input: unknown): { input: unknown; redactions: Record<string, number> } => {
    if (!options.redactSecrets || !isPlainObject(input)) return { input, redactions: {} };
    const redactions: Record<string, number> = {};
    const clean = (text: unknown): unknown => {
      if (typeof text !== "string") return text;
      const outcome = redactSecrets(text);
      for (const [kind, count] of Object.entries(outcome.redactions)) redactions[kind] = (redactions[kind] ?? 0) + (count ?? 0);
      return outcome.text;
    };
    const out: Record<string, unknown> = { ...input, text: clean(input.text) };
    if (Array.isArray(input.tags)) out.tags = input.tags.map(clean);
    if (isPlainObject(input.metadata)) out.metadata = mapStrings(input.metadata, clean);
    for (const [kind, count] of Object.entries(redactions)) redacted[kind] = (redacted[kind] ?? 0) + count;
    return { input: out, redactions };
  };
  const handlers: Record<RpcMethod, (params: Record<string, unknown>) => unknown> = {
    add: (params) => {
      const { input, redactions } = scrub(params);
      const result = store.add(input);
      return Object.keys(redactions).length > 0 ? { ...result, redactions } : result;
    },
    import: (params) => {
      const records = params.records;
      if (!Array.isArray(records)) throw new DreamError("INVALID_FIELD", "records must be an array of record objects", { field: "records" });
      if (records.length > RPC_LIMITS.maxImportRecords) {
        throw new DreamError("INPUT_TOO_LARGE", `records holds ${records.length} items; send at most ${RPC_LIMITS.maxImportRecords} per call`, { field: "records" });
      }
      const redactions: Record<string, number> = {};
      const scrubbed = records.map((record) => {
        const outcome = scrub(record);
        for (const [kind, count] of Object.entries(outcome.redactions)) redactions[kind] = (redactions[kind] ?? 0) + count;
        return outcome.input;
      });
      const report = store.importRecords(scrubbed);
      return Object.keys(redactions).length > 0 ? { ...report, redactions } : report;
    },
    search: async (params) => {
      // The query is the user's message, and its receipt is written to audit.jsonl: redacted like a write
      // (stored memories hold only the redacted form, so nothing findable is lost).
      const scrubbed = options.redactSecrets && typeof params.query === "string" ? redactSecrets(params.query) : undefined;
      const request = parseSearchRequest(scrubbed ? { ...params, query: scrubbed.text } : params);
      if (scrubbed) request.queryRedactions = scrubbed.redactions as Record<string, number>;
      if (!request.queryEmbedding) {
        const query = await hooks.embedQuery(request.query);
        if (query.embedding) request.queryEmbedding = query.embedding;
        else request.denseFallback = query.fallback;
      }
      return store.search(request);
    },
    receipt: (params): ReceiptResponse => ({ receipt: store.receipts.require(optionalReceiptId(params.receipt_id)) }),
    reembed: () => hooks.reembed(),
    purge: () => hooks.purge(),
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
    list: (params) => {
      const status = params.status;
      if (status !== undefined && status !== "any" && status !== "active" && status !== "quarantined") {
        throw new DreamError("INVALID_FIELD", `status must be "any", "active" or "quarantined" (got ${describe(status)})`, { field: "status" });
      }
      const order = params.order;
      if (order !== undefined && order !== "newest" && order !== "oldest") throw new DreamError("INVALID_FIELD", `order must be "newest" or "oldest" (got ${describe(order)})`, { field: "order" });
      return store.list({
        scope: params.scope === undefined ? undefined : validateScope(params.scope),
        sourceType: params.source_type === undefined ? undefined : validateSourceType(params.source_type),
        tag: optionalText(params.tag, "tag", LIMITS.tagChars),
        sessionId: optionalText(params.session_id, "session_id", LIMITS.idChars),
        contains: optionalText(params.contains, "contains", SEARCH_LIMITS.queryChars),
        sinceMs: optionalInt(params.since_ms, "since_ms", -MAX_TIME_MS, MAX_TIME_MS),
        untilMs: optionalInt(params.until_ms, "until_ms", -MAX_TIME_MS, MAX_TIME_MS),
        status,
        order,
        offset: optionalInt(params.offset, "offset", 0, Number.MAX_SAFE_INTEGER),
        limit: optionalInt(params.limit, "limit", 1, VIEW_LIMITS.maxPage),
      });
    },
    inspect: (params) => store.inspect(requireId(params)),
    history: (params) => {
      const subject = optionalText(params.subject, "subject", SEARCH_LIMITS.queryChars);
      if (subject === undefined || subject.trim() === "") throw new DreamError("MISSING_FIELD", "subject is required: the thing whose values over time you want (\"passport\", \"护照\")", { field: "subject" });
      return { subject, slots: store.history(subject) };
    },
    edit: (params) => {
      if (params.text === undefined) throw new DreamError("MISSING_FIELD", "text is required: the memory's new text", { field: "text" });
      const { input } = scrub({ text: params.text });
      return store.edit(requireId(params), (input as { text: unknown }).text);
    },
    stats: () => store.stats(),
    forget: (params) => ({ forgotten: store.forget(requireId(params)) }),
    forget_matching: (params) => {
      const text = (value: unknown, field: string, max: number): string | undefined => {
        if (value === undefined) return undefined;
        if (typeof value !== "string" || value.length > max) throw new DreamError("INVALID_FIELD", `${field} must be a string of at most ${max} characters`, { field });
        return value;
      };
      if (params.apply !== undefined && typeof params.apply !== "boolean") throw new DreamError("INVALID_FIELD", "apply must be true or false", { field: "apply" });
      const matched = store.forgetMatching(
        {
          sessionId: text(params.session_id, "session_id", LIMITS.idChars),
          scope: params.scope === undefined ? undefined : validateScope(params.scope),
          textContains: text(params.text_contains, "text_contains", SEARCH_LIMITS.queryChars),
        },
        params.apply === true,
      );
      // The preview says what would go; the text is cut short, the full memory stays one `get` away.
      return {
        applied: params.apply === true && matched.length > 0,
        count: matched.length,
        memories: matched.slice(0, PREVIEW_MAX).map((r) => ({ id: r.id, timestamp_ms: r.timestamp_ms, source_type: r.source_type, text: r.text.length > PREVIEW_CHARS ? `${r.text.slice(0, PREVIEW_CHARS)}…` : r.text })),
      };
    },
    quarantine: (params) => {
      if (typeof params.reason !== "string") throw new DreamError("MISSING_FIELD", "reason is required", { field: "reason" });
      return { quarantined: store.quarantine(requireId(params), params.reason) };
    },
    release: (params) => ({ released: store.release(requireId(params)) }),
    status: async () => {
      const { privacy, ...hooked } = await hooks.status();
      return { ...store.status(), ...hooked, privacy: { redact_secrets: options.redactSecrets, redactions_since_start: { ...redacted }, ...(privacy as Record<string, unknown> | undefined) } };
    },
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

function optionalText(value: unknown, field: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.length > max) throw new DreamError("INVALID_FIELD", `${field} must be a string of at most ${max} characters (got ${describe(value)})`, { field });
  return value;
}

function optionalInt(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new DreamError("INVALID_FIELD", `${field} must be an integer from ${min} to ${max} (got ${describe(value)})`, { field });
  }
  return value;
}

/** Metadata with `clean` applied to its string values; deeper than validation allows is left for validation to refuse. */
function mapStrings(value: Record<string, unknown>, clean: (text: unknown) => unknown): Record<string, unknown> {
  const walk = (item: unknown, depth: number): unknown => {
    if (typeof item === "string") return clean(item);
    if (depth > LIMITS.metadataDepth) return item;
    if (Array.isArray(item)) return item.map((entry) => walk(entry, depth + 1));
    return isPlainObject(item) ? Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, walk(entry, depth + 1)])) : item;
  };
  return walk(value, 0) as Record<string, unknown>;
}

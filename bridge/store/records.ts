// Memory records: the shape we store, the source-type whitelist, scopes, and validation of
// untrusted input (CLI, import files, later the bridge wire) into a normalised record.
import { createHash } from "node:crypto";
import { DreamError } from "../protocol/errors";
import { hashOfHex } from "./content-digests";
import { MAX_TIME_MS } from "../protocol/time";

export const SOURCE_TYPES = ["user_message", "assistant_message", "system_fact", "tool_result"] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const LIMITS = {
  idChars: 256,
  textChars: 200_000,
  tags: 64,
  tagChars: 128,
  metadataJsonChars: 16_384,
  scopeChars: 200,
  vectorDims: 4096,
  metadataDepth: 32,
  quarantineReasonChars: 1000,
} as const;

export interface EmbeddingInput {
  provider: string;
  model: string;
  vector: Float32Array;
  /** Set by the bridge's embedders (see bridge/embed/provider.ts); null/absent for imported vectors. */
  modelDigest?: string | null;
  configHash?: string | null;
}

export interface Quarantine {
  reason: string;
  atMs: number;
}

export interface MemoryRecord {
  id: string;
  text: string;
  source_type: SourceType;
  timestamp_ms: number;
  scope: string;
  session_id?: string;
  turn?: number;
  tags?: string[];
  metadata: Record<string, unknown>;
  content_hash: string;
  quarantine?: Quarantine;
}

export interface RecordDefaults {
  nowMs: () => number;
  newId: () => string;
}

const SCOPE_PATTERN = /^(global|project:[^\u0000-\u001f]+)$/;

/** The content hash binds derived data (vectors, slots) to exactly this text. */
export function hashContent(text: string): string {
  return hashOfHex(createHash("sha256").update(text, "utf8").digest("hex"));
}

export function validateScope(value: unknown, field = "scope"): string {
  if (typeof value !== "string" || value.length > LIMITS.scopeChars || !SCOPE_PATTERN.test(value)) {
    throw new DreamError("INVALID_FIELD", `${field} must be "global" or "project:<name>" (got ${describe(value)})`, { field });
  }
  return value;
}

export function validateSourceType(value: unknown, field = "source_type"): SourceType {
  if (typeof value !== "string" || !(SOURCE_TYPES as readonly string[]).includes(value)) {
    throw new DreamError(
      "INVALID_SOURCE_TYPE",
      `${field} ${describe(value)} is not allowed; allowed: ${SOURCE_TYPES.join(", ")}`,
      { field },
    );
  }
  return value as SourceType;
}

/** Validates one untrusted record object; throws DreamError naming the first bad field. */
export function validateRecordInput(input: unknown, defaults: RecordDefaults): { record: MemoryRecord; embedding?: EmbeddingInput } {
  if (!isPlainObject(input)) throw new DreamError("INVALID_FIELD", "a record must be a JSON object", { field: "record" });
  const known = new Set(["id", "text", "source_type", "timestamp_ms", "scope", "session_id", "turn", "tags", "metadata", "quarantined", "embedding"]);
  for (const key of Object.keys(input)) {
    if (!known.has(key)) throw new DreamError("INVALID_FIELD", `unknown field "${key}"; allowed: ${[...known].join(", ")}`, { field: key });
  }
  // Lone surrogates cannot be encoded as UTF-8: Chroma refuses them (and the replica would retry
  // for ever), other tools mangle them. They become U+FFFD, as a UTF-8 decoder would make them.
  const text = wellFormed(requireString(input.text, "text", LIMITS.textChars));
  if (text.trim() === "") throw new DreamError("INVALID_FIELD", "text must not be empty", { field: "text" });
  const id = input.id === undefined ? defaults.newId() : requireId(input.id);
  const source_type = input.source_type === undefined ? missing("source_type") : validateSourceType(input.source_type);
  const timestamp_ms = input.timestamp_ms === undefined ? defaults.nowMs() : requireTimestamp(input.timestamp_ms);
  const scope = input.scope === undefined ? "global" : validateScope(input.scope);
  const metadata = input.metadata === undefined ? {} : requireMetadata(input.metadata);
  const content_hash = hashContent(text);
  const session_id = input.session_id === undefined ? undefined : wellFormed(requireString(input.session_id, "session_id", LIMITS.idChars));
  const turn = input.turn === undefined ? undefined : requireNonNegativeInt(input.turn, "turn");
  // Made whole in one literal where it has a session or a turn, in the fields' order: added afterwards, they
  // went to a property array of their own (one object more a captured memory, for the process's life).
  const record: MemoryRecord =
    session_id !== undefined && turn !== undefined
      ? { id, text, source_type, timestamp_ms, scope, metadata, content_hash, session_id, turn }
      : session_id !== undefined
        ? { id, text, source_type, timestamp_ms, scope, metadata, content_hash, session_id }
        : turn !== undefined
          ? { id, text, source_type, timestamp_ms, scope, metadata, content_hash, turn }
          : { id, text, source_type, timestamp_ms, scope, metadata, content_hash };
  if (input.tags !== undefined) record.tags = requireTags(input.tags);
  if (input.quarantined !== undefined) {
    const reason = requireString(input.quarantined, "quarantined", LIMITS.tagChars);
    record.quarantine = { reason, atMs: record.timestamp_ms };
  }
  const embedding = input.embedding === undefined ? undefined : validateEmbedding(input.embedding, "embedding");
  return embedding ? { record, embedding } : { record };
}

export function validateEmbedding(value: unknown, field: string): EmbeddingInput {
  if (!isPlainObject(value)) throw new DreamError("INVALID_FIELD", `${field} must be an object {provider, model, vector}`, { field });
  const provider = requireString(value.provider, `${field}.provider`, LIMITS.tagChars);
  const model = requireString(value.model, `${field}.model`, LIMITS.idChars);
  const raw = value.vector;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > LIMITS.vectorDims) {
    throw new DreamError("INVALID_FIELD", `${field}.vector must be an array of 1..${LIMITS.vectorDims} numbers`, { field: `${field}.vector` });
  }
  const vector = new Float32Array(raw.length);
  let norm = 0;
  for (let i = 0; i < raw.length; i++) {
    const x = raw[i];
    if (typeof x !== "number" || !Number.isFinite(x)) {
      throw new DreamError("INVALID_FIELD", `${field}.vector[${i}] must be a finite number`, { field: `${field}.vector` });
    }
    // Vectors are stored as float32: a value finite as a double can round to Infinity there, and
    // one that passed here but not on replay would make the data directory unopenable.
    vector[i] = x;
    if (!Number.isFinite(vector[i])) {
      throw new DreamError("INVALID_FIELD", `${field}.vector[${i}] is ${x}, outside the float32 range (±3.4e38) vectors are stored in`, { field: `${field}.vector` });
    }
    norm += vector[i] * vector[i];
  }
  if (norm === 0) {
    throw new DreamError("INVALID_FIELD", `${field}.vector must not be all zeros (as float32, where values below 1.4e-45 are 0)`, { field: `${field}.vector` });
  }
  return { provider, model, vector };
}

/** A stored vector a cosine can use: every value finite, not all zero (what validateEmbedding admits). */
export function isUsableVector(vector: Float32Array): boolean {
  let any = false;
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i])) return false;
    if (vector[i] !== 0) any = true;
  }
  return any;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? value.slice(0, 60) + "…" : value);
  if (value === undefined) return "nothing";
  return typeof value === "object" ? (Array.isArray(value) ? "an array" : "an object") : String(value);
}

function missing(field: string): never {
  throw new DreamError("MISSING_FIELD", `${field} is required`, { field });
}

function requireString(value: unknown, field: string, maxChars: number): string {
  if (typeof value !== "string") throw new DreamError("INVALID_FIELD", `${field} must be a string (got ${describe(value)})`, { field });
  if (value.length > maxChars) {
    throw new DreamError("INPUT_TOO_LARGE", `${field} is ${value.length} characters; the limit is ${maxChars}`, { field });
  }
  return value;
}

function requireId(value: unknown): string {
  const id = requireString(value, "id", LIMITS.idChars);
  if (id === "" || /[\u0000-\u001f\u007f]/.test(id) || wellFormed(id) !== id) {
    throw new DreamError("INVALID_FIELD", "id must be a non-empty string without control characters or lone surrogates", { field: "id" });
  }
  return id;
}

function requireTimestamp(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0 || value > MAX_TIME_MS) {
    throw new DreamError("INVALID_FIELD", `timestamp_ms must be an integer of milliseconds from 0 to ${MAX_TIME_MS} (got ${describe(value)})`, {
      field: "timestamp_ms",
    });
  }
  return value;
}

function requireNonNegativeInt(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new DreamError("INVALID_FIELD", `${field} must be a non-negative integer (got ${describe(value)})`, { field });
  }
  return value;
}

function requireTags(value: unknown): string[] {
  if (!Array.isArray(value) || value.length > LIMITS.tags) {
    throw new DreamError("INVALID_FIELD", `tags must be an array of at most ${LIMITS.tags} strings`, { field: "tags" });
  }
  return value.map((tag, i) => wellFormed(requireString(tag, `tags[${i}]`, LIMITS.tagChars)));
}

function requireMetadata(input: unknown): Record<string, unknown> {
  if (!isPlainObject(input)) throw new DreamError("INVALID_FIELD", "metadata must be a JSON object", { field: "metadata" });
  const value = wellFormedJson(input, 0) as Record<string, unknown>;
  const size = JSON.stringify(value).length;
  if (size > LIMITS.metadataJsonChars) {
    throw new DreamError("INPUT_TOO_LARGE", `metadata is ${size} characters of JSON; the limit is ${LIMITS.metadataJsonChars}`, {
      field: "metadata",
    });
  }
  return value;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, on Node 20 too). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

/** A copy of JSON-like metadata with well-formed strings (keys too), refused past LIMITS.metadataDepth levels. */
function wellFormedJson(value: unknown, depth: number): unknown {
  if (typeof value === "string") return wellFormed(value);
  if (typeof value !== "object" || value === null) return value;
  if (depth >= LIMITS.metadataDepth) {
    throw new DreamError("INVALID_FIELD", `metadata is nested more than ${LIMITS.metadataDepth} levels deep`, { field: "metadata" });
  }
  if (Array.isArray(value)) return value.map((item) => wellFormedJson(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[wellFormed(key)] = wellFormedJson(item, depth + 1);
  return out;
}

// Bridge settings that live in the data directory (`bridge-config.json`, optional): where Chroma is,
// which embedding provider the bridge uses (embedding-config.ts) and whether secrets are redacted at capture.
// Validated at the edge; an unknown key or a bad value stops the bridge with the field named.
import fs from "node:fs";
import path from "node:path";
import { DreamError } from "../protocol/errors";
import { readTextFile } from "../protocol/text-files";
import { defaultEmbeddingConfig, parseEmbeddingConfig, type EmbeddingConfig } from "../embed/embedding-config";
import type { AuditConfig } from "../store/audit-log";
import { describe, isPlainObject, validateScope } from "../store/records";
import { FLAT_MAX_RECORDS, RECALL_TARGET } from "../index/ann-defaults";
import type { RetentionConfig, RetentionLimits } from "../store/retention";

export type { AuditConfig, RetentionConfig, RetentionLimits };

export const CONFIG_FILE = "bridge-config.json";

export type ChromaConfig =
  | { mode: "embedded" }
  | { mode: "external"; url: string; headers?: Record<string, string>; tenant?: string; database?: string }
  | { mode: "off" };

export interface PrivacyConfig {
  /** Replace API keys, passwords, cards … with `[redacted: <kind>]` before anything is written (bridge/store/redact.ts). */
  redactSecrets: boolean;
  retention: RetentionConfig;
  audit: AuditConfig;
}

/** The dense index: exact up to flatMaxRecords live vectors, inverted lists reaching annRecallTarget above. */
export interface SearchConfig {
  flatMaxRecords: number;
  annRecallTarget: number;
}

export interface BridgeConfig {
  chroma: ChromaConfig;
  embedding: EmbeddingConfig;
  privacy: PrivacyConfig;
  search: SearchConfig;
}

export const DEFAULT_SEARCH: SearchConfig = { flatMaxRecords: FLAT_MAX_RECORDS, annRecallTarget: RECALL_TARGET };
const SEARCH_LIMITS = { flatMaxRecords: 100_000_000, annRecallTarget: [0.5, 1] } as const;

export const PRIVACY_LIMITS = { maxAgeDays: 36_500, maxMemories: 100_000_000, auditMaxMegabytes: 100_000 } as const;

export const DEFAULT_PRIVACY: PrivacyConfig = {
  redactSecrets: true,
  retention: { maxAgeDays: 0, maxMemories: 0, scopes: {} },
  audit: { keepQueryText: true, maxAgeDays: 0, maxMegabytes: 128 },
};

export function defaultPrivacy(): PrivacyConfig {
  return structuredClone(DEFAULT_PRIVACY);
}

export function defaultBridgeConfig(dataDir: string): BridgeConfig {
  return { chroma: { mode: "embedded" }, embedding: defaultEmbeddingConfig(dataDir), privacy: defaultPrivacy(), search: { ...DEFAULT_SEARCH } };
}

export function loadBridgeConfig(dataDir: string): BridgeConfig {
  const file = path.join(dataDir, CONFIG_FILE);
  if (!fs.existsSync(file)) return defaultBridgeConfig(dataDir);
  // Decoded by its BOM: Windows PowerShell 5.1 writes UTF-16 with `>` and Out-File.
  const text = readTextFile(file);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new DreamError("BAD_JSON", `${file}: ${(error as Error).message}`);
  }
  return parseBridgeConfig(raw, file, dataDir);
}

export function parseBridgeConfig(raw: unknown, source: string, dataDir: string): BridgeConfig {
  if (!isPlainObject(raw)) throw invalid(source, "config", "must be a JSON object");
  onlyKeys(raw, ["chroma", "embedding", "privacy", "search"], source, "");
  return {
    chroma: raw.chroma === undefined ? { mode: "embedded" } : parseChroma(raw.chroma, source),
    embedding: parseEmbeddingConfig(raw.embedding, dataDir, source),
    privacy: parsePrivacy(raw.privacy, source),
    search: parseSearch(raw.search, source),
  };
}

function parseSearch(value: unknown, source: string): SearchConfig {
  const search = { ...DEFAULT_SEARCH };
  if (value === undefined) return search;
  if (!isPlainObject(value)) throw invalid(source, "search", "must be an object such as { \"flatMaxRecords\": 200000 }");
  onlyKeys(value, ["flatMaxRecords", "annRecallTarget"], source, "search.");
  if (value.flatMaxRecords !== undefined) {
    search.flatMaxRecords = count(value.flatMaxRecords, source, "search.flatMaxRecords", 0, SEARCH_LIMITS.flatMaxRecords, "up to this many vectors are searched exactly, above it by the approximate index");
  }
  if (value.annRecallTarget !== undefined) {
    const [min, max] = SEARCH_LIMITS.annRecallTarget;
    const target = value.annRecallTarget;
    if (typeof target !== "number" || !(target >= min && target <= max)) {
      throw invalid(source, "search.annRecallTarget", `must be a number from ${min} to ${max}, the recall@10 against exact search the approximate index must reach (got ${describe(target)})`);
    }
    search.annRecallTarget = target;
  }
  return search;
}

function parsePrivacy(value: unknown, source: string): PrivacyConfig {
  const privacy = defaultPrivacy();
  if (value === undefined) return privacy;
  if (!isPlainObject(value)) throw invalid(source, "privacy", "must be an object such as { \"redactSecrets\": true }");
  onlyKeys(value, ["redactSecrets", "retention", "audit"], source, "privacy.");
  if (value.redactSecrets !== undefined) privacy.redactSecrets = bool(value.redactSecrets, source, "privacy.redactSecrets");
  if (value.retention !== undefined) {
    const retention = value.retention;
    if (!isPlainObject(retention)) throw invalid(source, "privacy.retention", "must be an object such as { \"maxAgeDays\": 365 }");
    onlyKeys(retention, ["maxAgeDays", "maxMemories", "scopes"], source, "privacy.retention.");
    Object.assign(privacy.retention, limits(retention, source, "privacy.retention."));
    if (retention.scopes !== undefined) {
      if (!isPlainObject(retention.scopes)) throw invalid(source, "privacy.retention.scopes", "must be an object of scope to limits, e.g. { \"project:demo\": { \"maxAgeDays\": 30 } }");
      for (const [scope, inner] of Object.entries(retention.scopes)) {
        const field = `privacy.retention.scopes.${scope}`;
        if (!isScope(scope)) throw invalid(source, field, "is not a scope: use \"global\" or \"project:<name>\"");
        if (!isPlainObject(inner)) throw invalid(source, field, "must be an object such as { \"maxAgeDays\": 30, \"maxMemories\": 1000 }");
        onlyKeys(inner, ["maxAgeDays", "maxMemories"], source, `${field}.`);
        privacy.retention.scopes[scope] = limits(inner, source, `${field}.`);
      }
    }
  }
  if (value.audit !== undefined) {
    const audit = value.audit;
    if (!isPlainObject(audit)) throw invalid(source, "privacy.audit", "must be an object such as { \"keepQueryText\": false }");
    onlyKeys(audit, ["keepQueryText", "maxAgeDays", "maxMegabytes"], source, "privacy.audit.");
    if (audit.keepQueryText !== undefined) privacy.audit.keepQueryText = bool(audit.keepQueryText, source, "privacy.audit.keepQueryText");
    if (audit.maxAgeDays !== undefined) privacy.audit.maxAgeDays = count(audit.maxAgeDays, source, "privacy.audit.maxAgeDays", 0, PRIVACY_LIMITS.maxAgeDays, "0 keeps receipts until the size limit");
    if (audit.maxMegabytes !== undefined) privacy.audit.maxMegabytes = count(audit.maxMegabytes, source, "privacy.audit.maxMegabytes", 1, PRIVACY_LIMITS.auditMaxMegabytes, "megabytes for the log and its rotated file together");
  }
  return privacy;
}

function isScope(name: string): boolean {
  try {
    validateScope(name);
    return true;
  } catch {
    return false;
  }
}

function limits(value: Record<string, unknown>, source: string, prefix: string): Partial<RetentionLimits> {
  const out: Partial<RetentionLimits> = {};
  if (value.maxAgeDays !== undefined) out.maxAgeDays = count(value.maxAgeDays, source, `${prefix}maxAgeDays`, 0, PRIVACY_LIMITS.maxAgeDays, "0 = no age limit");
  if (value.maxMemories !== undefined) out.maxMemories = count(value.maxMemories, source, `${prefix}maxMemories`, 0, PRIVACY_LIMITS.maxMemories, "0 = no count limit");
  return out;
}

function bool(value: unknown, source: string, field: string): boolean {
  if (typeof value !== "boolean") throw invalid(source, field, `must be true or false (got ${describe(value)})`);
  return value;
}

function count(value: unknown, source: string, field: string, min: number, max: number, meaning: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(source, field, `must be a whole number from ${min} to ${max}; ${meaning} (got ${describe(value)})`);
  }
  return value;
}

function parseChroma(value: unknown, source: string): ChromaConfig {
  if (!isPlainObject(value)) throw invalid(source, "chroma", "must be an object");
  onlyKeys(value, ["mode", "url", "headers", "tenant", "database"], source, "chroma.");
  const mode = value.mode ?? (value.url === undefined ? "embedded" : "external");
  if (mode === "embedded" || mode === "off") {
    if (value.url !== undefined) throw invalid(source, "chroma.url", `is only used with mode "external" (mode is "${mode}")`);
    return { mode };
  }
  if (mode !== "external") throw invalid(source, "chroma.mode", `must be "embedded", "external" or "off" (got ${describe(mode)})`);
  const config: ChromaConfig = { mode, url: parseUrl(value.url, source) };
  if (value.headers !== undefined) {
    if (!isPlainObject(value.headers) || !Object.values(value.headers).every((v) => typeof v === "string")) {
      throw invalid(source, "chroma.headers", "must be an object of header name to string value");
    }
    config.headers = value.headers as Record<string, string>;
  }
  for (const key of ["tenant", "database"] as const) {
    if (value[key] === undefined) continue;
    if (typeof value[key] !== "string" || value[key] === "") throw invalid(source, `chroma.${key}`, "must be a non-empty string");
    config[key] = value[key] as string;
  }
  return config;
}

export function parseUrl(value: unknown, source: string): string {
  if (typeof value !== "string") throw invalid(source, "chroma.url", `must be an http(s) URL (got ${describe(value)})`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(source, "chroma.url", `is not a valid URL (got ${describe(value)})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(source, "chroma.url", "must start with http:// or https://");
  if (url.username || url.password) throw invalid(source, "chroma.url", "must not carry credentials; put them in chroma.headers");
  return url.origin;
}

function onlyKeys(value: Record<string, unknown>, allowed: string[], source: string, prefix: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalid(source, prefix + key, `is not a known setting; allowed: ${allowed.map((k) => prefix + k).join(", ")}`);
  }
}

function invalid(source: string, field: string, problem: string): DreamError {
  return new DreamError("INVALID_FIELD", `${source}: ${field} ${problem}`, { field });
}

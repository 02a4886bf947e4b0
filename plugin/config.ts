// The plugin's settings: the one place defaults live, and their validation at the edge. `Config` is a
// Standard Schema (what Cordis calls to validate a row's `config`), so a bad value fails the load
// with its path; nothing falls back to a default quietly. No schema library is bundled for this.
import { defaultPrivacy, DEFAULT_PRIVACY, PRIVACY_LIMITS, type PrivacyConfig, type RetentionLimits } from "../bridge/server/bridge-config";
import { validateScope } from "../bridge/store/records";
import { estimateTokens } from "./recall/token-count";

export type EmbeddingProvider = "local" | "openai_compatible" | "off";

export interface PluginConfig {
  /** Long-term memory on/off: capture, recall and the memory tools. */
  enabled: boolean;
  /** Write every finished turn; off = only turns where a fact was remembered. */
  holographic: boolean;
  /** Empty = `$DSH_HOME/dsh-dream` (DSH_HOME defaults to ~/.dsh). */
  dataDir: string;
  embedding: {
    provider: EmbeddingProvider;
    /** Empty = the provider's default model (local: Xenova/bge-small-zh-v1.5). */
    model: string;
    baseUrl: string;
    /** Name of the environment variable holding the API key; the key itself never enters config. */
    apiKeyEnv: string;
    reembedOnDimensionMismatch: boolean;
    /** Where the local model is downloaded from: a hub speaking Hugging Face's file protocol. Empty = HF_ENDPOINT, else https://huggingface.co/. */
    mirror: string;
  };
  recall: {
    topK: number;
    /** Budget for the retrieved memories in the injected message (documented token rule). */
    maxTokens: number;
    /** Recall gives up after this long and the turn goes on without it. */
    timeBudgetMs: number;
  };
  /** Hard constraints, always injected ahead of retrieved memories; at most 2,000 tokens in all. */
  anchors: string[];
  /** Carried as it is into bridge-config.json's `privacy` section (the bridge's shape and defaults). */
  privacy: PrivacyConfig;
}

export const ANCHOR_TOKEN_CAP = 2000;

export const DEFAULT_CONFIG: PluginConfig = {
  enabled: false,
  holographic: false,
  dataDir: "",
  embedding: { provider: "local", model: "", baseUrl: "", apiKeyEnv: "DSH_DREAM_EMBEDDING_API_KEY", reembedOnDimensionMismatch: true, mirror: "" },
  recall: { topK: 5, maxTokens: 1200, timeBudgetMs: 1500 },
  anchors: [],
  privacy: defaultPrivacy(),
};

export interface ConfigIssue {
  message: string;
  path: string[];
}

export class ConfigError extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super("invalid DSH-DREAM config:\n" + issues.map((i) => `  - ${i.path.join(".")}: ${i.message}`).join("\n"));
    this.name = "ConfigError";
  }
}

type Rec = Record<string, unknown>;

/** Validates a raw config (missing keys take defaults, unknown keys and bad values are issues). */
export function validateConfig(raw: unknown): { value: PluginConfig } | { issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const check = new Checker(issues);
  const root = check.object(raw ?? {}, [], ["enabled", "holographic", "dataDir", "embedding", "recall", "anchors", "privacy"]);
  const embedding = check.object(root.embedding === undefined ? {} : root.embedding, ["embedding"], ["provider", "model", "baseUrl", "apiKeyEnv", "reembedOnDimensionMismatch", "mirror"]);
  const recall = check.object(root.recall === undefined ? {} : root.recall, ["recall"], ["topK", "maxTokens", "timeBudgetMs"]);
  const d = DEFAULT_CONFIG;
  const value: PluginConfig = {
    enabled: check.boolean(root.enabled, ["enabled"], d.enabled),
    holographic: check.boolean(root.holographic, ["holographic"], d.holographic),
    dataDir: check.string(root.dataDir, ["dataDir"], d.dataDir),
    embedding: {
      provider: check.oneOf(embedding.provider, ["embedding", "provider"], ["local", "openai_compatible", "off"] as const, d.embedding.provider),
      model: check.string(embedding.model, ["embedding", "model"], d.embedding.model),
      baseUrl: check.string(embedding.baseUrl, ["embedding", "baseUrl"], d.embedding.baseUrl),
      apiKeyEnv: check.string(embedding.apiKeyEnv, ["embedding", "apiKeyEnv"], d.embedding.apiKeyEnv),
      reembedOnDimensionMismatch: check.boolean(embedding.reembedOnDimensionMismatch, ["embedding", "reembedOnDimensionMismatch"], d.embedding.reembedOnDimensionMismatch),
      mirror: check.string(embedding.mirror, ["embedding", "mirror"], d.embedding.mirror),
    },
    recall: {
      topK: check.int(recall.topK, ["recall", "topK"], 1, 50, d.recall.topK),
      maxTokens: check.int(recall.maxTokens, ["recall", "maxTokens"], 100, 16_000, d.recall.maxTokens),
      timeBudgetMs: check.int(recall.timeBudgetMs, ["recall", "timeBudgetMs"], 50, 30_000, d.recall.timeBudgetMs),
    },
    anchors: check.stringList(root.anchors, ["anchors"], [...d.anchors]),
    privacy: checkPrivacy(check, root.privacy),
  };
  checkEmbedding(value.embedding, issues);
  const anchorTokens = value.anchors.reduce((sum, a) => sum + estimateTokens(a), 0);
  if (anchorTokens > ANCHOR_TOKEN_CAP) {
    issues.push({ path: ["anchors"], message: `hold about ${anchorTokens} tokens; anchors are capped at ${ANCHOR_TOKEN_CAP} tokens in all — shorten or remove some` });
  }
  return issues.length > 0 ? { issues } : { value };
}

function checkPrivacy(check: Checker, raw: unknown): PrivacyConfig {
  const d = DEFAULT_PRIVACY;
  const privacy = check.object(raw === undefined ? {} : raw, ["privacy"], ["redactSecrets", "retention", "audit"]);
  const retention = check.object(privacy.retention === undefined ? {} : privacy.retention, ["privacy", "retention"], ["maxAgeDays", "maxMemories", "scopes"]);
  const audit = check.object(privacy.audit === undefined ? {} : privacy.audit, ["privacy", "audit"], ["keepQueryText", "maxAgeDays", "maxMegabytes"]);
  const scopes: Record<string, Partial<RetentionLimits>> = {};
  const scopesPath = ["privacy", "retention", "scopes"];
  for (const [scope, inner] of Object.entries(check.object(retention.scopes === undefined ? {} : retention.scopes, scopesPath, null))) {
    if (!check.scope(scope, [...scopesPath, scope])) continue;
    const limits = check.object(inner, [...scopesPath, scope], ["maxAgeDays", "maxMemories"]);
    scopes[scope] = {};
    for (const key of ["maxAgeDays", "maxMemories"] as const) {
      if (limits[key] !== undefined) scopes[scope][key] = check.int(limits[key], [...scopesPath, scope, key], 0, retentionMax(key), 0);
    }
  }
  return {
    redactSecrets: check.boolean(privacy.redactSecrets, ["privacy", "redactSecrets"], d.redactSecrets),
    retention: {
      maxAgeDays: check.int(retention.maxAgeDays, ["privacy", "retention", "maxAgeDays"], 0, PRIVACY_LIMITS.maxAgeDays, d.retention.maxAgeDays),
      maxMemories: check.int(retention.maxMemories, ["privacy", "retention", "maxMemories"], 0, PRIVACY_LIMITS.maxMemories, d.retention.maxMemories),
      scopes,
    },
    audit: {
      keepQueryText: check.boolean(audit.keepQueryText, ["privacy", "audit", "keepQueryText"], d.audit.keepQueryText),
      maxAgeDays: check.int(audit.maxAgeDays, ["privacy", "audit", "maxAgeDays"], 0, PRIVACY_LIMITS.maxAgeDays, d.audit.maxAgeDays),
      maxMegabytes: check.int(audit.maxMegabytes, ["privacy", "audit", "maxMegabytes"], 1, PRIVACY_LIMITS.auditMaxMegabytes, d.audit.maxMegabytes),
    },
  };
}

function retentionMax(key: keyof RetentionLimits): number {
  return key === "maxAgeDays" ? PRIVACY_LIMITS.maxAgeDays : PRIVACY_LIMITS.maxMemories;
}

function checkEmbedding(embedding: PluginConfig["embedding"], issues: ConfigIssue[]): void {
  if (embedding.apiKeyEnv !== "" && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(embedding.apiKeyEnv)) {
    issues.push({ path: ["embedding", "apiKeyEnv"], message: "must be the name of an environment variable (letters, digits, _), not the key itself" });
  }
  if (embedding.mirror !== "" && !isHttpUrl(embedding.mirror)) {
    issues.push({ path: ["embedding", "mirror"], message: `must be empty or an http:// or https:// URL of a model hub mirror, e.g. https://hf-mirror.com/ (got ${JSON.stringify(embedding.mirror.slice(0, 80))})` });
  }
  if (embedding.provider !== "openai_compatible") return;
  if (embedding.model === "") issues.push({ path: ["embedding", "model"], message: "is required when provider is openai_compatible" });
  if (embedding.baseUrl === "") {
    issues.push({ path: ["embedding", "baseUrl"], message: "is required when provider is openai_compatible (e.g. https://api.example.com/v1)" });
  } else if (!isHttpUrl(embedding.baseUrl)) {
    issues.push({ path: ["embedding", "baseUrl"], message: `must be an http:// or https:// URL (got ${JSON.stringify(embedding.baseUrl.slice(0, 80))})` });
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** Throws ConfigError listing every problem; used by the settings route and tests. */
export function parseConfig(raw: unknown): PluginConfig {
  const result = validateConfig(raw);
  if ("issues" in result) throw new ConfigError(result.issues);
  return result.value;
}

/** The `Config` export: a Standard Schema v1 object, validated synchronously by Cordis. */
export const Config = {
  "~standard": {
    version: 1 as const,
    vendor: "dsh-dream",
    validate: (value: unknown) => validateConfig(unwrapVolatile(value)),
  },
};

/**
 * DSH ≥ 0.1.7 may hand volatile fields as wrappers with `.get()`; read through them so either
 * generation of host gives plain values.
 */
export function unwrapVolatile(value: unknown): unknown {
  if (value !== null && typeof value === "object") {
    const getter = (value as { get?: unknown }).get;
    // A wrapper (cosmokit's createVolatile) has `get` and otherwise only symbol keys.
    const keys = Object.keys(value);
    if (typeof getter === "function" && !Array.isArray(value) && keys.every((key) => key === "get")) return unwrapVolatile((getter as () => unknown).call(value));
    if (Array.isArray(value)) return value.map(unwrapVolatile);
    const out: Rec = {};
    for (const [key, inner] of Object.entries(value)) out[key] = unwrapVolatile(inner);
    return out;
  }
  return value;
}

class Checker {
  constructor(private readonly issues: ConfigIssue[]) {}

  /** `allowed` null: the keys are data (scope names), checked by the caller. */
  object(value: unknown, path: string[], allowed: string[] | null): Rec {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      this.issues.push({ path, message: "must be an object" });
      return {};
    }
    for (const key of Object.keys(value)) {
      if (allowed && !allowed.includes(key)) this.issues.push({ path: [...path, key], message: `is not a known setting; allowed: ${allowed.join(", ")}` });
    }
    return value as Rec;
  }

  /** The bridge's own rule for a scope name ("global", "project:<name>"). */
  scope(name: string, path: string[]): boolean {
    try {
      validateScope(name);
      return true;
    } catch {
      this.issues.push({ path, message: `is not a scope: use "global" or "project:<name>" (got ${show(name)})` });
      return false;
    }
  }

  boolean(value: unknown, path: string[], fallback: boolean): boolean {
    if (value === undefined) return fallback;
    if (typeof value !== "boolean") this.issues.push({ path, message: `must be true or false (got ${show(value)})` });
    return value === true;
  }

  string(value: unknown, path: string[], fallback: string): string {
    if (value === undefined) return fallback;
    if (typeof value !== "string") {
      this.issues.push({ path, message: `must be a string (got ${show(value)})` });
      return fallback;
    }
    return value.trim();
  }

  oneOf<T extends string>(value: unknown, path: string[], allowed: readonly T[], fallback: T): T {
    if (value === undefined) return fallback;
    if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
      this.issues.push({ path, message: `must be one of ${allowed.map((a) => `"${a}"`).join(", ")} (got ${show(value)})` });
      return fallback;
    }
    return value as T;
  }

  int(value: unknown, path: string[], min: number, max: number, fallback: number): number {
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      this.issues.push({ path, message: `must be an integer from ${min} to ${max} (got ${show(value)})` });
      return fallback;
    }
    return value;
  }

  stringList(value: unknown, path: string[], fallback: string[]): string[] {
    if (value === undefined) return fallback;
    if (!Array.isArray(value)) {
      this.issues.push({ path, message: `must be a list of strings (got ${show(value)})` });
      return fallback;
    }
    const out: string[] = [];
    value.forEach((item, i) => {
      if (typeof item !== "string" || item.trim() === "") this.issues.push({ path: [...path, String(i)], message: `must be a non-empty string (got ${show(item)})` });
      else out.push(item.trim());
    });
    return out;
  }
}

function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : String(value);
}

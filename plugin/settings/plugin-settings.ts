// The settings in force: the row's `config` from cordis.patch.yml, overlaid with what the user
// saved from the settings panel, plus the write-only embedding API key. Every change is validated
// whole before anything is saved, and listeners hear about it (capture and recall read settings
// live; the bridge is reconfigured).
import { ConfigError, parseConfig, type ConfigIssue, type PluginConfig } from "../config";
import type { SavedSecrets, SettingsPersistence } from "./settings-store";

type Json = Record<string, unknown>;

/** What the outside world may know about a secret: whether it is set. */
export type SecretsStatus = {
  embeddingApiKey: { set: boolean };
};

export type SecretsPatch = { embeddingApiKey?: string | null };

export type SettingsListener = (next: PluginConfig, previous: PluginConfig, changed: { embeddingApiKey: boolean }) => void | Promise<void>;

const MAX_KEY_CHARS = 4096;

export class PluginSettings {
  private current: PluginConfig;
  private overrides: Json;
  private secrets: SavedSecrets;
  private readonly listeners = new Set<SettingsListener>();

  constructor(private readonly rowConfig: PluginConfig, private readonly store: SettingsPersistence | undefined) {
    const saved = store?.load() ?? { overrides: {}, secrets: {} };
    this.overrides = saved.overrides;
    this.secrets = saved.secrets;
    try {
      this.current = parseConfig(deepMerge(rowConfig as unknown as Json, this.overrides));
    } catch (error) {
      if (error instanceof ConfigError && store) error.message = `${store.filePath}: ${error.message}`;
      throw error;
    }
  }

  effective(): PluginConfig {
    return this.current;
  }

  secretsStatus(): SecretsStatus {
    return { embeddingApiKey: { set: this.secrets.embeddingApiKey !== undefined } };
  }

  /** The saved embedding API key, for the bridge's environment only. */
  embeddingApiKey(): string | undefined {
    return this.secrets.embeddingApiKey;
  }

  /**
   * Applies a partial change of settings and/or secrets; throws ConfigError (nothing saved or
   * changed) when any part is invalid. A secret set to null is removed.
   */
  async update(patch: unknown, secretsPatch?: unknown): Promise<PluginConfig> {
    if (patch !== undefined && (patch === null || typeof patch !== "object" || Array.isArray(patch))) {
      throw new ConfigError([{ path: ["settings"], message: "must be an object of settings to change" }]);
    }
    const secrets = applySecrets(this.secrets, secretsPatch);
    const overrides = patch === undefined ? this.overrides : deepMerge(this.overrides, patch as Json);
    const next = parseConfig(deepMerge(this.rowConfig as unknown as Json, overrides));
    this.store?.save({ overrides, secrets });
    this.overrides = overrides;
    const keyChanged = secrets.embeddingApiKey !== this.secrets.embeddingApiKey;
    this.secrets = secrets;
    const previous = this.current;
    this.current = next;
    for (const listener of this.listeners) await listener(next, previous, { embeddingApiKey: keyChanged });
    return next;
  }

  onChange(listener: SettingsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function applySecrets(current: SavedSecrets, patch: unknown): SavedSecrets {
  if (patch === undefined) return current;
  const issues: ConfigIssue[] = [];
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    throw new ConfigError([{ path: ["secrets"], message: "must be an object such as { embeddingApiKey: \"…\" }" }]);
  }
  const next: SavedSecrets = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (key !== "embeddingApiKey") {
      issues.push({ path: ["secrets", key], message: "is not a known secret; allowed: embeddingApiKey" });
    } else if (value === null) {
      delete next.embeddingApiKey;
    } else if (typeof value !== "string" || value.length === 0 || value.length > MAX_KEY_CHARS || /[\s\u0000-\u001f]/.test(value)) {
      // The value itself is never echoed, not even in an error.
      issues.push({ path: ["secrets", "embeddingApiKey"], message: `must be the key as one line of 1–${MAX_KEY_CHARS} characters without spaces, or null to remove it` });
    } else {
      next.embeddingApiKey = value;
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return next;
}

/**
 * Objects whose keys are data, not settings: a patch holding one replaces it whole, so a scope
 * removed in the panel (which sends every scope it shows) is gone, from the overrides and the row's.
 */
const REPLACED_WHOLE = new Set(["privacy.retention.scopes"]);

/** Objects merge key by key (except those in REPLACED_WHOLE); arrays and scalars replace. */
export function deepMerge(base: Json, patch: Json, at = ""): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const prior = out[key];
    const path = at + key;
    out[key] = isObject(prior) && isObject(value) && !REPLACED_WHOLE.has(path) ? deepMerge(prior, value, `${path}.`) : value;
  }
  return out;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

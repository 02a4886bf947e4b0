// The settings in force: the row's `config` from cordis.patch.yml, overlaid with what the user
// saved from the settings panel. Every change is validated whole before anything is saved, and
// listeners hear about it (capture and recall read settings live; the bridge is reconfigured).
import { ConfigError, parseConfig, type PluginConfig } from "../config";
import type { SettingsPersistence } from "./settings-store";

type Json = Record<string, unknown>;

export class PluginSettings {
  private current: PluginConfig;
  private overrides: Json;
  private readonly listeners = new Set<(next: PluginConfig, previous: PluginConfig) => void | Promise<void>>();

  constructor(private readonly rowConfig: PluginConfig, private readonly store: SettingsPersistence | undefined) {
    this.overrides = store?.load() ?? {};
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

  /** Applies a partial change; throws ConfigError (nothing saved or changed) when it is invalid. */
  async update(patch: unknown): Promise<PluginConfig> {
    if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
      throw new ConfigError([{ path: ["settings"], message: "must be an object of settings to change" }]);
    }
    const overrides = deepMerge(this.overrides, patch as Json);
    const next = parseConfig(deepMerge(this.rowConfig as unknown as Json, overrides));
    this.store?.save(overrides);
    this.overrides = overrides;
    const previous = this.current;
    this.current = next;
    for (const listener of this.listeners) await listener(next, previous);
    return next;
  }

  onChange(listener: (next: PluginConfig, previous: PluginConfig) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Objects merge key by key; arrays and scalars replace. */
export function deepMerge(base: Json, patch: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const prior = out[key];
    out[key] = isObject(prior) && isObject(value) ? deepMerge(prior, value) : value;
  }
  return out;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

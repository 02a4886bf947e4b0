// Persists what a user saves from the DSH settings panel, in the data directory (`settings.json`,
// readable by the user alone): the setting overrides, and the embedding API key, which lives
// nowhere else (never in cordis.patch.yml, never in a reply or a log). `conf` is the library
// electron-store is built on: same file format and API, without Electron, which DSH's Node host
// does not have.
import Conf from "conf";

export interface SavedSecrets {
  embeddingApiKey?: string;
}

export interface SavedSettings {
  overrides: Record<string, unknown>;
  secrets: SavedSecrets;
}

export interface SettingsPersistence {
  /** What was saved; empty overrides and no secrets when nothing was. */
  load(): SavedSettings;
  save(saved: SavedSettings): void;
  readonly filePath: string;
}

export function openSettingsStore(dataDir: string): SettingsPersistence {
  const conf = new Conf<Record<string, unknown>>({
    cwd: dataDir,
    configName: "settings",
    projectName: "dsh-dream",
    configFileMode: 0o600,
    // A hand-broken file must be reported, not silently replaced by defaults.
    clearInvalidConfig: false,
    accessPropertiesByDotNotation: false,
    watch: false,
    // A file saved by Notepad or Windows PowerShell may start with a BOM, which JSON.parse refuses.
    deserialize: (text: string) => JSON.parse(text.replace(/^\uFEFF/, "")) as Record<string, unknown>,
  });
  return {
    filePath: conf.path,
    load: () => {
      const stored = structuredClone(conf.store);
      const overrides = stored.settings;
      const secrets = stored.secrets;
      return {
        overrides: isObject(overrides) ? overrides : {},
        secrets: isObject(secrets) && typeof secrets.embeddingApiKey === "string" ? { embeddingApiKey: secrets.embeddingApiKey } : {},
      };
    },
    save: ({ overrides, secrets }) => {
      conf.store = Object.keys(secrets).length > 0 ? { settings: overrides, secrets } : { settings: overrides };
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

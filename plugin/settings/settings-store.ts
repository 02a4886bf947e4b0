// Persists the settings a user saves from the DSH settings panel, in the data directory
// (`settings.json`, readable by the user alone). `conf` is the library electron-store is built on:
// same file format and API, without Electron, which DSH's Node host does not have.
import Conf from "conf";

export interface SettingsPersistence {
  /** The saved overrides (partial config); {} when nothing was saved. */
  load(): Record<string, unknown>;
  save(overrides: Record<string, unknown>): void;
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
  });
  return {
    filePath: conf.path,
    load: () => structuredClone(conf.store),
    save: (overrides) => {
      conf.store = overrides;
    },
  };
}

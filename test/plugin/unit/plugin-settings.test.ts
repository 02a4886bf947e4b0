// How saved settings combine with the row's: objects merge key by key, except the per-scope
// retention limits, whose keys are scope names: a save holding them replaces them whole.
import { parseConfig } from "../../../plugin/config";
import { deepMerge, PluginSettings } from "../../../plugin/settings/plugin-settings";
import type { SavedSettings } from "../../../plugin/settings/settings-store";

function settingsOver(row: unknown, overrides: Record<string, unknown> = {}): { settings: PluginSettings; saved: SavedSettings[] } {
  const saved: SavedSettings[] = [];
  const settings = new PluginSettings(parseConfig(row), { filePath: "(memory)", load: () => ({ overrides, secrets: {} }), save: (value) => void saved.push(structuredClone(value)) });
  return { settings, saved };
}

describe("merging saved settings", () => {
  it("merges objects key by key, and replaces privacy.retention.scopes whole", () => {
    const base = { privacy: { redactSecrets: true, retention: { maxAgeDays: 30, scopes: { global: { maxAgeDays: 7 }, "project:a": { maxMemories: 5 } } } } };
    const patch = { privacy: { retention: { scopes: { "project:a": { maxAgeDays: 1 } } } } };
    expect(deepMerge(base, patch)).toEqual({ privacy: { redactSecrets: true, retention: { maxAgeDays: 30, scopes: { "project:a": { maxAgeDays: 1 } } } } });
  });

  it("removes a scope the panel no longer sends, from the saved overrides and from the row's own config", async () => {
    const row = { privacy: { retention: { scopes: { global: { maxAgeDays: 365 } } } } };
    const { settings, saved } = settingsOver(row, { privacy: { retention: { scopes: { "project:a": { maxAgeDays: 7 }, "project:b": { maxMemories: 9 } } } } });
    expect(settings.effective().privacy.retention.scopes).toEqual({ "project:a": { maxAgeDays: 7 }, "project:b": { maxMemories: 9 } });

    const next = await settings.update({ privacy: { retention: { scopes: { "project:b": { maxMemories: 9 } } } } });
    expect(next.privacy.retention.scopes).toEqual({ "project:b": { maxMemories: 9 } });
    expect(saved.at(-1)!.overrides).toEqual({ privacy: { retention: { scopes: { "project:b": { maxMemories: 9 } } } } });

    await settings.update({ privacy: { retention: { scopes: {} } } });
    expect(settings.effective().privacy.retention.scopes).toEqual({});
  });

  it("keeps the scopes when a save does not mention them", async () => {
    const { settings } = settingsOver({}, { privacy: { retention: { scopes: { "project:a": { maxAgeDays: 7 } } } } });
    await settings.update({ privacy: { retention: { maxAgeDays: 90 } } });
    expect(settings.effective().privacy.retention).toEqual({ maxAgeDays: 90, maxMemories: 0, scopes: { "project:a": { maxAgeDays: 7 } } });
  });
});

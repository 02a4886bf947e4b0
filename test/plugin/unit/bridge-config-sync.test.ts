// The plugin's settings carried into bridge-config.json: the embedding and privacy sections as the
// bridge reads them, the sections it does not own kept, and the file rewritten only on a change.
import fs from "node:fs";
import path from "node:path";
import { loadBridgeConfig } from "../../../bridge/server/bridge-config";
import { DreamError } from "../../../bridge/protocol/errors";
import { syncBridgeConfig } from "../../../plugin/bridge-config-sync";
import { DEFAULT_CONFIG, parseConfig, type PluginConfig } from "../../../plugin/config";
import { tempDir } from "../../store/helpers";

const PRIVATE: PluginConfig["privacy"] = {
  redactSecrets: false,
  retention: { maxAgeDays: 365, maxMemories: 10_000, scopes: { "project:demo": { maxAgeDays: 30 }, global: { maxMemories: 200 } } },
  audit: { keepQueryText: false, maxAgeDays: 90, maxMegabytes: 16 },
};

const fileOf = (dataDir: string) => path.join(dataDir, "bridge-config.json");
const readFile = (dataDir: string) => JSON.parse(fs.readFileSync(fileOf(dataDir), "utf8"));

describe("syncing the plugin's settings into bridge-config.json", () => {
  it("writes the privacy section, which the bridge then reads as the plugin holds it (a scope keeps only the limits it sets)", () => {
    const dataDir = tempDir("sync-");
    expect(syncBridgeConfig(dataDir, { ...DEFAULT_CONFIG, privacy: PRIVATE })).toBe(true);
    expect(readFile(dataDir).privacy).toEqual(PRIVATE);
    expect(loadBridgeConfig(dataDir).privacy).toEqual(PRIVATE);
  });

  it("keeps the sections it does not own, such as chroma, and rewrites the file when only privacy changed", () => {
    const dataDir = tempDir("sync-");
    const chroma = { mode: "external", url: "http://127.0.0.1:8000", headers: { "x-chroma-token": "t" } };
    fs.writeFileSync(fileOf(dataDir), JSON.stringify({ chroma }));
    expect(syncBridgeConfig(dataDir, DEFAULT_CONFIG)).toBe(true);
    const first = readFile(dataDir);
    expect(first).toMatchObject({ chroma, embedding: { provider: "local" }, privacy: DEFAULT_CONFIG.privacy });

    const changed = parseConfig({ privacy: { audit: { keepQueryText: false } } });
    expect(syncBridgeConfig(dataDir, changed)).toBe(true);
    expect(readFile(dataDir)).toEqual({ chroma, embedding: first.embedding, privacy: changed.privacy });
  });

  it("leaves the file untouched when nothing it owns differs", () => {
    const dataDir = tempDir("sync-");
    expect(syncBridgeConfig(dataDir, { ...DEFAULT_CONFIG, privacy: PRIVATE })).toBe(true);
    const before = fs.statSync(fileOf(dataDir));
    fs.utimesSync(fileOf(dataDir), new Date(0), new Date(0));
    expect(syncBridgeConfig(dataDir, { ...DEFAULT_CONFIG, privacy: structuredClone(PRIVATE) })).toBe(false);
    const after = fs.statSync(fileOf(dataDir));
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, 0]);
  });

  it("writes nothing when the bridge would refuse the result, naming the bad field", () => {
    const dataDir = tempDir("sync-");
    const broken = JSON.stringify({ chroma: { mode: "remote" } });
    fs.writeFileSync(fileOf(dataDir), broken);
    let thrown: unknown;
    try {
      syncBridgeConfig(dataDir, { ...DEFAULT_CONFIG, privacy: PRIVATE });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DreamError);
    expect((thrown as DreamError).field).toBe("chroma.mode");
    expect(fs.readFileSync(fileOf(dataDir), "utf8")).toBe(broken);
    expect(fs.readdirSync(dataDir)).toEqual(["bridge-config.json"]);
  });
});

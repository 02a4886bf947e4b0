// Carries the plugin's embedding and privacy settings into the bridge's own config file
// (bridge-config.json), keeping the sections the plugin does not own (Chroma). Written atomically,
// only when different, so an unchanged setting never restarts the bridge or re-embeds anything.
import fs from "node:fs";
import path from "node:path";
import { CONFIG_FILE, parseBridgeConfig } from "../bridge/server/bridge-config";
import { DreamError } from "../bridge/protocol/errors";
import { readTextFile } from "../bridge/protocol/text-files";
import type { PluginConfig } from "./config";
import { renameWithRetry } from "../bridge/store/fs-retry";
import { makeDirectory } from "../bridge/store/make-dir";

type Json = Record<string, unknown>;

export function embeddingSection(embedding: PluginConfig["embedding"]): Json {
  const section: Json = { provider: embedding.provider, reembed_on_dimension_mismatch: embedding.reembedOnDimensionMismatch };
  if (embedding.model !== "") section.model = embedding.model;
  if (embedding.baseUrl !== "") section.base_url = embedding.baseUrl;
  if (embedding.apiKeyEnv !== "") section.api_key_env = embedding.apiKeyEnv;
  return section;
}

/** The sections of bridge-config.json the plugin owns: what the bridge reads of its settings at start. */
export function bridgeSections(config: Pick<PluginConfig, "embedding" | "privacy">): { embedding: Json; privacy: Json } {
  // The privacy section has the bridge's shape already (plugin/config.ts validates it as the bridge does).
  return { embedding: embeddingSection(config.embedding), privacy: { ...config.privacy } };
}

/** Writes the embedding and privacy sections if either differs from the file's; returns whether it changed. */
export function syncBridgeConfig(dataDir: string, config: Pick<PluginConfig, "embedding" | "privacy">): boolean {
  const file = path.join(dataDir, CONFIG_FILE);
  const current = readJson(file);
  const wanted = bridgeSections(config);
  const same = (Object.keys(wanted) as Array<keyof typeof wanted>).every((key) => JSON.stringify(current[key] ?? null) === JSON.stringify(wanted[key]));
  if (same) return false;
  const next = { ...current, ...wanted };
  parseBridgeConfig(next, file, dataDir); // the bridge would refuse it: say so here, write nothing
  makeDirectory(dataDir);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 });
  renameWithRetry(temp, file);
  return true;
}

function readJson(file: string): Json {
  if (!fs.existsSync(file)) return {};
  const text = readTextFile(file);
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Json;
  } catch {
    // reported below
  }
  throw new DreamError("BAD_JSON", `${file} is not a JSON object; fix or delete it (the plugin will not overwrite it)`);
}

// The "embedding" section of bridge-config.json: which provider embeds memories and queries, and what
// to do when a new model's dimension differs from the stored vectors'. Secrets come from the
// environment variable it names, never from argv, and never appear in status or errors.
import path from "node:path";
import { DreamError } from "../protocol/errors";
import { describe, isPlainObject } from "../store/records";
import { DEFAULT_LOCAL_MODEL } from "./model-files";

export interface EmbeddingConfig {
  provider: "local" | "openai_compatible" | "off";
  model: string;
  modelDir: string;
  baseUrl?: string;
  apiKeyEnv: string;
  dimensions?: number;
  reembedOnDimensionMismatch: boolean;
}

export const DEFAULT_API_KEY_ENV = "DSH_DREAM_EMBEDDING_API_KEY";

export function defaultEmbeddingConfig(dataDir: string): EmbeddingConfig {
  return { provider: "local", model: DEFAULT_LOCAL_MODEL, modelDir: path.join(dataDir, "models"), apiKeyEnv: DEFAULT_API_KEY_ENV, reembedOnDimensionMismatch: true };
}

export function parseEmbeddingConfig(value: unknown, dataDir: string, source: string): EmbeddingConfig {
  const config = defaultEmbeddingConfig(dataDir);
  if (value === undefined) return config;
  if (!isPlainObject(value)) throw invalid(source, "embedding", "must be an object");
  const allowed = ["provider", "model", "model_dir", "base_url", "api_key_env", "dimensions", "reembed_on_dimension_mismatch"];
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalid(source, `embedding.${key}`, `is not a known setting; allowed: ${allowed.map((k) => "embedding." + k).join(", ")}`);
  }
  if (value.provider !== undefined) {
    if (value.provider !== "local" && value.provider !== "openai_compatible" && value.provider !== "off") {
      throw invalid(source, "embedding.provider", `must be "local", "openai_compatible" or "off" (got ${describe(value.provider)})`);
    }
    config.provider = value.provider;
  }
  if (value.model !== undefined) config.model = requireText(value.model, source, "embedding.model");
  else if (config.provider === "openai_compatible") throw invalid(source, "embedding.model", "is required for openai_compatible");
  if (value.model_dir !== undefined) config.modelDir = path.resolve(dataDir, requireText(value.model_dir, source, "embedding.model_dir"));
  if (value.base_url !== undefined) config.baseUrl = requireText(value.base_url, source, "embedding.base_url");
  else if (config.provider === "openai_compatible") throw invalid(source, "embedding.base_url", "is required for openai_compatible");
  if (value.api_key_env !== undefined) {
    const name = requireText(value.api_key_env, source, "embedding.api_key_env");
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw invalid(source, "embedding.api_key_env", "must be the name of an environment variable");
    config.apiKeyEnv = name;
  }
  if (value.dimensions !== undefined) {
    if (typeof value.dimensions !== "number" || !Number.isInteger(value.dimensions) || value.dimensions < 1 || value.dimensions > 4096) {
      throw invalid(source, "embedding.dimensions", "must be an integer from 1 to 4096");
    }
    config.dimensions = value.dimensions;
  }
  if (value.reembed_on_dimension_mismatch !== undefined) {
    if (typeof value.reembed_on_dimension_mismatch !== "boolean") throw invalid(source, "embedding.reembed_on_dimension_mismatch", "must be true or false");
    config.reembedOnDimensionMismatch = value.reembed_on_dimension_mismatch;
  }
  return config;
}

function requireText(value: unknown, source: string, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw invalid(source, field, `must be a non-empty string (got ${describe(value)})`);
  return value;
}

function invalid(source: string, field: string, problem: string): DreamError {
  return new DreamError("INVALID_FIELD", `${source}: ${field} ${problem}`, { field });
}

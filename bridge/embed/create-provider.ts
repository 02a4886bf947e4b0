// Builds the configured embedding provider. The API key is read here, from the environment variable
// the config names, and handed to the provider only; it is never stored in config, status or logs.
import type { EmbeddingConfig } from "./embedding-config";
import { LocalProvider } from "./local-provider";
import { OpenAiCompatibleProvider } from "./openai-provider";
import type { EmbeddingProvider } from "./provider";

export function createProvider(config: EmbeddingConfig, env: Readonly<Record<string, string | undefined>>): EmbeddingProvider | undefined {
  if (config.provider === "off") return undefined;
  if (config.provider === "local") return new LocalProvider({ model: config.model, modelDir: config.modelDir });
  return new OpenAiCompatibleProvider({
    baseUrl: config.baseUrl!,
    model: config.model,
    apiKey: env[config.apiKeyEnv],
    dimensions: config.dimensions,
  });
}

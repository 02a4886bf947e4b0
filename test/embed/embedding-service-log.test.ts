// The bridge retries an unavailable provider every few seconds (the model may be downloaded at any
// time); its log says when the state changes, not on every retry.
import { EmbeddingService } from "../../bridge/embed/embedding-service";
import { EmbeddingUnavailable, type EmbeddingBinding, type EmbeddingProvider } from "../../bridge/embed/provider";
import { openStore } from "../store/helpers";

const BINDING: EmbeddingBinding = { provider: "local", model: "org/m", dim: 4, modelDigest: "sha256:x", configHash: "h" };

function flakyProvider(outcomes: Array<"missing" | "ready">): EmbeddingProvider & { opens: number } {
  const provider = {
    kind: "local" as const,
    opens: 0,
    async open() {
      const outcome = outcomes[Math.min(provider.opens++, outcomes.length - 1)];
      if (outcome === "missing") throw new EmbeddingUnavailable("model_not_cached", "Model org/m is not in /models (missing config.json)");
      return BINDING;
    },
    async embed(texts: string[]) {
      return texts.map(() => new Float32Array([1, 0, 0, 0]));
    },
    async close() {},
  };
  return provider;
}

describe("the embedder's log while a model is missing", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("logs the unavailable state once across many retries, then once when the model arrives", async () => {
    const provider = flakyProvider(["missing", "missing", "missing", "missing", "missing", "ready"]);
    const lines: string[] = [];
    const store = openStore();
    const service = new EmbeddingService(store, provider, { provider: "local", model: "org/m", modelDir: "/models", apiKeyEnv: "X", reembedOnDimensionMismatch: true }, { log: (line) => lines.push(line), spaceDropped: () => {} });
    await service.start();
    for (let retry = 0; retry < 5; retry++) await jest.advanceTimersByTimeAsync(5_000);

    expect(provider.opens).toBe(6);
    expect(lines).toEqual(["embedding unavailable (model_not_cached): Model org/m is not in /models (missing config.json)", "embedding ready: local/org/m (4 dims)"]);
    expect(service.status()).toMatchObject({ state: "ready", reason: null, message: null });
    await service.stop();
    store.close();
  });
});

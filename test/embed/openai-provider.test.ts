// OpenAiCompatibleProvider against a real local server speaking the OpenAI embeddings protocol:
// batching and order, normalisation, retries, timeouts, the errors a user sees, and the key kept out.
import util from "node:util";
import { OpenAiCompatibleProvider, type OpenAiCompatibleOptions } from "../../bridge/embed/openai-provider";
import { EmbeddingUnavailable } from "../../bridge/embed/provider";
import { DreamError } from "../../bridge/protocol/errors";
import { OpenAiEmbeddingsServer, vectorFor } from "../fixtures/openai-embeddings-server";

const KEY = "sk-test-Zq8Lw3Xv9Rk2Mn7Pd4Hy";
const MODEL = "test-embed";

function unit(values: number[]): number[] {
  const norm = Math.hypot(...values);
  return values.map((value) => Math.fround(value / norm));
}

function norm(vector: Float32Array): number {
  return Math.hypot(...vector);
}

/** The rejection of `promise`, checked to be a provider_error and to hold no trace of the key. */
async function providerError(promise: Promise<unknown>): Promise<EmbeddingUnavailable> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(EmbeddingUnavailable);
  const failure = error as EmbeddingUnavailable;
  expect(failure.reason).toBe("provider_error");
  for (const text of [failure.message, failure.stack ?? "", JSON.stringify(failure), util.inspect(failure, { showHidden: true, depth: 9 })]) {
    expect(text).not.toContain(KEY.slice(0, 12));
    expect(text).not.toContain(KEY.slice(-4));
  }
  return failure;
}

describe("OpenAiCompatibleProvider against a local OpenAI-protocol server", () => {
  let server: OpenAiEmbeddingsServer;
  const providers: OpenAiCompatibleProvider[] = [];
  const provider = (options: Partial<OpenAiCompatibleOptions> = {}): OpenAiCompatibleProvider => {
    const created = new OpenAiCompatibleProvider({ baseUrl: server.baseUrl, model: MODEL, apiKey: KEY, ...options });
    providers.push(created);
    return created;
  };

  beforeEach(async () => {
    server = await OpenAiEmbeddingsServer.start({ dims: 8, apiKey: KEY, models: [MODEL, "other-embed"] });
  });
  afterEach(async () => {
    await Promise.all(providers.splice(0).map((p) => p.close()));
    await server.close();
  });

  it("opens with one probe request and a binding that holds no key", async () => {
    const binding = await provider().open();
    expect(binding).toEqual({ provider: "openai_compatible", model: MODEL, dim: 8, modelDigest: null, configHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(server.requests).toEqual([{ method: "POST", path: "/v1/embeddings", body: { model: MODEL, input: ["dimension probe"] }, auth: "matched" }]);
    expect(JSON.stringify(binding)).not.toContain(KEY.slice(-4));
  });

  it("splits inputs at batchSize and returns unit vectors in input order, though the server answers reversed", async () => {
    const texts = ["蓝色马克杯", "blue mug", "keys on the hook", "钥匙", "a", "b", "c"];
    const vectors = await provider({ batchSize: 3 }).embed(texts);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input)).toEqual([texts.slice(0, 3), texts.slice(3, 6), texts.slice(6)]);
    expect(vectors.map((v) => Array.from(v))).toEqual(texts.map((text) => unit(vectorFor(text, 8))));
    for (const vector of vectors) expect(norm(vector)).toBeCloseTo(1, 6);
  });

  it("gives identical vectors for identical texts, within a call and across calls", async () => {
    const p = provider();
    const [a, b, c] = await p.embed(["same text", "other text", "same text"]);
    const [again] = await p.embed(["same text"]);
    expect(Array.from(c)).toEqual(Array.from(a));
    expect(Array.from(again)).toEqual(Array.from(a));
    expect(Array.from(b)).not.toEqual(Array.from(a));
  });

  it("sends dimensions only when set, and no Authorization header without a key", async () => {
    await provider({ dimensions: 16 }).embed(["x"]);
    server.apiKey = undefined;
    await provider({ apiKey: "" }).embed(["y"]);
    expect(server.requests.map((r) => [r.body, r.auth])).toEqual([
      [{ model: MODEL, input: ["x"], dimensions: 16 }, "matched"],
      [{ model: MODEL, input: ["y"] }, "none"],
    ]);
  });

  it("makes no request for an empty input list", async () => {
    await expect(provider().embed([])).resolves.toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it("retries a 429 after the Retry-After wait and then succeeds", async () => {
    server.failNext(1, 429, { retryAfterS: 1 });
    const started = Date.now();
    const [vector] = await provider().embed(["rate limited once"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
    expect(Array.from(vector)).toEqual(unit(vectorFor("rate limited once", 8)));
  });

  it("gives up on repeated 500s after maxRetries with a provider_error", async () => {
    server.failNext(10, 500);
    const error = await providerError(provider({ maxRetries: 2 }).embed(["x"]));
    expect(error.message).toBe(`${new URL(server.baseUrl).host} failed (HTTP 500) after 3 attempts: scripted HTTP 500`);
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry a 400, and drops any word of the server's message that quotes the key", async () => {
    server.failNext(1, 400, { message: `input too long for key ${KEY.slice(3, 15)}... in request` });
    const error = await providerError(provider().embed(["x"]));
    expect(error.message).toMatch(/rejected the request \(HTTP 400\): input too long for key \[redacted\] in request$/);
    expect(server.requests).toHaveLength(1);
  });

  it("reports a wrong key as an authentication failure without a trace of either key", async () => {
    const wrong = new OpenAiCompatibleProvider({ baseUrl: server.baseUrl, model: MODEL, apiKey: "sk-wrong-Kf93Jd02Lq" });
    providers.push(wrong);
    const error = await providerError(wrong.open());
    expect(error.message).toBe("authentication failed (HTTP 401) — check the embedding API key");
    expect(error.message + error.stack + JSON.stringify(error)).not.toMatch(/Kf93|2Lq|sk-wr/);
    expect(server.requests.map((r) => r.auth)).toEqual(["wrong"]);
    expect(JSON.stringify(wrong) + util.inspect(wrong, { showHidden: true })).not.toMatch(/Kf93|2Lq/);
  });

  it("reports an unknown model as not found and names the host", async () => {
    const error = await providerError(provider({ model: "no-such-model" }).open());
    const host = new URL(server.baseUrl).host;
    expect(error.message).toBe(`model or endpoint not found (HTTP 404) at ${host} (model "no-such-model")`);
    expect(server.requests).toHaveLength(1);
  });

  it("gives up on a slow answer at timeoutMs, long before the server would answer, without retrying", async () => {
    server.delayMs = 10_000;
    const started = Date.now();
    const error = await providerError(provider({ timeoutMs: 300 }).embed(["slow"]));
    expect(error.message).toBe(`no answer within 300 ms from ${new URL(server.baseUrl).host}`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
    await expect(providerError(provider().embed(["slow"], { timeoutMs: 200 }))).resolves.toHaveProperty("message", expect.stringContaining("within 200 ms"));
  });

  it("refuses vectors whose dimension differs from the one learned at open", async () => {
    const p = provider();
    await p.open();
    server.dims = 12;
    const error = await providerError(p.embed(["after a model swap"]));
    expect(error.message).toBe("the provider returned 12-dimensional vectors, expected 8");
  });

  it("refuses vectors whose dimension differs from the dimensions requested", async () => {
    server.tamperNext("wrong_dim");
    const error = await providerError(provider({ dimensions: 16 }).open());
    expect(error.message).toBe("the provider returned 17-dimensional vectors, expected 16");
  });

  it.each([
    ["wrong_count", "the provider returned 2 embeddings for 3 inputs"],
    ["ragged", "the provider returned vectors of different lengths in one answer (7 and 8)"],
    ["zero_vector", "the provider returned a zero vector for input 0"],
    ["bad_json", "was not valid JSON (HTTP 200)"],
  ] as const)("refuses a %s answer with a provider_error", async (tamper, message) => {
    server.tamperNext(tamper);
    const error = await providerError(provider().embed(["one", "two", "three"]));
    expect(error.message).toContain(message);
    expect(server.requests).toHaveLength(1);
  });

  it("retries an unreachable endpoint and then says it could not reach the host", async () => {
    const gone = server.baseUrl;
    await server.close();
    server = await OpenAiEmbeddingsServer.start();
    const error = await providerError(new OpenAiCompatibleProvider({ baseUrl: gone, model: MODEL, apiKey: KEY, maxRetries: 1 }).embed(["x"]));
    expect(error.message).toBe(`could not reach ${new URL(gone).host} (ECONNREFUSED) after 2 attempts`);
  });

  it("aborts an in-flight request on close and refuses calls afterwards", async () => {
    server.delayMs = 10_000;
    const p = provider();
    const pending = providerError(p.embed(["in flight"]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await p.close();
    expect((await pending).message).toBe("the embedding provider was closed");
    expect((await providerError(p.embed(["later"]))).message).toBe("the embedding provider was closed");
    expect(server.requests).toHaveLength(1);
  });

  it("binds vectors to base URL, model and dimensions but not to the key", async () => {
    server.apiKey = undefined;
    const second = await OpenAiEmbeddingsServer.start();
    try {
      const hash = async (options: Partial<OpenAiCompatibleOptions>): Promise<string> => (await provider(options).open()).configHash;
      const base = await hash({});
      expect(await hash({ apiKey: "sk-another-key-entirely" })).toBe(base);
      expect(await hash({ apiKey: undefined })).toBe(base);
      expect(await hash({ baseUrl: server.baseUrl + "/" })).toBe(base);
      expect(await hash({ model: "other-embed" })).not.toBe(base);
      expect(await hash({ dimensions: 8 })).not.toBe(base);
      expect(await hash({ baseUrl: second.baseUrl })).not.toBe(base);
    } finally {
      await second.close();
    }
  });

  it.each([
    ["not a url", /baseUrl must be an http\(s\) URL such as https:\/\/api\.openai\.com\/v1/],
    ["ftp://example.com/v1", /baseUrl must use http or https \(got "ftp:"\)/],
    ["https://user:sk-hidden-secret@example.com/v1", /baseUrl must not contain credentials; pass the key as apiKey/],
    ["https://example.com/v1?api_key=sk-hidden-secret", /baseUrl must not have a query string or fragment/],
  ])("rejects the base URL %s at construction with a clear message", (baseUrl, message) => {
    const construct = (): unknown => new OpenAiCompatibleProvider({ baseUrl, model: MODEL });
    expect(construct).toThrow(DreamError);
    expect(construct).toThrow(message);
    expect(construct).not.toThrow(/hidden-secret/);
  });

  it("rejects a malformed key or batch size at construction without quoting the key", () => {
    const withKey = (): unknown => new OpenAiCompatibleProvider({ baseUrl: "https://api.openai.com/v1", model: MODEL, apiKey: "sk-line\nbreak" });
    expect(withKey).toThrow("apiKey must be one line of visible ASCII characters");
    expect(withKey).not.toThrow(/sk-line|break/);
    expect(() => new OpenAiCompatibleProvider({ baseUrl: "https://api.openai.com/v1", model: MODEL, batchSize: 0 })).toThrow("batchSize must be an integer >= 1 (got 0)");
  });
});

// LocalProvider against generated tiny BERT models loaded through the real transformers.js path,
// offline: dimensions, unit vectors, padded batches, binding digests, and the three failure reasons.
import childProcess, { type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { LocalProvider } from "../../bridge/embed/local-provider";
import { EmbeddingUnavailable } from "../../bridge/embed/provider";
import { tempDir } from "../store/helpers";
import { makeTinyModels, mixedTexts, snapshotFolder, watchFetch, writeTinyModel, type TinyModels } from "./tiny-model";

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
}

function maxDifference(a: Float32Array, b: Float32Array): number {
  return a.reduce((max, value, i) => Math.max(max, Math.abs(value - b[i])), 0);
}

async function failureOf(promise: Promise<unknown>): Promise<EmbeddingUnavailable> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EmbeddingUnavailable);
  return error as EmbeddingUnavailable;
}

describe("LocalProvider with generated tiny models", () => {
  let models: TinyModels;
  const providers: LocalProvider[] = [];
  const provider = (options: Partial<ConstructorParameters<typeof LocalProvider>[0]> = {}): LocalProvider => {
    const created = new LocalProvider({ model: models.small.model, modelDir: models.modelDir, ...options });
    providers.push(created);
    return created;
  };

  beforeAll(() => {
    models = makeTinyModels();
  });
  afterEach(async () => {
    await Promise.all(providers.splice(0).map((p) => p.close()));
  });

  it("loads two models of different hidden sizes and returns unit vectors of each size", async () => {
    for (const tiny of [models.small, models.large]) {
      const local = provider({ model: tiny.model });
      const binding = await local.open();
      expect(binding).toEqual({ provider: "local", model: tiny.model, dim: tiny.hidden, modelDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), configHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
      const vectors = await local.embed(["hello world", "今天逛街买了一个星巴克的蓝色马克杯。"]);
      expect(vectors.map((v) => v.length)).toEqual([tiny.hidden, tiny.hidden]);
      for (const vector of vectors) expect(norm(vector)).toBeCloseTo(1, 5);
    }
  });

  it("gives identical vectors for identical texts and different vectors for different texts", async () => {
    const [a, again, other, zh] = await provider().embed(["where are my keys?", "where are my keys?", "I bought a blue mug", "钥匙放在鞋柜里"]);
    expect(Array.from(again)).toEqual(Array.from(a));
    expect(maxDifference(a, other)).toBeGreaterThan(1e-2);
    expect(maxDifference(a, zh)).toBeGreaterThan(1e-2);
    expect(Array.from((await provider().embed(["where are my keys?"]))[0])).toEqual(Array.from(a));
  });

  it("embeds a mixed-length Chinese and English batch exactly as it embeds each text alone", async () => {
    const texts = [...mixedTexts(9), "短", "a", "我把钥匙放到了花盆里，then I forgot where the keys were. ".repeat(6)];
    const local = provider({ batchSize: 4 });
    const together = await local.embed(texts);
    expect(together).toHaveLength(texts.length);
    for (const [i, text] of texts.entries()) {
      const [alone] = await local.embed([text]);
      expect(maxDifference(together[i], alone)).toBeLessThan(1e-5);
    }
  });

  it("returns no vectors for no texts", async () => {
    expect(await provider().embed([])).toEqual([]);
  });

  it("binds to the model bytes: the digest follows file contents, not the folder they sit in", async () => {
    const modelDir = tempDir("dream-models-");
    const copy = writeTinyModel(modelDir, "copy/tiny", 32);
    const original = await provider().open();
    const copied = await provider({ model: copy.model, modelDir }).open();
    expect(copied.modelDigest).toBe(original.modelDigest);

    const config = path.join(copy.folder, "tokenizer_config.json");
    fs.writeFileSync(config, fs.readFileSync(config, "utf8").replace('"model_max_length":512', '"model_max_length":256'));
    expect((await provider({ model: copy.model, modelDir }).open()).modelDigest).not.toBe(original.modelDigest);

    writeTinyModel(modelDir, "copy/reseeded", 32, 7);
    expect((await provider({ model: "copy/reseeded", modelDir }).open()).modelDigest).not.toBe(original.modelDigest);
  });

  it("changes configHash, and nothing else but the digest of the file it reads, when quantized changes", async () => {
    const quantized = await provider({ quantized: true }).open();
    const full = await provider({ quantized: false }).open();
    expect(full.configHash).not.toBe(quantized.configHash);
    expect(full.modelDigest).not.toBe(quantized.modelDigest);
    expect({ ...full, configHash: "", modelDigest: "" }).toEqual({ ...quantized, configHash: "", modelDigest: "" });
    expect((await provider({ quantized: true }).open()).configHash).toBe(quantized.configHash);
  });

  it("fails with model_not_cached naming the folder it looked in and the download command", async () => {
    const modelDir = tempDir("dream-empty-");
    const local = provider({ model: "nobody/absent", modelDir });
    const failure = await failureOf(local.open());
    expect(failure.reason).toBe("model_not_cached");
    expect(failure.message).toContain(path.join(modelDir, "nobody", "absent"));
    expect(failure.message).toContain("dsh-dream download-model");
    expect((await failureOf(local.embed(["hello"]))).reason).toBe("model_not_cached");
  });

  it("fails with model_not_cached when one required file is missing, naming that file", async () => {
    const modelDir = tempDir("dream-models-");
    const tiny = writeTinyModel(modelDir, "broken/no-quantized", 32);
    fs.rmSync(path.join(tiny.folder, "onnx", "model_quantized.onnx"));
    const failure = await failureOf(provider({ model: tiny.model, modelDir }).open());
    expect(failure.reason).toBe("model_not_cached");
    expect(failure.message).toContain("onnx/model_quantized.onnx");
    expect((await provider({ model: tiny.model, modelDir, quantized: false }).open()).dim).toBe(32);
  });

  it("fails with runtime_missing when the runtime module cannot be loaded", async () => {
    const failure = await failureOf(provider({ runtimeModule: "@xenova/transformers-not-installed" }).open());
    expect(failure.reason).toBe("runtime_missing");
    expect(failure.message).toContain("@xenova/transformers-not-installed");
  });

  it("embeds where sharp, the image library transformers.js imports at load, is installed without its binary", async () => {
    // The runtime as a broken install leaves it: an ESM module importing a "sharp" that throws on load.
    const dir = tempDir("broken-sharp-");
    const sharpDir = path.join(dir, "node_modules", "sharp");
    fs.mkdirSync(sharpDir, { recursive: true });
    fs.writeFileSync(path.join(sharpDir, "package.json"), JSON.stringify({ name: "sharp", version: "0.32.6", main: "index.js" }));
    fs.writeFileSync(path.join(sharpDir, "index.js"), "throw new Error(\"Something went wrong installing the sharp module: cannot find module '../build/Release/sharp-linux-x64.node'\");\n");
    const transformers = pathToFileURL(require.resolve("@xenova/transformers")).href;
    const runtime = path.join(dir, "runtime.mjs");
    fs.writeFileSync(runtime, `import sharp from "sharp";\nexport * from ${JSON.stringify(transformers)};\n`);
    const plain = childProcess.spawnSync(process.execPath, ["--input-type=module", "-e", `await import(${JSON.stringify(pathToFileURL(runtime).href)})`], { encoding: "utf8" });
    expect(plain.status).not.toBe(0);
    expect(plain.stderr).toContain("Something went wrong installing the sharp module");

    const local = provider({ runtimeModule: runtime });
    expect((await local.open()).dim).toBe(models.small.hidden);
    const [vector] = await local.embed(["今天逛街买了一个星巴克的蓝色马克杯。"]);
    expect(norm(vector!)).toBeCloseTo(1, 5);
  });

  it("fails with provider_error, without fetching, when the model file is not a valid ONNX graph", async () => {
    const modelDir = tempDir("dream-models-");
    const tiny = writeTinyModel(modelDir, "broken/garbage", 32);
    fs.writeFileSync(path.join(tiny.folder, "onnx", "model_quantized.onnx"), "not an onnx graph");
    const fetches = watchFetch();
    const failure = await failureOf(provider({ model: tiny.model, modelDir }).open()).finally(fetches.restore);
    expect(failure.reason).toBe("provider_error");
    expect(failure.message).toContain(tiny.model);
    expect(fetches.calls).toEqual([]);
  });

  it("fails with provider_error when embedding takes longer than timeoutMs", async () => {
    const local = provider();
    await local.open();
    const failure = await failureOf(local.embed(mixedTexts(2000), { timeoutMs: 1 }));
    expect(failure.reason).toBe("provider_error");
    expect(failure.message).toContain("1 ms");
  });

  it("never fetches and writes nothing while opening and embedding", async () => {
    const before = snapshotFolder(models.modelDir);
    const fetches = watchFetch();
    try {
      const local = provider({ model: models.large.model });
      await local.open();
      await local.embed(mixedTexts(40));
    } finally {
      fetches.restore();
    }
    expect(fetches.calls).toEqual([]);
    expect(snapshotFolder(models.modelDir)).toEqual(before);
    const cacheDir = path.join(path.dirname(require.resolve("@xenova/transformers")), "..", ".cache");
    expect(fs.existsSync(cacheDir)).toBe(false);
  });

  it("can be closed and used again: a later embed loads the model anew", async () => {
    const local = provider();
    const [first] = await local.embed(["hello"]);
    await local.close();
    const [second] = await local.embed(["hello"]);
    expect(Array.from(second)).toEqual(Array.from(first));
  });

  it("keeps the main thread's event loop turning while it embeds one large batch", async () => {
    const texts = mixedTexts(3000);
    const local = provider({ batchSize: texts.length });
    await local.open();
    let settled = false;
    let turns = 0;
    let timerFiredWhileEmbedding = false;
    setTimeout(() => (timerFiredWhileEmbedding = !settled), 0);
    const spin = (): void => {
      if (settled) return;
      turns += 1;
      setImmediate(spin);
    };
    setImmediate(spin);
    const vectors = await local.embed(texts).finally(() => (settled = true));
    expect(vectors).toHaveLength(texts.length);
    expect(timerFiredWhileEmbedding).toBe(true);
    expect(turns).toBeGreaterThan(100);
  });

  it("kills its worker process on close, and a later embed starts a fresh one", async () => {
    const spawned = watchSpawn();
    try {
      const local = provider();
      const [first] = await local.embed(["hello"]);
      expect(spawned.children).toHaveLength(1);
      const [worker] = spawned.children;
      await local.close();
      expect(worker.exitCode !== null || worker.signalCode !== null).toBe(true);
      const [second] = await local.embed(["hello"]);
      expect(spawned.children).toHaveLength(2);
      expect(Array.from(second)).toEqual(Array.from(first));
    } finally {
      spawned.restore();
    }
  });

  it("fails calls in flight with provider_error when its worker dies, and recovers with a fresh worker", async () => {
    const spawned = watchSpawn();
    try {
      const local = provider({ batchSize: 4000 });
      await local.open();
      const pending = local.embed(mixedTexts(4000));
      spawned.children[0].kill("SIGKILL");
      const failure = await failureOf(pending);
      expect(failure.reason).toBe("provider_error");
      expect(failure.message).toContain("SIGKILL");
      const [vector] = await local.embed(["hello"]);
      expect(norm(vector)).toBeCloseTo(1, 5);
      expect(spawned.children).toHaveLength(2);
    } finally {
      spawned.restore();
    }
  });
});

/** Records every child process spawned until restored: the provider's worker processes. */
function watchSpawn(): { children: ChildProcess[]; restore(): void } {
  const children: ChildProcess[] = [];
  const original = childProcess.spawn.bind(childProcess) as (...args: unknown[]) => ChildProcess;
  const spy = jest.spyOn(childProcess, "spawn").mockImplementation(((...args: unknown[]) => {
    const child = original(...args);
    children.push(child);
    return child;
  }) as typeof childProcess.spawn);
  return { children, restore: () => spy.mockRestore() };
}

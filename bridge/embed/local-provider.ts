// Provider "local": transformers.js feature extraction (mean pooling, L2 normalisation) over a model
// read only from files already in the model directory. It never downloads; download-model.ts does.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import type { FeatureExtractionPipeline } from "@xenova/transformers";
import { DEFAULT_LOCAL_MODEL, digestModelFiles, missingModelFiles, modelFilesFor, modelFolder } from "./model-files";
import { EmbeddingUnavailable, type EmbeddingBinding, type EmbeddingProvider } from "./provider";

export const DEFAULT_RUNTIME_MODULE = "@xenova/transformers";
const PROBE_TEXT = "dimension probe 维度探测";

export interface LocalProviderOptions {
  model?: string;
  /** The folder holding <org>/<name>/… (transformers.js's localModelPath). */
  modelDir: string;
  /** true (default): onnx/model_quantized.onnx; false: onnx/model.onnx. */
  quantized?: boolean;
  batchSize?: number;
  /** The module loaded as the runtime; tests name a missing one to stand for a broken install. */
  runtimeModule?: string;
}

type Runtime = typeof import("@xenova/transformers");

/** sha256 of canonical JSON (sorted keys): equal configs hash equally whatever the key order. */
export function hashConfig(config: Record<string, string | number | boolean>): string {
  const canonical = JSON.stringify(Object.fromEntries(Object.entries(config).sort(([a], [b]) => (a < b ? -1 : 1))));
  return "sha256:" + createHash("sha256").update(canonical).digest("hex");
}

export class LocalProvider implements EmbeddingProvider {
  readonly kind = "local" as const;
  readonly model: string;
  private readonly modelDir: string;
  private readonly folder: string;
  private readonly quantized: boolean;
  private readonly batchSize: number;
  private readonly runtimeModule: string;
  private opening?: Promise<{ extractor: FeatureExtractionPipeline; binding: EmbeddingBinding }>;

  constructor(options: LocalProviderOptions) {
    this.model = options.model ?? DEFAULT_LOCAL_MODEL;
    this.modelDir = path.resolve(options.modelDir);
    this.folder = modelFolder(this.modelDir, this.model);
    this.quantized = options.quantized ?? true;
    this.batchSize = options.batchSize ?? 32;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${options.batchSize}`);
    this.runtimeModule = options.runtimeModule ?? DEFAULT_RUNTIME_MODULE;
  }

  async open(): Promise<EmbeddingBinding> {
    return (await this.ready()).binding;
  }

  async embed(texts: string[], options: { timeoutMs?: number } = {}): Promise<Float32Array[]> {
    const { extractor, binding } = await this.ready();
    const deadline = performance.now() + (options.timeoutMs ?? Infinity);
    // Batches of similar lengths waste less work on padding; a text's vector does not depend on
    // its batch (padding is masked out of the mean), so the order is restored afterwards.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
    const vectors = new Array<Float32Array>(texts.length);
    for (let start = 0; start < texts.length; start += this.batchSize) {
      // onnxruntime-node 1.14 runs a session synchronously (inside a nextTick), so a batch blocks the
      // event loop; yielding between batches lets searches and timers run, and is where the timeout
      // is checked: a batch in progress cannot be interrupted.
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      if (performance.now() > deadline) {
        throw new EmbeddingUnavailable("provider_error", `Local embedding took longer than ${options.timeoutMs} ms (${start} of ${texts.length} texts done)`);
      }
      const batch = order.slice(start, start + this.batchSize);
      const batchVectors = await runBatch(extractor, batch.map((i) => texts[i]), binding.dim);
      batch.forEach((textIndex, j) => (vectors[textIndex] = batchVectors[j]));
    }
    return vectors;
  }

  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    const opened = await opening?.catch(() => undefined);
    await opened?.extractor.dispose();
  }

  /** One load per provider; a failed load is forgotten so a later call retries (after download-model). */
  private ready(): Promise<{ extractor: FeatureExtractionPipeline; binding: EmbeddingBinding }> {
    this.opening ??= this.load().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  private async load(): Promise<{ extractor: FeatureExtractionPipeline; binding: EmbeddingBinding }> {
    const files = modelFilesFor(this.quantized);
    const missing = missingModelFiles(this.folder, files);
    if (missing.length > 0) {
      throw new EmbeddingUnavailable(
        "model_not_cached",
        `Model ${this.model} is not in ${this.folder} (missing ${missing.join(", ")}). ` +
          `Run \`dsh-dream download-model --model ${this.model}\`, or point --model-dir at a folder that holds it.`,
      );
    }
    const runtime = await loadRuntime(this.runtimeModule);
    const modelDigest = await digestModelFiles(this.folder, files);
    const extractor = await openPipeline(runtime, this.modelDir, this.model, this.quantized);
    const [probe] = await runBatch(extractor, [PROBE_TEXT], undefined);
    const configHash = hashConfig({ pooling: "mean", normalize: true, quantized: this.quantized });
    return { extractor, binding: { provider: "local", model: this.model, dim: probe.length, modelDigest, configHash } };
  }
}

/**
 * The runtime is ESM-only, and esbuild (format cjs) and swc-jest (module commonjs) both rewrite a
 * literal import() into require(), which cannot load ESM on Node 20; a function built at run time
 * keeps a real import() out of their sight. Jest runs code in a vm context whose import() it refuses
 * without --experimental-vm-modules, so there the one-liner is compiled in the main context with
 * Node's default loader instead. The specifier is resolved to a file URL first so both agree on it.
 */
function nativeImport(): (specifier: string) => Promise<unknown> {
  const source = "(specifier) => import(specifier)";
  if (vm.runInThisContext("globalThis") === globalThis) return new Function(`return ${source}`)();
  const loader = vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  return new vm.Script(source, { importModuleDynamically: loader }).runInThisContext();
}

async function loadRuntime(specifier: string): Promise<Runtime> {
  try {
    const resolved = createRequire(__filename).resolve(specifier);
    return (await nativeImport()(pathToFileURL(resolved).href)) as Runtime;
  } catch (error) {
    throw new EmbeddingUnavailable("runtime_missing", `The local embedding runtime ${specifier} could not be loaded: ${messageOf(error)}`);
  }
}

// transformers.js keeps its settings in one module-level object, so pipelines for different model
// directories are created one at a time, each under the offline settings it needs.
let envTurn: Promise<unknown> = Promise.resolve();

async function openPipeline(runtime: Runtime, modelDir: string, model: string, quantized: boolean): Promise<FeatureExtractionPipeline> {
  const turn = envTurn.then(async () => {
    Object.assign(runtime.env, {
      localModelPath: modelDir,
      allowLocalModels: true,
      allowRemoteModels: false,
      // The file cache would be consulted before modelDir (a stale copy could win) and written to.
      useFSCache: false,
      useBrowserCache: false,
      useCustomCache: false,
    });
    return runtime.pipeline("feature-extraction", model, { quantized, local_files_only: true });
  });
  envTurn = turn.catch(() => undefined);
  try {
    return await turn;
  } catch (error) {
    const message = messageOf(error);
    const reason = /not found locally|no such file/i.test(message) ? "model_not_cached" : "provider_error";
    throw new EmbeddingUnavailable(reason, `Model ${model} in ${modelDir} could not be loaded: ${message}`);
  }
}

async function runBatch(extractor: FeatureExtractionPipeline, texts: string[], dim: number | undefined): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  let output: Awaited<ReturnType<FeatureExtractionPipeline>>;
  try {
    output = await extractor(texts, { pooling: "mean", normalize: true });
  } catch (error) {
    throw new EmbeddingUnavailable("provider_error", `Local embedding failed: ${messageOf(error)}`);
  }
  const [rows, width] = output.dims;
  if (rows !== texts.length || (dim !== undefined && width !== dim)) {
    throw new EmbeddingUnavailable("provider_error", `Local model answered [${output.dims.join(", ")}] for ${texts.length} texts of dimension ${dim}`);
  }
  const data = output.data as Float32Array;
  // Copied into arrays of this realm: under jest the runtime lives in the main context's realm.
  return Array.from({ length: rows }, (_, row) => unitVector(new Float32Array(data.subarray(row * width, (row + 1) * width))));
}

function unitVector(vector: Float32Array): Float32Array {
  let squares = 0;
  for (const value of vector) squares += value * value;
  if (!Number.isFinite(squares) || Math.abs(Math.sqrt(squares) - 1) > 1e-3) {
    throw new EmbeddingUnavailable("provider_error", `Local model returned a vector of length ${Math.sqrt(squares)} instead of a unit vector`);
  }
  return vector;
}

function messageOf(error: unknown): string {
  // Errors from the runtime's realm fail `instanceof Error` under jest, so read the message directly.
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : String(error);
}

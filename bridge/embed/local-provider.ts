// Provider "local": transformers.js feature extraction (mean pooling, L2 normalisation) over a model
// read only from files already in the model directory, run in a worker process (local-worker.ts) so
// that inference never blocks the bridge's event loop. It never downloads; download-model.ts does.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { missingVcRuntime, type VcRuntimeContext } from "../protocol/vc-runtime";
import { DEFAULT_LOCAL_MODEL, digestModelFiles, missingModelFiles, modelFilesFor, modelFolder } from "./model-files";
import { LocalWorker } from "./local-worker";
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
  /** Where the runtime loads, for the Windows Visual C++ runtime check: this process unless given (tests fake Windows). */
  host?: VcRuntimeContext;
}

interface Opened {
  worker: LocalWorker;
  binding: EmbeddingBinding;
}

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
  private readonly host: VcRuntimeContext;
  private opening?: Promise<Opened>;

  constructor(options: LocalProviderOptions) {
    this.model = options.model ?? DEFAULT_LOCAL_MODEL;
    this.modelDir = path.resolve(options.modelDir);
    this.folder = modelFolder(this.modelDir, this.model);
    this.quantized = options.quantized ?? true;
    this.batchSize = options.batchSize ?? 32;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${options.batchSize}`);
    this.runtimeModule = options.runtimeModule ?? DEFAULT_RUNTIME_MODULE;
    this.host = options.host ?? { platform: process.platform, arch: process.arch, env: process.env };
  }

  async open(): Promise<EmbeddingBinding> {
    return (await this.ready()).binding;
  }

  async embed(texts: string[], options: { timeoutMs?: number } = {}): Promise<Float32Array[]> {
    const { worker, binding } = await this.ready();
    const deadline = performance.now() + (options.timeoutMs ?? Infinity);
    // Batches of similar lengths waste less work on padding; a text's vector does not depend on
    // its batch (padding is masked out of the mean), so the order is restored afterwards.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
    const vectors = new Array<Float32Array>(texts.length);
    // One batch in flight at a time: a query's batch waits behind at most one batch of a long embed.
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const tooLate = () => new EmbeddingUnavailable("provider_error", `Local embedding took longer than ${options.timeoutMs} ms (${start} of ${texts.length} texts done)`);
      if (performance.now() > deadline) throw tooLate();
      const batch = order.slice(start, start + this.batchSize);
      // The worker finishes a batch it has started; past the deadline its answer is ignored.
      const batchVectors = await beforeDeadline(runBatch(worker, batch.map((i) => texts[i]), binding.dim), deadline, tooLate);
      batch.forEach((textIndex, j) => (vectors[textIndex] = batchVectors[j]));
    }
    return vectors;
  }

  /** Terminates the worker; a later call starts a fresh one. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    const opened = await opening?.catch(() => undefined);
    await opened?.worker.close();
  }

  /**
   * One load per provider; a failed load is forgotten so a later call retries (after download-model),
   * and so is a worker that has stopped since it loaded (crashed, terminated): the next call starts anew.
   */
  private async ready(): Promise<Opened> {
    const opening = (this.opening ??= this.load().catch((error: unknown) => {
      if (this.opening === opening) this.opening = undefined;
      throw error;
    }));
    const opened = await opening;
    if (opened.worker.running) return opened;
    if (this.opening === opening) this.opening = undefined;
    return this.ready();
  }

  private async load(): Promise<Opened> {
    const files = modelFilesFor(this.quantized);
    const missing = missingModelFiles(this.folder, files);
    if (missing.length > 0) {
      throw new EmbeddingUnavailable(
        "model_not_cached",
        `Model ${this.model} is not in ${this.folder} (missing ${missing.join(", ")}). ` +
          `Download it with the Download button in Settings > DSH-DREAM or \`dsh-dream download-model --model ${this.model}\`, or point --model-dir at a folder that holds it.`,
      );
    }
    const runtimeUrl = resolveRuntime(this.runtimeModule);
    const worker = new LocalWorker({ runtimeUrl, runtimeModule: this.runtimeModule, modelDir: this.modelDir, model: this.model, quantized: this.quantized });
    try {
      // The digest is read on this thread while the worker loads the model.
      const [modelDigest] = await Promise.all([digestModelFiles(this.folder, files), worker.ready]);
      const [probe] = await runBatch(worker, [PROBE_TEXT], undefined);
      const configHash = hashConfig({ pooling: "mean", normalize: true, quantized: this.quantized });
      return { worker, binding: { provider: "local", model: this.model, dim: probe.length, modelDigest, configHash } };
    } catch (error) {
      await worker.close();
      throw withVcRuntimeFix(error, this.host);
    }
  }
}

/**
 * The worker's import of the runtime failed: on a Windows without the Visual C++ runtime, onnxruntime's
 * DLLs cannot load and Windows only says "The specified module could not be found", so the failure
 * names the runtime and the fix. Still runtime_missing. (A runtime that does not even resolve is a
 * missing package, which this runtime would not fix.)
 */
function withVcRuntimeFix(error: unknown, host: VcRuntimeContext): unknown {
  if (!(error instanceof EmbeddingUnavailable) || error.reason !== "runtime_missing") return error;
  const vc = missingVcRuntime(host);
  return vc ? new EmbeddingUnavailable("runtime_missing", `${error.message.trimEnd()}; ${vc.problem}, and onnxruntime needs it. ${vc.fix}`) : error;
}

/** The runtime's file URL, for the worker's import(); resolved here so a missing one fails early. */
function resolveRuntime(specifier: string): string {
  try {
    return pathToFileURL(createRequire(__filename).resolve(specifier)).href;
  } catch (error) {
    throw new EmbeddingUnavailable("runtime_missing", `The local embedding runtime ${specifier} could not be loaded: ${messageOf(error)}`);
  }
}

/** work's result, or tooLate() once performance.now() passes deadline, whichever comes first. */
function beforeDeadline<T>(work: Promise<T>, deadline: number, tooLate: () => Error): Promise<T> {
  if (deadline === Infinity) return work;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(tooLate()), Math.max(0, deadline - performance.now()));
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

async function runBatch(worker: LocalWorker, texts: string[], dim: number | undefined): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const { dims, data } = await worker.run(texts);
  const [rows, width] = dims;
  if (rows !== texts.length || (dim !== undefined && width !== dim)) {
    throw new EmbeddingUnavailable("provider_error", `Local model answered [${dims.join(", ")}] for ${texts.length} texts of dimension ${dim}`);
  }
  // A copy per row, so each vector owns its buffer and belongs to this realm (under jest, messages
  // arrive in the main context's realm, whose Float32Array is a different class).
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
  // Errors from another realm (the main context under jest) fail `instanceof Error`: read the message.
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : String(error);
}

// The local provider's worker process: loads transformers.js offline and answers batches of texts
// with pooled, normalised vectors, so inference never blocks the bridge's event loop.
import type { EmbedFailure } from "./provider";

export interface LocalWorkerData {
  /** file: URL of the resolved runtime module, imported by the worker. */
  runtimeUrl: string;
  /** The specifier the user configured, for messages. */
  runtimeModule: string;
  modelDir: string;
  model: string;
  quantized: boolean;
}

export interface LocalWorkerRequest {
  id: number;
  texts: string[];
}

export type LocalWorkerReply =
  | { kind: "ready" }
  | { kind: "failed"; reason: EmbedFailure; message: string }
  | { kind: "vectors"; id: number; dims: number[]; data: Float32Array }
  | { kind: "error"; id: number; reason: EmbedFailure; message: string };

/**
 * Plain JavaScript run with `node -e source data`: a string is the one form that neither esbuild
 * (bundling into dist/cli.cjs) nor swc-jest rewrites, so its import() stays a real dynamic import of
 * the ESM-only runtime, and no extra file has to ship next to the bundle. It is a process, not a
 * worker thread, because onnxruntime-node 1.14's addon corrupts the heap once a thread that loaded
 * it exits and another loads it, which is what replacing a closed or crashed worker does.
 */
export const LOCAL_WORKER_SOURCE = String.raw`
"use strict";
const { runtimeUrl, runtimeModule, modelDir, model, quantized } = JSON.parse(process.argv[1]);
// Without the bridge there is no one to answer: exit with it.
process.on("disconnect", () => process.exit(0));

// The model is read from modelDir only; nothing in this thread may reach the network.
globalThis.fetch = () => Promise.reject(new Error("the local embedding worker never fetches"));

// transformers.js imports sharp (an image library with a native binary) when it loads, though text
// embedding never calls it. Where sharp's binary is missing (pnpm skips its build script; its own
// install downloads from GitHub), that import alone would take the whole runtime down, so this
// process resolves "sharp" to a stub that refuses image work.
const SHARP_STUB = "export default function sharp() { throw new Error('the DSH-DREAM embedding worker embeds text only: sharp (images) is not loaded'); }";
const HOOKS =
  "export async function resolve(specifier, context, next) {" +
  " if (specifier === 'sharp') return { url: 'data:text/javascript,' + encodeURIComponent(" + JSON.stringify(SHARP_STUB) + "), shortCircuit: true };" +
  " return next(specifier, context); }";
require("node:module").register("data:text/javascript," + encodeURIComponent(HOOKS));

function messageOf(error) {
  const message = error && error.message;
  return typeof message === "string" ? message : String(error);
}

async function load() {
  let runtime;
  try {
    runtime = await import(runtimeUrl);
  } catch (error) {
    throw { reason: "runtime_missing", message: "The local embedding runtime " + runtimeModule + " could not be loaded: " + messageOf(error) };
  }
  Object.assign(runtime.env, {
    localModelPath: modelDir,
    allowLocalModels: true,
    allowRemoteModels: false,
    // The file cache would be consulted before modelDir (a stale copy could win) and written to.
    useFSCache: false,
    useBrowserCache: false,
    useCustomCache: false,
  });
  try {
    return await runtime.pipeline("feature-extraction", model, { quantized, local_files_only: true });
  } catch (error) {
    const message = messageOf(error);
    const reason = /not found locally|no such file/i.test(message) ? "model_not_cached" : "provider_error";
    throw { reason, message: "Model " + model + " in " + modelDir + " could not be loaded: " + message };
  }
}

const loading = load();
loading.then(
  () => process.send({ kind: "ready" }),
  (failure) => process.send({ kind: "failed", reason: failure.reason, message: failure.message }),
);

process.on("message", async ({ id, texts }) => {
  try {
    const extractor = await loading;
    const output = await extractor(texts, { pooling: "mean", normalize: true });
    process.send({ kind: "vectors", id, dims: output.dims, data: new Float32Array(output.data) });
  } catch (error) {
    process.send({ kind: "error", id, reason: "provider_error", message: "Local embedding failed: " + messageOf(error) });
  }
});
`;

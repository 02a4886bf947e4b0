// The local model's file layout: which files a feature-extraction model needs, where they live
// under the model directory, and the digest that binds stored vectors to exactly those bytes.
import { createHash } from "node:crypto";
import { createReadStream, existsSync, statSync } from "node:fs";
import path from "node:path";
import { DreamError } from "../protocol/errors";

/** Xenova's ONNX export of BAAI/bge-small-zh-v1.5 (512 dims): the id names both the folder and the hub repo. */
export const DEFAULT_LOCAL_MODEL = "Xenova/bge-small-zh-v1.5";

/** Hub-style model ids only ("org/name"): the id becomes two path segments under the model directory. */
const MODEL_ID = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;

/** The files transformers.js v2 reads for feature extraction, by quantization choice. */
export function modelFilesFor(quantized: boolean): string[] {
  return ["config.json", "tokenizer.json", "tokenizer_config.json", quantized ? "onnx/model_quantized.onnx" : "onnx/model.onnx"];
}

export function assertModelId(model: string): void {
  // Rejecting "..", absolute paths and extra segments keeps every read and write inside modelDir.
  if (!MODEL_ID.test(model) || model.split("/").some((part) => part === "." || part === "..")) {
    throw new DreamError("INVALID_FIELD", `model must look like "org/name", got ${JSON.stringify(model)}`, { field: "model" });
  }
}

/** <modelDir>/<org>/<name>: the same place transformers.js looks with env.localModelPath = modelDir. */
export function modelFolder(modelDir: string, model: string): string {
  assertModelId(model);
  return path.join(path.resolve(modelDir), ...model.split("/"));
}

/** The required files that are absent or empty (an empty file is what an interrupted copy leaves). */
export function missingModelFiles(folder: string, files: string[]): string[] {
  return files.filter((file) => {
    const full = path.join(folder, file);
    return !existsSync(full) || statSync(full).size === 0;
  });
}

/**
 * sha256 over the files in sorted relative-path order, each framed by its path and size so that
 * moving bytes between files or renaming one changes the digest.
 */
export async function digestModelFiles(folder: string, files: string[]): Promise<string> {
  const hash = createHash("sha256");
  for (const file of [...files].sort()) {
    const full = path.join(folder, file);
    hash.update(`${file}\0${statSync(full).size}\0`);
    for await (const chunk of createReadStream(full)) hash.update(chunk as Buffer);
  }
  return "sha256:" + hash.digest("hex");
}

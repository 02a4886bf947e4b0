// The one code path that fetches a model: downloads the files the local provider reads into
// <modelDir>/<org>/<name>/ and swaps them in whole, so a failed download never leaves a half model.
import { randomBytes } from "node:crypto";
import { cpSync, createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { DreamError } from "../protocol/errors";
import { assertModelId, DEFAULT_LOCAL_MODEL, digestModelFiles, modelFilesFor, modelFolder } from "./model-files";

export const DEFAULT_REMOTE_HOST = "https://huggingface.co/";
const DEFAULT_FILE_TIMEOUT_MS = 600_000;

export interface DownloadModelOptions {
  model?: string;
  modelDir: string;
  /** Hub base URL; files are fetched from `${remoteHost}${model}/resolve/main/${file}`. */
  remoteHost?: string;
  /** Which ONNX file to fetch, matching LocalProvider's option of the same name (default true). */
  quantized?: boolean;
  /** Per file, covering the whole body as well as the answer's headers. */
  timeoutMs?: number;
}

/** A download failed; the message names the file and the host, never a URL with credentials. */
export class ModelDownloadFailed extends DreamError {
  constructor(
    readonly file: string,
    readonly host: string,
    message: string,
    readonly status?: number,
  ) {
    super("MODEL_DOWNLOAD_FAILED", message);
    this.name = "ModelDownloadFailed";
  }
}

export async function downloadModel(options: DownloadModelOptions): Promise<{ files: string[]; digest: string }> {
  const model = options.model ?? DEFAULT_LOCAL_MODEL;
  assertModelId(model);
  const base = new URL(options.remoteHost ?? DEFAULT_REMOTE_HOST);
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  const files = modelFilesFor(options.quantized ?? true);
  const target = modelFolder(options.modelDir, model);
  mkdirSync(path.dirname(target), { recursive: true });
  // The staging folder sits next to the target so the final renames stay on one file system; its
  // leading dot keeps it from ever being taken for a model. Not mkdtemp: its 0700 mode would stick.
  const staging = `${path.join(path.dirname(target), "." + path.basename(target))}.download-${randomBytes(6).toString("hex")}`;
  mkdirSync(staging);
  try {
    for (const file of files) {
      const url = new URL(`${model}/resolve/main/${file}`, base);
      await fetchFile(url, `${file} of ${model}`, file, path.join(staging, file), options.timeoutMs ?? DEFAULT_FILE_TIMEOUT_MS);
    }
    swapIntoPlace(staging, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { files, digest: await digestModelFiles(target, files) };
}

async function fetchFile(url: URL, what: string, file: string, destination: string, timeoutMs: number): Promise<void> {
  const fail = (reason: string, status?: number): ModelDownloadFailed =>
    new ModelDownloadFailed(file, url.host, `Could not download ${what} from ${url.host}: ${reason}`, status);
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: "follow" });
  } catch (error) {
    throw fail(describeFetchError(error, timeoutMs));
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw fail(`HTTP ${response.status}${response.status === 404 ? " (no such file for this model)" : ""}`, response.status);
  }
  mkdirSync(path.dirname(destination), { recursive: true });
  let written = 0;
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  body.on("data", (chunk: Buffer) => (written += chunk.length));
  try {
    await pipeline(body, createWriteStream(destination));
  } catch (error) {
    throw fail(describeFetchError(error, timeoutMs));
  }
  const expected = response.headers.get("content-length");
  // Without compression a short body means the connection ended early; an empty file is never a model.
  if ((expected !== null && !response.headers.has("content-encoding") && Number(expected) !== written) || written === 0) {
    throw fail(`received ${written} bytes${expected === null ? "" : ` of ${expected}`}`);
  }
}

/**
 * Replaces the target folder by the staged one. Files of the old folder that were not fetched this
 * time (say onnx/model.onnx beside a new quantized model) are copied over first, so nothing is lost.
 * At every instant the target is the old complete model, absent, or the new complete model.
 */
function swapIntoPlace(staging: string, target: string): void {
  if (!existsSync(target)) {
    renameSync(staging, target);
    return;
  }
  cpSync(target, staging, { recursive: true, force: false, errorOnExist: false });
  const retired = `${staging}.old`;
  renameSync(target, retired);
  try {
    renameSync(staging, target);
  } catch (error) {
    renameSync(retired, target);
    throw error;
  }
  rmSync(retired, { recursive: true, force: true });
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  const { name, message, cause } = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (name === "TimeoutError" || name === "AbortError") return `no complete answer within ${timeoutMs} ms`;
  // undici puts the useful part (ECONNREFUSED, ENOTFOUND, …) in the cause of a bare "fetch failed".
  return cause?.code ?? cause?.message ?? message ?? String(error);
}

// The one code path that fetches a model (CLI `download-model`, the settings panel's Download
// button, the installer's --download-model): the files the local provider reads, from a hub that
// speaks Hugging Face's file protocol (`<host><model>/resolve/main/<file>`), into
// <modelDir>/<org>/<name>/, swapped in whole so a failed download never leaves a half model there.
//
// Before anything is fetched, each file's size and hash are asked for (HEAD: the hub answers an LFS
// file with a redirect carrying X-Linked-Size and X-Linked-Etag, the file's sha256, and a small
// file with Content-Length and an ETag that is its git blob sha1), and the free disk space is
// checked against what is still missing. Bytes go to a partial folder beside the model that
// survives a failure: the next run resumes each file with a Range request where the hub's ETag is
// unchanged. Every completed file is checked against the size and hash the hub gave (a mirror that
// gives none is trusted on its Content-Length), and a file that fails is deleted, never used.
import { createHash } from "node:crypto";
import { cpSync, createReadStream, createWriteStream, existsSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { DreamError } from "../protocol/errors";
import { renameWithRetry as renameSync } from "../store/fs-retry";
import { makeDirectory } from "../store/make-dir";
import { assertModelId, DEFAULT_LOCAL_MODEL, digestModelFiles, modelFilesFor, modelFolder } from "./model-files";

export const DEFAULT_REMOTE_HOST = "https://huggingface.co/";
const DEFAULT_FILE_TIMEOUT_MS = 600_000;
/** Room left over on the disk beyond the model's bytes (the swap, the journal, the OS). */
const DISK_MARGIN_BYTES = 64 * 1024 * 1024;
const PROGRESS_INTERVAL_MS = 100;

export interface DownloadProgress {
  state: "checking" | "downloading" | "verifying";
  model: string;
  /** The file being fetched or checked (a path inside the model folder). */
  file: string | null;
  files: number;
  filesDone: number;
  bytesDone: number;
  /** null while a file's size is unknown (a mirror that does not say). */
  bytesTotal: number | null;
}

export interface DownloadModelOptions {
  model?: string;
  modelDir: string;
  /** Hub base URL; files are fetched from `${remoteHost}${model}/resolve/main/${file}`. */
  remoteHost?: string;
  /** Which ONNX file to fetch, matching LocalProvider's option of the same name (default true). */
  quantized?: boolean;
  /** Per request, covering the whole body as well as the answer's headers. */
  timeoutMs?: number;
  onProgress?(progress: DownloadProgress): void;
  signal?: AbortSignal;
  /** For tests: the free bytes the disk check sees. */
  freeBytes?(dir: string): number;
}

/** Why a download failed, for a caller that words it (the settings panel, in the user's language). */
export type DownloadFailure = "not_found" | "http" | "network" | "timeout" | "size_mismatch" | "hash_mismatch" | "disk_space" | "cancelled";

/** A download failed; the message names the file and the host, never a URL with credentials. */
export class ModelDownloadFailed extends DreamError {
  constructor(
    readonly file: string,
    readonly host: string,
    message: string,
    readonly status?: number,
    readonly reason: DownloadFailure = "http",
  ) {
    super("MODEL_DOWNLOAD_FAILED", message);
    this.name = "ModelDownloadFailed";
  }
}

interface RemoteFile {
  file: string;
  url: URL;
  /** Where the bytes come from: the hub's redirect target for an LFS file, else `url`. */
  source: URL;
  size: number | null;
  etag: string | null;
  check: { algorithm: "sha256" | "git-sha1"; hex: string } | null;
}

export async function downloadModel(options: DownloadModelOptions): Promise<{ files: string[]; digest: string; resumedBytes: number }> {
  const model = options.model ?? DEFAULT_LOCAL_MODEL;
  assertModelId(model);
  const base = new URL(options.remoteHost ?? DEFAULT_REMOTE_HOST);
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  const files = modelFilesFor(options.quantized ?? true);
  const target = modelFolder(options.modelDir, model);
  const timeoutMs = options.timeoutMs ?? DEFAULT_FILE_TIMEOUT_MS;
  const progress = new ProgressReporter(model, files.length, options.onProgress);
  makeDirectory(path.dirname(target));
  // Beside the target (the final renames stay on one file system); the leading dot keeps it from
  // ever being taken for a model; a fixed name, so the next run finds it and resumes.
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.partial`);

  progress.update({ state: "checking" });
  const remotes: RemoteFile[] = [];
  for (const file of files) {
    throwIfCancelled(options.signal, file, base.host);
    remotes.push(await fileMetadata(new URL(`${model}/resolve/main/${file}`, base), file, `${file} of ${model}`, timeoutMs, options.signal));
  }
  makeDirectory(partial);
  const have = remotes.map((remote) => usablePartBytes(partial, remote));
  checkDiskSpace(partial, remotes, have, base.host, options.freeBytes ?? freeBytesOf);

  const total = remotes.every((remote) => remote.size !== null) ? remotes.reduce((sum, remote) => sum + (remote.size as number), 0) : null;
  let done = 0;
  let resumedBytes = 0;
  for (const [index, remote] of remotes.entries()) {
    const destination = path.join(partial, remote.file);
    const complete = remote.size !== null && have[index] === remote.size;
    if (!complete) {
      resumedBytes += have[index];
      await fetchFile(remote, `${remote.file} of ${model}`, destination, have[index], timeoutMs, options.signal, (written) => progress.update({ state: "downloading", file: remote.file, filesDone: index, bytesDone: done + written, bytesTotal: total }));
    }
    done += statSync(destination).size;
    progress.update({ state: "downloading", file: remote.file, filesDone: index + 1, bytesDone: done, bytesTotal: total });
  }
  for (const [index, remote] of remotes.entries()) {
    progress.update({ state: "verifying", file: remote.file, filesDone: index, bytesDone: done, bytesTotal: total }, true);
    await verifyFile(remote, path.join(partial, remote.file), `${remote.file} of ${model}`);
  }
  for (const remote of remotes) rmSync(metaPath(partial, remote.file), { force: true });
  swapIntoPlace(partial, target);
  return { files, digest: await digestModelFiles(target, files), resumedBytes };
}

/** The folder a download of `model` keeps its partial files in (for status and for tests). */
export function partialFolder(modelDir: string, model: string): string {
  const target = modelFolder(modelDir, model);
  return path.join(path.dirname(target), `.${path.basename(target)}.partial`);
}

class ProgressReporter {
  private last = 0;
  private current: DownloadProgress;

  constructor(model: string, files: number, private readonly listener?: (progress: DownloadProgress) => void) {
    this.current = { state: "checking", model, file: null, files, filesDone: 0, bytesDone: 0, bytesTotal: null };
  }

  /** Every change of state, file or count is reported; byte counts at most every PROGRESS_INTERVAL_MS. */
  update(change: Partial<DownloadProgress>, force = false): void {
    const before = this.current;
    this.current = { ...before, ...change };
    const milestone = force || before.state !== this.current.state || before.file !== this.current.file || before.filesDone !== this.current.filesDone;
    const now = Date.now();
    if (!this.listener || (!milestone && now - this.last < PROGRESS_INTERVAL_MS)) return;
    this.last = now;
    this.listener({ ...this.current });
  }
}

async function fileMetadata(url: URL, file: string, what: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<RemoteFile> {
  const fail = failure(file, url.host, what);
  let response: Response;
  try {
    response = await fetch(url, { method: "HEAD", redirect: "manual", headers: { "accept-encoding": "identity" }, signal: requestSignal(timeoutMs, signal) });
  } catch (error) {
    throw networkFailure(fail, error, timeoutMs, signal);
  }
  const header = (name: string) => response.headers.get(name);
  if (response.status >= 300 && response.status < 400 && header("location")) {
    // The hub's LFS answer: the file lives elsewhere (a CDN); size and sha256 come with the redirect.
    const size = numberOrNull(header("x-linked-size"));
    const etag = cleanEtag(header("x-linked-etag") ?? header("etag"));
    return { file, url, source: new URL(header("location") as string, url), size, etag, check: hashCheck(etag) };
  }
  if (response.status === 404) throw fail("HTTP 404 (no such file for this model)", 404, "not_found");
  // A mirror without HEAD: download without a size or hash to check beyond what the GET says.
  if (response.status === 405 || response.status === 501) return { file, url, source: url, size: null, etag: null, check: null };
  if (!response.ok) throw fail(`HTTP ${response.status}`, response.status, "http");
  const etag = cleanEtag(header("etag"));
  return { file, url, source: url, size: numberOrNull(header("content-length")), etag, check: hashCheck(etag) };
}

async function fetchFile(remote: RemoteFile, what: string, destination: string, have: number, timeoutMs: number, signal: AbortSignal | undefined, onBytes: (written: number) => void): Promise<void> {
  const fail = failure(remote.file, remote.url.host, what);
  makeDirectory(path.dirname(destination));
  writeFileSync(metaPath(path.dirname(destination), path.basename(destination)), JSON.stringify({ etag: remote.etag, size: remote.size }));
  const headers: Record<string, string> = { "accept-encoding": "identity" };
  if (have > 0) headers.range = `bytes=${have}-`;
  let response: Response;
  try {
    response = await fetch(remote.source, { redirect: "follow", headers, signal: requestSignal(timeoutMs, signal) });
  } catch (error) {
    throw networkFailure(fail, error, timeoutMs, signal);
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    if (response.status === 404) throw fail("HTTP 404 (no such file for this model)", 404, "not_found");
    throw fail(`HTTP ${response.status}`, response.status, "http");
  }
  // 206: the server continues where the partial file ends; 200: it sends the whole file again.
  const resuming = have > 0 && response.status === 206;
  let written = resuming ? have : 0;
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  body.on("data", (chunk: Buffer) => {
    written += chunk.length;
    onBytes(written);
  });
  const out = createWriteStream(destination, { flags: resuming ? "a" : "w" });
  try {
    await pipeline(body, out);
  } catch (error) {
    // pipeline rejects as soon as the body fails, while the file may still have a write in flight:
    // wait until it is closed, so what is on disk is final before anyone measures it for a resume.
    if (!out.closed) await new Promise<void>((resolve) => out.once("close", () => resolve()));
    const failed = networkFailure(fail, error, timeoutMs, signal);
    if (failed.reason !== "network") throw failed;
    // The bytes that arrived are on disk and the ETag is noted beside them: the next run resumes there.
    throw fail(`the connection broke after ${written} bytes (${failed.message.slice(failed.message.lastIndexOf(": ") + 2)}); run the download again to resume`, undefined, "network");
  }
  const length = numberOrNull(response.headers.get("content-length"));
  const expected = remote.size ?? (length === null ? null : (resuming ? have : 0) + length);
  // A short body means the connection ended early; an empty file is never a model. The bytes stay for a resume.
  if ((expected !== null && written < expected) || written === 0) {
    throw fail(`the connection ended after ${written} bytes${expected === null ? "" : ` of ${expected}`}; run the download again to resume`, undefined, "network");
  }
  if (remote.size === null && length !== null) remote.size = expected;
}

async function verifyFile(remote: RemoteFile, file: string, what: string): Promise<void> {
  const fail = failure(remote.file, remote.url.host, what);
  const size = statSync(file).size;
  if (remote.size !== null && size !== remote.size) {
    rmSync(file, { force: true });
    throw fail(`received ${size} bytes but the hub says ${remote.size}; the file was deleted, run the download again`, undefined, "size_mismatch");
  }
  if (!remote.check) return;
  const hash = createHash(remote.check.algorithm === "sha256" ? "sha256" : "sha1");
  if (remote.check.algorithm === "git-sha1") hash.update(`blob ${size}\0`);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const actual = hash.digest("hex");
  if (actual !== remote.check.hex) {
    rmSync(file, { force: true });
    throw fail(`its ${remote.check.algorithm} is ${actual.slice(0, 12)}…, not the ${remote.check.hex.slice(0, 12)}… the hub gives; the file was deleted and is not used`, undefined, "hash_mismatch");
  }
}

/** Bytes of a partial file that a resume may keep: only while the hub still serves the same file. */
function usablePartBytes(partial: string, remote: RemoteFile): number {
  const file = path.join(partial, remote.file);
  if (!existsSync(file)) return 0;
  let meta: { etag?: string | null; size?: number | null } = {};
  try {
    meta = JSON.parse(readFileSync(metaPath(partial, remote.file), "utf8"));
  } catch {
    meta = {};
  }
  const size = statSync(file).size;
  const same = remote.etag !== null && meta.etag === remote.etag && (remote.size === null || size <= remote.size);
  if (!same) {
    rmSync(file, { force: true });
    return 0;
  }
  return size;
}

function metaPath(folder: string, file: string): string {
  return path.join(folder, `${file}.download.json`);
}

function checkDiskSpace(partial: string, remotes: RemoteFile[], have: number[], host: string, freeBytes: (dir: string) => number): void {
  if (remotes.some((remote) => remote.size === null)) return;
  const needed = remotes.reduce((sum, remote, index) => sum + (remote.size as number) - have[index], 0);
  const free = freeBytes(partial);
  if (free < needed + DISK_MARGIN_BYTES) {
    const mb = (bytes: number) => `${Math.ceil(bytes / 1024 / 1024)} MB`;
    throw new ModelDownloadFailed("", host, `The model needs ${mb(needed)} more on the disk of ${partial}, and ${mb(free)} is free (with ${mb(DISK_MARGIN_BYTES)} to spare); free some space and download again`, undefined, "disk_space");
  }
}

function freeBytesOf(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

function failure(file: string, host: string, what: string) {
  return (reason: string, status?: number, kind: DownloadFailure = "http"): ModelDownloadFailed =>
    new ModelDownloadFailed(file, host, `Could not download ${what} from ${host}: ${reason}`, status, kind);
}

function networkFailure(fail: ReturnType<typeof failure>, error: unknown, timeoutMs: number, signal: AbortSignal | undefined): ModelDownloadFailed {
  if (signal?.aborted) return fail("cancelled", undefined, "cancelled");
  const { name, message, cause } = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (name === "TimeoutError" || name === "AbortError") return fail(`no complete answer within ${timeoutMs} ms`, undefined, "timeout");
  // undici puts the useful part (ECONNREFUSED, ENOTFOUND, …) in the cause of a bare "fetch failed".
  return fail(cause?.code ?? cause?.message ?? message ?? String(error), undefined, "network");
}

function throwIfCancelled(signal: AbortSignal | undefined, file: string, host: string): void {
  if (signal?.aborted) throw new ModelDownloadFailed(file, host, "The download was cancelled", undefined, "cancelled");
}

function requestSignal(timeoutMs: number, signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([timeout, signal]) : timeout;
}

function numberOrNull(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value.trim())) return null;
  return Number(value);
}

// `W/"abc"` → `abc`: the hub quotes its ETags; a weak one still identifies the version for a resume.
function cleanEtag(value: string | null): string | null {
  if (value === null) return null;
  return value.replace(/^W\//, "").replace(/^"|"$/g, "") || null;
}

function hashCheck(etag: string | null): RemoteFile["check"] {
  if (etag === null) return null;
  if (/^[0-9a-f]{64}$/i.test(etag)) return { algorithm: "sha256", hex: etag.toLowerCase() };
  if (/^[0-9a-f]{40}$/i.test(etag)) return { algorithm: "git-sha1", hex: etag.toLowerCase() };
  return null;
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

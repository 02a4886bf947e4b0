// The local model as the settings panel sees it: not downloaded, downloading (with bytes), verifying,
// ready, or failed with a reason, and the one download the Download button starts. It runs in the
// host process and writes where the bridge loads from (<dataDir>/models unless the bridge config
// says otherwise); a running bridge picks the model up by itself. Search and capture never download.
import fs from "node:fs";
import path from "node:path";
import { downloadModel, DEFAULT_REMOTE_HOST, ModelDownloadFailed, partialFolder, type DownloadFailure, type DownloadProgress } from "../bridge/embed/download-model";
import { missingModelFiles, modelFilesFor, modelFolder } from "../bridge/embed/model-files";
import { loadBridgeConfig } from "../bridge/server/bridge-config";
import { DreamError } from "../bridge/protocol/errors";
import type { HostLogger } from "./host-types";
import type { PluginConfig } from "./config";

export type ModelState =
  | { state: "not_local"; provider: string }
  | { state: "not_downloaded"; model: string; model_dir: string; partial_bytes: number; source: string }
  | { state: "checking" | "downloading" | "verifying"; model: string; model_dir: string; source: string; file: string | null; files: number; files_done: number; bytes_done: number; bytes_total: number | null }
  | { state: "ready"; model: string; model_dir: string }
  | { state: "failed"; model: string; model_dir: string; source: string; reason: DownloadFailure | "invalid"; message: string; partial_bytes: number };

interface Target {
  model: string;
  modelDir: string;
  source: string;
}

export class ModelDownloads {
  private running: { target: Target; progress: DownloadProgress | null; controller: AbortController; done: Promise<void> } | undefined;
  private lastFailure: { target: Target; reason: DownloadFailure | "invalid"; message: string } | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly embedding: () => PluginConfig["embedding"],
    private readonly env: Record<string, string | undefined>,
    private readonly log: HostLogger,
  ) {}

  status(): ModelState {
    const embedding = this.embedding();
    if (embedding.provider !== "local") return { state: "not_local", provider: embedding.provider };
    let target: Target;
    try {
      target = this.target();
      modelFolder(target.modelDir, target.model);
    } catch (error) {
      if (!(error instanceof DreamError)) throw error;
      return { state: "failed", model: embedding.model, model_dir: "", source: "", reason: "invalid", message: error.message, partial_bytes: 0 };
    }
    const where = { model: target.model, model_dir: target.modelDir };
    if (this.running && sameTarget(this.running.target, target)) {
      const p = this.running.progress;
      return { ...where, source: target.source, state: p?.state ?? "checking", file: p?.file ?? null, files: p?.files ?? modelFilesFor(true).length, files_done: p?.filesDone ?? 0, bytes_done: p?.bytesDone ?? 0, bytes_total: p?.bytesTotal ?? null };
    }
    if (missingModelFiles(modelFolder(target.modelDir, target.model), modelFilesFor(true)).length === 0) return { ...where, state: "ready" };
    const partial = partialBytes(target);
    if (this.lastFailure && sameTarget(this.lastFailure.target, target)) {
      return { ...where, source: target.source, state: "failed", reason: this.lastFailure.reason, message: this.lastFailure.message, partial_bytes: partial };
    }
    return { ...where, source: target.source, state: "not_downloaded", partial_bytes: partial };
  }

  /** Starts the download unless one runs already; an explicit user action, never called by search or capture. */
  start(): ModelState {
    const embedding = this.embedding();
    if (embedding.provider !== "local") {
      throw new DreamError("INVALID_FIELD", `the embedding provider is ${embedding.provider}; only the local provider downloads a model`, { field: "embedding.provider" });
    }
    if (this.running) return this.status();
    const target = this.target();
    const controller = new AbortController();
    const job = { target, progress: null as DownloadProgress | null, controller, done: Promise.resolve() };
    this.lastFailure = undefined;
    this.running = job;
    this.log.info(`downloading ${target.model} into ${target.modelDir} from ${new URL(target.source).host}`);
    job.done = downloadModel({ model: target.model, modelDir: target.modelDir, remoteHost: target.source, signal: controller.signal, onProgress: (progress) => (job.progress = progress) })
      .then(({ digest }) => this.log.info(`downloaded ${target.model} (${digest}); the bridge loads it within a few seconds`))
      .catch((error: unknown) => {
        const reason = error instanceof ModelDownloadFailed ? error.reason : error instanceof DreamError ? "invalid" : "network";
        this.lastFailure = { target, reason, message: (error as Error).message };
        this.log.warn(`model download failed (${reason}): ${(error as Error).message}`);
      })
      .finally(() => {
        if (this.running === job) this.running = undefined;
      });
    return this.status();
  }

  /** The plugin is stopping: the transfer is cancelled (its bytes stay for a resume). */
  async dispose(): Promise<void> {
    const job = this.running;
    if (!job) return;
    job.controller.abort();
    await job.done;
  }

  private target(): Target {
    const embedding = this.embedding();
    const bridge = loadBridgeConfig(this.dataDir).embedding;
    const model = embedding.model !== "" ? embedding.model : bridge.model;
    return { model, modelDir: bridge.modelDir, source: embedding.mirror || this.env.HF_ENDPOINT || DEFAULT_REMOTE_HOST };
  }
}

function sameTarget(a: Target, b: Target): boolean {
  return a.model === b.model && a.modelDir === b.modelDir;
}

function partialBytes(target: Target): number {
  let folder: string;
  try {
    folder = partialFolder(target.modelDir, target.model);
  } catch {
    return 0; // a model id the engine refuses: the download says so when asked
  }
  if (!fs.existsSync(folder)) return 0;
  let total = 0;
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && !entry.name.endsWith(".download.json")) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

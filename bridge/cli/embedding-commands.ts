// `dsh-dream download-model` (the one command that fetches a model) and `dsh-dream reembed`
// (follows the bridge's re-embedding with a progress bar).
import { DEFAULT_REMOTE_HOST, downloadModel, type DownloadProgress } from "../embed/download-model";
import { DreamError } from "../protocol/errors";
import { loadBridgeConfig } from "../server/bridge-config";
import { flagString, type ParsedArgs } from "./args";
import type { MemoryApi } from "./commands";
import type { CliIo } from "./io";

const POLL_MS = 250;
const BAR_WIDTH = 30;

export async function downloadModelCommand(dataDir: string, args: ParsedArgs, io: CliIo): Promise<number> {
  const embedding = loadBridgeConfig(dataDir).embedding;
  const model = flagString(args, "model") ?? embedding.model;
  const modelDir = flagString(args, "model-dir") ?? embedding.modelDir;
  // HF_ENDPOINT is how Hugging Face's own tools are pointed at a mirror; --remote-host wins over it.
  const remoteHost = flagString(args, "remote-host") ?? (io.env.HF_ENDPOINT || undefined);
  io.out(`downloading ${model} into ${modelDir} from ${new URL(remoteHost ?? DEFAULT_REMOTE_HOST).host} …\n`);
  const json = args.flags.has("json");
  const { files, digest, resumedBytes } = await downloadModel({
    model,
    modelDir,
    ...(remoteHost ? { remoteHost } : {}),
    onProgress: json ? undefined : (progress) => io.err(`\r${describeProgress(progress)}`.padEnd(BAR_WIDTH + 60)),
  });
  if (!json) io.err("\n");
  const resumed = resumedBytes > 0 ? ` (resumed, ${megabytes(resumedBytes)} were already here)` : "";
  io.out(`${files.length} files, digest ${digest}${resumed}\nA running bridge loads the model within a few seconds; dense recall then starts by itself.\n`);
  return 0;
}

function describeProgress(progress: DownloadProgress): string {
  if (progress.state === "checking") return `checking ${progress.files} files on the hub …`;
  if (progress.state === "verifying") return `verifying ${progress.file} (${progress.filesDone + 1}/${progress.files}) …`;
  const total = progress.bytesTotal;
  return total ? `${bar(progress.bytesDone, total)} ${megabytes(progress.bytesDone)} of ${megabytes(total)} (${Math.floor((progress.bytesDone / total) * 100)} %)` : `${megabytes(progress.bytesDone)} …`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export async function reembedCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  let status = await api.call<Record<string, unknown>>("reembed", {});
  const json = args.flags.has("json");
  for (;;) {
    const coverage = status.coverage as { records: number; current_vectors: number };
    if (!json) io.err(`\r${bar(coverage.current_vectors, coverage.records)} ${coverage.current_vectors}/${coverage.records} memories embedded with ${status.model}`);
    if (status.backlog === 0) break;
    if (status.state !== "ready") throw new DreamError("EMBEDDING_UNAVAILABLE", `re-embedding stopped: ${String(status.message ?? status.state)}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    status = (await api.call<Record<string, any>>("status", {})).embedding;
  }
  if (!json) io.err("\n");
  io.out(json ? JSON.stringify(status) + "\n" : `re-embedding complete: ${(status.coverage as { records: number }).records} memories\n`);
  return 0;
}

function bar(done: number, total: number): string {
  const filled = total ? Math.round((done / total) * BAR_WIDTH) : BAR_WIDTH;
  return `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
}

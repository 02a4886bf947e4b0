// `dsh-dream download-model` (the one command that fetches a model) and `dsh-dream reembed`
// (follows the bridge's re-embedding with a progress bar).
import { downloadModel } from "../embed/download-model";
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
  const remoteHost = flagString(args, "remote-host");
  io.out(`downloading ${model} into ${modelDir}${remoteHost ? ` from ${new URL(remoteHost).host}` : ""} …\n`);
  const { files, digest } = await downloadModel({ model, modelDir, ...(remoteHost ? { remoteHost } : {}) });
  io.out(`${files.length} files, digest ${digest}\nRestart the bridge (dsh-dream stop) so that it loads the model.\n`);
  return 0;
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

// Composes the host half: settings, the bridge link, capture, recall, tools and routes, each
// registered through the plugin's context so that disposing the fiber removes every listener,
// tool, route, timer and the bridge process this plugin started.
import os from "node:os";
import path from "node:path";
import type { RpcMethod } from "../bridge/protocol/wire";
import type { HostContext, HostLogger, ToolDefinition } from "./host-types";
import type { PluginConfig } from "./config";
import { BridgeLink } from "./bridge-link";
import { bridgeSections, syncBridgeConfig } from "./bridge-config-sync";
import { CaptureQueue } from "./capture/capture-queue";
import { TurnCapture } from "./capture/capture";
import { TurnBuffer } from "./capture/turn-buffer";
import type { TurnRecord } from "./capture/turn-records";
import { Recall, type SearchAnswer } from "./recall/recall";
import { memoryTools } from "./tools";
import { registerRoutes } from "./routes/routes";
import { PluginSettings } from "./settings/plugin-settings";
import { openSettingsStore } from "./settings/settings-store";
import { hostFeatures } from "./host-features";
import { ModelDownloads } from "./model-download";

const WRITE_TIMEOUT_MS = 10_000;
const STATUS_TIMEOUT_MS = 3_000;
/** The Memories page's reads and changes, each one call to the bridge. */
const MEMORY_TIMEOUT_MS = 10_000;
/** On dispose, captured turns get this long to reach the bridge before it is stopped. */
const FINAL_DRAIN_MS = 3_000;

export interface PluginPaths {
  /** dist/cli.cjs: the bridge program. */
  cliPath: string;
  version: string;
}

export function startMemoryPlugin(ctx: HostContext, config: PluginConfig, paths: PluginPaths): void {
  const log = hostLog(ctx);
  const env = process.env as Record<string, string | undefined>;
  const dataDir = resolveDataDir(config.dataDir, env);
  const settings = new PluginSettings(config, openSettingsStore(dataDir));
  const link = new BridgeLink({
    dataDir,
    cliPath: paths.cliPath,
    // A key saved from the settings panel reaches the bridge through the variable the config names.
    env: () => withSavedKey(env, settings),
    prepare: () => syncBridgeConfig(dataDir, settings.effective()),
  });
  const downloads = new ModelDownloads(dataDir, () => settings.effective().embedding, env, log);
  ctx.effect(() => () => downloads.dispose(), "dsh-dream: model download");
  const buffer = new TurnBuffer();
  const queue = new CaptureQueue(
    {
      importRecords: (records: TurnRecord[]) => link.call("import", { records }, WRITE_TIMEOUT_MS),
      forget: async (id: string) => void (await link.call("forget", { id }, WRITE_TIMEOUT_MS)),
    },
    log,
  );
  const capture = new TurnCapture(buffer, queue, () => settings.effective(), log);
  const recall = new Recall(
    buffer,
    { search: (params, timeoutMs) => link.call<SearchAnswer>("search", params, timeoutMs), drainWrites: (ms) => queue.drain(ms) },
    () => settings.effective(),
    log,
  );

  ctx.effect(() => {
    if (settings.effective().enabled) warmUp(link, log);
    return () => link.dispose();
  }, "dsh-dream: bridge process");
  ctx.effect(() => async () => {
    await queue.drain(FINAL_DRAIN_MS);
    queue.close();
  }, "dsh-dream: capture queue");
  ctx.effect(
    () =>
      settings.onChange(async (next, previous, changed) => {
        // The bridge reads its settings (and the key, from its environment) only at start: restart it
        // when what bridge-config.json holds changes. The mirror is not there (it only matters to a download).
        const bridgeSide = (config: PluginConfig) => JSON.stringify(bridgeSections(config));
        if ((changed.embeddingApiKey || bridgeSide(next) !== bridgeSide(previous)) && !(await link.reconfigure())) {
          log.warn(`the memory bridge's settings (embedding or privacy) changed, but the bridge for ${dataDir} was started outside DSH: restart it (dsh-dream stop) to apply them`);
        }
        if (next.enabled && !previous.enabled) warmUp(link, log);
      }),
    "dsh-dream: settings listener",
  );

  ctx.on("session/event", (session, event) => guard(log, "session/event", () => capture.onSessionEvent(session, event)));
  ctx.on("session/disposed", (session) => guard(log, "session/disposed", () => capture.forgetSession(session?.header?.id)));
  ctx.on("agent/turn-stopping", (payload) => guard(log, "agent/turn-stopping", () => capture.onTurnStopping(payload)), { global: true });
  ctx.on("agent/pre-step", (payload, next) => recall.onPreStep(payload, next));

  ctx.inject(["tools"], (tctx) => {
    const tools = memoryTools({
      call: (method, params, timeoutMs) => link.call(method, params, timeoutMs),
      markHighlight: (sessionId) => capture.markHighlight(sessionId),
      lastRecall: (sessionId) => recall.lastNote(sessionId),
      nowMs: Date.now,
    });
    tctx.effect(() => registerWhileEnabled(tctx, tools, settings), "dsh-dream: memory tools");
  });

  // The settings page may be open while memory is off: it must not start a bridge just to show status.
  const query = <T>(method: "status" | "receipt" | "reembed", timeoutMs: number) =>
    settings.effective().enabled ? link.call<T>(method, {}, timeoutMs) : link.callIfRunning<T>(method, {}, timeoutMs, "long-term memory is off");
  ctx.inject(["webServer"], (wctx) => {
    wctx.effect(
      () =>
        registerRoutes(wctx.webServer!, {
          settings,
          status: async () => ({
            plugin: {
              version: paths.version,
              enabled: settings.effective().enabled,
              holographic: settings.effective().holographic,
              data_dir: dataDir,
              bridge_owned_by_plugin: link.owned,
              capture: queue.status(),
              last_recall: await lastRecall(query),
              host: hostFeatures(ctx),
              model: downloads.status(),
            },
            bridge: await query("status", STATUS_TIMEOUT_MS).catch((error: Error) => ({ available: false, reason: error.message })),
          }),
          reembed: () => query("reembed", STATUS_TIMEOUT_MS),
          reembedProgress: async () => {
            const status = await query<{ embedding?: Record<string, unknown> }>("status", STATUS_TIMEOUT_MS);
            return { embedding: status.embedding ?? null };
          },
          model: { status: () => downloads.status(), download: () => downloads.start() },
          memories: {
            enabled: () => settings.effective().enabled,
            call: <T>(method: RpcMethod, params: Record<string, unknown>) =>
              settings.effective().enabled ? link.call<T>(method, params, MEMORY_TIMEOUT_MS) : link.callIfRunning<T>(method, params, MEMORY_TIMEOUT_MS, "long-term memory is off"),
            newestRecall: () => recall.newestNote(),
          },
          reportError: (error, route) => log.error(`${route} failed: ${(error as Error)?.stack ?? String(error)}`),
        }),
      "dsh-dream: settings and memories routes",
    );
  });
}

function withSavedKey(env: Record<string, string | undefined>, settings: PluginSettings): Record<string, string | undefined> {
  const key = settings.embeddingApiKey();
  const name = settings.effective().embedding.apiKeyEnv;
  return key === undefined || name === "" ? env : { ...env, [name]: key };
}

/** Tools exist only while long-term memory is enabled; returns the disposer of the current set. */
function registerWhileEnabled(tctx: HostContext, tools: ToolDefinition[], settings: PluginSettings): () => void {
  let registered: Array<() => void> = [];
  const sync = (enabled: boolean) => {
    if (enabled && registered.length === 0) registered = tools.map((tool) => tctx.tools!.register(tool));
    if (!enabled && registered.length > 0) {
      for (const dispose of registered.splice(0)) dispose();
    }
  };
  sync(settings.effective().enabled);
  const stopListening = settings.onChange((next) => sync(next.enabled));
  return () => {
    stopListening();
    sync(false);
  };
}

/** The newest receipt's recall line and fallback reason (null before the first search). */
async function lastRecall(query: <T>(method: "receipt", timeoutMs: number) => Promise<T>): Promise<Record<string, unknown> | null> {
  try {
    const { receipt } = await query<{ receipt: Record<string, unknown> }>("receipt", STATUS_TIMEOUT_MS);
    return { receipt_id: receipt.receipt_id, at_ms: receipt.created_at_ms, recall: receipt.recall, fallback_reason: receipt.fallback_reason };
  } catch {
    return null; // no search yet, or no bridge: the bridge section of the status says which
  }
}

function warmUp(link: BridgeLink, log: HostLogger): void {
  link.call("status", {}, 60_000).catch((error: Error) => log.warn(`the memory bridge is not available yet: ${error.message}`));
}

/** A listener of ours never throws into the host; what went wrong is logged instead. */
function guard(log: HostLogger, what: string, run: () => void): void {
  try {
    run();
  } catch (error) {
    log.warn(`${what} listener failed: ${(error as Error).stack ?? String(error)}`);
  }
}

export function resolveDataDir(configured: string, env: Record<string, string | undefined>): string {
  const dshHome = env.DSH_HOME ? path.resolve(env.DSH_HOME) : path.join(os.homedir(), ".dsh");
  return configured === "" ? path.join(dshHome, "dsh-dream") : path.resolve(dshHome, configured);
}

function hostLog(ctx: HostContext): HostLogger {
  const logger = ctx.logger;
  if (typeof logger === "function") return logger("dsh-dream");
  if (logger && typeof logger.warn === "function") return logger;
  const write = (level: string) => (...args: unknown[]) => process.stderr.write(`[dsh-dream] ${level} ${args.map(String).join(" ")}\n`);
  return { debug: () => undefined, info: write("info"), warn: write("warn"), error: write("error") };
}

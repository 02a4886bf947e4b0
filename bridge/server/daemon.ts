// One bridge per data directory: opens the store (which takes the directory lock), starts or
// connects Chroma, follows the journal into it, serves the RPC on loopback and writes the bridge
// file. stop() undoes all of it in reverse order and leaves no process, socket or timer behind.
import fs from "node:fs";
import path from "node:path";
import { ChromaCollections } from "../chroma/chroma-collections";
import { type ChromaExit, EmbeddedChroma } from "../chroma/chroma-process";
import { ChromaSync, storeSyncSource } from "../chroma/chroma-sync";
import { PROTOCOL_VERSION } from "../protocol/wire";
import { createProvider } from "../embed/create-provider";
import { EmbeddingService } from "../embed/embedding-service";
import { DreamError } from "../protocol/errors";
import { isProcessAlive } from "../store/lock";
import { MemoryStore } from "../store/memory-store";
import { protectDataDir } from "../store/owner-only";
import type { VectorBinding } from "../store/vector-spaces";
import { loadOrCreateToken, removeBridgeFile, writeBridgeFile } from "./bridge-file";
import type { BridgeConfig } from "./bridge-config";
import { BridgeLog, startFailure } from "./bridge-log";
import { createBridgeService } from "./bridge-service";
import { startRpcServer, type RpcServer } from "./rpc-server";

export interface BridgeOptions {
  dataDir: string;
  config: BridgeConfig;
  version: string;
  /** Where secrets named by the config (the embedding API key variable) are read from. */
  env: Readonly<Record<string, string | undefined>>;
  /** Exit after this long without a request (on-demand bridges); undefined = run until stopped. */
  idleExitMs?: number;
  /** Exit once this process is gone (the host that started the bridge); undefined = no owner. */
  ownerPid?: number;
  /** Housekeeping timing (checkpoints, erasing forgotten memories); the defaults suit a real bridge, tests shorten them. */
  housekeeping?: { checkEveryMs?: number; quietMs?: number; eraseAfterMs?: number; retentionEveryMs?: number; checkpointAfterBytes?: number };
}

// A checkpoint is written in slices between requests and rewrites only the segments that changed, but it
// still reads the state and writes files, so it is taken when the bridge has been quiet for a while and
// enough journal has grown that a restart would replay for long.
const CHECKPOINT_CHECK_MS = 30_000;
const CHECKPOINT_QUIET_MS = 10_000;
const CHECKPOINT_AFTER_BYTES = 64 * 1024 * 1024;
// Present while the embedded replica must be rebuilt because an erasure is under way (or was cut short).
const REBUILD_MARKER = "chroma.rebuild";
// How long a forgotten memory's text may stay in the files before the bridge erases it unasked.
const ERASE_AFTER_MS = 60_000;
// How often the retention limits (privacy.retention, privacy.audit) are applied; also once at the first
// quiet moment after a start, so a limit just set takes effect at once. Daily, because the limits are
// in days and each pass that forgets something rebuilds the embedded replica (its erasure).
const RETENTION_EVERY_MS = 24 * 60 * 60_000;
const SHUTDOWN_DRAIN_MS = 5_000;
// Polling, because a process cannot wait on a non-child on every platform; 0.5 s keeps the exit well
// inside the 2 s an owner may expect, for one signal-0 syscall per tick.
const OWNER_POLL_MS = 500;

export interface RunningBridge {
  port: number;
  /** Resolves when the bridge has fully stopped, whoever asked it to. */
  stopped: Promise<void>;
  stop(reason: string): Promise<void>;
}

interface Replica {
  chroma?: EmbeddedChroma;
  collections: ChromaCollections;
  sync: ChromaSync;
  mode: string;
  url: string;
}

export async function startBridge(options: BridgeOptions): Promise<RunningBridge> {
  const log = new BridgeLog(options.dataDir);
  let store: MemoryStore;
  try {
    const { flatMaxRecords, annRecallTarget } = options.config.search;
    store = MemoryStore.open({ dataDir: options.dataDir, audit: options.config.privacy.audit, vectorIndex: { flatMaxRecords, recallTarget: annRecallTarget } });
  } catch (error) {
    // Said where the CLI and the plugin look for why a start failed (the child's stderr goes nowhere).
    log.error(startFailure(error));
    throw error;
  }
  const opened = store.opened;
  log.info(`store opened in ${opened.ms} ms: ${opened.memories} memories, ${opened.checkpointReason === undefined ? `from the checkpoint and ${opened.replayed} journal entries after it` : `the whole journal replayed (${opened.checkpointReason})`}`);
  const tail = store.tornTail;
  if (tail) log.error(`the journal's last ${tail.bytes} bytes were cut off (${tail.cause}); they are kept at ${tail.keptAt}`);
  // After open, which creates the directory; a folder that stays readable by others is logged, not fatal.
  const access = protectDataDir(path.resolve(options.dataDir), { env: options.env });
  if (access.warning) log.error(access.warning);
  else log.info(`data directory owner-only: ${access.how}`);
  let replica: Replica | undefined;
  let chromaDown: string | undefined;
  let embedder: EmbeddingService | undefined;
  let server: RpcServer | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let lastRequestMs = Date.now();
  const quietMs = options.housekeeping?.quietMs ?? CHECKPOINT_QUIET_MS;
  const checkpointAfterBytes = options.housekeeping?.checkpointAfterBytes ?? CHECKPOINT_AFTER_BYTES;
  const eraseAfterMs = options.housekeeping?.eraseAfterMs ?? ERASE_AFTER_MS;
  const retentionEveryMs = options.housekeeping?.retentionEveryMs ?? RETENTION_EVERY_MS;
  let retentionDueMs = Date.now();
  let lastRetention: Record<string, unknown> | undefined;
  // One background checkpoint at a time: at 1M a full one runs for tens of seconds, across timer ticks.
  let checkpointing = false;
  const checkpointTimer = setInterval(() => {
    if (Date.now() >= retentionDueMs && Date.now() - lastRequestMs >= quietMs && !purging) {
      retentionDueMs = Date.now() + retentionEveryMs;
      try {
        lastRetention = applyRetention();
      } catch (error) {
        log.error(`applying the retention limits failed: ${(error as Error).message}`);
      }
    }
    // Forgotten memories are erased from every file at the first quiet moment a minute after the
    // forget was seen: forget erases within about two minutes, without a purge request.
    if (store.forgottenNotErased === 0) holesSinceMs = undefined;
    else holesSinceMs ??= Date.now();
    if (holesSinceMs !== undefined && Date.now() - holesSinceMs >= eraseAfterMs && Date.now() - lastRequestMs >= quietMs && !purging) {
      void purge("automatic, after a forget").catch((error: unknown) => log.error(`erasing forgotten memories failed: ${(error as Error).message}`));
      return;
    }
    // A compaction removes every checkpoint at its switch: the next one is taken after it.
    if (checkpointing || purging || Date.now() - lastRequestMs < quietMs) return;
    if (store.journalBytesSinceCheckpoint < checkpointAfterBytes && !store.checkpointLacksLists) return;
    // Written in slices between requests, so a search or a write waits one slice at most (checkpoint.ts).
    checkpointing = true;
    void store
      .checkpointInBackground()
      .then(
        (outcome) => {
          if ("abandoned" in outcome) log.info(`checkpoint given up: ${outcome.abandoned}`);
          else if (!("unchanged" in outcome)) log.info(`checkpoint at journal offset ${outcome.offset} (${outcome.parts_written} parts written, ${outcome.parts_reused} kept)`);
        },
        (error: unknown) => log.error(`checkpoint failed: ${(error as Error).message}`),
      )
      .finally(() => (checkpointing = false));
  }, options.housekeeping?.checkEveryMs ?? CHECKPOINT_CHECK_MS);
  checkpointTimer.unref();
  let ownerTimer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));

  // Aborted by stop(): a start of the replica under way is given up rather than waited for.
  const replicaAbort = new AbortController();
  const stop = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      log.info(`stopping: ${reason}`);
      replicaAbort.abort();
      if (idleTimer) clearTimeout(idleTimer);
      clearInterval(checkpointTimer);
      clearInterval(ownerTimer);
      removeBridgeFile(options.dataDir, process.pid);
      await server?.close();
      // An erasure under way finishes first: it may be restarting the replica; so does a start of it.
      await purging?.catch(() => undefined);
      await replicaStarting;
      await embedder?.stop();
      // Give the replica a moment to drain, but never hang a shutdown on a Chroma that is down:
      // whatever is left is in the journal and is replayed into Chroma on the next start.
      if (replica) await drain(replica.sync, SHUTDOWN_DRAIN_MS);
      replica?.sync.stop();
      await replica?.chroma?.stop();
      store.close();
      log.info("stopped");
      resolveStopped();
    })();
    return stopping;
  };
  // A replica that crashes Chroma each time it is read (an HNSW segment cut short by a kill mid-flush:
  // chroma-core/chroma#7238) is rebuilt from the journal, once a bridge's life; if the rebuilt one crashes
  // it too, the bridge serves without a replica until it starts again (as when Chroma cannot start).
  let rebuiltAfterCrashes = false;
  // A start of the replica under way: the first (once the bridge serves) or a rebuild after crashes.
  let replicaStarting: Promise<void> | undefined;
  const onCrashLoop = (crashed: Replica, { deaths, last }: { deaths: number; last: ChromaExit }): void => {
    if (replica !== crashed || purging || stopping) return;
    const how = `${deaths} times in a row soon after each start (last: ${last.signal ? `signal ${last.signal}` : `code ${last.code}`})`;
    replicaStarting = (async () => {
      crashed.sync.stop();
      await crashed.chroma?.stop();
      replica = undefined;
      if (rebuiltAfterCrashes) {
        chromaDown = `embedded Chroma crashed ${how}, also with a replica rebuilt from the journal`;
        log.error(`${chromaDown}; serving from the journal without the Chroma replica until the bridge starts again`);
        return;
      }
      rebuiltAfterCrashes = true;
      log.error(`embedded Chroma crashed ${how}: its replica cannot be read; rebuilding the replica from the journal`);
      fs.rmSync(path.join(options.dataDir, "chroma"), { recursive: true, force: true });
      fs.rmSync(path.join(options.dataDir, "chroma-sync.json"), { force: true });
      if (stopping) return;
      const restarted = await startReplica(options, store, log, onCrashLoop, replicaAbort.signal);
      replica = restarted.replica;
      chromaDown = restarted.down;
    })()
      .catch((error: unknown) => {
        chromaDown = `rebuilding the Chroma replica failed: ${(error as Error).message}`;
        log.error(`${chromaDown}; serving from the journal without the Chroma replica until the bridge starts again`);
      })
      .finally(() => (replicaStarting = undefined));
  };
  // One erasure at a time; a request during one waits for it and gets its report.
  let purging: Promise<Record<string, unknown>> | undefined;
  let holesSinceMs: number | undefined;
  const purge = (why: string): Promise<Record<string, unknown>> => {
    if (purging) return purging;
    const run = (async () => {
        // A start of the replica (the first, or a rebuild after Chroma's crashes) finishes first: the two
        // would start a Chroma on one folder each.
        await replicaStarting;
        const embedded = options.config.chroma.mode === "embedded";
        if (embedded) {
          // Chroma's SQLite keeps deleted rows in free pages: the embedded replica is rebuilt from
          // scratch. The marker makes the next start finish that if this erasure is cut short.
          fs.writeFileSync(path.join(options.dataDir, REBUILD_MARKER), `${why}\n`);
          replica?.sync.stop();
          await replica?.chroma?.stop();
          replica = undefined;
        }
        // An external replica holds its cursor while the journal is rewritten. Caught up, it continues
        // from where the writes made meanwhile begin in the new journal (the compaction starts in the
        // same turn as it caught up, nothing awaited between); otherwise it is rebuilt from the start.
        const caughtUp = replica ? await replica.sync.pauseCaughtUp(SHUTDOWN_DRAIN_MS) : false;
        // Searches and writes go on meanwhile; only the switch to the new journal blocks.
        const report = await store.compactInBackground();
        let replicaNote: string;
        if (embedded) {
          const restarted = await startReplica(options, store, log, onCrashLoop, replicaAbort.signal);
          replica = restarted.replica;
          chromaDown = restarted.down;
          replicaNote = replica ? "rebuilt from the compacted journal" : `not running: ${chromaDown}`;
        } else if (replica) {
          replica.sync.rebase(report.carried_from_offset, caughtUp);
          replicaNote = caughtUp ? "forgotten rows deleted; continuing" : "resyncing from the start";
        } else {
          replicaNote = "off";
        }
        embedder?.rescan();
        holesSinceMs = undefined;
        log.info(`erased ${report.erased} forgotten memories (${why}) in ${report.ms} ms, longest pause ${report.longest_pause_ms} ms: journal ${report.journal_bytes_before} -> ${report.journal_bytes_after} bytes, ${report.receipts.dropped} receipts dropped, ${report.receipts.masked} masked; replica ${replicaNote}`);
        return { ...report, replica: replicaNote };
    })();
    purging = run;
    void run.then(
      () => (purging = undefined),
      () => (purging = undefined),
    );
    return run;
  };
  /** Forgets what the limits let go and erases it at once; trims the audit log. */
  const applyRetention = (): Record<string, unknown> => {
    const memories = store.applyRetention(options.config.privacy.retention);
    const audit = store.trimAudit();
    if (audit.dropped > 0 || audit.masked > 0) log.info(`audit log trimmed to its limits: ${audit.dropped} receipts removed, ${audit.masked} queries masked`);
    if (memories.forgotten > 0) {
      const scopes = Object.entries(memories.by_scope).map(([scope, n]) => `${scope}: ${n.age} by age, ${n.count} over the count`).join("; ");
      log.info(`retention: forgot ${memories.forgotten} memories (${scopes}); erasing them now`);
      void purge("retention limits").catch((error: unknown) => log.error(`erasing forgotten memories failed: ${(error as Error).message}`));
    }
    return { at_ms: Date.now(), forgotten: memories.forgotten, by_scope: memories.by_scope, audit };
  };
  const touch = () => {
    lastRequestMs = Date.now();
    if (options.idleExitMs === undefined) return;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => void stop("idle"), options.idleExitMs);
  };

  try {
    const token = loadOrCreateToken(options.dataDir);
    embedder = new EmbeddingService(store, createProvider(options.config.embedding, options.env), options.config.embedding, {
      log: (message) => log.info(message),
      // Dropped while the replica starts: its collection goes once Chroma is up.
      spaceDropped: (binding) => void (async () => {
        await replicaStarting;
        await dropCollection(replica, binding, log);
      })(),
    });
    store.onCommit(() => embedder?.poke());
    await embedder.start();
    const service = embedder;
    // Every receipt says how far the configured embedder has come, also when recall fell back to FTS.
    store.setReceiptNotes(() => {
      const { state, coverage } = service.status();
      return {
        persistence: replica
          ? { chroma: replica.mode, ...summarise(replica.sync) }
          : chromaDown
            ? { chroma: "embedded", replica: "unavailable" }
            : replicaStarting
              ? { chroma: options.config.chroma.mode, replica: "starting" }
              : { chroma: "off" },
        embedder: { state, coverage },
      };
    });
    const handle = createBridgeService(store, {
      embedQuery: (text) => service.embedQuery(text),
      reembed: () => {
        const refusal = service.refusal();
        if (refusal) throw new DreamError(service.status().state === "refused" ? "REEMBED_REFUSED" : "EMBEDDING_UNAVAILABLE", refusal);
        service.poke();
        return service.status();
      },
      status: async () => ({
        bridge: { pid: process.pid, port: server?.port ?? null, version: options.version, data_dir_bytes: directoryBytes(options.dataDir) },
        chroma: !replica && !chromaDown && replicaStarting ? { mode: options.config.chroma.mode, starting: true, healthy: false, collections: [] } : await replicaStatus(replica, store, chromaDown),
        embedding: service.status(),
        privacy: { retention: options.config.privacy.retention, audit: options.config.privacy.audit, limits_last_applied: lastRetention ?? null, limits_next_check_ms: retentionDueMs },
      }),
      shutdown: () => setImmediate(() => void stop("shutdown requested")),
      purge: () => purge("requested"),
    }, { redactSecrets: options.config.privacy.redactSecrets });
    server = await startRpcServer({
      token,
      handle: (method, params) => {
        touch();
        return handle(method, params);
      },
      onError: (error, context) => log.error(`${context.method ?? "request"} failed: ${(error as Error).stack ?? String(error)}`),
    });
    writeBridgeFile(options.dataDir, { port: server.port, pid: process.pid, version: options.version, protocol: PROTOCOL_VERSION, token, started_ms: Date.now() });
    touch();
    ownerTimer = watchOwner(options.ownerPid, stop);
    const mode = options.config.chroma.mode;
    log.info(`serving on 127.0.0.1:${server.port}, pid ${process.pid}, chroma ${mode === "off" ? "off" : `${mode}, starting`}`);
    // The replica comes up once the bridge answers: search and writes never wait for it (the journal is the
    // record; the sync catches up from its cursor), and the embedded Chroma's start (~0.25 s) was on the way
    // to the first answer. Status says "starting" meanwhile, receipts too.
    if (mode !== "off") {
      replicaStarting = (async () => {
        const started = await startReplica(options, store, log, onCrashLoop, replicaAbort.signal);
        replica = started.replica;
        chromaDown = started.down;
        if (replica) log.info(`chroma ${replica.mode} replica up`);
      })()
        .catch((error: unknown) => {
          chromaDown = `starting the Chroma replica failed: ${(error as Error).message}`;
          log.error(`${chromaDown}; serving from the journal without the Chroma replica until the bridge starts again`);
        })
        .finally(() => (replicaStarting = undefined));
    }
    return { port: server.port, stopped, stop };
  } catch (error) {
    log.error(startFailure(error));
    await stop("start failed");
    throw error;
  }
}

function watchOwner(ownerPid: number | undefined, stop: (reason: string) => Promise<void>): NodeJS.Timeout | undefined {
  if (ownerPid === undefined) return undefined;
  const timer = setInterval(() => {
    if (!isProcessAlive(ownerPid)) void stop(`owner process ${ownerPid} exited`);
  }, OWNER_POLL_MS);
  // The RPC server keeps the process alive; this timer alone must not.
  timer.unref();
  return timer;
}

/**
 * The Chroma replica, or why the embedded one is down. The journal is the record and search runs
 * from the store's own indexes, so a Chroma that cannot start (a binding this system cannot load,
 * an unusable chroma/ folder) costs the replica, not the memory: the bridge serves without it, says
 * so in status and receipts, and the sync catches up from its persisted cursor on a later start.
 */
async function startReplica(
  options: BridgeOptions,
  store: MemoryStore,
  log: BridgeLog,
  onCrashLoop: (replica: Replica, info: { deaths: number; last: ChromaExit }) => void,
  signal: AbortSignal,
): Promise<{ replica?: Replica; down?: string }> {
  const chromaConfig = options.config.chroma;
  if (chromaConfig.mode === "off") return {};
  let chroma: EmbeddedChroma | undefined;
  let collections: ChromaCollections;
  let url: string;
  if (chromaConfig.mode === "embedded") {
    // An erasure that was cut short (kill -9, power loss) left the old replica, which may still hold
    // what was forgotten: it is rebuilt from the journal, as the erasure would have done.
    const marker = path.join(options.dataDir, REBUILD_MARKER);
    if (fs.existsSync(marker)) {
      fs.rmSync(path.join(options.dataDir, "chroma"), { recursive: true, force: true });
      fs.rmSync(path.join(options.dataDir, "chroma-sync.json"), { force: true });
      fs.rmSync(marker, { force: true });
      log.info("rebuilding the Chroma replica: an erasure of forgotten memories was cut short");
    }
    try {
      chroma = await EmbeddedChroma.start({ dataDir: path.join(options.dataDir, "chroma"), signal });
    } catch (error) {
      // Given up because the bridge is stopping: nothing to report.
      if (signal.aborted) return { down: "the bridge stopped during the start" };
      const down = `embedded Chroma could not start: ${(error as Error).message}`;
      log.error(`${down}; serving from the journal without the Chroma replica until the bridge starts again`);
      return { down };
    }
    chroma.on("exit", (exit) => log.error(`chroma exited (code ${exit.code}, signal ${exit.signal})`));
    chroma.on("restarted", (info) => log.info(`chroma restarted, pid ${info.pid}`));
    url = chroma.url;
    collections = new ChromaCollections({ url });
  } else {
    url = chromaConfig.url;
    collections = new ChromaCollections({ url, headers: chromaConfig.headers, tenant: chromaConfig.tenant, database: chromaConfig.database });
  }
  const target = chromaConfig.mode === "embedded" ? "embedded" : `external:${chromaConfig.url}/${chromaConfig.tenant ?? ""}/${chromaConfig.database ?? ""}`;
  const sync = new ChromaSync(storeSyncSource(store), collections, path.join(options.dataDir, "chroma-sync.json"), target);
  store.onCommit(() => sync.poke());
  sync.poke();
  void verifyReplica(store, collections, sync, log);
  const replica: Replica = { chroma, collections, sync, mode: chromaConfig.mode, url };
  chroma?.on("crash-loop", (info) => onCrashLoop(replica, info));
  return { replica };
}

/** Waits for the sync to drain, at most `ms`; the timer is ref'd so the process cannot exit mid-shutdown. */
async function drain(sync: ChromaSync, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([sync.whenIdle(), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** A superseded embedding space leaves Chroma too, unless the new model writes to the same collection. */
async function dropCollection(replica: Replica | undefined, binding: VectorBinding, log: BridgeLog): Promise<void> {
  if (!replica) return;
  try {
    await replica.sync.whenIdle();
    await replica.collections.deleteCollection(replica.collections.collectionName(binding));
    log.info(`deleted the superseded Chroma collection of ${binding.provider}/${binding.model} (${binding.dim} dims)`);
  } catch (error) {
    log.error(`could not delete the superseded Chroma collection: ${(error as Error).message}`);
  }
}

/**
 * Once caught up, checks Chroma against the store: a collection with fewer rows than the store has
 * vectors (Chroma's files lost or replaced while the cursor says "synced") triggers a full resync.
 */
async function verifyReplica(store: MemoryStore, collections: ChromaCollections, sync: ChromaSync, log: BridgeLog): Promise<void> {
  try {
    await sync.whenIdle();
    for (const space of store.vectors.summary()) {
      // ensureCollection first: a wiped Chroma has no collection at all, which must count as 0 rows.
      const rows = await collections.count(await collections.ensureCollection(space));
      if (rows < space.vectors) {
        log.error(`chroma holds ${rows} of ${space.vectors} vectors for ${space.provider}/${space.model}; resyncing from the journal`);
        sync.resyncFromStart();
        return;
      }
      if (rows > space.vectors) log.error(`chroma holds ${rows - space.vectors} rows the journal does not know for ${space.provider}/${space.model}`);
    }
  } catch (error) {
    // Chroma unreachable: the sync keeps retrying on its own; the check runs again at the next start.
    log.error(`replica check failed: ${(error as Error).message}`);
  }
}

function summarise(sync: ChromaSync): { replica: "in sync" | "catching up" | "unavailable"; pending_bytes: number } {
  const status = sync.status();
  const replica = status.last_error ? "unavailable" : status.pending_bytes > 0 ? "catching up" : "in sync";
  return { replica, pending_bytes: status.pending_bytes };
}

async function replicaStatus(replica: Replica | undefined, store: MemoryStore, down: string | undefined): Promise<Record<string, unknown>> {
  if (!replica) return down ? { mode: "embedded", healthy: false, collections: [], last_error: down } : { mode: "off" };
  const healthy = await replica.collections.heartbeat();
  // Per embedding space: vectors held in memory vs rows in the Chroma collection.
  const collections = await Promise.all(
    store.vectors.summary().map(async (space) => {
      const name = replica.collections.collectionName(space);
      const rows = healthy ? await replica.collections.count(name).catch(() => null) : null;
      return { name, provider: space.provider, model: space.model, dim: space.dim, vectors: space.vectors, chroma_rows: rows };
    }),
  );
  return { mode: replica.mode, url: replica.url, pid: replica.chroma?.pid ?? null, healthy, collections, ...replica.sync.status() };
}

/** Total size of the data directory (journal, checkpoint, Chroma files). */
function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    try {
      total += entry.isDirectory() ? directoryBytes(full) : fs.statSync(full).size;
    } catch {
      // A file removed while we walk (Chroma compaction, a rotated log) simply no longer counts.
    }
  }
  return total;
}

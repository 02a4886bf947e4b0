// The bridge's embedder: gives every memory a vector from the configured provider, off the request
// path and in batches, durably (each batch is a journal entry); embeds queries within a time budget;
// and migrates losslessly when the model changes — or refuses, when a dimension change is not allowed.
import type { MemoryStore } from "../store/memory-store";
import type { FallbackReason } from "../store/receipts";
import { spaceKey, type VectorBinding } from "../store/vector-spaces";
import type { EmbeddingConfig } from "./embedding-config";
import { EmbeddingUnavailable, type EmbeddingBinding, type EmbeddingProvider } from "./provider";

const BATCH = 32;
const RETRY_MS = 5_000;
const QUERY_TIMEOUT_MS = 2_000;

export type EmbedderState = "off" | "opening" | "ready" | "unavailable" | "refused";

export interface QueryVector {
  embedding?: { provider: string; model: string; vector: Float32Array; modelDigest: string | null; configHash: string | null };
  fallback?: FallbackReason;
}

export interface EmbedderHooks {
  log(message: string): void;
  /** A superseded space was dropped from the store (its Chroma collection can go too). */
  spaceDropped(binding: VectorBinding): void;
}

export class EmbeddingService {
  private state: EmbedderState;
  private binding: VectorBinding | undefined;
  private reason: FallbackReason | undefined;
  private message: string | undefined;
  private cursor = 0;
  private running = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private lastLogged: string | undefined;

  constructor(
    private readonly store: MemoryStore,
    private readonly provider: EmbeddingProvider | undefined,
    private readonly config: EmbeddingConfig,
    private readonly hooks: EmbedderHooks,
  ) {
    this.state = provider ? "opening" : "off";
  }

  async start(): Promise<void> {
    if (!this.provider || this.stopped) return;
    try {
      this.binding = toVectorBinding(await this.provider.open());
    } catch (error) {
      // A provider may come back (a server recovers, `download-model` fetches the files): try again later.
      this.fail(error);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.start();
      }, RETRY_MS);
      this.timer.unref();
      return;
    }
    const mismatch = this.dimensionMismatch();
    if (mismatch && !this.config.reembedOnDimensionMismatch) {
      this.state = "refused";
      this.reason = "index_not_current";
      this.message =
        `the configured model ${this.binding.model} makes ${this.binding.dim}-dimensional vectors, but stored memories have ` +
        `${mismatch.dim}-dimensional ones from ${mismatch.model}. Turn on "On dimension mismatch, try lossless re-embedding" ` +
        `(embedding.reembed_on_dimension_mismatch) to re-embed them, or switch back to ${mismatch.model}. Nothing was changed; search stays lexical.`;
      this.hooks.log(`embedding refused: ${this.message}`);
      return;
    }
    this.state = "ready";
    if (this.lastLogged !== undefined) this.hooks.log(`embedding ready: ${this.binding.provider}/${this.binding.model} (${this.binding.dim} dims)`);
    this.lastLogged = undefined;
    this.reason = undefined;
    this.message = undefined;
    this.poke();
  }

  /** New memories were written: embed them soon. */
  poke(): void {
    if (this.state !== "ready" || this.running || this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.work();
    }, 0);
  }

  /** Scans from the first memory again: a compaction renumbered them (docs are dense afterwards). */
  rescan(): void {
    this.cursor = 0;
    this.poke();
  }

  /** The query's vector, or the reason dense recall cannot take part in this search. */
  async embedQuery(text: string): Promise<QueryVector> {
    if (this.state === "off") return { fallback: "runtime_missing" };
    if (this.state !== "ready" || !this.binding) return { fallback: this.reason ?? "runtime_missing" };
    if (this.backlog() > Math.max(50, this.store.size * 0.01)) return { fallback: "index_not_current" };
    try {
      const [vector] = await this.provider!.embed([text], { timeoutMs: QUERY_TIMEOUT_MS });
      const { provider, model, modelDigest, configHash } = this.binding;
      return { embedding: { provider, model, vector, modelDigest, configHash } };
    } catch (error) {
      return { fallback: error instanceof EmbeddingUnavailable ? error.reason : "provider_error" };
    }
  }

  /** Memories still waiting for a vector from the configured model. */
  backlog(): number {
    return this.binding ? this.store.size - this.store.vectorCount(this.binding) : this.store.size;
  }

  status(): Record<string, unknown> {
    const current = this.binding ? this.store.vectorCount(this.binding) : 0;
    return {
      provider: this.config.provider,
      model: this.config.model,
      state: this.state,
      ...(this.binding ? { dim: this.binding.dim, model_digest: this.binding.modelDigest, config_hash: this.binding.configHash } : {}),
      coverage: { records: this.store.size, current_vectors: current, ratio: this.store.size ? current / this.store.size : 0 },
      backlog: this.binding ? this.backlog() : null,
      reason: this.reason ?? null,
      message: this.message ?? null,
    };
  }

  /** Why a re-embed request cannot run, or undefined when it is running (or already done). */
  refusal(): string | undefined {
    if (this.state === "ready") return undefined;
    return this.message ?? `the embedding provider is ${this.state}`;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.running) await new Promise((resolve) => setTimeout(resolve, 10));
    await this.provider?.close();
  }

  private async work(): Promise<void> {
    if (this.running || this.stopped || !this.binding) return;
    this.running = true;
    try {
      for (;;) {
        const { items, nextDoc } = this.store.memoriesNeedingVectors(this.binding, this.cursor, BATCH);
        if (items.length === 0) {
          this.cursor = nextDoc;
          this.finishMigration();
          break;
        }
        const vectors = await this.provider!.embed(items.map((item) => item.text));
        if (this.stopped) break;
        const { provider, model, modelDigest, configHash } = this.binding;
        this.store.attachVectors(items.map((item, i) => ({ id: item.id, contentHash: item.contentHash, embedding: { provider, model, vector: vectors[i], modelDigest, configHash } })));
        this.cursor = nextDoc;
        // Let searches and writes through between batches: embedding never blocks the bridge for long.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      this.fail(error);
      this.retryLater();
    } finally {
      this.running = false;
    }
  }

  /** Once every memory has a vector from the configured model, older spaces are superseded. */
  private finishMigration(): void {
    if (!this.binding || this.backlog() > 0) return;
    const active = spaceKey(this.binding);
    for (const space of this.store.vectors.summary()) {
      if (space.configHash === null || spaceKey(space) === active) continue;
      this.store.dropVectors(space);
      this.hooks.log(`re-embedding complete: dropped ${space.vectors} vectors of ${space.provider}/${space.model} (${space.dim} dims)`);
      this.hooks.spaceDropped(space);
    }
  }

  private dimensionMismatch(): VectorBinding | undefined {
    return this.store.vectors.summary().find((space) => space.configHash !== null && space.vectors > 0 && space.dim !== this.binding!.dim);
  }

  private fail(error: unknown): void {
    this.state = "unavailable";
    this.reason = error instanceof EmbeddingUnavailable ? error.reason : "provider_error";
    this.message = (error as Error).message;
    // Retried every RETRY_MS: the log says when the state changes, not each time it stays the same.
    const line = `embedding unavailable (${this.reason}): ${this.message}`;
    if (line !== this.lastLogged) this.hooks.log(line);
    this.lastLogged = line;
  }

  private retryLater(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.state = "ready";
      void this.work();
    }, RETRY_MS);
    this.timer.unref();
  }
}

function toVectorBinding(binding: EmbeddingBinding): VectorBinding {
  return { provider: binding.provider, model: binding.model, dim: binding.dim, modelDigest: binding.modelDigest, configHash: binding.configHash };
}

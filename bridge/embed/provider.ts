// What every embedding provider offers the bridge, and the identity each stored vector is bound to.
// A vector is served only while its binding equals the configured provider's current binding.

export type ProviderKind = "local" | "openai_compatible";

/** Everything that decides what a vector means; two vectors are comparable only if these agree. */
export interface EmbeddingBinding {
  provider: ProviderKind;
  model: string;
  dim: number;
  /** sha256 over the local model files (local), or null where there are no local files. */
  modelDigest: string | null;
  /** sha256 of the provider config with secrets removed (base URL, pooling, normalisation, …). */
  configHash: string;
}

export type EmbedFailure = "runtime_missing" | "model_not_cached" | "provider_error";

/** Thrown by providers; `reason` becomes the receipt's fallback reason. Messages never hold secrets. */
export class EmbeddingUnavailable extends Error {
  constructor(
    readonly reason: EmbedFailure,
    message: string,
  ) {
    super(message);
    this.name = "EmbeddingUnavailable";
  }
}

export interface EmbeddingProvider {
  readonly kind: ProviderKind;
  /**
   * Loads what the provider needs and returns its binding (the dimension is learned from the model
   * or the first answer). Throws EmbeddingUnavailable when it cannot.
   */
  open(): Promise<EmbeddingBinding>;
  /** Unit-length vectors, one per text, in order. Throws EmbeddingUnavailable. */
  embed(texts: string[], options?: { timeoutMs?: number }): Promise<Float32Array[]>;
  close(): Promise<void>;
}

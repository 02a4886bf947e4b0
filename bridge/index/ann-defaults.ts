// The dense index's defaults, in a module of their own so the bridge's config parser (which the DSH
// plugin bundles too) can name them without pulling in the index and its WebAssembly kernel.

/** Up to this many live vectors a space is searched exactly (the seed's flat_max_records). */
export const FLAT_MAX_RECORDS = 200_000;
/** Recall@10 against exact search that the approximate index must reach above the limit. */
export const RECALL_TARGET = 0.98;

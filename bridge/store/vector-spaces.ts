// Stored vectors grouped by embedding identity (provider, model, dimension, model-file digest, redacted
// config hash). Each vector is also bound to the content hash it was computed from, so a vector can
// never be served for text it did not embed, nor by a model or config it did not come from.
import { type AnnOptions, type AnnStatus, VectorIndex } from "../index/vector-index";
import { grownCapacity } from "../index/capacity";
import { copyDigest, DIGEST_BYTES, hashOfDigest, writeDigest } from "./content-digests";
import type { EmbeddingInput, MemoryRecord } from "./records";
import { contentDigestIs } from "./text-pages";

export interface VectorBinding {
  provider: string;
  model: string;
  dim: number;
  modelDigest: string | null;
  configHash: string | null;
}

export interface VectorSpace extends VectorBinding {
  key: string;
  index: VectorIndex;
  contentHashByDoc: DocHashes;
}

/**
 * The content hash each doc's vector was computed from, by doc number, as its 32-byte digest (a string of
 * 71 characters a doc cost ~88 MB of heap at 1M once the records keep their hashes as bytes, text-pages.ts).
 * A hash that is not "sha256:" and 64 lowercase hex digits (the store makes none) is kept as it is.
 */
export class DocHashes {
  private digests = new Uint8Array(0);
  private present = new Uint8Array(0);
  private readonly odd = new Map<number, string>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(doc: number): string | undefined {
    if (this.present[doc] !== 1) return undefined;
    return this.odd.get(doc) ?? hashOfDigest(this.digests, doc * DIGEST_BYTES);
  }

  has(doc: number): boolean {
    return this.present[doc] === 1;
  }

  /** Whether doc's vector was computed from `record`'s text (its hash is the record's), making no string. */
  boundTo(doc: number, record: MemoryRecord): boolean {
    if (this.present[doc] !== 1) return false;
    const odd = this.odd.get(doc);
    return odd !== undefined ? odd === record.content_hash : contentDigestIs(record, this.digests, doc * DIGEST_BYTES);
  }

  set(doc: number, hash: string): void {
    this.reserve(doc + 1);
    if (writeDigest(hash, this.digests, doc * DIGEST_BYTES)) this.odd.delete(doc);
    else this.odd.set(doc, hash);
    this.mark(doc);
  }

  /** set(), from the digest at `digests[at, at + 32)`. */
  setDigest(doc: number, digests: Uint8Array, at: number): void {
    this.reserve(doc + 1);
    copyDigest(digests, at, this.digests, doc * DIGEST_BYTES);
    this.odd.delete(doc);
    this.mark(doc);
  }

  delete(doc: number): boolean {
    if (this.present[doc] !== 1) return false;
    this.present[doc] = 0;
    this.odd.delete(doc);
    this.count--;
    return true;
  }

  /** Whether every doc that has a hash passes `test`. */
  everyDoc(test: (doc: number) => boolean): boolean {
    for (let doc = 0; doc < this.present.length; doc++) if (this.present[doc] === 1 && !test(doc)) return false;
    return true;
  }

  /** The docs that have a hash, in doc order. */
  *keys(): Generator<number> {
    for (let doc = 0; doc < this.present.length; doc++) if (this.present[doc] === 1) yield doc;
  }

  /** Room for docs below `docs` (a restore sizes it once for a million). */
  reserve(docs: number): void {
    if (docs <= this.present.length) return;
    const size = grownCapacity(this.present.length, docs);
    const present = new Uint8Array(size);
    present.set(this.present);
    const digests = new Uint8Array(size * DIGEST_BYTES);
    digests.set(this.digests);
    this.present = present;
    this.digests = digests;
  }

  private mark(doc: number): void {
    if (this.present[doc] === 1) return;
    this.present[doc] = 1;
    this.count++;
  }
}

export function spaceKey(binding: VectorBinding): string {
  return [binding.provider, binding.model, binding.dim, binding.modelDigest ?? "", binding.configHash ?? ""].join("\u0000");
}

export class VectorSpaces {
  private readonly spaces = new Map<string, VectorSpace>();
  private annOptions: AnnOptions = {};
  /**
   * Told of a doc whose vector was dropped because its row read back damaged from a checkpoint's part (the
   * space has forgotten the binding already): the state counts it as a change of that doc.
   */
  onDamagedRow: ((doc: number) => void) | undefined;

  /** Sets flat_max_records and the recall target for every space, present and future. */
  configure(options: AnnOptions): void {
    for (const space of this.spaces.values()) space.index.configure(options);
    this.annOptions = options;
  }

  /** Steps the ANN builds of every space that needs one, for about `budgetMs` in all; returns whether work is left. */
  maintain(budgetMs: number): boolean {
    const started = performance.now();
    let left = false;
    for (const space of this.spaces.values()) {
      if (!space.index.needsMaintenance()) continue;
      const remaining = budgetMs - (performance.now() - started);
      left = remaining <= 0 || space.index.maintain(remaining) || left;
    }
    return left;
  }

  put(doc: number, contentHash: string, embedding: EmbeddingInput): void {
    const binding = bindingOf(embedding);
    const key = spaceKey(binding);
    let space = this.spaces.get(key);
    if (!space) {
      space = { ...binding, key, index: new VectorIndex(binding.dim, this.annOptions), contentHashByDoc: new DocHashes() };
      this.watchDamage(space);
      this.spaces.set(key, space);
    }
    space.index.set(doc, embedding.vector);
    space.contentHashByDoc.set(doc, contentHash);
  }

  remove(doc: number): void {
    for (const space of this.spaces.values()) {
      if (space.contentHashByDoc.delete(doc)) space.index.remove(doc);
    }
  }

  /**
   * Installs a space rebuilt from a checkpoint, after the ones already present: creation order is kept
   * because status lists spaces in it. The index must hold exactly the docs of `contentHashByDoc`.
   */
  restore(binding: VectorBinding, index: VectorIndex, contentHashByDoc: DocHashes): void {
    const key = spaceKey(binding);
    if (this.spaces.has(key)) throw new Error(`vector space ${binding.provider}/${binding.model}/${binding.dim} is restored twice`);
    if (index.dim !== binding.dim || index.size !== contentHashByDoc.size || !contentHashByDoc.everyDoc((doc) => index.has(doc))) {
      throw new Error(`vector space ${binding.provider}/${binding.model}/${binding.dim}: index and content hashes disagree`);
    }
    index.configure(this.annOptions);
    const space = { ...binding, key, index, contentHashByDoc };
    this.watchDamage(space);
    this.spaces.set(key, space);
  }

  private watchDamage(space: VectorSpace): void {
    space.index.onDamagedRow = (doc) => {
      space.contentHashByDoc.delete(doc);
      this.onDamagedRow?.(doc);
    };
  }

  /** Every space in creation order, empty ones included (a space outlives its last forgotten vector). */
  list(): VectorSpace[] {
    return [...this.spaces.values()];
  }

  find(binding: VectorBinding): VectorSpace | undefined {
    return this.spaces.get(spaceKey(binding));
  }

  /** The bindings a doc has vectors in, oldest space first. */
  bindingsOf(doc: number): VectorBinding[] {
    return [...this.spaces.values()].filter((s) => s.contentHashByDoc.has(doc)).map(pickBinding);
  }

  /** Drops a whole space (after its vectors were superseded by a re-embedding). */
  drop(binding: VectorBinding): boolean {
    const key = spaceKey(binding);
    this.spaces.get(key)?.index.dispose();
    return this.spaces.delete(key);
  }

  /** Closes the files every space reads rows from (the state is being let go). */
  dispose(): void {
    for (const space of this.spaces.values()) space.index.dispose();
  }

  /** Per space; `damaged_rows` only once a vector was dropped because its row read back damaged (VectorIndex.damagedRows). */
  summary(): Array<VectorBinding & { vectors: number; index: AnnStatus; damaged_rows?: number }> {
    return [...this.spaces.values()].map((s) => ({ ...pickBinding(s), vectors: s.index.size, index: s.index.annStatus(), ...(s.index.damagedRows > 0 ? { damaged_rows: s.index.damagedRows } : {}) }));
  }
}

export function bindingOf(embedding: EmbeddingInput): VectorBinding {
  return {
    provider: embedding.provider,
    model: embedding.model,
    dim: embedding.vector.length,
    modelDigest: embedding.modelDigest ?? null,
    configHash: embedding.configHash ?? null,
  };
}

function pickBinding({ provider, model, dim, modelDigest, configHash }: VectorBinding): VectorBinding {
  return { provider, model, dim, modelDigest, configHash };
}

// Stored vectors grouped by embedding identity (provider, model, dimension). Each vector is bound to
// the content hash it was computed from, so a vector can never be served for text it did not embed.
import { VectorIndex } from "../index/vector-index";
import type { EmbeddingInput } from "./records";

export interface VectorBinding {
  provider: string;
  model: string;
  dim: number;
}

export interface VectorSpace extends VectorBinding {
  key: string;
  index: VectorIndex;
  contentHashByDoc: Map<number, string>;
}

export function spaceKey(binding: VectorBinding): string {
  return `${binding.provider}\u0000${binding.model}\u0000${binding.dim}`;
}

export class VectorSpaces {
  private readonly spaces = new Map<string, VectorSpace>();

  put(doc: number, contentHash: string, embedding: EmbeddingInput): void {
    const binding = { provider: embedding.provider, model: embedding.model, dim: embedding.vector.length };
    const key = spaceKey(binding);
    let space = this.spaces.get(key);
    if (!space) {
      space = { ...binding, key, index: new VectorIndex(binding.dim), contentHashByDoc: new Map() };
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
  restore(binding: VectorBinding, index: VectorIndex, contentHashByDoc: Map<number, string>): void {
    const key = spaceKey(binding);
    if (this.spaces.has(key)) throw new Error(`vector space ${binding.provider}/${binding.model}/${binding.dim} is restored twice`);
    if (index.dim !== binding.dim || index.size !== contentHashByDoc.size || [...contentHashByDoc.keys()].some((doc) => !index.has(doc))) {
      throw new Error(`vector space ${binding.provider}/${binding.model}/${binding.dim}: index and content hashes disagree`);
    }
    this.spaces.set(key, { ...binding, key, index, contentHashByDoc });
  }

  /** Every space in creation order, empty ones included (a space outlives its last forgotten vector). */
  list(): VectorSpace[] {
    return [...this.spaces.values()];
  }

  find(binding: VectorBinding): VectorSpace | undefined {
    return this.spaces.get(spaceKey(binding));
  }

  /** The binding a doc's vector belongs to, if it has one (a record has at most one vector per space). */
  bindingsOf(doc: number): VectorBinding[] {
    return [...this.spaces.values()].filter((s) => s.contentHashByDoc.has(doc)).map(({ provider, model, dim }) => ({ provider, model, dim }));
  }

  summary(): Array<VectorBinding & { vectors: number }> {
    return [...this.spaces.values()].map((s) => ({ provider: s.provider, model: s.model, dim: s.dim, vectors: s.index.size }));
  }
}

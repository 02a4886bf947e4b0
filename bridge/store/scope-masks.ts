// Which docs a search may see: a project scope sees itself plus global; no scope sees everything.
// Masks are cached per scope and rebuilt only after the set of docs has changed.

export class ScopeMasks {
  private readonly scopeOfDoc: Array<string | undefined> = [];
  private readonly cache = new Map<string, Uint8Array>();

  add(doc: number, scope: string): void {
    this.scopeOfDoc[doc] = scope;
    this.forgetMasks();
  }

  remove(doc: number): void {
    this.scopeOfDoc[doc] = undefined;
    this.forgetMasks();
  }

  // Only when there are masks: Map.clear() makes a new table each time, even of an empty map, and a store
  // opened at 1M adds a million docs here (~0.1-0.5 s of garbage).
  private forgetMasks(): void {
    if (this.cache.size > 0) this.cache.clear();
  }

  /** undefined means "no filter": every live doc is visible. */
  maskFor(scope: string | undefined): Uint8Array | undefined {
    if (scope === undefined) return undefined;
    let mask = this.cache.get(scope);
    if (!mask) {
      mask = new Uint8Array(this.scopeOfDoc.length);
      for (let doc = 0; doc < this.scopeOfDoc.length; doc++) {
        const own = this.scopeOfDoc[doc];
        if (own === scope || own === "global") mask[doc] = 1;
      }
      this.cache.set(scope, mask);
    }
    return mask;
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const scope of this.scopeOfDoc) if (scope !== undefined) counts[scope] = (counts[scope] ?? 0) + 1;
    return counts;
  }
}

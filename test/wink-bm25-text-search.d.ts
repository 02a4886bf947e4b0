// Types for the untyped wink-bm25-text-search 3.1.2, used only as the reference oracle in BM25 tests.
declare module "wink-bm25-text-search" {
  interface WinkBm25Config {
    fldWeights: Record<string, number>;
    bm25Params?: { k1?: number; b?: number; k?: number };
    ovFldNames?: string[];
  }
  interface WinkBm25Engine {
    defineConfig(config: WinkBm25Config): boolean;
    definePrepTasks(tasks: Array<(input: string) => string[]>, field?: string): number;
    addDoc(doc: Record<string, string>, id: string | number): number;
    consolidate(freqPrecision?: number): boolean;
    /** [id, score] pairs, best first; ids come back as strings. */
    search(text: string, limit?: number, filter?: (fieldValues: Record<string, string>, params: unknown) => boolean, params?: unknown): Array<[string, number]>;
    exportJSON(): string;
    importJSON(json: string): boolean;
    reset(): boolean;
  }
  function bm25(): WinkBm25Engine;
  export = bm25;
}

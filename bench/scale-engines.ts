// The engines bench:peers-scale puts side by side on the synthetic 512-d corpus, behind one shape:
// stage copies of the inputs (untimed), build the index from them (timed), then search by mode.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { create, insertMultiple, search as searchOrama, type Orama } from "@orama/orama";
import MiniSearch from "minisearch";
import { MemoryStore } from "../bridge/store/memory-store";
import { parseSearchRequest } from "../bridge/store/search-request";
import { miniSearchOptions, ourTermsTokenizer, sync } from "./peer-engines";
import type { SyntheticQuery, SyntheticRecord } from "./synthetic-corpus";

export type SearchMode = "lexical" | "dense" | "hybrid";

export interface ModeSpec {
  mode: SearchMode;
  label: string;
  /** Untimed: turns a query into the call that is timed, which returns ranked ids. */
  prepare(query: SyntheticQuery, k: number): () => string[];
}

export interface ScaleEngine {
  modes: ModeSpec[];
  close(): void;
}

export interface ScaleEngineSpec {
  name: string;
  gets: string;
  /** Makes the engine's own copy of every input (so what it keeps counts against it); the returned build is timed. */
  stage(records: SyntheticRecord[]): () => ScaleEngine;
}

const IMPORT_BATCH = 2000;

/** Gives the staged inputs to the build once and forgets them, so the memory figure counts only what the engine keeps. */
function handOver<T>(value: T): () => T {
  let held: T | undefined = value;
  return () => {
    if (held === undefined) throw new Error("bench: an engine was built twice from one staging");
    const taken = held;
    held = undefined;
    return taken;
  };
}
const embedding = (vector: number[]) => ({ provider: "bench", model: "synthetic-512", vector });

export const DSH_DREAM_SCALE: ScaleEngineSpec = {
  name: "DSH-DREAM",
  gets: "the real MemoryStore as in bench:search: importRecords in batches of 2,000 (validation, fsync'd journal, BM25 + float32/int8 vector indexes); search() lexical, searchVector() exact dense, search() with query_embedding = BM25 + exact dense + RRF + conflicts + packing + receipt + audit-log write",
  stage(records) {
    const take = handOver(records.map((r, i) => ({ id: r.id, text: r.text, source_type: "user_message", timestamp_ms: 1_700_000_000_000 + i, embedding: embedding([...r.vector]) })));
    return () => {
      const inputs = take();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-peers-scale-"));
      const store = MemoryStore.open({ dataDir, checkpointOnCloseBytes: Infinity });
      for (let start = 0; start < inputs.length; start += IMPORT_BATCH) store.importRecords(inputs.slice(start, start + IMPORT_BATCH));
      return {
        modes: [
          { mode: "lexical", label: "search()", prepare: (q, k) => runSearch(store, { query: q.text, top_k: k }) },
          { mode: "dense", label: "searchVector()", prepare: (q, k) => runSearchVector(store, q, k) },
          { mode: "hybrid", label: "search() + query_embedding", prepare: (q, k) => runSearch(store, { query: q.text, top_k: k, query_embedding: embedding(q.vector) }) },
        ],
        close() {
          store.close();
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
      };
    };
  },
};

// As bench:search: the query embedding is validated (to float32) before the clock starts.
function runSearchVector(store: MemoryStore, q: SyntheticQuery, k: number): () => string[] {
  const vector = parseSearchRequest({ query: q.text, top_k: k, query_embedding: embedding(q.vector) }).queryEmbedding!;
  return () => store.searchVector(vector, k).map((r) => r.id);
}

function runSearch(store: MemoryStore, raw: Record<string, unknown>): () => string[] {
  const request = parseSearchRequest(raw);
  return () => store.search(request).results.map((r) => r.id);
}

const ORAMA_SCHEMA = { text: "string", embedding: "vector[512]" } as const;
type OramaDb = Orama<typeof ORAMA_SCHEMA>;

/**
 * Orama keeps every vector whose cosine reaches `similarity` (default 0.8), then sorts them all. −1
 * keeps every document, so its top k is the exact top k whatever the data, as searchVector's is.
 */
export const ORAMA_ALL_SIMILARITY = -1;
export const ORAMA_DEFAULT_SIMILARITY = 0.8;

function stageOrama(records: SyntheticRecord[], ourTerms: boolean): () => OramaDb {
  // insertMultiple keeps the document objects themselves in its store, vectors included.
  const take = handOver(records.map((r) => ({ id: r.id, text: r.text, embedding: [...r.vector] })));
  return () => {
    const docs = take();
    const db = sync(create({ schema: ORAMA_SCHEMA, ...(ourTerms ? { components: { tokenizer: ourTermsTokenizer() } } : {}) })) as OramaDb;
    sync(insertMultiple(db, docs));
    return db;
  };
}

function oramaCall(db: OramaDb, params: Record<string, unknown>): () => string[] {
  return () => sync(searchOrama(db, params as never)).hits.map((h) => h.id);
}

function oramaModes(db: OramaDb): ModeSpec[] {
  const vector = (q: SyntheticQuery) => ({ value: q.vector, property: "embedding" });
  const modes: ModeSpec[] = [{ mode: "lexical", label: "fulltext", prepare: (q, k) => oramaCall(db, { term: q.text, limit: k }) }];
  for (const similarity of [ORAMA_ALL_SIMILARITY, ORAMA_DEFAULT_SIMILARITY]) {
    modes.push({ mode: "dense", label: `vector, similarity ${similarity}`, prepare: (q, k) => oramaCall(db, { mode: "vector", vector: vector(q), similarity, limit: k }) });
  }
  for (const similarity of [ORAMA_ALL_SIMILARITY, ORAMA_DEFAULT_SIMILARITY]) {
    modes.push({ mode: "hybrid", label: `hybrid, similarity ${similarity}`, prepare: (q, k) => oramaCall(db, { mode: "hybrid", term: q.text, vector: vector(q), similarity, limit: k }) });
  }
  return modes;
}

export const ORAMA_OURS_SCALE: ScaleEngineSpec = {
  name: "Orama + our terms",
  gets: "@orama/orama 3.1.18, schema {text: string, embedding: vector[512]}, insertMultiple; tokenizer component with our documentTerms/queryTerms; fulltext = default BM25 (threshold 1, prefix on); vector = brute-force cosine over float32 (similarity −1 and the default 0.8); hybrid = min-max-normalised BM25 and cosine, weights 0.5/0.5",
  stage(records) {
    const build = stageOrama(records, true);
    return () => ({ modes: oramaModes(build()), close() {} });
  },
};

export const ORAMA_DEFAULT_SCALE: ScaleEngineSpec = {
  name: "Orama default",
  gets: "as above (same schema, vectors included) with Orama's default English tokenizer; lexical only",
  stage(records) {
    const build = stageOrama(records, false);
    return () => {
      const db = build();
      return { modes: [{ mode: "lexical", label: "fulltext", prepare: (q, k) => oramaCall(db, { term: q.text, limit: k }) }], close() {} };
    };
  },
};

export const MINISEARCH_OURS_SCALE: ScaleEngineSpec = {
  name: "MiniSearch + our terms",
  gets: "minisearch 7.2.0, field text, our documentTerms/queryTerms, OR, BM25+, addAll; lexical only (no vectors); search returns every match, sliced to k",
  stage(records) {
    const take = handOver(records.map((r) => ({ id: r.id, text: r.text })));
    return () => {
      const index = new MiniSearch<{ id: string; text: string }>(miniSearchOptions(true));
      index.addAll(take());
      return { modes: [{ mode: "lexical", label: "search", prepare: (q, k) => () => index.search(q.text).slice(0, k).map((r) => String(r.id)) }], close() {} };
    };
  },
};

export const SCALE_ENGINES = [DSH_DREAM_SCALE, ORAMA_OURS_SCALE, ORAMA_DEFAULT_SCALE, MINISEARCH_OURS_SCALE];

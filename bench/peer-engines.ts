// The retrievers the peer benchmarks compare, behind one shape: build over a fixed document list,
// return ranked ids for a query. Each says in `gets` exactly what it is given, so tables stay honest.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { create, insertMultiple, search as searchOrama, type Orama } from "@orama/orama";
import MiniSearch, { type Options } from "minisearch";
import { documentTerms, queryTerms } from "../bridge/index/analyze";
import { MemoryStore } from "../bridge/store/memory-store";
import { parseSearchRequest } from "../bridge/store/search-request";
import { PlainBm25 } from "./plain-bm25";

export interface BenchDoc {
  id: string;
  text: string;
  timestampMs: number;
  /** Conversation turns carry these, so the store links neighbouring turns as it does for captured chat. */
  sessionId?: string;
  turn?: number;
}

export interface Retriever {
  search(query: string, k: number): string[];
  close(): void;
}

export interface EngineSpec {
  name: string;
  gets: string;
  open(docs: BenchDoc[]): Retriever;
}

const OURS_GETS = "the real MemoryStore (journal, BM25 over zh-bigram + Porter terms, query stopwords, neighbouring-turn context, conflict collapse, packing); search() lexical, latest mode";

export const DSH_DREAM: EngineSpec = {
  name: "DSH-DREAM lexical",
  gets: OURS_GETS,
  open(docs) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-peers-"));
    const store = MemoryStore.open({ dataDir });
    store.importRecords(
      docs.map((d) => ({ id: d.id, text: d.text, source_type: "user_message", timestamp_ms: d.timestampMs, session_id: d.sessionId, turn: d.turn })),
    );
    return {
      search: (query, k) => store.search(parseSearchRequest({ query, top_k: k })).results.map((r) => r.id),
      close() {
        store.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

/** MiniSearch indexing field `text`, with our document and query terms or with its defaults. */
export function miniSearchOptions<T>(ourTerms: boolean): Options<T> {
  return ourTerms
    ? { fields: ["text"], tokenize: (text) => documentTerms(text), processTerm: (term) => term, searchOptions: { tokenize: (text) => queryTerms(text) } }
    : { fields: ["text"] };
}

function openMiniSearch(docs: BenchDoc[], ourTerms: boolean): Retriever {
  const index = new MiniSearch<BenchDoc>(miniSearchOptions(ourTerms));
  index.addAll(docs);
  return { search: (query, k) => index.search(query).slice(0, k).map((r) => String(r.id)), close() {} };
}

export const MINISEARCH_DEFAULT: EngineSpec = {
  name: "MiniSearch default",
  gets: "minisearch 7.2.0, fields [text], default tokenizer (splits on space/punctuation), lowercase, OR, no prefix/fuzzy, BM25+",
  open: (docs) => openMiniSearch(docs, false),
};

export const MINISEARCH_OURS: EngineSpec = {
  name: "MiniSearch + our terms",
  gets: "as default, but documents tokenized by our documentTerms and queries by our queryTerms (stopwords dropped, stems); processTerm identity",
  open: (docs) => openMiniSearch(docs, true),
};

type OramaDb = Orama<{ text: "string" }>;

/** Orama answers synchronously unless a hook is async; a Promise here would put a microtask hop in every figure. */
export function sync<T>(value: T | Promise<T>): T {
  if (value instanceof Promise) throw new Error("bench: Orama answered asynchronously; the latency figure would include a microtask hop");
  return value;
}

/** Orama's tokenizer component giving it our terms: it passes a property name when indexing and none for the query. */
export function ourTermsTokenizer() {
  return { language: "english", normalizationCache: new Map<string, string>(), tokenize: (raw: string, _language?: string, prop?: string) => (prop === undefined ? queryTerms(raw) : documentTerms(raw)) };
}

function openOrama(docs: BenchDoc[], ourTerms: boolean): Retriever {
  const db = sync(create({ schema: { text: "string" } as const, ...(ourTerms ? { components: { tokenizer: ourTermsTokenizer() } } : {}) })) as OramaDb;
  sync(insertMultiple(db, docs.map((d) => ({ id: d.id, text: d.text }))));
  return {
    search: (query, k) => sync(searchOrama(db, { term: query, limit: k })).hits.map((h) => h.id),
    close() {},
  };
}

export const ORAMA_DEFAULT: EngineSpec = {
  name: "Orama default",
  gets: "@orama/orama 3.1.18, create/insert/search, schema {text}, default English tokenizer (no stemming), default BM25, threshold 1, prefix matching on",
  open: (docs) => openOrama(docs, false),
};

export const ORAMA_OURS: EngineSpec = {
  name: "Orama + our terms",
  gets: "as default, with a tokenizer component: documentTerms when indexing, queryTerms for the query",
  open: (docs) => openOrama(docs, true),
};

export const PLAIN_BM25: EngineSpec = {
  name: "plain BM25 (README)",
  gets: "the LoCoMo README baseline: lowercase ASCII words + CJK bigrams, k1 1.2, b 0.75, query terms once, ties to earlier",
  open(docs) {
    const index = new PlainBm25(docs.map((d) => d.id), docs.map((d) => d.text));
    return { search: (query, k) => index.search(query, k), close() {} };
  },
};

export const ALL_ENGINES: EngineSpec[] = [DSH_DREAM, MINISEARCH_DEFAULT, MINISEARCH_OURS, ORAMA_DEFAULT, ORAMA_OURS, PLAIN_BM25];

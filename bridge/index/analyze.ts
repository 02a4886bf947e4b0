// Text analysis for the lexical index: the terms a memory is indexed under and the terms a query
// searches for. Tokens come from tokenize.ts; English words are stemmed, Chinese bigrams pass as they are.
import { stemEnglish } from "./stem-en";
import { ENGLISH_STOPWORDS } from "./stopwords-en";
import { tokenize } from "./tokenize";

/**
 * Names what documentTerms produces. Bump it whenever tokenize, stemming or documentTerms change what a text
 * is indexed under: persisted BM25 snapshots (the store checkpoint) are keyed on it and discarded on mismatch.
 */
export const ANALYZER_VERSION = "zh-bigram+en-porter/1";

// Word frequencies are Zipfian, so a small memo of stems saves most of the stemming work on import and
// journal replay (about 10x measured on LoCoMo). Cleared when full, so memory stays bounded.
const STEM_CACHE_LIMIT = 65_536;
const stemCache = new Map<string, string>();

/** Terms to index a memory under: every token, English words stemmed; duplicates kept for term frequency. */
export function documentTerms(text: string): string[] {
  return tokenize(text).map(stemToken);
}

/**
 * Terms to search for: like documentTerms, minus English function words ("when did she ..."), unless
 * the query holds nothing else. Removed on the query side only, so such a query still finds them.
 */
export function queryTerms(text: string): string[] {
  const tokens = tokenize(text);
  const content = tokens.filter((token) => !ENGLISH_STOPWORDS.has(token));
  return (content.length > 0 ? content : tokens).map(stemToken);
}

function stemToken(token: string): string {
  if (token.length <= 2 || token.charCodeAt(0) >= 0x80) return token;
  let stem = stemCache.get(token);
  if (stem === undefined) {
    stem = stemEnglish(token);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(token, stem);
  }
  return stem;
}

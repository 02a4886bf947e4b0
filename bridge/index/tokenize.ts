// Lexical tokenizer for BM25: lowercase ASCII words and numbers plus Chinese character bigrams, in text order.
// Pure; duplicates are kept because BM25 needs term frequencies.

// A token is a run of [a-z0-9] or a run of Han characters; everything else separates tokens,
// including `_`, apostrophes ("don't" -> "don", "t"), non-Latin letters and all punctuation,
// full-width or not, so "你好，世界" never yields the cross-punctuation bigram "好世".
const TOKEN_RUN = /[a-z0-9]+|\p{Script=Han}+/gu;
// Combining diacritics left by NFKD; dropping them folds "café" to "cafe" instead of splitting it to "caf".
const LATIN_DIACRITICS = /[\u0300-\u036f]/g;

/**
 * The text the tokenizer reads: NFKD (the compatibility mappings of NFKC: full-width -> ASCII,
 * half-width katakana, circled digits, Kangxi radicals -> ideographs), lowercased, Latin diacritics removed.
 */
export function foldText(text: string): string {
  return text.normalize("NFKD").toLowerCase().replace(LATIN_DIACRITICS, "");
}

export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of foldText(text).matchAll(TOKEN_RUN)) {
    const run = match[0];
    const first = run.charCodeAt(0);
    if (first < 0x80) {
      tokens.push(run);
      continue;
    }
    pushBigrams(run, tokens);
  }
  return tokens;
}

// Code points, not UTF-16 units, so extension-plane ideographs (surrogate pairs) pair up correctly.
function pushBigrams(run: string, tokens: string[]): void {
  const chars = Array.from(run);
  if (chars.length === 1) {
    tokens.push(chars[0]);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) tokens.push(chars[i] + chars[i + 1]);
}

// One documented rule for counting tokens without a tokenizer (docs/design.md "Token rule"): each
// CJK ideograph, kana or hangul syllable counts as one token; every other run of characters counts
// one token per four characters, rounded up; whitespace between runs is free. It errs high on
// English (≈ 1.3 real tokens per word) so budgets hold for BPE tokenizers of DeepSeek's kind.

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;

export function estimateTokens(text: string): number {
  let tokens = 0;
  let run = 0;
  for (const char of text) {
    if (CJK.test(char)) {
      tokens += 1 + Math.ceil(run / 4);
      run = 0;
    } else if (/\s/u.test(char)) {
      tokens += Math.ceil(run / 4);
      run = 0;
    } else {
      run++;
    }
  }
  return tokens + Math.ceil(run / 4);
}

/** The longest prefix of `text` within `maxTokens` by the same rule (cut on a code point). */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (estimateTokens(text) <= maxTokens) return text;
  const chars = Array.from(text);
  let low = 0;
  let high = chars.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (estimateTokens(chars.slice(0, mid).join("")) <= maxTokens) low = mid;
    else high = mid - 1;
  }
  return chars.slice(0, low).join("");
}

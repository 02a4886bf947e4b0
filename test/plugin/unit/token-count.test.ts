import fc from "fast-check";
import { estimateTokens, truncateToTokens } from "../../../plugin/recall/token-count";

describe("estimateTokens", () => {
  it.each([
    ["", 0],
    ["你", 1],
    ["你好世界", 4],
    ["カタカナ", 4],
    ["ひらがな", 4],
    ["한국어", 3],
    ["豈", 1], // CJK compatibility ideograph U+F900
    ["㐀", 1], // CJK extension A U+3400
  ])("counts each CJK ideograph, kana or hangul syllable in %j as one token (%i)", (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it.each([
    ["a", 1],
    ["abcd", 1],
    ["abcde", 2],
    ["abcdefgh", 2],
    ["abcdefghi", 3],
    ["hello world", 4],
    ["Hello, world!", 4],
    ["a b c d", 4],
    ["https://example.com/a", 6],
  ])("counts a run of other characters in %j as one token per four characters, rounded up (%i)", (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it.each([
    ["   ", 0],
    ["\n\t \r\n", 0],
    ["\u00a0\u3000", 0],
    ["  abcd  ", 1],
    ["abcd\n\nefgh", 2],
  ])("counts whitespace in %j as free (%i)", (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it.each([
    ["我喜欢Python编程", 3 + 2 + 2],
    ["用API", 1 + 1],
    ["abcde你", 2 + 1],
    ["你好，世界", 2 + 1 + 2], // the full-width comma is not an ideograph: a run of one
    ["version 2 是 最新 的", 2 + 1 + 1 + 2 + 1],
  ])("ends a run at an ideograph in mixed text %j (%i)", (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it("counts an astral character such as an emoji as one character of a run, not two", () => {
    expect(estimateTokens("😀😀😀😀")).toBe(1);
    expect(estimateTokens("😀😀😀😀😀")).toBe(2);
  });
});

describe("truncateToTokens", () => {
  it("returns the text itself when it fits the budget", () => {
    const text = "short enough 好";
    expect(truncateToTokens(text, estimateTokens(text))).toBe(text);
  });

  it("returns the longest prefix within the budget for ASCII", () => {
    // "abcdefgh ijkl" costs 2 + 1; within 2 tokens the prefix may keep the space but not the "i".
    expect(truncateToTokens("abcdefgh ijkl", 2)).toBe("abcdefgh ");
    expect(truncateToTokens("abcdefghijkl", 2)).toBe("abcdefgh");
  });

  it("returns the longest prefix within the budget for CJK text", () => {
    expect(truncateToTokens("一二三四五六", 4)).toBe("一二三四");
  });

  it("returns an empty string when not even the first character fits", () => {
    expect(truncateToTokens("好的", 0)).toBe("");
  });

  it("cuts between emoji, never between the two halves of one", () => {
    expect(truncateToTokens("😀😀😀😀😀", 1)).toBe("😀😀😀😀");
    expect(truncateToTokens("a😀b😀c", 1)).toBe("a😀b😀");
    expect(truncateToTokens("字😀😀😀😀😀", 2)).toBe("字😀😀😀😀");
  });

  const tricky = fc.constantFrom("a", "Z", "7", " ", "\n", "，", "你", "界", "カ", "한", "😀", "𠀀", "é", "\u0301");
  const text = fc.oneof(fc.string({ unit: tricky, maxLength: 60 }), fc.string({ unit: "binary", maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 30 }));

  it("returns a code-point prefix within the budget, and the next code point would exceed it (property)", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 40 }), (input, maxTokens) => {
        const out = truncateToTokens(input, maxTokens);
        const codePoints = Array.from(input);
        const kept = Array.from(out).length;
        expect(codePoints.slice(0, kept).join("")).toBe(out);
        expect(estimateTokens(out)).toBeLessThanOrEqual(maxTokens);
        if (kept < codePoints.length) expect(estimateTokens(codePoints.slice(0, kept + 1).join(""))).toBeGreaterThan(maxTokens);
      }),
      { numRuns: 500 },
    );
  });
});

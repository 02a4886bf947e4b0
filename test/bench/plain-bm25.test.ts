import { PlainBm25, tokenizePlain } from "../../bench/plain-bm25";

describe("plain BM25 baseline of the LoCoMo README", () => {
  it("tokenizes into lowercase ASCII words and CJK bigrams, a lone character standing as itself", () => {
    expect(tokenizePlain("Bart在圣诞节, Don't 2023 跳")).toEqual(["bart", "在圣", "圣诞", "诞节", "don", "t", "2023", "跳"]);
  });

  it("ranks by BM25 with idf ln(1 + (N - df + 0.5)/(df + 0.5)), k1 1.2 and b 0.75", () => {
    const index = new PlainBm25(["a", "b", "c"], ["red fox", "red red dog", "blue whale"]);
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const avg = 7 / 3;
    const score = (tf: number, len: number) => (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * len) / avg));
    expect(score(2, 3)).toBeGreaterThan(score(1, 2));
    expect(index.search("red", 10)).toEqual(["b", "a"]);
  });

  it("counts a repeated query term once, so repeating it does not change the ranking", () => {
    const index = new PlainBm25(["a", "b"], ["cat cat cat dog", "dog bird"]);
    expect(index.search("dog dog dog cat", 2)).toEqual(index.search("dog cat", 2));
  });

  it("ranks only positive scores and breaks ties toward the earlier document", () => {
    const index = new PlainBm25(["a", "b", "c"], ["same words", "same words", "other"]);
    expect(index.search("same", 5)).toEqual(["a", "b"]);
    expect(index.search("absent", 5)).toEqual([]);
  });
});

import fc from "fast-check";
import { documentTerms, queryTerms } from "../../bridge/index/analyze";
import { tokenize } from "../../bridge/index/tokenize";

const text = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."ab edsingy'.,你好记忆向量搜索 WHAT did the"), maxLength: 60 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
);

describe("documentTerms", () => {
  it("stems English words and keeps every token, function words included", () => {
    expect(documentTerms("We went camping and painted the sunrise")).toEqual(["we", "went", "camp", "and", "paint", "the", "sunris"]);
  });

  it("leaves Chinese bigrams exactly as the tokenizer emits them", () => {
    expect(documentTerms("我把钥匙放到了花盆里")).toEqual(tokenize("我把钥匙放到了花盆里"));
  });

  it("yields one non-empty term per token, and Chinese tokens unchanged, for any text", () => {
    fc.assert(
      fc.property(text, (input) => {
        const tokens = tokenize(input);
        const terms = documentTerms(input);
        expect(terms).toHaveLength(tokens.length);
        terms.forEach((term, i) => {
          expect(term.length).toBeGreaterThan(0);
          if (tokens[i].charCodeAt(0) >= 0x80) expect(term).toBe(tokens[i]);
        });
      }),
    );
  });
});

describe("queryTerms", () => {
  it("drops English function words, apostrophe fragments included, and stems the rest", () => {
    expect(queryTerms("When did Melanie's kids go camping?")).toEqual(["melani", "kid", "go", "camp"]);
  });

  it("keeps spatial and temporal prepositions a user means", () => {
    expect(queryTerms("what did I leave under the sink before the trip")).toEqual(["leav", "under", "sink", "befor", "trip"]);
  });

  it("keeps function words that are also names or content words", () => {
    expect(queryTerms("What has Don won since May?")).toEqual(["don", "won", "sinc", "mai"]);
  });

  it("keeps a query made only of function words whole, so it still finds something", () => {
    expect(queryTerms("Who is she?")).toEqual(["who", "is", "she"]);
  });

  it("leaves Chinese query tokens as they are beside dropped English ones", () => {
    expect(queryTerms("what is 向量数据库")).toEqual(["向量", "量数", "数据", "据库"]);
  });

  it("searches for the same terms a document holds for the words both share", () => {
    const memory = new Set(documentTerms("Caroline: I've been researching adoption agencies"));
    expect(queryTerms("What did Caroline research about adopting?").every((term) => memory.has(term))).toBe(true);
  });

  it("yields a subsequence of the document terms of the same text", () => {
    fc.assert(
      fc.property(text, (input) => {
        const all = documentTerms(input);
        let at = 0;
        for (const term of queryTerms(input)) {
          while (at < all.length && all[at] !== term) at++;
          expect(at).toBeLessThan(all.length);
          at++;
        }
      }),
    );
  });
});

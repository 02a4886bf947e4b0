import fc from "fast-check";
import { foldText, tokenize } from "../../bridge/index/tokenize";

const HAN = /^\p{Script=Han}+$/u;
const TOKEN_SHAPE = /^(?:[a-z0-9]+|\p{Script=Han}+)$/u;

// Characters that exercise every branch: ASCII, separators, full-width forms, Han (BMP, extension B,
// compatibility), Latin diacritics, kana, and the punctuation that must not glue tokens.
const TRICKY = [..."aZ09 _'\r\n\t-.，。！（）　ＡｚＺ１９中文向量数据库搜索𠀀𠀁豈⼀éİ\u0301ｶﾞカ한Kﬁ①"];
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom(...TRICKY), maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
);

function toFullWidth(ascii: string): string {
  return ascii.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).replace(/ /g, "\u3000");
}

describe("tokenize", () => {
  it("yields lowercase ASCII words and Chinese bigrams in text order, a lone Chinese character as itself", () => {
    expect(tokenize("Hello World 向量数据库 搜索 the API 中")).toEqual(["hello", "world", "向量", "量数", "数据", "据库", "搜索", "the", "api", "中"]);
  });

  it("interleaves ASCII and Chinese tokens where they touch", () => {
    expect(tokenize("用BM25搜索2024年3月的数据")).toEqual(["用", "bm25", "搜索", "2024", "年", "3", "月的", "的数", "数据"]);
  });

  it("folds full-width letters and digits to ASCII", () => {
    expect(tokenize("Ｈｅｌｌｏ１２３ ＡＰＩ")).toEqual(["hello123", "api"]);
  });

  it("splits on full-width and Chinese punctuation instead of gluing tokens across it", () => {
    expect(tokenize("你好，世界！ＡＢＣ。ｄｅｆ（中）")).toEqual(["你好", "世界", "abc", "def", "中"]);
  });

  it("splits on underscores and apostrophes", () => {
    expect(tokenize("don't api_v2 __proto__ it’s")).toEqual(["don", "t", "api", "v2", "proto", "it", "s"]);
  });

  it("keeps Object.prototype names as ordinary tokens", () => {
    expect(tokenize("constructor hasOwnProperty __proto__ toString")).toEqual(["constructor", "hasownproperty", "proto", "tostring"]);
  });

  it("folds Latin diacritics so accented words stay whole", () => {
    expect(tokenize("Café naïve RÉSUMÉ İstanbul")).toEqual(["cafe", "naive", "resume", "istanbul"]);
  });

  it("maps compatibility ideographs and Kangxi radicals to the unified ideograph", () => {
    expect(tokenize("\uf900 \u2f00")).toEqual(["\u8c48", "\u4e00"]);
  });

  it("pairs extension-plane ideographs by code point", () => {
    expect(tokenize("𠀀𠀁𠀂")).toEqual(["𠀀𠀁", "𠀁𠀂"]);
  });

  it("drops scripts it does not index, such as kana and Hangul", () => {
    expect(tokenize("カタカナ ｶﾀｶﾅ 한국어")).toEqual([]);
  });

  it("keeps duplicate tokens for term frequency", () => {
    expect(tokenize("memo memo 记忆记忆")).toEqual(["memo", "memo", "记忆", "忆记", "记忆"]);
  });

  it("tokenizes CRLF text exactly like LF text", () => {
    expect(tokenize("line one\r\n第一行\r\nline two")).toEqual(tokenize("line one\n第一行\nline two"));
    expect(tokenize("line one\r\n第一行")).toEqual(["line", "one", "第一", "一行"]);
  });

  it("emits only lowercase ASCII words or Han tokens of one or two characters", () => {
    fc.assert(
      fc.property(text, (input) => {
        for (const token of tokenize(input)) {
          expect(token).toMatch(TOKEN_SHAPE);
          if (HAN.test(token)) expect([1, 2]).toContain(Array.from(token).length);
        }
      }),
    );
  });

  it("emits only Han tokens that occur contiguously in the folded input", () => {
    fc.assert(
      fc.property(text, (input) => {
        const folded = foldText(input);
        const nfkc = input.normalize("NFKC");
        // Stripped diacritics are the one difference from NFKC: only they can join two Han runs.
        const hasDiacritics = /[\u0300-\u036f]/.test(input.normalize("NFKD"));
        for (const token of tokenize(input).filter((t) => HAN.test(t))) {
          expect(folded).toContain(token);
          if (!hasDiacritics) expect(nfkc).toContain(token);
        }
      }),
    );
  });

  it("tokenizes the full-width form of ASCII text like the text itself", () => {
    fc.assert(fc.property(fc.string({ unit: "binary-ascii", maxLength: 60 }), (ascii) => expect(tokenize(toFullWidth(ascii))).toEqual(tokenize(ascii))));
  });

  it("tokenizes two texts joined by a space as the concatenation of their tokens", () => {
    fc.assert(fc.property(text, text, (a, b) => expect(tokenize(`${a} ${b}`)).toEqual([...tokenize(a), ...tokenize(b)])));
  });

  it("is deterministic and unaffected by CRLF line endings", () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(tokenize(input)).toEqual(tokenize(input));
        expect(tokenize(input.replace(/\n/g, "\r\n"))).toEqual(tokenize(input));
      }),
    );
  });
});

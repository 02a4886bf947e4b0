import fc from "fast-check";
import { stemEnglish } from "../../bridge/index/stem-en";

const letters = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz"), minLength, maxLength });
// Random words, and random stems with the suffixes the rules look for, so that every step gets exercised.
const SUFFIXES = ["s", "es", "ies", "sses", "eed", "ed", "ing", "ating", "izing", "y", "ational", "tional", "enci", "izer", "bli", "alli", "entli",
  "ousli", "ization", "ation", "ator", "alism", "iveness", "fulness", "aliti", "biliti", "logi", "icate", "ative", "alize", "iciti", "ical", "ful",
  "ness", "ance", "ence", "er", "able", "ible", "ant", "ement", "ment", "ion", "sion", "tion", "ism", "ous", "ive", "ize", "e", "ll", "ally"];
const word = fc.oneof(letters(1, 20), fc.tuple(letters(1, 8), fc.constantFrom(...SUFFIXES)).map(([stem, suffix]) => stem + suffix));

describe("stemEnglish", () => {
  it("gives Porter's stems for the examples in his 1980 paper", () => {
    const expected: Record<string, string> = {
      caresses: "caress", ponies: "poni", ties: "ti", caress: "caress", cats: "cat",
      feed: "feed", agreed: "agre", plastered: "plaster", bled: "bled", motoring: "motor", sing: "sing",
      conflated: "conflat", troubled: "troubl", sized: "size", hopping: "hop", tanned: "tan", falling: "fall",
      hissing: "hiss", fizzed: "fizz", failing: "fail", filing: "file", happy: "happi", sky: "sky",
      relational: "relat", conditional: "condit", rational: "ration", digitizer: "digit", operator: "oper",
      feudalism: "feudal", hopefulness: "hope", callousness: "callous", electrical: "electr", goodness: "good",
      allowance: "allow", inference: "infer", adjustable: "adjust", replacement: "replac", adoption: "adopt",
      communism: "commun", effective: "effect", probate: "probat", rate: "rate", cease: "ceas", roll: "roll",
      generalizations: "gener", oscillators: "oscil",
    };
    const actual = Object.fromEntries(Object.keys(expected).map((w) => [w, stemEnglish(w)]));
    expect(actual).toEqual(expected);
  });

  it("brings the inflections a question and a memory differ in to one stem", () => {
    const families = [
      ["camp", "camps", "camped", "camping"],
      ["paint", "paints", "painted", "painting", "paintings"],
      ["research", "researched", "researching"],
      ["activity", "activities"],
      ["run", "runs", "running"],
      ["adopt", "adopted", "adopting", "adoption"],
    ];
    expect(families.map((family) => new Set(family.map(stemEnglish)).size)).toEqual(families.map(() => 1));
  });

  it("returns words of one or two letters, numbers, mixed tokens and Chinese as they are", () => {
    expect(["is", "as", "a", "2023", "mp3", "18th", "记忆", "向量"].map(stemEnglish)).toEqual(["is", "as", "a", "2023", "mp3", "18th", "记忆", "向量"]);
  });

  it("never yields an empty or longer token, or letters outside a-z", () => {
    fc.assert(
      fc.property(word, (w) => {
        const stem = stemEnglish(w);
        expect(stem.length).toBeGreaterThan(0);
        expect(stem.length).toBeLessThanOrEqual(w.length);
        expect(stem).toMatch(/^[a-z]+$/);
      }),
    );
  });

  it("rewrites at most the last letter of the part of the word it keeps", () => {
    fc.assert(fc.property(word, (w) => expect(w.startsWith(stemEnglish(w).slice(0, -1))).toBe(true)));
  });
});

// Traditional Chinese is read as simplified: the grammar's function words (現在, 已經, 變成, 裡, 喜歡) are
// written once, in simplified characters, and a question in one script finds statements in the other.
// The mapping is OpenCC's own (opencc-js, traditional → mainland simplified: its character table and the
// phrases where one traditional form has several simplified ones), never a hand-written table. Only how
// the grammar reads a text changes; the stored text and the lexical index keep what the user wrote.
import { Converter, Locale } from "opencc-js/t2cn";

const HAN = /\p{Script=Han}/u;

// Built on first need, not at start-up (~7 ms each): a process that reads no Chinese never pays for them.
let changeable: ReadonlySet<string> | undefined;
let toSimplified: ((text: string) => string) | undefined;

/**
 * Every character the conversion can change: one that some dictionary entry of its chains (compatibility
 * ideographs normalised, then traditional → simplified) maps to another character at the same place. A text
 * holding none of them converts to itself, so most simplified text is not run through the converter at all
 * (it costs ~5 µs per 100 characters, at every write).
 */
function changeableCharacters(): ReadonlySet<string> {
  const found = new Set<string>();
  const { normalizationChain, conversionChain } = Locale.configs.t2s;
  for (const group of [...normalizationChain, ...conversionChain]) {
    for (const dictionary of group) {
      for (const entry of dictionary.split("|")) {
        const [from, to] = entry.split(" ");
        if (from === undefined || to === undefined) continue;
        const target = [...to];
        [...from].forEach((char, i) => {
          if (target[i] !== char) found.add(char);
        });
      }
    }
  }
  return found;
}

/** `text` with traditional characters in their simplified forms; text that holds none unchanged. */
export function simplified(text: string): string {
  if (!HAN.test(text)) return text;
  changeable ??= changeableCharacters();
  for (const char of text) {
    if (changeable.has(char)) {
      // Preset "t" → "cn" is OpenCC's t2s configuration.
      toSimplified ??= Converter({ from: "t", to: "cn" });
      return toSimplified(text);
    }
  }
  return text;
}

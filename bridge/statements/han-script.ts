// Traditional Chinese is read as simplified: the grammar's function words (現在, 已經, 變成, 裡, 喜歡) are
// written once, in simplified characters, and a question in one script finds statements in the other.
// The mapping is OpenCC's own (opencc-js, traditional → mainland simplified: its character table and the
// phrases where one traditional form has several simplified ones), never a hand-written table. Only how
// the grammar reads a text changes; the stored text and the lexical index keep what the user wrote.
import { Converter } from "opencc-js/t2cn";

const HAN = /\p{Script=Han}/u;
const toSimplified = Converter({ from: "t", to: "cn" });

/** `text` with traditional characters in their simplified forms; text without Han characters unchanged. */
export function simplified(text: string): string {
  return HAN.test(text) ? toSimplified(text) : text;
}

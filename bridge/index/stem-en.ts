// English suffix stripping for lexical search: M. F. Porter's algorithm (1980), so that "camping",
// "camped" and "camps" all meet at "camp". Pure; it changes lowercase ASCII words only.
//
// Porter rather than a plural-only "S-stemmer": questions and memories differ as often in -ing/-ed as
// in -s ("When did she paint?" / "I've been painting"). Porter rather than Porter2/Snowball: half the
// rules, the same conflations on conversational text. Two departures come from Porter's own reference
// implementation: "bli" -> "ble" (for "abli" -> "able") and "logi" -> "log" in step 2.

type Rule = readonly [suffix: string, replacement: string];

// Listed so that the first suffix a word ends with is also the longest one it ends with.
const STEP2: readonly Rule[] = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["bli", "ble"],
  ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"], ["ation", "ate"],
  ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"],
  ["iviti", "ive"], ["biliti", "ble"], ["logi", "log"],
];
const STEP3: readonly Rule[] = [["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""]];
const STEP4 = ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"];
const LOWER_ASCII_WORD = /^[a-z]+$/;

/** The Porter stem of a lowercase ASCII word; anything else (digits, CJK, words of one or two letters) is returned as is. */
export function stemEnglish(word: string): string {
  if (word.length <= 2 || !LOWER_ASCII_WORD.test(word)) return word;
  let w = step1b(step1a(word));
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + "i";
  w = replaceSuffix(w, STEP2);
  w = replaceSuffix(w, STEP3);
  return step5(step4(w));
}

function step1a(w: string): string {
  if (w.endsWith("sses") || w.endsWith("ies")) return w.slice(0, -2);
  if (w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith("eed")) return measure(w, w.length - 3) > 0 ? w.slice(0, -1) : w;
  const suffix = w.endsWith("ed") ? 2 : w.endsWith("ing") ? 3 : 0;
  if (suffix === 0 || !hasVowel(w, w.length - suffix)) return w;
  const stem = w.slice(0, -suffix);
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return stem + "e";
  if (endsWithDoubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem, stem.length) === 1 && endsCvc(stem)) return stem + "e";
  return stem;
}

// Steps 2 and 3: the longest matching suffix is replaced when the stem before it has measure > 0.
function replaceSuffix(w: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement] of rules) {
    if (!w.endsWith(suffix)) continue;
    const end = w.length - suffix.length;
    return measure(w, end) > 0 ? w.slice(0, end) + replacement : w;
  }
  return w;
}

function step4(w: string): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const end = w.length - suffix.length;
    const allowed = suffix !== "ion" || w[end - 1] === "s" || w[end - 1] === "t";
    return allowed && measure(w, end) > 1 ? w.slice(0, end) : w;
  }
  return w;
}

function step5(w: string): string {
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1);
    const m = measure(stem, stem.length);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  if (w.endsWith("ll") && measure(w, w.length) > 1) w = w.slice(0, -1);
  return w;
}

// a, e, i, o, u are vowels; y is a vowel after a consonant ("sky", "happy") and a consonant otherwise ("toy", "yes").
function isConsonant(w: string, i: number): boolean {
  switch (w.charCodeAt(i)) {
    case 97: case 101: case 105: case 111: case 117:
      return false;
    case 121:
      return i === 0 || !isConsonant(w, i - 1);
    default:
      return true;
  }
}

// Porter's m: the number of vowel-run -> consonant-run transitions in w[0, end), the form [C](VC)^m[V].
function measure(w: string, end: number): number {
  let m = 0;
  let previousVowel = false;
  for (let i = 0; i < end; i++) {
    const vowel = !isConsonant(w, i);
    if (previousVowel && !vowel) m++;
    previousVowel = vowel;
  }
  return m;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsWithDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

// consonant-vowel-consonant where the last consonant is not w, x or y: "hop", "fil", but not "snow", "box", "tray".
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3 || !isConsonant(w, n - 1) || isConsonant(w, n - 2) || !isConsonant(w, n - 3)) return false;
  return !/[wxy]$/.test(w);
}

// Normalising the phrases English slot patterns capture: contractions, subjects (thing, event or
// person), owners and values. Input is one NFKC, lowercased clause with straight apostrophes.
import { NUMBER_WORDS_EN, SELF_EN } from "./cues-en";
import { SELF } from "./zh-phrases";

const DETERMINERS = /^(?:(?:the|a|an|my|our|your|his|her|their|its|this|that|these|those|some|all|both|new|current)\s+)+/;
const TRAILING_TIME =
  /(?:\s+(?:now|today|yesterday|tonight|again|already|still|instead|too|for now|right now|as well|these days|nowadays|lately|anymore|any more|at the moment|at present|currently|so far|from now on|for good|for the time being|instead of [a-z ]+|(?:this|last|yesterday|earlier this|over the) (?:morning|afternoon|evening|night|week|weekend|month|year)|earlier(?: today)?|recently|just now|the other day|(?:a few|a couple of|two|three|\d+) (?:days|weeks|months|years) ago))+$/;
const POSSESSIVE_PRONOUN = /^(?:my|our|your|his|her|their)\s+/;
const APPOSITION = /^(?:best\s+|old\s+|little\s+|big\s+)?(?:friend|brother|sister|cousin|colleague|coworker|neighbou?r|uncle|aunt|son|daughter|boss)\s+(?=[a-z]+$)/;
// A "name" holding one of these is a clause fragment ("keys are"), not a person.
const VERB_WORD = /\b(?:is|are|am|was|were|be|been|being|have|has|had|do|does|did|will|would|can|could|should|not|no)\b/;
// Pronouns cannot be resolved across memories ("it", "he" name different things in different
// turns), so a pronoun subject asserts nothing. This is also why "I am in a good mood" is no slot.
const PRONOUN = /^(?:i|me|you|he|she|it|we|they|him|her|us|them|this|that|there|here|everything|something|nothing|everyone|someone|one)$/;
const CONTRACTIONS: Array<[RegExp, string]> = [
  [/\bi'm\b/g, "i am"],
  [/\b(we|you|they)'re\b/g, "$1 are"],
  [/\b(i|we|you|they)'ve\b/g, "$1 have"],
  [/\b(i|we|you|they|he|she|it)'ll\b/g, "$1 will"],
  [/\b(i|we|you|they|he|she)'d\b/g, "$1 would"],
  [/\b(it|that|there|what|where|who|when)'s\b/g, "$1 is"],
  // "passport's in my carry-on", "my brother's an engineer", "haircut's been changed": a noun's 's before
  // a place, an article or a participle is "is"/"has", not a possessive.
  [/\b([a-z]+)'s\s+(?=been\b)/g, "$1 has "],
  // "dad's got a job", "team's grown to twelve", "she's joined pirelli": 's before a participle is "has".
  [/\b([a-z]+)'s\s+(?=(?:got|gone|grown|joined|taken|landed|started|switched|quit|moved|changed|dropped|risen|shrunk)\b)/g, "$1 has "],
  [/\b(he|she)'s\b/g, "$1 is"],
  // "rent's £1,300 now": before a number it is "is".
  [/\b([a-z]+)'s\s+(?=[£$€0-9])/g, "$1 is "],
  [/\b([a-z]+)'s\s+(?=(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|every|tomorrow|tonight|today|next)\b)/g, "$1 is "],
  [/\b([a-z]+)'s\s+(?=(?:in|on|at|under|inside|with|by|a|an|now|still|down|up|currently|over|near|behind|back|moving|living|working)\b)/g, "$1 is "],
];

export function expandContractions(text: string): string {
  return CONTRACTIONS.reduce((acc, [pattern, replacement]) => acc.replace(pattern, replacement), text);
}

/** The thing or event a phrase names ("the car keys" → "car key"), or "" for a pronoun. */
export function normaliseSubject(raw: string): string {
  // "mum's flight" is named "mom flight", as a query's phrases name it (slot-query.ts drops the 's too).
  const phrase = canonicalKin(raw.replace(TRAILING_TIME, "").replace(DETERMINERS, "").replace(/'s\b/g, "").replace(/\s+/g, " ").trim());
  if (PRONOUN.test(phrase)) return "";
  return foldPlural(phrase);
}

// Relatives go by several words ("mum", "mom", "mother"): a closed class, each folded to one.
const KIN: Array<[RegExp, string]> = [
  [/\b(?:mum|mummy|mommy|mother|ma)\b/g, "mom"],
  [/\b(?:daddy|father|pa)\b/g, "dad"],
  [/\b(?:granny|grandmother|nana|nan)\b/g, "grandma"],
  [/\b(?:grandfather|grandpa|granddad)\b/g, "grandpa"],
  [/\b(?:hubby)\b/g, "husband"],
  [/\b(?:sis)\b/g, "sister"],
  [/\b(?:bro)\b/g, "brother"],
  [/\b(?:folks|mom and dad)\b/g, "parents"],
  [/\b(?:flatmate)\b/g, "roommate"],
  [/\b(?:neighbor)\b/g, "neighbour"],
];

export function canonicalKin(phrase: string): string {
  return KIN.reduce((text, [word, canonical]) => text.replace(word, canonical), phrase);
}

/** Singular and plural name the same thing; only the head (last) word is folded, and only a plain -s. */
export function foldPlural(phrase: string): string {
  return phrase.replace(/([a-z]{3})s$/, (whole, stem: string) => (stem.endsWith("s") ? whole : stem));
}

/**
 * Who a phrase names as owner or actor: SELF for the speaker ("i", "my", "we"), "" for nobody, null for
 * another pronoun or a thing ("the office"), else a name of one or two words ("tom", "tom's", "my sister" → "sister").
 */
export function normalisePerson(raw: string): string | null {
  const phrase = raw.replace(/'s$/, "").replace(/(?:\s+(?:now|currently|still|also|just|recently|finally|officially|already))+$/, "").trim();
  if (phrase === "") return "";
  if (SELF_EN.test(phrase) || /^(?:my|our)$/.test(phrase)) return SELF;
  if (PRONOUN.test(phrase) || /^(?:your|his|her|their|its)$/.test(phrase)) return null;
  // "my sister" is someone the speaker names; "the office" is a thing; "my best friend raj" is raj.
  const name = canonicalKin(phrase.replace(POSSESSIVE_PRONOUN, "").replace(APPOSITION, ""));
  if (!/^[a-z][a-z'-]*(?: [a-z][a-z'-]*)?$/.test(name) || DETERMINERS.test(name + " ") || VERB_WORD.test(name)) return null;
  return foldPlural(name);
}

// "ten pounds a week now that he's 12": a reason or condition after the value is not part of it.
const TRAILING_REASON = /\s+(?:now that|because|since|so that|as of|after the|when (?:he|she|they|i|we))\s.+$/;

// "moved to globex from umbrella labs": where from is not where to; "right now sci-fi": when is not what.
const TRAILING_ORIGIN = /\s+from\s+[a-z][a-z' -]*$/;
const LEADING_TIME = /^(?:right now|now|currently|these days|nowadays|lately|at the moment|at present),?\s+/;

// "lives in london now and likes it": what follows "and" with a verb of its own is another thought.
const TRAILING_CLAUSE = /\s+(?:now\s+)?and\s+(?:is|are|was|likes?|loves?|hates?|enjoys?|seems?|feels?|says?|has|have|it's|is loving|is enjoying)\b.*$/;
const LEADING_HEDGE = /^(?:most likely|more than likely|very likely|probably|likely|possibly|maybe|perhaps|definitely|surely|apparently|presumably)\s+/;

export function normaliseValue(raw: string): string {
  // "is most likely animation": a hedge is how sure, not what.
  return raw.replace(TRAILING_CLAUSE, "").replace(TRAILING_REASON, "").replace(TRAILING_TIME, "").replace(TRAILING_ORIGIN, "").replace(LEADING_TIME, "").replace(LEADING_HEDGE, "").replace(DETERMINERS, "").trim();
}

/** A time value keeps its time words ("tomorrow at 9am"); only connectives and spacing are normalised. */
export function normaliseTime(raw: string): string {
  return raw.replace(/^(?:on|at|for|to)\s+/, "").replace(/\s+(?:instead|now)$/, "").replace(/\s+/g, " ").trim();
}

/** "two" → "2", "12" → "12"; anything else unchanged. */
export function normaliseCount(raw: string): string {
  return NUMBER_WORDS_EN[raw] ?? (/^[0-9]+$/.test(raw) ? String(Number(raw)) : raw);
}

export function stripPossessive(phrase: string): string {
  return phrase.replace(POSSESSIVE_PRONOUN, "");
}

export function hasPossessivePronoun(phrase: string): boolean {
  return POSSESSIVE_PRONOUN.test(phrase);
}

// Texting shorthand, read as the words it stands for ("where r my keys rn", "fave drink -> tea btw").
const TEXTING: Array<[RegExp, string]> = [
  [/\s*->\s*/g, " is now "],
  [/\b(?:btw|lol|lmao|tbh|imo|fyi|jk|haha|ok so|okay so)\b[,.!]*/g, " "],
  [/\b(?:rn|atm)\b/g, "now"],
  [/\bfave\b/g, "favourite"],
  // A lone letter, not one inside an address or handle ("emma.r@yahoo.com").
  [/(?<![\w.@/-])r(?![\w.@/-])/g, "are"],
  [/(?<![\w.@/-])ur(?![\w.@/-])/g, "your"],
  [/(?<![\w.@/-])u(?![\w.@/-])/g, "you"],
  [/(?<![\w.@/-])w(?![\w.@/-])/g, "with"],
  [/\bpls\b|\bplz\b/g, "please"],
  [/\bwheres\b/g, "where's"],
  // Apostrophes left out: "im", "dont", "whats" (not "its", "ill", "well", "cant": words of their own too).
  [/\bim\b/g, "i'm"],
  [/\bive\b/g, "i've"],
  [/\b(do|does|did|is|was|are|were|has|have|had|wo|should|could|would)nt\b/g, "$1n't"],
  [/\b(what|when|that|there|who|how)s\b/g, "$1's"],
  [/\s{2,}/g, " "],
];

/** Lowercased English text with texting shorthand spelled out; Chinese text is returned as it is. */
// English words inside Chinese ("我现在最like的水果", "牙医预约 reschedule到周五", "我爸爸 join了阿里巴巴"): the
// Chinese word they stand for, so the Chinese tables read them. Discourse tags ("btw", "fyi") say nothing.
const CODE_SWITCHED: Array<[RegExp, string]> = [
  [/\s*\b(?:btw|fyi)\b[,，]?\s*/g, " "],
  [/\s*\breschedule(?:d)?\s*(?=到|至|成)/g, "改"],
  [/\s*\breschedule(?:d)?\b\s*/g, "改期"],
  [/\s*\bupdate(?:d)?\s*(?=成|为|到)/g, "改"],
  [/\s*\bupdate(?:d)?\s*一下/g, "更新"],
  [/\s*\bmove(?:d)?\s*(?=到|去)/g, "搬"],
  [/\s*\bjoin(?:ed)?\s*(?=了)/g, "加入"],
  [/\s*\bbase(?:d)?\s*(?=在)/g, "住"],
  [/\s*\bprefer\s*/g, "偏好"],
  [/\s*\blike\s*/g, "喜欢"],
  [/\s*\blove\s*/g, "爱"],
  [/\s*\btop\s*1\b\s*/g, "最爱"],
  [/\s*\bsave\s*一下/g, "记一下"],
];

// Chat decoration: a pointing emoji is an arrow ("体脂率👉22%", "favourite tea 👉 jasmine"); other emoji and
// a run of tildes ("收到～", "these days~") say how, not what.
const POINTING = /[ \t]*(?:👉|➡\uFE0F?|⇨|⮕)[ \t]*/gu;
const EMOJI = /[\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}\uFE0F\u200D]+/gu;
const TILDES = /[ \t]*~+(?!\d)[ \t]*/g;
const DECORATED = /[\p{Extended_Pictographic}⇨⮕~]/u;

function undecorated(text: string): string {
  if (!DECORATED.test(text)) return text;
  const han = /\p{Script=Han}/u.test(text);
  return text
    .replace(POINTING, " → ")
    .replace(EMOJI, han ? "" : " ")
    .replace(TILDES, ", ")
    .replace(/[ \t]{2,}/g, " ")
    .replace(/^[ \t,]+|[ \t,]+$/g, "");
}

export function unTexted(raw: string): string {
  const text = undecorated(raw);
  if (/\p{Script=Han}/u.test(text)) return /[a-z]/.test(text) ? CODE_SWITCHED.reduce((acc, [pattern, words]) => acc.replace(pattern, words), text) : text;
  return TEXTING.reduce((acc, [pattern, words]) => acc.replace(pattern, words), text).trim();
}

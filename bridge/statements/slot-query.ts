// What a query says about state slots, before any index is consulted: the phrases that could name a
// subject or attribute (Han substrings, English word n-grams, with their positions), whether the speaker
// asks about themselves, which kinds of state the question words point at, and canonical attributes.
import { attributeSpans, categoryOfVerb } from "./attributes";
import { CURRENT_EN, FIRST_PERSON_EN, HISTORY_EN, KIND_CUES_EN } from "./cues-en";
import { CURRENT_ZH, FIRST_PERSON_ZH, HISTORY_ZH, KIND_CUES_ZH } from "./cues-zh";
import { canonicalKin, foldPlural, unTexted } from "./en-phrases";
import type { SlotKind } from "./slots";
import { simplified } from "./han-script";

export interface QueryPhrase {
  text: string;
  /** Character offsets in the normalised query; a phrase inside a longer matching one is not the subject. */
  start: number;
  end: number;
  /** A single Han character: too weak to name a subject, but a counted thing ("几只猫") may be one. */
  single: boolean;
}

export interface SlotQuery {
  /** The normalised query (NFKC, lowercase, straight quotes), cut to MAX_QUERY_CHARS. */
  text: string;
  firstPerson: boolean;
  /** The query asks for the state as it is now ("现在", "now") or as it went ("怎么变化的", "over time"). */
  current: boolean;
  kinds: ReadonlySet<SlotKind>;
  /** Canonical contact fields and preference categories the query names ("手机号" → phone, "饮料" → drink). */
  attributes: ReadonlySet<string>;
  /** Where the query names each of them: a shorter word inside ("address" in "email address") names nothing. */
  attributeSpans: ReadonlyArray<{ start: number; end: number; key: string }>;
  /** Preference categories only a verb implies ("喝" → drink): weaker than a named category ("茶叶"). */
  verbCategories: ReadonlySet<string>;
}

// Queries are questions of a line or two; a pasted document is not asking about one slot.
const MAX_QUERY_CHARS = 300;
const MAX_HAN_PHRASE = 12;
const MAX_WORDS = 4;
const HAN = /\p{Script=Han}/u;
const RUN = /[\p{Script=Han}a-z0-9]+/gu;
const WORD = /[a-z0-9][a-z0-9'-]*/g;
const LEADING_DETERMINER = /^(?:(?:the|a|an|my|our|your|his|her|their|its|this|that|these|those)\s+)+/;
const CONSUME_ZH = /(?:喜欢|爱|想)(喝|吃|听|看|玩|读|弹)|(喝|吃|听|看|玩|读|弹)(?:什么|啥|哪)/;
const CONSUME_EN = /\b(drink|drinking|eat|eating|listen to|listening to|watch|watching|read|reading|play|playing)\b/;

export function readSlotQuery(query: string): SlotQuery {
  const text = unTexted(simplified(query.normalize("NFKC")).toLowerCase().replace(/[\u2018\u2019]/g, "'").slice(0, MAX_QUERY_CHARS));
  return {
    text,
    firstPerson: FIRST_PERSON_ZH.test(text) || FIRST_PERSON_EN.test(text),
    current: CURRENT_ZH.test(text) || CURRENT_EN.test(text) || HISTORY_ZH.test(text) || HISTORY_EN.test(text),
    kinds: kindsOf(text),
    ...attributesOf(text),
    verbCategories: verbCategoriesOf(text),
  };
}

/**
 * Visits every phrase of the query that could name a subject or attribute: each substring of a run of Han
 * characters (up to 12), and each run of up to four English words with determiners dropped and the last
 * word singular. Phrases are not collected: a query of 300 characters has thousands, and few name anything.
 */
export function visitPhrases(query: SlotQuery, visit: (phrase: QueryPhrase) => void): void {
  const { text } = query;
  for (const run of text.matchAll(RUN)) {
    if (!HAN.test(run[0])) continue;
    const base = run.index!;
    for (let i = 0; i < run[0].length; i++) {
      for (let j = i + 1; j <= Math.min(run[0].length, i + MAX_HAN_PHRASE); j++) {
        visit({ text: run[0].slice(i, j), start: base + i, end: base + j, single: j - i === 1 });
      }
    }
  }
  const words = [...text.matchAll(WORD)].filter((w) => !HAN.test(w[0]));
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= MAX_WORDS && i + n <= words.length; n++) {
      const start = words[i].index!;
      const last = words[i + n - 1];
      const end = last.index! + last[0].length;
      const phrase = foldPlural(canonicalKin(text.slice(start, end).replace(/'s\b/g, "").replace(LEADING_DETERMINER, "").trim()));
      if (phrase !== "") visit({ text: phrase, start, end, single: false });
    }
  }
}

function kindsOf(text: string): Set<SlotKind> {
  const kinds = new Set<SlotKind>();
  for (const [pattern, kind] of [...KIND_CUES_ZH, ...KIND_CUES_EN]) if (pattern.test(text)) kinds.add(kind);
  return kinds;
}

// Question words that name the measure they ask for: "我现在多重" asks for the 体重, "how tall am I" the height.
const MEASURE_QUESTIONS: Array<[RegExp, string[]]> = [
  [/多重|多少斤|多少公斤/, ["体重", "weight"]],
  [/多高|多少厘米/, ["身高", "height"]],
  [/\bhow much do (?:i|you|we) weigh\b|\bweigh now\b/, ["weight", "体重"]],
  [/\bhow tall\b/, ["height", "身高"]],
];

function attributesOf(text: string): Pick<SlotQuery, "attributes" | "attributeSpans"> {
  const found = new Set<string>();
  const spans: Array<{ start: number; end: number; key: string }> = [];
  for (const [pattern, attributes] of MEASURE_QUESTIONS) if (pattern.test(text)) for (const attribute of attributes) found.add(attribute);
  // Longest words first: "email address" is taken before the "address" inside it, which then names nothing.
  for (const span of attributeSpans(text)) {
    spans.push({ start: span.start, end: span.end, key: span.key });
    found.add(span.key);
  }
  return { attributes: found, attributeSpans: spans };
}

function verbCategoriesOf(text: string): Set<string> {
  const found = new Set<string>();
  const zhVerb = CONSUME_ZH.exec(text);
  const enVerb = CONSUME_EN.exec(text);
  for (const verb of [zhVerb?.[1] ?? zhVerb?.[2], enVerb?.[1]]) {
    const category = verb === undefined ? undefined : categoryOfVerb(verb);
    if (category) found.add(category);
  }
  return found;
}

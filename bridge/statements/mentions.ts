// How a statement names a state slot when the slot grammar could not read it: the slot's subject in the
// text as a name of its own (not inside a longer name the index knows), the attribute's words, the speaker
// for their own slots, and a word of the slot's kind (a place word, a time, a number, a liking verb).
// Per-language closed classes only; the subjects and attributes come from the slot index.
import { attributeSpans, attributeWords } from "./attributes";
import { canonicalKin, unTexted } from "./en-phrases";
import { FIRST_PERSON_EN } from "./cues-en";
import { FIRST_PERSON_ZH } from "./cues-zh";
import type { SlotKind } from "./slots";
import { mentionsTime } from "./time-expressions";
import { SELF, undoubleKin } from "./zh-phrases";
import { simplified } from "./han-script";

const HAN = /\p{Script=Han}/u;
// How far before a name a longer name may start ("车" + "钥匙", "back door" + "key").
const MAX_PREFIX_HAN = 3;

/** The text as slot subjects are written: NFKC, lowercase, kin words folded ("妈妈" → "妈", "mum" → "mom"), no "'s". */
export function mentionText(text: string): string {
  const folded = simplified(text.normalize("NFKC")).toLowerCase().replace(/[\u2018\u2019]/g, "'");
  return canonicalKin(unTexted(undoubleKin(folded)).replace(/'s\b/g, ""));
}

/**
 * Whether `text` (a mentionText) names `subject` as a thing of its own: owner and thing for "妈的航班", the
 * whole phrase otherwise, at a place where no longer name `isOtherName` knows starts ("车钥匙" is not 钥匙).
 */
export function namesSubject(text: string, subject: string, isOtherName: (phrase: string) => boolean): boolean {
  if (subject === SELF) return true;
  if (HAN.test(subject)) {
    const owned = /^(.+?)的(.+)$/.exec(subject);
    if (owned) return text.includes(owned[1]) && namesHan(text, owned[2], isOtherName);
    return namesHan(text, subject, isOtherName);
  }
  return namesWords(text, subject, isOtherName);
}

function namesHan(text: string, name: string, isOtherName: (phrase: string) => boolean): boolean {
  // A compound may be said with 的 inside it: "喝水的目标" is the 喝水目标, "阳台的绿植" the 阳台绿植.
  for (const match of text.matchAll(hanPattern(name))) {
    const at = match.index!;
    let inside = false;
    // "车的钥匙" is the 车钥匙 as much as "车钥匙" is.
    for (let k = 1; k <= MAX_PREFIX_HAN && at - k >= 0 && !inside; k++) inside = isOtherName(text.slice(at - k, at).replace(/的$/, "") + name);
    if (!inside) return true;
  }
  return false;
}

function hanPattern(name: string): RegExp {
  return new RegExp([...name].map(escape).join("的?"), "gu");
}

function namesWords(text: string, name: string, isOtherName: (phrase: string) => boolean): boolean {
  const pattern = new RegExp(`(?:^|([a-z0-9'-]+)\\s+|[^a-z0-9'-])${escape(name)}s?(?![a-z0-9])`, "g");
  for (const match of text.matchAll(pattern)) {
    const before = match[1];
    if (before === undefined || !isOtherName(`${before} ${name}`)) return true;
  }
  return false;
}

/**
 * Whether `text` names the attribute: one of its words (a contact field or category, any language) or the
 * attribute itself, not inside a longer word of another field ("phone" in "work phone").
 */
export function namesAttribute(text: string, attribute: string): boolean {
  const spans = attributeSpans(text);
  if (spans.some((span) => span.key === attribute)) return true;
  // Not inside a longer word of another field or category; a Han word may have 的 inside ("喝水的目标").
  const elsewhere = (at: number, end: number) => spans.some((span) => span.key !== attribute && span.start <= at && span.end >= end);
  return attributeWords(attribute).some((word) => {
    const pattern = HAN.test(word) ? hanPattern(word) : new RegExp(`(?<![a-z0-9])${escape(word)}s?(?![a-z0-9])`, "g");
    return [...text.matchAll(pattern)].some((match) => !elsewhere(match.index!, match.index! + match[0].length));
  });
}

// Relatives and others a statement about someone else names; the speaker's own slots need the speaker or nobody.
const OTHER_PERSON_ZH = /妈|爸|哥|姐|弟|妹|爷|奶|姥|外公|外婆|叔|姑|舅|姨|老公|老婆|媳妇|儿子|女儿|闺女|室友|同事|老板|闺蜜|男朋友|女朋友|他|她/;
const OTHER_PERSON_EN =
  /\b(?:mom|dad|parents?|sister|brother|aunt|uncle|cousin|grandma|grandpa|wife|husband|partner|boyfriend|girlfriend|son|daughter|kids?|friend|roommate|boss|colleague|coworker|neighbour|landlord|niece|nephew|he|she|his|her|they|their)\b/;

// People other than the speaker a statement may be about, or report: "同事说他的钥匙坏了", "A friend loves tea too".
const OTHERS_ZH = /邻居|同事|朋友|同学|别人|大家|群里|有人|网友|领导|客户|他|她/;
const OTHERS_EN = /\b(?:neighbou?r|coworker|co-worker|colleague|friend|classmate|someone|somebody|everyone|everybody|people|he|she|his|her|they|their)\b/;

/** Whether a statement may be the speaker's own: it speaks in the first person, or names nobody else. */
export function mayBeSelf(text: string): boolean {
  const zh = HAN.test(text);
  if (zh ? FIRST_PERSON_ZH.test(text) : FIRST_PERSON_EN.test(text)) return !namesOthers(text);
  return !(zh ? OTHER_PERSON_ZH : OTHER_PERSON_EN).test(text);
}

/** Whether the thing `phrase` names is someone else's where `text` names it ("his green alarm clock", "同事说他的钥匙"). */
export function ownedByOthers(text: string, phrase: string): boolean {
  const at = text.indexOf(phrase);
  if (at < 0) return false;
  const before = text.slice(Math.max(0, at - 12), at);
  return HAN.test(phrase)
    ? /(?:他|她|他们|她们|邻居|同事|朋友|同学|别人)(?:的|家的|家)?$/.test(before)
    : /\b(?:his|her|their|its|(?:neighbou?r|coworker|colleague|friend|classmate)'?s?)\s+(?:own\s+|new\s+|old\s+)?$/.test(before);
}

/** Whether `text` names a contact field: then it gives that field, not where someone lives or works. */
export function namesContactField(text: string): boolean {
  return attributeSpans(text).some((span) => span.kind === "contact");
}

/** Whether a statement names someone else than the speaker and their relatives: then the thing it names may be theirs. */
export function namesOthers(text: string): boolean {
  return (HAN.test(text) ? OTHERS_ZH : OTHERS_EN).test(text);
}

// A word of each kind of state: where things are or people live, where people work, liking, contact data.
// Schedules need a time and state attributes any value; residence shares location's predicate (slots.ts).
const KIND_WORDS_ZH: Partial<Record<SlotKind, RegExp>> = {
  location: /在|放|搁|塞|挂|收|藏|锁|留|存|停|摆|带|挪|移|搬|住|到|交给|拿|借|寄|那儿|那里|这儿|这里|手上|手里|身上|里|上/,
  workplace: /上班|工作|任职|就职|实习|打工|入职|跳槽|去了|进了|加入|调到|调去|转到|换到|换了|当|做|干|教|公司|单位|辞职|离职/,
  preference: /喜欢|爱|迷|偏好|偏爱|中意|钟爱|钟情|热衷|上瘾|着迷|换成|改成|变成|常|沉迷|馋|入坑|心头好|喜好|首选|改喝|改吃|改听|改看/,
  contact: /[0-9]{3}|@|[a-z][a-z0-9_.-]{3,}/,
};
const KIND_WORDS_EN: Partial<Record<SlotKind, RegExp>> = {
  location:
    /\b(?:in|on|at|under|behind|inside|beside|near|with|into|onto|moved|put|left|keep|keeps|kept|stored|hung|hanging|parked|placed|lent|gave|took|live|lives|living|relocated|based|settled|swapped|went from)\b/,
  workplace: /\b(?:work|works|working|job|joined|hired|employed|started|switched|swapped|went from|moved|left|quit|intern|interning|company|employer|teach|teaches|teaching|transferred)\b/,
  preference: /\b(?:favou?rite|prefer|prefers|preferred|love|loves|loving|like|likes|into|obsessed|hooked|enjoy|enjoys|switched|go-to|fond|crazy about|top pick|pick)\b/,
  contact: /[0-9]{3}|@|\b[a-z][a-z0-9_.-]{3,}\b/,
};

const NUMBER_ZH = /[0-9]|[零一二两三四五六七八九十百千万半]+(?:个|只|条|辆|台|本|张|件|套|位|头|匹|盆|棵|部|双|把|间|瓶|支|块|斤|公斤|千克|克|米|厘米|公里|岁|次|步|元|人|小时|分钟)/;
const NUMBER_EN = /[0-9]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|dozen)\b/;

/** Whether `text` holds a number, in digits or words: the shape of a count or measure. */
export function holdsNumber(text: string): boolean {
  return (HAN.test(text) ? NUMBER_ZH : NUMBER_EN).test(text);
}

/** Whether `text` holds a word of `kind`: its kind's words, a time for a schedule, anything for an attribute of state. */
export function showsKind(text: string, kind: SlotKind): boolean {
  if (kind === "schedule") return mentionsTime(text);
  if (kind === "state") return true;
  const table = HAN.test(text) ? KIND_WORDS_ZH : KIND_WORDS_EN;
  const words = table[kind === "residence" ? "location" : kind];
  return words === undefined || words.test(text);
}

const HAN_RUN = /\p{Script=Han}+/gu;
const MAX_VALUE_HAN = 12;
const MAX_VALUE_WORDS = 6;

/**
 * Whether `text` (a mentionText) holds a phrase `isKnown` accepts (a value some statement of the kind has
 * set): Han substrings of 2 to 12 characters, runs of up to six English words.
 */
export function holdsKnownValue(text: string, isKnown: (phrase: string) => boolean): boolean {
  for (const run of text.matchAll(HAN_RUN)) {
    const chars = run[0];
    for (let i = 0; i < chars.length; i++) for (let j = i + 2; j <= Math.min(chars.length, i + MAX_VALUE_HAN); j++) if (isKnown(chars.slice(i, j))) return true;
  }
  const words = text.match(/[a-z0-9][a-z0-9'-]*/g) ?? [];
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= MAX_VALUE_WORDS && i + n <= words.length; n++) {
      const phrase = words.slice(i, i + n).join(" ");
      if (phrase.length >= 3 && isKnown(phrase)) return true;
    }
  }
  return false;
}

/**
 * The phrases whose index terms find the statements that may name a slot: the subject (its thing, for an
 * owned one; the ways people say a relative, for one Han character), else the attribute's words.
 */
export function searchPhrases(subject: string, attribute: string | undefined): string[] {
  if (subject === SELF) return attribute === undefined ? [] : attributeWords(attribute);
  const thing = /^(.+?)的(.+)$/.exec(subject)?.[2] ?? subject;
  if (HAN.test(thing) && [...thing].length === 1) return [`我${thing}`, `${thing}${thing}`, `老${thing}`, `${thing}的`];
  return [thing];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}


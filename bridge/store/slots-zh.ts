// Chinese state-slot patterns: 把/将 placement, topic + placement verb, copula 在/位于, and
// change verbs (改成/换成/变成…, 现在是, possessive 的…是). Input is one NFKC, lowercased clause.

import type { StateSlot } from "./slots";

// Closed grammatical sets only: these are function words, placement verbs and localisers,
// never the things or places themselves.
const ADVERBS = "(?:现在|目前|如今|仍然|依然|已经|一直|暂时|还|仍|已|都|也|就|又|先|是)*";
const PLACE_VERB =
  "(?:存放|停放|安放|摆放|寄存|保存|收纳|放|摆|搁|塞|藏|锁|存|停|泊|搬|挪|移|落|忘|收|挂|装|留|扔|丢|拿|带|寄|插|夹|关|晾)";
const DIRECTION = "(?:了|好)?(?:回到|在|到|进|入|回|至)(?:了)?";
const CHANGE_VERB = "(?:改成|改为|改到|换成|换到|变成|变为|更新为|更新成|更改为|调整为|调到)";

const BA_PLACE = new RegExp(`^(.*?)(?:把|将)(.+?)${PLACE_VERB}${DIRECTION}(.+)$`);
const TOPIC_PLACE = new RegExp(`^(.+?)${PLACE_VERB}${DIRECTION}(.+)$`);
// Neither side may contain 在, so "我现在在家里" splits at the copula, not inside 现在.
const COPULA = new RegExp(`^([^在]+?)${ADVERBS}(?:在|位于)([^在]+)$`);
const BA_CHANGE = new RegExp(`^(.*?)(?:把|将)(.+?)${CHANGE_VERB}了?(.+)$`);
const CHANGE = new RegExp(`^(.+?)${CHANGE_VERB}了?(.+)$`);
const NOW_IS = /^(.+?)(?:现在|目前|如今)(?:已经)?(?:是|为)(.+)$/;
// Bare 为 is left out: it hides inside 作为/因为/认为, which are never a state.
const PLAIN_IS = /^(.+?)(?:还|仍然|依然|已经)?是(.+)$/;

const LEADING_TIME = /^(?:今天|昨天|前天|明天|现在|目前|如今|刚才|刚刚|后来|之后|最后|终于|其实|早上|晚上|上午|下午|中午)+/;
const LEADING_NOW = /^(?:现在|目前|如今)/;
// Possessives before bare pronouns so "我的" is not cut to "的"; then demonstratives and
// numeral + classifier ("这个", "一把"), which say which one, not what it is.
const LEADING_NOISE =
  /^(?:我们的|咱们的|你们的|他们的|她们的|我的|你的|他的|她的|它的|今天|昨天|现在|刚才|刚刚|已经|我们|咱们|你们|他们|她们|我|你|他|她|它|又|还|也|都|就|[这那一两几每][个只把件台辆部本张支块串双套条])+/;
const TRAILING_PARTICLES = /(?:了|的|呢|啊|吧|啦|哦|呀)+$/;
const TRAILING_ADVERBS = new RegExp(`${ADVERBS}$`);
// Longest first so "里面" goes whole; a localiser is only dropped when two characters remain,
// because "楼上"/"楼下" are different places while "鞋柜里" is just "鞋柜".
const LOCALISER =
  /(?:里面|里边|里头|上面|上边|下面|下边|前面|前边|后面|后边|左边|右边|旁边|外面|底下|中间|附近|对面|里|上|中|内|下|前|后|旁|边|外|底)$/;
const NEGATION = /(?:不|没有?|未|别|勿|并非)(?:再|要|曾|会|能|是)?$/;
const PRONOUN_ONLY = /^(?:我们?|你们?|他们?|她们?|它们?|咱们|大家|这|那|这里|那里)?$/;

// A matcher returns undefined when its patterns do not apply and null when they do but the
// clause asserts nothing (negated, pronoun subject), so a negated location is not retried as a state.
type Match = StateSlot | null | undefined;

/** The one slot a Chinese clause asserts, or undefined for actions and negations. */
export function extractChineseSlots(clause: string): StateSlot | undefined {
  const leadingNow = LEADING_NOW.test(clause);
  const text = clause.replace(LEADING_TIME, "");
  const location = matchLocation(text);
  return (location === undefined ? matchState(text, leadingNow) : location) ?? undefined;
}

function matchLocation(text: string): Match {
  const ba = BA_PLACE.exec(text);
  if (ba) return negated(ba[1]) ? null : locationSlot(ba[2], ba[3]);
  const topic = TOPIC_PLACE.exec(text);
  if (topic) return negated(topic[1]) ? null : locationSlot(topic[1], topic[2]);
  const copula = COPULA.exec(text);
  // A bare 在 is also how Chinese says where an action happened ("在公园跑步"); only a
  // place that ends the clause on a localiser ("鞋柜里") is a statement of where a thing is.
  if (copula && LOCALISER.test(stripParticles(copula[2]))) {
    return negated(copula[1]) ? null : locationSlot(copula[1], copula[2]);
  }
  return undefined;
}

function matchState(text: string, leadingNow: boolean): Match {
  const ba = BA_CHANGE.exec(text);
  if (ba) return negated(ba[1]) ? null : stateSlot(ba[2], ba[3]);
  const change = CHANGE.exec(text) ?? NOW_IS.exec(text);
  if (change) return negated(change[1]) ? null : stateSlot(change[1], change[2]);
  const plain = PLAIN_IS.exec(text);
  // A bare 是 is too common to be a change ("他是老师"); it counts when it states an
  // owned attribute ("我的手机号是…") or when the clause opened with 现在.
  if (plain && (plain[1].includes("的") || leadingNow)) {
    return negated(plain[1]) ? null : stateSlot(plain[1], plain[2]);
  }
  return undefined;
}

function locationSlot(rawSubject: string, rawPlace: string): StateSlot | null {
  const subject = normaliseSubject(rawSubject);
  const value = normalisePlace(rawPlace);
  return subject && value ? { kind: "location", subject, value } : null;
}

function stateSlot(rawSubject: string, rawValue: string): StateSlot | null {
  const phrase = stripParticles(rawSubject.replace(TRAILING_ADVERBS, ""));
  // "小明的手机号" is owner 小明 + attribute 手机号; a pronoun owner ("我的") is the speaker,
  // so the attribute alone names the slot. An adjectival 的 ("蓝色的杯子") mis-splits,
  // which only ever keeps two memories apart, never merges unrelated ones.
  const cut = phrase.lastIndexOf("的");
  const owner = cut > 0 ? normaliseSubject(phrase.slice(0, cut)) : "";
  const attribute = normaliseSubject(cut >= 0 ? phrase.slice(cut + 1) : phrase);
  const value = stripParticles(stripLeading(rawValue));
  if (!attribute || !value) return null;
  return { kind: "state", subject: owner || attribute, attribute, value };
}

function normaliseSubject(raw: string): string {
  let phrase = raw.replace(TRAILING_ADVERBS, "");
  // Whatever precedes the last aspect marker 了 is the action; the object after it is the thing
  // ("我买了一个杯子放在桌上" is about "杯子").
  const aspect = phrase.lastIndexOf("了");
  if (aspect >= 0) phrase = phrase.slice(aspect + 1);
  phrase = stripLeading(phrase).trim();
  return PRONOUN_ONLY.test(phrase) ? "" : phrase;
}

function normalisePlace(raw: string): string {
  const place = stripParticles(stripLeading(raw)).trim();
  const bare = place.replace(LOCALISER, "");
  return bare.length >= 2 ? bare : place;
}

function stripLeading(text: string): string {
  return text.trim().replace(LEADING_NOISE, "");
}

function stripParticles(text: string): string {
  return text.trim().replace(TRAILING_PARTICLES, "");
}

function negated(preVerb: string): boolean {
  return NEGATION.test(preVerb.replace(/(?:现在|目前|已经|还|都|也|就)+$/, ""));
}

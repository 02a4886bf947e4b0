// Chinese state-slot patterns for one statement clause (NFKC, lowercased): who lives or works where,
// preferences, counts, contact fields and event times first (slots-zh-kinds.ts), then where a thing is
// (把/将 placement, topic + placement verb, copula 在/位于) and other state changes (改成/现在是/的…是).
import { contactField, normaliseContactValue } from "./attributes";
import type { StateSlot } from "./slots";
import { isTimeExpression } from "./time-expressions";
import { matchMeasure, matchQuantity, matchSchedule } from "./slots-zh-events";
import { type Match, matchContact, matchPreference, matchResidence, matchWorkplace } from "./slots-zh-kinds";
import {
  ADVERBS,
  SELF,
  endsOnLocaliser,
  endsOnPlace,
  negated,
  normalisePerson,
  normalisePlace,
  normaliseSubject,
  normaliseValue,
  stripAdverbs,
  stripLeadingTime,
  stripParticles,
} from "./zh-phrases";

// Closed grammatical sets only: these are placement verbs and change verbs, never things or places.
const PLACE_VERB =
  "(?:存放|停放|安放|摆放|寄存|保存|收纳|放|摆|搁|塞|藏|锁|存|停|泊|搬|挪|移|落|忘|收|挂|装|留|扔|丢|拿|带|寄|插|夹|关|晾)";
const DIRECTION = "(?:了|好)?(?:回到|在|到|进|入|回|至)(?:了)?";
const CHANGE_VERB = "(?:改成|改为|改到|换成|换到|变成|变为|更新为|更新成|更改为|调整为|调到|设成|设为|定成|定为|调成)";

// 把 after a demonstrative or numeral is a classifier ("这把钥匙"), not the object marker.
const BA = "(?<![这那一两几每哪])(?:把|将)";
const BA_PLACE = new RegExp(`^(.*?)${BA}(.+?)${PLACE_VERB}${DIRECTION}(.+)$`);
// With 把/将 any one-character verb moving the object to a place is a placement too ("我妹把自行车推到了阳台上");
// tried second, so a placement verb inside the object ("登山杖放在…") is never split off as the verb.
const BA_ANY_VERB = new RegExp(`^(.*?)${BA}(.+?)[\u4e00-\u9fff]${DIRECTION}(.+)$`);
const TOPIC_PLACE = new RegExp(`^(.+?)${PLACE_VERB}${DIRECTION}(.+)$`);
// "车钥匙就放鞋柜上面的小盘子里吧": a placement verb straight before a place phrase.
const TOPIC_PLACED_AT = new RegExp(`^(.+?)${ADVERBS}(?:放|搁|挂|塞|收|存|停|锁|摆)(.+)$`);
// Neither side may contain 在, so "我现在在家里" splits at the copula, not inside 现在.
const COPULA = new RegExp(`^([^在]+?)${ADVERBS}(?:在|位于)([^在]+)$`);
const BA_CHANGE = new RegExp(`^(.*?)${BA}(.+?)${CHANGE_VERB}了?(.+)$`);
const CHANGE = new RegExp(`^(.+?)${CHANGE_VERB}了?(.+)$`);
const NOW_IS = /^(.+?)(?:现在|目前|如今)(?:已经)?(?:是|为)(.+)$/;
// Bare 为 is left out: it hides inside 作为/因为/认为, which are never a state.
const PLAIN_IS = /^(.+?)(?:还|仍然|依然|已经)?是(.+)$/;
const LEADING_NOW = /^(?:现在|目前|如今)/;

// Schedule first: it applies only to a time value, which "改到周五" must not read as a place.
// A measured attribute after location: "钥匙在3号柜子里" is a place that happens to hold a number.
const MATCHERS: Array<(text: string, leadingNow: boolean) => Match> = [
  matchSchedule,
  matchResidence,
  matchWorkplace,
  matchPreference,
  matchQuantity,
  matchContact,
  matchLocation,
  matchMeasure,
  matchState,
];

/** The one slot a Chinese statement clause asserts, or undefined for actions and negations. */
export function extractChineseSlot(clause: string): StateSlot | undefined {
  const leadingNow = LEADING_NOW.test(clause);
  const text = stripLeadingTime(clause);
  for (const match of MATCHERS) {
    const found = match(text, leadingNow);
    if (found !== undefined) return found ?? undefined;
  }
  return undefined;
}

function matchLocation(text: string): Match {
  const ba = BA_PLACE.exec(text) ?? BA_ANY_VERB.exec(text);
  if (ba) return negated(ba[1]) ? null : locationSlot(ba[2], ba[3]);
  const topic = TOPIC_PLACE.exec(text);
  if (topic) return negated(topic[1]) ? null : locationSlot(topic[1], topic[2]);
  const placedAt = TOPIC_PLACED_AT.exec(text);
  if (placedAt && endsOnLocaliser(placedAt[2])) return negated(placedAt[1]) ? null : locationSlot(placedAt[1], placedAt[2]);
  const copula = COPULA.exec(text);
  // A bare 在 is also how Chinese says where an action happened ("在公园跑步"); only a
  // place that ends the clause on a localiser ("鞋柜里") is a statement of where a thing is.
  if (copula && endsOnPlace(copula[2])) return negated(copula[1]) ? null : locationSlot(copula[1], copula[2]);
  return undefined;
}

function matchState(text: string, leadingNow: boolean): Match {
  const ba = BA_CHANGE.exec(text);
  if (ba) return negated(ba[1]) ? null : stateSlot(ba[2], ba[3]);
  const change = CHANGE.exec(text) ?? NOW_IS.exec(text);
  if (change) return negated(change[1]) ? null : stateSlot(change[1], change[2]);
  const plain = PLAIN_IS.exec(text);
  // A bare 是 is too common to be a change ("他是老师"); it counts when it states an
  // owned attribute ("我的体重是…") or when the clause opened with 现在.
  if (plain && (plain[1].includes("的") || leadingNow)) return negated(plain[1]) ? null : stateSlot(plain[1], plain[2]);
  return undefined;
}

function locationSlot(rawSubject: string, rawPlace: string): StateSlot | null {
  const subject = normaliseSubject(rawSubject);
  const value = normalisePlace(rawPlace);
  return subject && value ? { kind: "location", subject, value } : null;
}

function stateSlot(rawSubject: string, rawValue: string): StateSlot | null {
  const phrase = stripParticles(stripAdverbs(rawSubject));
  const value = normaliseValue(rawValue);
  // "小明的体重" is owner 小明 + attribute 体重; "我的", or no owner at all ("静息心率变成了63"), is the
  // speaker, whose own state people mostly report. An adjectival 的 ("蓝色的杯子") mis-splits, which only
  // ever keeps two memories apart, never merges unrelated ones.
  // "每天的步数目标": a time word before 的 says when, not whose.
  const cut = phrase.lastIndexOf("的");
  const timed = cut > 0 && isTimeExpression(phrase.slice(0, cut));
  const attribute = normaliseSubject(cut >= 0 && !timed ? phrase.slice(cut + 1) : phrase);
  if (!attribute || !value) return null;
  const owner = cut <= 0 || timed ? SELF : normalisePerson(phrase.slice(0, cut));
  if (owner === null) return null;
  const field = contactField(attribute);
  if (field) return { kind: "contact", subject: owner || SELF, attribute: field, value: normaliseContactValue(field, value) };
  return { kind: "state", subject: owner || SELF, attribute, value };
}

// When two values of one slot are the same value written differently: "Friday at 2pm" and "friday 2pm",
// "下午三点" and "下午3点", "书房的窗台" and "书房窗台", "12%" and "12", "2,750 ml" and "2750ml".
// Values keep their wording for people (receipts); only comparisons go through comparableValue.
import type { SlotKind } from "./slots";
import { normaliseNumber } from "./zh-phrases";

const EN_FILLER = /\b(?:at|on|the|a|an|of|in|around|about)\b/g;
const ZH_NUMERAL_RUN = /[零〇一二两三四五六七八九十百]+(?=[点时号日月个只条辆台本张件套位头匹盆棵分])/g;

/** A form of `value` in which equal values of a slot of `kind` are equal strings. */
export function comparableValue(kind: SlotKind, value: string): string {
  let text = value.replace(/^¬/, "").replace(ZH_NUMERAL_RUN, (run) => normaliseNumber(run));
  // "friday at 3pm" and "3pm on friday" are one time: its words in any order.
  if (kind === "schedule") text = text.replace(EN_FILLER, "").split(/\s+/).filter(Boolean).sort().join(" ");
  // A phone number with or without its country code ("+44 7700 900853", "07700 900853"): its last nine digits.
  if (kind === "contact" && /^\+?[0-9][0-9\s\-().]{8,}$/.test(text)) return text.replace(/[^0-9]/g, "").slice(-9);
  // "鞋柜里", "在鞋柜里面", "my desk drawer", "in the desk drawer": one place, said with or without its
  // preposition, localiser, owner or a "那儿".
  if (kind === "location" || kind === "residence" || kind === "workplace") text = comparablePlace(text);
  text = text.replace(/的/g, "").replace(/(?<=[0-9]),(?=[0-9]{3})/g, "").replace(/[\s,.。]+/g, "");
  // A measured attribute or count is its number: "65公斤", "65 kg" and "65" are one weight.
  if (kind === "state") {
    const number = /[0-9]+(?:\.[0-9]+)?/.exec(text);
    if (number) return number[0];
  }
  return text;
}

const ZH_PLACE_EDGES = /^(?:在|放在|到|去|我的|我家的|我们的|我家|咱家|你的|家里的)+|(?:里面|里边|里头|上面|上边|下面|下边|那儿|那里|这儿|这里|那边|这边|里|上|中|内|了|呢|啊|吧)+$/g;
const EN_PLACE_WORDS = /\b(?:in|on|at|inside|into|onto|the|a|an|my|your|our|his|her|their|now|still)\b/g;

function comparablePlace(text: string): string {
  if (/\p{Script=Han}/u.test(text)) {
    const bare = text.replace(ZH_PLACE_EDGES, "");
    return bare.length >= 2 ? bare : text;
  }
  return text.replace(EN_PLACE_WORDS, " ").replace(/\s+/g, " ").trim() || text;
}

/**
 * Whether a newer value replaces an older one of the same slot. A retraction ("¬coffee") replaces only the
 * value it retracts, and a value only a retraction of itself; two retractions never conflict; any other
 * different value replaces.
 */
export function valuesConflict(kind: SlotKind, newer: string, older: string): boolean {
  const [newerRetracts, olderRetracts] = [newer.startsWith("¬"), older.startsWith("¬")];
  if (newerRetracts && olderRetracts) return false;
  const same = sameValue(kind, comparableValue(kind, newer), comparableValue(kind, older));
  return newerRetracts || olderRetracts ? same : !same;
}

// A place said more or less fully ("鞋柜" and "鞋柜上面的盒子", "desk drawer" and "top desk drawer") is not a
// change worth collapsing over: the newer statement still ranks first, the older is simply not called stale.
function sameValue(kind: SlotKind, a: string, b: string): boolean {
  if (a === b) return true;
  if (kind !== "location" && kind !== "residence" && kind !== "workplace") return false;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 2 && long.includes(short);
}

// State slots: "thing X is at place Y", "event E is at time T", "person P lives/works at Y", "P's favourite
// drink / phone / weight is V" — facts pulled out of statement clauses by closed grammatical patterns,
// never by noun lists. Conflict collapsing compares these; action verbs (buy, break, replace) never form a slot.
import { extractEnglishSlot } from "./slots-en";
import { extractChineseSlot } from "./slots-zh";
import { MAX_SLOT_CLAUSE_CHARS, readClauses, type Clause, type Speaker } from "./speech-acts";

export const SLOT_KINDS = ["location", "schedule", "preference", "residence", "workplace", "contact", "state"] as const;
export type SlotKind = (typeof SLOT_KINDS)[number];

export { SELF } from "./zh-phrases";

export interface StateSlot {
  kind: SlotKind;
  /** The thing, event or person the fact is about, normalised (lowercase, NFKC, no determiners); SELF for the speaker. */
  subject: string;
  /** What about the subject changes, when it is not the subject itself: a preference category, contact field or attribute. */
  attribute?: string;
  /** The place, time or value asserted, normalised the same way; "¬x" retracts a preference for x. */
  value: string;
}

const HAN = /\p{Script=Han}/u;
const HAN_ALL = /\p{Script=Han}/gu;

/** Pure: every slot asserted by the statement clauses of `text`, in clause order. */
export function extractSlots(text: string, speaker: Speaker = "user"): StateSlot[] {
  return slotsOfClauses(readClauses(text, speaker));
}

/** Questions, requests and acknowledgements assert nothing; negated statements neither. */
export function slotsOfClauses(clauses: readonly Clause[]): StateSlot[] {
  const slots: StateSlot[] = [];
  for (const clause of clauses) {
    if (clause.act !== "statement" || clause.text.length > MAX_SLOT_CLAUSE_CHARS) continue;
    // A clause with any Han character follows Chinese word order even when it names
    // Latin-script things ("我把iPhone放在抽屉里"), so the language is chosen per clause.
    const found = HAN.test(clause.text) ? extractChineseSlot(clause.text) : extractEnglishSlot(clause.text);
    if (found) slots.push(found);
  }
  return slots;
}

/** Same thing and same predicate; the values are what a conflict then compares. */
export function sameSlot(a: StateSlot, b: StateSlot): boolean {
  if (a.kind !== b.kind || !sameThing(a.subject, b.subject)) return false;
  if (a.attribute === undefined || b.attribute === undefined) return a.attribute === b.attribute;
  return sameThing(a.attribute, b.attribute);
}

/**
 * Whether a newer value replaces an older one of the same slot. A retraction ("¬coffee") replaces only
 * the value it retracts; any other different value replaces the older one.
 */
export function valuesConflict(newer: string, older: string): boolean {
  if (newer === older) return false;
  if (newer.startsWith("¬")) return newer.slice(1) === older;
  return older.startsWith("¬") ? older.slice(1) === newer : true;
}

/**
 * Equal, or the shorter is the head of the longer: "马克杯" names "蓝色马克杯" and "keys"
 * names "car keys". One Han character or a partial English word is too weak a head
 * ("车" in "车库", "keys" in "monkeys"), so those must match exactly.
 */
export function sameThing(a: string, b: string): boolean {
  if (a === "" || b === "") return false;
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (!long.endsWith(short)) return false;
  return isHead(short, long);
}

/** Whether `short`, a suffix of `long`, is strong enough to name the same thing (see sameThing). */
export function isHead(short: string, long: string): boolean {
  if (HAN.test(short[0])) return (short.match(HAN_ALL)?.length ?? 0) >= 2;
  return long.length === short.length || long[long.length - short.length - 1] === " ";
}

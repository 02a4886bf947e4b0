// State slots: "thing X is at place / in state Y" facts pulled out of memory text by closed
// grammatical patterns (placement verbs, copulas, change verbs), never by noun lists.
// Conflict collapsing compares these; action verbs (buy, break, replace) never form a slot.

import { extractEnglishSlots } from "./slots-en";
import { extractChineseSlots } from "./slots-zh";

export type SlotKind = "location" | "state";

export interface StateSlot {
  kind: SlotKind;
  /** The thing the fact is about, normalised (lowercase, NFKC, no determiners or localisers). */
  subject: string;
  /** State slots only: the attribute that changes ("手机号", "phone number"). */
  attribute?: string;
  /** The place or state asserted, normalised the same way. */
  value: string;
}

const HAN = /\p{Script=Han}/u;
const HAN_ALL = /\p{Script=Han}/gu;
// "." ends a clause only before whitespace or the end, so "3.5" and "v1.2" stay whole.
const CLAUSE_BREAK = /[。!?;,\r\n]+|\.(?=\s|$)|\band then\b|然后/u;

/** Pure: every slot asserted by `text`, in clause order. Negated clauses assert nothing. */
export function extractSlots(text: string): StateSlot[] {
  const slots: StateSlot[] = [];
  for (const raw of text.normalize("NFKC").toLowerCase().split(CLAUSE_BREAK)) {
    const clause = raw.trim();
    if (clause === "") continue;
    // A clause with any Han character follows Chinese word order even when it names
    // Latin-script things ("我把iPhone放在抽屉里"), so the language is chosen per clause.
    const found = HAN.test(clause) ? extractChineseSlots(clause) : extractEnglishSlots(clause);
    if (found) slots.push(found);
  }
  return slots;
}

/** Same thing and same predicate; the values are what a conflict then compares. */
export function sameSlot(a: StateSlot, b: StateSlot): boolean {
  if (a.kind !== b.kind || !sameThing(a.subject, b.subject)) return false;
  if (a.kind === "location") return true;
  if (a.attribute === undefined || b.attribute === undefined) return a.attribute === b.attribute;
  return sameThing(a.attribute, b.attribute);
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
  if (HAN.test(short[0])) return (short.match(HAN_ALL)?.length ?? 0) >= 2;
  return long[long.length - short.length - 1] === " ";
}

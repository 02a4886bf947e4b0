// State slots: "thing X is at place Y", "event E is at time T", "person P lives/works at Y", "P's favourite
// drink / phone / weight is V" — what a statement sets, and when two statements set the same slot.
// Reading them out of text is slot-reader.ts; action verbs (buy, break, replace) never form a slot.
import { isWeakCategory } from "./attributes";

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

/**
 * Where something is and where someone lives are one predicate: "我弟弟搬到了昆明" and "我弟弟现在住在北京"
 * are two values of the same state. Every other kind is its own predicate.
 */
export function predicateOf(kind: SlotKind): SlotKind {
  return kind === "residence" ? "location" : kind;
}

/**
 * Same predicate, same subject and same attribute, by name: only then is a newer value a change of the same
 * state. "车钥匙" and "钥匙" may be two things, so neither replaces the other; a query about 钥匙 still
 * finds both (the slot index looks slots up by every head of their subject, see isHead), newest first.
 */
export function sameSlot(a: StateSlot, b: StateSlot): boolean {
  // Two preferences of unknown category ("I prefer olives now", "I prefer tulips now") may be about anything.
  if (isWeakCategory(a.attribute) || isWeakCategory(b.attribute)) return false;
  return predicateOf(a.kind) === predicateOf(b.kind) && a.subject === b.subject && a.attribute === b.attribute;
}

/**
 * Whether `short`, a suffix of `long`, is strong enough to name the same thing: a question about "马克杯" may
 * mean "蓝色马克杯", one about "keys" the "car keys". One Han character or a partial English word is too weak
 * a head ("车" in "车库", "keys" in "monkeys").
 */
export function isHead(short: string, long: string): boolean {
  if (HAN.test(short[0])) return (short.match(HAN_ALL)?.length ?? 0) >= 2;
  return long.length === short.length || long[long.length - short.length - 1] === " ";
}

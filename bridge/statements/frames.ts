// Statements that span clauses: one clause names what changed, a later one only the new value
// ("车钥匙不在挂钩上了，我挪到了玄关的抽屉里", "Flight to Denver got delayed, now departing at 9pm",
// "Mom got a new WhatsApp number, +44 7700 900456"). A frame carries the subject (and kind) forward to
// the open value that follows it in the same memory.
import { SELF } from "./zh-phrases";
import type { SlotKind, StateSlot } from "./slots";

/** What a clause is about when it states no complete slot: a subject, and what about it changes when it says. */
export interface SlotFrame {
  subject: string;
  kind?: SlotKind;
  attribute?: string;
}

/** A value whose subject the clause leaves out or names by pronoun, with the kinds of slot it can fill. */
export interface OpenValue {
  kinds: readonly SlotKind[];
  attribute?: string;
  value: string;
}

/** The slot an open value fills under `frame`, or undefined when the frame is about another kind of thing. */
export function fillFrame(frame: SlotFrame, open: OpenValue): StateSlot | undefined {
  if (open.value === "" || (frame.kind !== undefined && !open.kinds.some((k) => sameFamily(k, frame.kind!)))) return undefined;
  const kind = frame.kind ?? open.kinds[0];
  // "体脂率又变了，12%": a number for a frame that named only what changed is the speaker's measure of it.
  if (kind === "state" && frame.kind === undefined && frame.attribute === undefined && open.attribute === undefined) return { kind, subject: SELF, attribute: frame.subject, value: open.value };
  // The frame names the field ("a new WhatsApp number"); the value's shape only guesses it (a phone number).
  const attribute = frame.attribute ?? open.attribute;
  return { kind, subject: frame.subject, ...(attribute ? { attribute } : {}), value: open.value };
}

export function frameOfSlot(slot: StateSlot): SlotFrame {
  return { subject: slot.subject, kind: slot.kind, ...(slot.attribute ? { attribute: slot.attribute } : {}) };
}

// An open place fills where a thing is or where someone lives or works, whichever the frame says.
function sameFamily(open: SlotKind, framed: SlotKind): boolean {
  if (open === framed) return true;
  return open === "location" && (framed === "residence" || framed === "workplace");
}

// The receipt's collapsed slots and withheld memories as lines a person reads (CLI, holo_receipt): one
// line per collapsed slot, and withheld memories grouped by reason once there are more than a few.
import { SELF } from "../statements/slots";
import type { CollapsedSlot } from "./receipts";

const WITHHELD_SHOWN_PER_REASON = 3;

export function collapsedSlotLines(collapsed: readonly CollapsedSlot[]): string[] {
  return collapsed.map((c) => {
    const older = c.superseded === 1 ? "1 older value" : `${c.superseded} older values`;
    return `collapsed ${slotLabel(c)}: ${older} superseded by ${c.current_id} (${c.current_value})`;
  });
}

export function withheldLines(withheld: ReadonlyArray<{ id: string; reason: string }>): string[] {
  const byReason = new Map<string, string[]>();
  for (const w of withheld) byReason.set(w.reason, [...(byReason.get(w.reason) ?? []), w.id]);
  const lines: string[] = [];
  for (const [reason, ids] of byReason) {
    for (const id of ids.slice(0, WITHHELD_SHOWN_PER_REASON)) lines.push(`withheld ${id} (${reason})`);
    if (ids.length > WITHHELD_SHOWN_PER_REASON) lines.push(`withheld ${ids.length - WITHHELD_SHOWN_PER_REASON} more (${reason})`);
  }
  return lines;
}

/** "钥匙 (location)", "phone (contact)" for the speaker's own, "小明 phone (contact)" for someone else's. */
function slotLabel(slot: { kind: string; subject: string; attribute: string | null }): string {
  const owner = slot.subject === SELF ? "you" : slot.subject;
  const name = slot.attribute === null ? owner : slot.subject === SELF ? slot.attribute : `${owner} ${slot.attribute}`;
  return `${name} (${slot.kind})`;
}

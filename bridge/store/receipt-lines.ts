// The receipt's collapsed slots, withheld memories and redactions as lines a person reads (CLI,
// holo_receipt): one line per collapsed slot, withheld memories grouped by reason once there are more
// than a few, and the secrets taken out counted by kind (never a value).
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

/** Receipts written before redactions were counted have no such field: no lines. */
export function redactionLines(redactions: { query: Record<string, number>; memories: Record<string, number> } | undefined): string[] {
  if (!redactions) return [];
  const counted = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, n]) => `${n} ${kind}`)
      .join(", ");
  const lines: string[] = [];
  if (Object.keys(redactions.query).length > 0) lines.push(`redacted from the query before it was searched or logged: ${counted(redactions.query)}`);
  if (Object.keys(redactions.memories).length > 0) lines.push(`redacted at capture in these memories: ${counted(redactions.memories)}`);
  return lines;
}

/** "钥匙 (location)", "phone (contact)" for the speaker's own, "小明 phone (contact)" for someone else's. */
function slotLabel(slot: { kind: string; subject: string; attribute: string | null }): string {
  const owner = slot.subject === SELF ? "you" : slot.subject;
  const name = slot.attribute === null ? owner : slot.subject === SELF ? slot.attribute : `${owner} ${slot.attribute}`;
  return `${name} (${slot.kind})`;
}

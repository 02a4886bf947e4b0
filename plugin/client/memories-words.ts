// How the Memories page words what the bridge answers: who said a memory, when, which slot a fact
// fills, which retrievers found a memory. Pure (no React, no fetch), so it is tested without a browser.
import type { Translate } from "./i18n";

/** A state slot as receipts and views name it (bridge/statements/slots.ts). */
interface SlotName {
  kind: string;
  subject: string;
  attribute: string | null;
}

/** What a receipt's candidate says of the retrievers that found it. */
interface Found {
  lexical_rank: number | null;
  dense_rank: number | null;
  slot: boolean;
}

/** The bridge's name for the speaker in a slot ("我的护照" is the speaker's passport). */
const SELF = "(self)";

export function sourceLabel(t: Translate, sourceType: string): string {
  const known = t(`memories.sources.${sourceType}`);
  return known === `memories.sources.${sourceType}` ? sourceType : known;
}

/** "护照 — where it is", "you · phone — contact". */
export function slotName(t: Translate, slot: SlotName): string {
  const subject = slot.subject === SELF ? t("memories.you") : slot.subject;
  const name = slot.attribute ? `${subject} · ${slot.attribute}` : subject;
  const kind = t(`memories.kinds.${slot.kind}`);
  return `${name} — ${kind === `memories.kinds.${slot.kind}` ? slot.kind : kind}`;
}

export function formatTime(t: Translate, ms: number): string {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return String(ms);
  return date.toLocaleString(t.lang === "zh" ? "zh-CN" : "en-GB", { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** "words #2, meaning #1, current state of an asked slot". */
export function retrievers(t: Translate, candidate: Found | undefined): string {
  if (!candidate) return "";
  const parts = [
    candidate.lexical_rank !== null ? t("memories.why.words", { rank: candidate.lexical_rank }) : "",
    candidate.dense_rank !== null ? t("memories.why.meaning", { rank: candidate.dense_rank }) : "",
    candidate.slot ? t("memories.why.slot") : "",
  ];
  return parts.filter(Boolean).join(t("memories.listSeparator"));
}

/** A memory's text cut for a row; the detail shows it whole. */
export function snippet(text: string, maxChars = 240): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > maxChars ? flat.slice(0, maxChars - 1) + "…" : flat;
}

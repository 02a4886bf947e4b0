// "Why was this recalled?": the newest recall the plugin made, and any receipt read for a person —
// each memory returned with its rank and the retrievers that found it, the candidates that ranked
// lower and why, and what was held back (older values of a slot, withheld memories, redactions).
// Mirrors bridge/store/receipt-lines.ts and the CLI's formatReceipt, in the page's language.
import * as React from "react";
import type { Translate } from "./i18n";
import { memoriesApi, type Glance, type LastRecall, type Receipt } from "./memories-api";
import { ErrorLine } from "./memories-error";
import { formatTime, retrievers, slotName, snippet, sourceLabel } from "./memories-words";

const h = React.createElement;
const LOWER_SHOWN = 10;
const REASONS: Record<string, string> = { "acknowledgement only": "acknowledgement", "in recent window": "recentWindow" };

type Load = { state: "loading" } | { state: "ready"; last: LastRecall } | { state: "failed"; error: { code: string; message: string } };

export function LastRecallView(props: { t: Translate; onOpen(id: string): void }): React.ReactElement {
  const { t, onOpen } = props;
  const [load, setLoad] = React.useState<Load>({ state: "loading" });
  const refresh = React.useCallback(() => {
    void memoriesApi.lastRecall().then((result) => setLoad(result.ok ? { state: "ready", last: result.body } : { state: "failed", error: result }));
  }, []);
  React.useEffect(refresh, [refresh]);

  let body: React.ReactNode = h("div", { className: "dshDream_hint" }, t("memories.loading"));
  if (load.state === "failed") body = h(ErrorLine, { t, error: load.error });
  else if (load.state === "ready" && load.last.recall === null) body = h("div", { className: "dshDreamMem_empty", "data-testid": "mem-why-none" }, t("memories.why.none"));
  else if (load.state === "ready") {
    const { recall, receipt } = load.last;
    body = h(
      React.Fragment,
      null,
      h("div", { className: "dshDreamMem_whyHead", "data-testid": "mem-why-note" }, t("memories.why.note", { session: recall!.session_id, turn: recall!.turn, time: formatTime(t, recall!.at_ms) })),
      receipt
        ? h(ReceiptView, { t, receipt, memories: load.last.memories, onOpen, truncatedIds: recall!.truncated_ids })
        : h("div", { className: "dshDream_meaning", "data-testid": "mem-why-no-receipt" }, recall!.receipt_id === null ? t("memories.why.failed", { recall: recall!.recall }) : t("memories.why.receiptGone")),
    );
  }
  return h(
    "section",
    { "data-testid": "mem-why" },
    h("p", { className: "dshDream_hint" }, t("memories.why.intro"), " ", h("button", { type: "button", className: "dshDream_link", "data-testid": "mem-why-refresh", onClick: refresh }, t("refresh"))),
    body,
  );
}

export function ReceiptView(props: { t: Translate; receipt: Receipt; memories: Record<string, Glance>; onOpen(id: string): void; truncatedIds?: string[] }): React.ReactElement {
  const { t, receipt, memories, onOpen } = props;
  const byId = new Map(receipt.candidates.map((c) => [c.id, c]));
  const truncated = new Set(props.truncatedIds ?? []);
  const lower = receipt.candidates.filter((c) => !c.selected);
  const held = heldBackLines(t, receipt);
  const memory = (id: string, why: string, note?: string) => {
    const glance = memories[id];
    return h(
      "li",
      { key: id, className: "dshDreamMem_whyItem", "data-testid": `mem-why-${id}` },
      glance
        ? h("button", { type: "button", className: "dshDreamMem_whyText", onClick: () => onOpen(id) }, snippet(glance.text, 200))
        : h("span", { className: "dshDream_hint" }, t("memories.why.gone", { id })),
      h("div", { className: "dshDreamMem_meta" }, [glance ? `${formatTime(t, glance.timestamp_ms)} · ${sourceLabel(t, glance.source_type)}` : "", why].filter(Boolean).join(" · ")),
      note ? h("div", { className: "dshDreamMem_whyNote" }, note) : null,
    );
  };
  return h(
    "div",
    { className: "dshDreamMem_receipt", "data-testid": "mem-receipt" },
    h(
      "div",
      { className: "dshDreamMem_whyHead" },
      t("memories.why.query", { query: snippet(receipt.query, 160), mode: t(`memories.why.modes.${receipt.mode}`) }),
      h("div", { className: "dshDream_hint" }, receipt.fallback_reason ? t("memories.why.keywordsOnly", { reason: t(`fallbackReasons.${receipt.fallback_reason}`) }) : t("memories.why.hybrid")),
    ),
    h("h3", null, receipt.retrieved_chunk_ids.length === 0 ? t("memories.why.returnedNothing") : t("memories.why.returned")),
    h("ol", { className: "dshDreamMem_whyList", "data-testid": "mem-why-returned" }, ...receipt.retrieved_chunk_ids.map((id) => memory(id, retrievers(t, byId.get(id)), truncated.has(id) ? t("memories.why.truncated") : undefined))),
    lower.length > 0 ? h("h3", null, t("memories.why.lower", { count: lower.length })) : null,
    lower.length > 0 ? h("ul", { className: "dshDreamMem_whyList", "data-testid": "mem-why-lower" }, ...lower.slice(0, LOWER_SHOWN).map((c) => memory(c.id, retrievers(t, c), lowerReason(t, receipt, c.id)))) : null,
    lower.length > LOWER_SHOWN ? h("div", { className: "dshDream_hint" }, t("memories.why.lowerMore", { count: lower.length - LOWER_SHOWN })) : null,
    held.length > 0 ? h("h3", null, t("memories.why.heldBack")) : null,
    held.length > 0 ? h("ul", { className: "dshDreamMem_held", "data-testid": "mem-why-held" }, ...held.map((line, i) => h("li", { key: i }, line))) : null,
  );
}

/** Why a candidate is not among the results: an older value of a slot, withheld, or simply ranked lower. */
function lowerReason(t: Translate, receipt: Receipt, id: string): string {
  const conflict = receipt.conflicts.find((c) => c.id === id);
  if (conflict) {
    const current = receipt.collapsed_slots.find((c) => c.kind === conflict.kind && c.subject === conflict.subject && c.attribute === conflict.attribute);
    return t("memories.why.superseded", { value: conflict.value, current: current?.current_value ?? conflict.superseded_by });
  }
  const withheld = receipt.withheld.find((w) => w.id === id);
  if (withheld) return t("memories.why.withheld", { reason: withheldReason(t, withheld.reason) });
  return t("memories.why.rankedLower", { top: receipt.top_k });
}

function withheldReason(t: Translate, reason: string): string {
  if (reason.startsWith("quarantined: ")) return t("memories.why.reasons.quarantined", { reason: reason.slice("quarantined: ".length) });
  const key = REASONS[reason];
  return key ? t(`memories.why.reasons.${key}`) : reason;
}

/** collapsedSlotLines, withheldLines (counted by reason) and redactionLines of receipt-lines.ts, in words. */
function heldBackLines(t: Translate, receipt: Receipt): string[] {
  const lines = receipt.collapsed_slots.map((c) => t("memories.why.collapsed", { slot: slotName(t, c), value: c.current_value, count: c.superseded }));
  const byReason = new Map<string, number>();
  for (const w of receipt.withheld) byReason.set(w.reason, (byReason.get(w.reason) ?? 0) + 1);
  for (const [reason, count] of byReason) lines.push(t("memories.why.withheldCount", { count, reason: withheldReason(t, reason) }));
  const counted = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, n]) => `${n} ${kind}`)
      .join(t("memories.listSeparator"));
  const redactions = receipt.redactions;
  if (redactions && Object.keys(redactions.query).length > 0) lines.push(t("memories.why.redactedQuery", { what: counted(redactions.query) }));
  if (redactions && Object.keys(redactions.memories).length > 0) lines.push(t("memories.why.redactedMemories", { what: counted(redactions.memories) }));
  return lines;
}

// One memory in full: its text, the facts about it (who, when, where, whether it is quarantined or
// was edited), what it states, each of its slots' values over time with the current one marked,
// the receipts that returned it, and the actions that change it (memories-actions.ts).
import * as React from "react";
import type { Translate } from "./i18n";
import { MemoryActions } from "./memories-actions";
import { memoriesApi, type MemoryDetail, type SlotHistory } from "./memories-api";
import { ErrorLine } from "./memories-error";
import { formatTime, slotName, snippet, sourceLabel } from "./memories-words";

const h = React.createElement;

type Load = { state: "loading" } | { state: "ready"; detail: MemoryDetail } | { state: "failed"; error: { code: string; message: string } };

export interface MemoryDetailProps {
  t: Translate;
  id: string;
  revision: number;
  onBack(): void;
  onOpen(id: string): void;
  onChanged(message?: string): void;
  onForgotten(message: string): void;
}

export function MemoryDetailView(props: MemoryDetailProps): React.ReactElement {
  const { t, id, revision, onOpen } = props;
  const [load, setLoad] = React.useState<Load>({ state: "loading" });

  React.useEffect(() => {
    let live = true;
    setLoad({ state: "loading" });
    void memoriesApi.get(id).then((result) => {
      if (live) setLoad(result.ok ? { state: "ready", detail: result.body } : { state: "failed", error: result });
    });
    return () => {
      live = false;
    };
  }, [id, revision]);

  const back = h("button", { type: "button", className: "dshDream_link", "data-testid": "mem-back", onClick: props.onBack }, t("memories.back"));
  if (load.state !== "ready") {
    return h("section", { className: "dshDreamMem_detail", "data-testid": "mem-detail" }, back, load.state === "failed" ? h(ErrorLine, { t, error: load.error }) : h("div", { className: "dshDream_hint" }, t("memories.loading")));
  }
  const { detail } = load;
  const record = detail.record;
  const link = (target: string) => h("button", { type: "button", className: "dshDream_link", "data-testid": `mem-link-${target}`, onClick: () => onOpen(target) }, target);
  const facts: Array<[string, string, React.ReactNode]> = [
    ["status", t("memories.detail.status"), record.quarantine ? t("memories.detail.quarantined", { reason: record.quarantine.reason, time: formatTime(t, record.quarantine.at_ms) }) : t("memories.detail.active")],
    ["source", t("memories.detail.source"), sourceLabel(t, record.source_type)],
    ["time", t("memories.detail.time"), formatTime(t, record.timestamp_ms)],
    ["scope", t("memories.detail.scope"), record.scope],
  ];
  if (record.session_id !== undefined) facts.push(["session", t("memories.detail.session"), record.turn !== undefined ? t("memories.detail.sessionTurn", { session: record.session_id, turn: record.turn }) : record.session_id]);
  if (record.tags?.length) facts.push(["tags", t("memories.detail.tags"), record.tags.join(", ")]);
  facts.push(["act", t("memories.detail.act"), t(`memories.acts.${detail.act}`)]);
  if (detail.replaced_by) facts.push(["replaced-by", t("memories.detail.replacedBy"), link(detail.replaced_by)]);
  if (detail.edited_from) facts.push(["edited-from", t("memories.detail.editedFrom"), link(detail.edited_from)]);
  facts.push(["id", t("memories.detail.id"), h("code", null, record.id)]);

  return h(
    "section",
    { className: "dshDreamMem_detail", "data-testid": "mem-detail" },
    back,
    h("blockquote", { className: record.quarantine ? "dshDreamMem_fullText is-quarantined" : "dshDreamMem_fullText", "data-testid": "mem-detail-text" }, record.text),
    h(MemoryActions, { key: record.id, t, detail, onChanged: props.onChanged, onForgotten: props.onForgotten, onOpen }),
    h("dl", { className: "dshDreamMem_facts" }, ...facts.flatMap(([key, label, value]) => [h("dt", { key: `${key}-t` }, label), h("dd", { key: `${key}-d`, "data-testid": `mem-fact-${key}` }, value)])),
    h("h3", null, t("memories.detail.states")),
    detail.slots.length === 0
      ? h("div", { className: "dshDream_hint", "data-testid": "mem-states-none" }, t("memories.detail.statesNone"))
      : h("ul", { className: "dshDreamMem_states", "data-testid": "mem-states" }, ...detail.slots.map((slot, i) => h("li", { key: i }, slotName(t, slot), t("memories.colon"), h("strong", null, slot.value)))),
    ...detail.slot_history.map((history, i) => h(HistoryTable, { key: `history-${i}`, t, history, thisId: record.id, onOpen })),
    h("h3", null, t("memories.detail.receipts")),
    detail.receipts.length === 0
      ? h("div", { className: "dshDream_hint", "data-testid": "mem-receipts-none" }, t("memories.detail.receiptsNone"))
      : h(
          "table",
          { className: "dshDreamMem_table", "data-testid": "mem-receipts" },
          h("thead", null, h("tr", null, h("th", null, t("memories.detail.when")), h("th", null, t("memories.detail.query")), h("th", null, t("memories.detail.mode")), h("th", null, t("memories.detail.rank")))),
          h("tbody", null, ...detail.receipts.map((r) => h("tr", { key: r.receipt_id }, h("td", null, formatTime(t, r.created_at_ms)), h("td", null, snippet(r.query, 120)), h("td", null, t(`memories.why.modes.${r.mode}`)), h("td", null, `#${r.rank}`)))),
        ),
  );
}

/** A slot's values over time, oldest first: the current one and this memory marked, each row opening its memory. */
function HistoryTable(props: { t: Translate; history: SlotHistory; thisId: string; onOpen(id: string): void }): React.ReactElement {
  const { t, history, thisId, onOpen } = props;
  return h(
    "div",
    { className: "dshDreamMem_history", "data-testid": "mem-history" },
    h("h3", null, t("memories.detail.history", { slot: slotName(t, history) })),
    history.omitted > 0 ? h("div", { className: "dshDream_hint" }, t("memories.detail.historyOmitted", { count: history.omitted })) : null,
    h(
      "table",
      { className: "dshDreamMem_table" },
      h("thead", null, h("tr", null, h("th", null, t("memories.detail.when")), h("th", null, t("memories.detail.value")), h("th", null, t("memories.detail.said")), h("th", null, ""))),
      h(
        "tbody",
        null,
        ...history.values.map((value) => {
          const marks = [value.current ? t("memories.detail.current") : "", value.quarantined ? t("memories.quarantinedBadge") : "", value.id === thisId ? t("memories.detail.thisMemory") : ""].filter(Boolean);
          return h(
            "tr",
            { key: value.id, className: value.current ? "is-current" : value.quarantined ? "is-quarantined" : undefined, "data-testid": `mem-history-${value.id}` },
            h("td", null, formatTime(t, value.timestamp_ms)),
            h("td", null, h("strong", null, value.value)),
            h("td", null, value.id === thisId ? snippet(value.text, 80) : h("button", { type: "button", className: "dshDream_link", onClick: () => onOpen(value.id) }, snippet(value.text, 80))),
            h("td", { className: "dshDreamMem_marks", "data-testid": `mem-history-${value.id}-marks` }, marks.join(t("memories.listSeparator"))),
          );
        }),
      ),
    ),
  );
}

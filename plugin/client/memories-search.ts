// The Memories page's search, as recall searches: latest (each thing's current value) or timeline
// (every value over time, oldest first), the results in rank order, and their receipt on demand.
import * as React from "react";
import type { Translate } from "./i18n";
import { memoriesApi, type SearchAnswer } from "./memories-api";
import { MemoryRow } from "./memories-list";
import { ReceiptView } from "./memories-why";
import { ErrorLine } from "./memories-error";
import { retrievers } from "./memories-words";

const h = React.createElement;

type Run = { state: "idle" } | { state: "running" } | { state: "done"; answer: SearchAnswer; timeline: boolean } | { state: "failed"; error: { code: string; message: string } };

export function MemorySearch(props: { t: Translate; revision: number; onOpen(id: string): void }): React.ReactElement {
  const { t, revision, onOpen } = props;
  const [query, setQuery] = React.useState("");
  const [timeline, setTimeline] = React.useState(false);
  const [run, setRun] = React.useState<Run>({ state: "idle" });
  const [asked, setAsked] = React.useState<{ query: string; timeline: boolean } | undefined>(undefined);

  React.useEffect(() => {
    if (!asked) return;
    let live = true;
    setRun({ state: "running" });
    void memoriesApi.search(asked.query, asked.timeline).then((result) => {
      if (!live) return;
      setRun(result.ok ? { state: "done", answer: result.body, timeline: asked.timeline } : { state: "failed", error: result });
    });
    return () => {
      live = false;
    };
    // A change made in a detail (forget, edit) searches again, so no result shows a memory that is gone.
  }, [asked, revision]);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (query.trim() !== "") setAsked({ query: query.trim(), timeline });
  };
  const mode = (value: boolean, label: string, testid: string) =>
    h(
      "label",
      { className: timeline === value ? "dshDreamMem_mode is-active" : "dshDreamMem_mode", "data-testid": testid },
      h("input", { type: "radio", name: "dshDreamMem-mode", checked: timeline === value, onChange: () => setTimeline(value) }),
      label,
    );
  return h(
    "section",
    { "data-testid": "mem-search" },
    h(
      "form",
      { className: "dshDreamMem_searchForm", onSubmit: submit },
      h("input", { type: "search", value: query, placeholder: t("memories.search.placeholder"), "aria-label": t("memories.search.placeholder"), "data-testid": "mem-search-query", onChange: (e: React.ChangeEvent<HTMLInputElement>) => setQuery(e.target.value) }),
      h("div", { className: "dshDreamMem_modes", role: "radiogroup" }, mode(false, t("memories.search.latest"), "mem-mode-latest"), mode(true, t("memories.search.timeline"), "mem-mode-timeline")),
      h("button", { type: "submit", "data-testid": "mem-search-go", disabled: run.state === "running" }, t("memories.search.go")),
    ),
    h("div", { className: "dshDream_hint" }, timeline ? t("memories.search.timelineHint") : t("memories.search.latestHint")),
    run.state === "running" ? h("div", { className: "dshDream_hint" }, t("memories.search.running")) : null,
    run.state === "failed" ? h(ErrorLine, { t, error: run.error }) : null,
    run.state === "done" ? h(Results, { t, answer: run.answer, timeline: run.timeline, onOpen }) : null,
  );
}

function Results(props: { t: Translate; answer: SearchAnswer; timeline: boolean; onOpen(id: string): void }): React.ReactElement {
  const { t, answer, timeline, onOpen } = props;
  const byId = new Map(answer.receipt.candidates.map((c) => [c.id, c]));
  return h(
    "div",
    { "data-testid": "mem-search-results" },
    answer.results.length === 0
      ? h("div", { className: "dshDreamMem_empty", "data-testid": "mem-search-empty" }, t("memories.search.none"))
      : h(
          "ol",
          { className: "dshDreamMem_rows" },
          ...answer.results.map((result, i) =>
            h(MemoryRow, { key: result.id, t, memory: result, onOpen, rank: timeline ? undefined : i + 1, extra: retrievers(t, byId.get(result.id)) }),
          ),
        ),
    h(
      "details",
      { className: "dshDreamMem_whyFold", "data-testid": "mem-search-why" },
      h("summary", null, t("memories.search.why")),
      h(ReceiptView, { t, receipt: answer.receipt, memories: Object.fromEntries([...answer.results.map((r) => [r.id, { ...r, quarantined: false }]), ...Object.entries(answer.memories)]), onOpen }),
    ),
  );
}

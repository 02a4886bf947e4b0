// The Memories page's list: filters (who said it, scope, words it contains, a date range, active or
// quarantined), a page of memories newest first, and paging ("21–40 of 312").
import * as React from "react";
import type { Translate } from "./i18n";
import { memoriesApi, SOURCE_TYPES, type ListFilter, type ListPage, type ListStatus, type ListedMemory, type SourceType } from "./memories-api";
import { ErrorLine } from "./memories-error";
import { formatTime, snippet, sourceLabel } from "./memories-words";

const h = React.createElement;
export const PAGE_SIZE = 20;

interface Filters {
  source: SourceType | "";
  scope: string;
  contains: string;
  /** yyyy-mm-dd, as a date input holds it; empty for no bound. */
  since: string;
  until: string;
  status: ListStatus;
}

const NO_FILTERS: Filters = { source: "", scope: "", contains: "", since: "", until: "", status: "any" };

type Load = { state: "loading" } | { state: "ready"; page: ListPage } | { state: "failed"; error: { code: string; message: string } };

export function MemoryList(props: { t: Translate; revision: number; scopes: string[]; onOpen(id: string): void }): React.ReactElement {
  const { t, revision, scopes, onOpen } = props;
  const [draft, setDraft] = React.useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = React.useState<Filters>(NO_FILTERS);
  const [offset, setOffset] = React.useState(0);
  const [load, setLoad] = React.useState<Load>({ state: "loading" });

  React.useEffect(() => {
    let live = true;
    void memoriesApi.list(toFilter(applied, offset)).then((result) => {
      if (!live) return;
      if (!result.ok) return setLoad({ state: "failed", error: result });
      // A change may leave this page past the end (the last memory of the last page forgotten): step back.
      if (result.body.memories.length === 0 && offset > 0) return setOffset(Math.max(0, offset - PAGE_SIZE));
      setLoad({ state: "ready", page: result.body });
    });
    return () => {
      live = false;
    };
  }, [applied, offset, revision]);

  const apply = (filters: Filters) => {
    setApplied(filters);
    setOffset(0);
  };
  const set = (patch: Partial<Filters>) => setDraft({ ...draft, ...patch });
  const input = (name: "contains" | "since" | "until", type: string, label: string) =>
    h("label", { className: "dshDreamMem_filter" }, h("span", null, label), h("input", { type, value: draft[name], "data-testid": `mem-filter-${name}`, onChange: (e: React.ChangeEvent<HTMLInputElement>) => set({ [name]: e.target.value }) }));
  const select = (name: "source" | "scope" | "status", label: string, options: Array<[string, string]>) =>
    h(
      "label",
      { className: "dshDreamMem_filter" },
      h("span", null, label),
      h("select", { value: draft[name], "data-testid": `mem-filter-${name}`, onChange: (e: React.ChangeEvent<HTMLSelectElement>) => set({ [name]: e.target.value } as Partial<Filters>) }, ...options.map(([value, text]) => h("option", { key: value, value }, text))),
    );

  return h(
    "section",
    { "data-testid": "mem-list" },
    h(
      "form",
      { className: "dshDreamMem_filters", onSubmit: (e: React.FormEvent) => (e.preventDefault(), apply(draft)), "data-testid": "mem-filters" },
      input("contains", "search", t("memories.filters.contains")),
      select("source", t("memories.filters.source"), [["", t("memories.filters.anySource")], ...SOURCE_TYPES.map((s): [string, string] => [s, sourceLabel(t, s)])]),
      select("scope", t("memories.filters.scope"), [["", t("memories.filters.anyScope")], ...scopes.map((s): [string, string] => [s, s])]),
      select("status", t("memories.filters.status"), (["any", "active", "quarantined"] as const).map((s): [string, string] => [s, t(`memories.filters.statuses.${s}`)])),
      input("since", "date", t("memories.filters.since")),
      input("until", "date", t("memories.filters.until")),
      h(
        "div",
        { className: "dshDreamMem_filterActions" },
        h("button", { type: "submit", "data-testid": "mem-filter-apply" }, t("memories.filters.apply")),
        h("button", { type: "button", className: "dshDream_link", "data-testid": "mem-filter-reset", onClick: () => (setDraft(NO_FILTERS), apply(NO_FILTERS)) }, t("memories.filters.reset")),
      ),
    ),
    load.state === "loading" ? h("div", { className: "dshDream_hint" }, t("memories.loading")) : null,
    load.state === "failed" ? h(ErrorLine, { t, error: load.error }) : null,
    load.state === "ready" ? h(ListBody, { t, page: load.page, onOpen, onPage: setOffset }) : null,
  );
}

function ListBody(props: { t: Translate; page: ListPage; onOpen(id: string): void; onPage(offset: number): void }): React.ReactElement {
  const { t, page, onOpen, onPage } = props;
  if (page.total === 0) return h("div", { className: "dshDreamMem_empty", "data-testid": "mem-list-empty" }, t("memories.listEmpty"));
  const from = page.offset + 1;
  const to = page.offset + page.memories.length;
  return h(
    React.Fragment,
    null,
    h("ul", { className: "dshDreamMem_rows", "data-testid": "mem-rows" }, ...page.memories.map((memory) => h(MemoryRow, { key: memory.id, t, memory, onOpen }))),
    h(
      "div",
      { className: "dshDreamMem_pager" },
      h("button", { type: "button", "data-testid": "mem-prev", disabled: page.offset === 0, onClick: () => onPage(Math.max(0, page.offset - PAGE_SIZE)) }, t("memories.prev")),
      h("span", { "data-testid": "mem-range" }, t("memories.range", { from, to, total: page.total })),
      h("button", { type: "button", "data-testid": "mem-next", disabled: page.next_offset === null, onClick: () => onPage(page.next_offset ?? page.offset) }, t("memories.next")),
    ),
  );
}

/** One memory in a list: when, who, its text (cut), and whether it is quarantined; opens its detail. */
export function MemoryRow(props: { t: Translate; memory: Pick<ListedMemory, "id" | "text" | "source_type" | "timestamp_ms"> & { scope?: string; quarantine?: unknown }; onOpen(id: string): void; rank?: number; extra?: React.ReactNode }): React.ReactElement {
  const { t, memory, onOpen, rank } = props;
  return h(
    "li",
    { className: memory.quarantine ? "dshDreamMem_row is-quarantined" : "dshDreamMem_row" },
    h(
      "button",
      { type: "button", className: "dshDreamMem_rowButton", "data-testid": `mem-row-${memory.id}`, onClick: () => onOpen(memory.id) },
      rank !== undefined ? h("span", { className: "dshDreamMem_rank" }, `${rank}.`) : null,
      h(
        "span",
        { className: "dshDreamMem_rowBody" },
        h("span", { className: "dshDreamMem_text" }, snippet(memory.text)),
        h(
          "span",
          { className: "dshDreamMem_meta" },
          `${formatTime(t, memory.timestamp_ms)} · ${sourceLabel(t, memory.source_type)}`,
          memory.scope && memory.scope !== "global" ? ` · ${memory.scope}` : "",
          memory.quarantine ? h("span", { className: "dshDreamMem_badge" }, t("memories.quarantinedBadge")) : null,
        ),
        props.extra ? h("span", { className: "dshDreamMem_meta" }, props.extra) : null,
      ),
    ),
  );
}

function toFilter(filters: Filters, offset: number): ListFilter {
  const out: ListFilter = { offset, limit: PAGE_SIZE, status: filters.status };
  if (filters.source) out.source_type = filters.source;
  if (filters.scope) out.scope = filters.scope;
  if (filters.contains.trim()) out.contains = filters.contains.trim();
  // Dates are the user's own days: from the start of "since" to the end of "until", in local time.
  if (filters.since) out.since_ms = localMidnight(filters.since);
  if (filters.until) out.until_ms = localMidnight(filters.until, 1);
  return out;
}

/** The local midnight starting `day` (yyyy-mm-dd), or `laterDays` after it; a day is not always 24 hours. */
function localMidnight(day: string, laterDays = 0): number {
  const [year, month, date] = day.split("-").map(Number);
  return new Date(year!, month! - 1, date! + laterDays).getTime();
}

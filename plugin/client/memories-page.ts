// DSH Settings → Memories: what long-term memory holds, for a person to find, read, correct and
// erase. Three tabs (all memories with filters, search, the last recall explained) and a memory's
// detail in their place when one is opened; the tabs keep their state while it is open.
import * as React from "react";
import type { Translate } from "./i18n";
import { EXPORT_URL, memoriesApi, type StatsAnswer } from "./memories-api";
import { MemoryDetailView } from "./memories-detail";
import { MemoryList } from "./memories-list";
import { MemorySearch } from "./memories-search";
import { MemoriesStyle } from "./memories-style";
import { LastRecallView } from "./memories-why";
import { ErrorLine } from "./memories-error";

const h = React.createElement;

type Tab = "list" | "search" | "why";
const TABS: Tab[] = ["list", "search", "why"];

export function MemoriesPage(props: { t: Translate }): React.ReactElement {
  const { t } = props;
  const [tab, setTab] = React.useState<Tab>("list");
  const [openId, setOpenId] = React.useState<string | undefined>(undefined);
  const [stats, setStats] = React.useState<StatsAnswer | undefined>(undefined);
  const [statsError, setStatsError] = React.useState<{ code: string; message: string } | undefined>(undefined);
  // Bumped by every change (forget, quarantine, release, edit): lists and counts read again.
  const [revision, setRevision] = React.useState(0);
  const [notice, setNotice] = React.useState<string | undefined>(undefined);

  React.useEffect(() => {
    let live = true;
    void memoriesApi.stats().then((result) => {
      if (!live) return;
      if (result.ok) {
        setStats(result.body);
        setStatsError(undefined);
      } else setStatsError(result);
    });
    return () => {
      live = false;
    };
  }, [revision]);

  const changed = (message?: string) => {
    setRevision((n) => n + 1);
    setNotice(message);
  };
  const open = (id: string) => {
    setNotice(undefined);
    setOpenId(id);
  };
  const browsable = stats !== undefined && stats.stats !== null;

  return h(
    "div",
    { className: "dshDreamMem", "data-testid": "mem-page" },
    h(MemoriesStyle),
    h(
      "div",
      { className: "dshDreamMem_head" },
      h("h2", null, t("memories.title")),
      browsable ? h("a", { className: "dshDreamMem_button", href: EXPORT_URL, download: "", "data-testid": "mem-export", title: t("memories.exportHint") }, t("memories.export")) : null,
    ),
    h("p", { className: "dshDream_hint" }, t("memories.intro")),
    h(Summary, { t, stats }),
    statsError ? h(ErrorLine, { t, error: statsError }) : null,
    notice ? h("div", { className: "dshDream_ok dshDreamMem_notice", role: "status", "data-testid": "mem-notice" }, notice) : null,
    browsable
      ? h(
          React.Fragment,
          null,
          openId !== undefined
            ? h(MemoryDetailView, { t, id: openId, revision, onBack: () => setOpenId(undefined), onOpen: open, onChanged: changed, onForgotten: (message: string) => (setOpenId(undefined), changed(message)) })
            : null,
          h(
            "div",
            { hidden: openId !== undefined },
            h(
              "div",
              { className: "dshDreamMem_tabs", role: "tablist" },
              ...TABS.map((name) =>
                h("button", { key: name, type: "button", role: "tab", "aria-selected": tab === name, className: tab === name ? "dshDreamMem_tab is-active" : "dshDreamMem_tab", "data-testid": `mem-tab-${name}`, onClick: () => setTab(name) }, t(`memories.tabs.${name}`)),
              ),
            ),
            h("div", { hidden: tab !== "list" }, h(MemoryList, { t, revision, scopes: Object.keys(stats!.stats!.by_scope).sort(), onOpen: open })),
            h("div", { hidden: tab !== "search" }, h(MemorySearch, { t, revision, onOpen: open })),
            tab === "why" ? h(LastRecallView, { t, onOpen: open }) : null,
          ),
        )
      : null,
  );
}

/** Counts, and whether memory is on: off with no bridge running, there is nothing to browse. */
function Summary(props: { t: Translate; stats: StatsAnswer | undefined }): React.ReactElement | null {
  const { t, stats } = props;
  if (stats === undefined) return h("div", { className: "dshDream_hint", "data-testid": "mem-loading" }, t("memories.loading"));
  const counts = stats.stats;
  return h(
    React.Fragment,
    null,
    counts ? h("div", { className: "dshDreamMem_counts", "data-testid": "mem-counts" }, t("memories.counts", { memories: counts.memories, quarantined: counts.quarantined, sessions: counts.sessions })) : null,
    stats.enabled ? null : h("div", { className: "dshDream_meaning", role: "note", "data-testid": "mem-off" }, counts ? t("memories.offBrowsing") : t("memories.off")),
  );
}

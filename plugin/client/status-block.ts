// The status block of the settings panel (bridge and Chroma health, memories, index coverage,
// last recall) and the re-embed action, whose progress is polled from the plugin's route.
import * as React from "react";
import { callRoute } from "./api";
import { percent } from "./form";
import type { Translate } from "./i18n";

const h = React.createElement;
const POLL_MS = 1000;

interface Coverage {
  records: number;
  current_vectors: number;
}

type Reembed = { state: "idle" } | { state: "running"; coverage?: Coverage } | { state: "done" } | { state: "failed"; message: string };

export function StatusBlock(props: { t: Translate }): React.ReactElement {
  const { t } = props;
  const [status, setStatus] = React.useState<Record<string, any> | undefined>(undefined);
  const [error, setError] = React.useState<string | undefined>(undefined);
  const [reembed, setReembed] = React.useState<Reembed>({ state: "idle" });

  const refresh = React.useCallback(async () => {
    const result = await callRoute<Record<string, any>>("GET", "/status");
    if (result.ok) {
      setStatus(result.body);
      setError(undefined);
    } else setError(result.message || result.code);
  }, []);

  React.useEffect(() => {
    void refresh();
  }, [refresh]);

  React.useEffect(() => {
    if (reembed.state !== "running") return;
    let live = true;
    const timer = setInterval(async () => {
      const result = await callRoute<{ embedding: { coverage?: Coverage; state?: string; message?: string } | null }>("GET", "/reembed");
      if (!live) return;
      const coverage = result.ok ? result.body.embedding?.coverage : undefined;
      if (!result.ok) setReembed({ state: "failed", message: result.message || result.code });
      else if (coverage && coverage.current_vectors >= coverage.records) {
        setReembed({ state: "done" });
        void refresh();
      } else setReembed({ state: "running", coverage });
    }, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [reembed.state, refresh]);

  const startReembed = async () => {
    setReembed({ state: "running" });
    const result = await callRoute<{ coverage?: Coverage }>("POST", "/reembed", {});
    if (!result.ok) {
      const known = t(`errors.${result.code}`);
      setReembed({ state: "failed", message: known === `errors.${result.code}` ? result.message : `${known} ${result.message}` });
    } else setReembed({ state: "running", coverage: result.body.coverage });
  };

  return h(
    "section",
    { className: "dshDream_status", "data-testid": "dream-status" },
    h("h3", null, t("statusSection"), " ", h("button", { type: "button", className: "dshDream_link", onClick: () => void refresh(), "data-testid": "dream-refresh" }, t("refresh"))),
    error ? h("div", { className: "dshDream_error", role: "alert" }, t("networkError", { message: error })) : null,
    status ? h(StatusFacts, { t, status }) : null,
    h(
      "div",
      { className: "dshDream_actions" },
      h("button", { type: "button", "data-testid": "dream-reembed", disabled: reembed.state === "running", onClick: () => void startReembed() }, t("reembedAction")),
    ),
    h(ReembedProgress, { t, reembed }),
  );
}

function StatusFacts(props: { t: Translate; status: Record<string, any> }): React.ReactElement {
  const { t, status } = props;
  const plugin = status.plugin ?? {};
  const bridge = status.bridge ?? {};
  const up = bridge.available !== false && bridge.bridge;
  const chroma = bridge.chroma;
  const embedding = bridge.embedding;
  const coverage = embedding?.coverage;
  const last = plugin.last_recall;
  const rows: Array<[string, string, string]> = [
    ["bridge", t("bridge"), up ? t("bridgeRunning", { pid: bridge.bridge.pid }) : t("bridgeDown", { reason: bridge.reason ?? "?" })],
  ];
  if (up) {
    rows.push(["chroma", t("chroma"), !chroma || chroma.mode === "off" ? t("chromaOff") : chroma.healthy ? t("chromaHealthy", { mode: chroma.mode }) : t("chromaUnhealthy", { mode: chroma.mode })]);
    rows.push(["records", t("records"), String(bridge.records ?? 0)]);
    if (coverage) rows.push(["coverage", t("coverage"), t("coverageValue", { current: coverage.current_vectors, records: coverage.records, percent: percent(coverage.current_vectors, coverage.records) })]);
    if (embedding) rows.push(["embedder", t("embedder"), t("embedderValue", { provider: embedding.provider, model: embedding.model, state: embedding.message ? `${embedding.state} — ${embedding.message}` : embedding.state })]);
  }
  rows.push(["last-recall", t("lastFallback"), !last ? t("lastFallbackNone") : last.fallback_reason ? t("lastRecallFallback", { reason: t(`fallbackReasons.${last.fallback_reason}`) }) : t("lastRecallHybrid")]);
  const capture = plugin.capture;
  if (capture) rows.push(["capture", t("capture"), t("captureValue", { written: capture.written, pending: capture.pending, dropped: capture.dropped })]);
  return h("dl", null, ...rows.flatMap(([id, label, value]) => [h("dt", { key: `${id}-t` }, label), h("dd", { key: `${id}-d`, "data-testid": `dream-status-${id}` }, value)]));
}

function ReembedProgress(props: { t: Translate; reembed: Reembed }): React.ReactElement | null {
  const { t, reembed } = props;
  if (reembed.state === "idle") return null;
  if (reembed.state === "done") return h("div", { className: "dshDream_ok", role: "status", "data-testid": "dream-reembed-done" }, t("reembedDone"));
  if (reembed.state === "failed") return h("div", { className: "dshDream_error", role: "alert", "data-testid": "dream-reembed-failed" }, t("reembedFailed", { message: reembed.message }));
  const coverage = reembed.coverage;
  if (!coverage) return h("div", { "data-testid": "dream-reembed-progress" }, t("reembedStarting"));
  const value = percent(coverage.current_vectors, coverage.records);
  return h(
    "div",
    { "data-testid": "dream-reembed-progress" },
    h("progress", { max: 100, value }),
    h("div", null, t("reembedProgress", { current: coverage.current_vectors, records: coverage.records, percent: value })),
  );
}

// The status block of the settings panel (bridge and Chroma health, memories, index coverage, the
// local model with its Download button, last recall), and the re-embed action. Download and
// re-embedding progress are polled from the plugin's routes. Every state and error is worded in the
// panel's language; a raw detail from the bridge is folded away under "Details".
import * as React from "react";
import { callRoute } from "./api";
import { megabytes, percent } from "./form";
import type { Translate } from "./i18n";

const h = React.createElement;
const POLL_MS = 1000;
// A download reports its bytes often; the panel asks a little more often than once a second.
const DOWNLOAD_POLL_MS = 400;

interface Coverage {
  records: number;
  current_vectors: number;
}

type Reembed = { state: "idle" } | { state: "running"; coverage?: Coverage } | { state: "done" } | { state: "failed"; message: string };

/** The plugin's /model answer (plugin/model-download.ts). */
export interface ModelStatus {
  state: "not_local" | "not_downloaded" | "checking" | "downloading" | "verifying" | "ready" | "failed";
  model?: string;
  source?: string;
  partial_bytes?: number;
  bytes_done?: number;
  bytes_total?: number | null;
  reason?: string;
  message?: string;
}

const BUSY = new Set(["checking", "downloading", "verifying"]);

export function StatusBlock(props: { t: Translate; revision: number }): React.ReactElement {
  const { t, revision } = props;
  const [status, setStatus] = React.useState<Record<string, any> | undefined>(undefined);
  const [error, setError] = React.useState<string | undefined>(undefined);
  const [reembed, setReembed] = React.useState<Reembed>({ state: "idle" });
  const [model, setModel] = React.useState<ModelStatus | undefined>(undefined);
  const [downloadError, setDownloadError] = React.useState<string | undefined>(undefined);

  const refresh = React.useCallback(async () => {
    const result = await callRoute<Record<string, any>>("GET", "/status");
    if (result.ok) {
      setStatus(result.body);
      setModel(result.body.plugin?.model);
      setError(undefined);
    } else setError(result.message || result.code);
  }, []);

  React.useEffect(() => {
    void refresh();
  }, [refresh, revision]);

  React.useEffect(() => {
    if (reembed.state !== "running") return;
    let live = true;
    const timer = setInterval(async () => {
      const result = await callRoute<{ embedding: { coverage?: Coverage; state?: string; message?: string } | null }>("GET", "/reembed");
      if (!live) return;
      const coverage = result.ok ? result.body.embedding?.coverage : undefined;
      if (!result.ok) setReembed({ state: "failed", message: errorText(t, result.code, result.message) });
      else if (coverage && coverage.current_vectors >= coverage.records) {
        setReembed({ state: "done" });
        void refresh();
      } else setReembed({ state: "running", coverage });
    }, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [reembed.state, refresh, t]);

  // After a save the bridge restarts and the model loads: keep the status current until that settles.
  const settling = status !== undefined && status.plugin?.enabled === true && (status.bridge?.available === false || status.bridge?.embedding?.state === "opening");
  React.useEffect(() => {
    if (!settling) return;
    const timer = setTimeout(() => void refresh(), POLL_MS);
    return () => clearTimeout(timer);
  }, [settling, status, refresh]);

  const downloading = model !== undefined && BUSY.has(model.state);
  React.useEffect(() => {
    if (!downloading) return;
    let live = true;
    const timer = setInterval(async () => {
      const result = await callRoute<ModelStatus>("GET", "/model");
      if (!live || !result.ok) return;
      setModel(result.body);
      if (!BUSY.has(result.body.state)) void refresh();
    }, DOWNLOAD_POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [downloading, refresh]);

  const startReembed = async () => {
    setReembed({ state: "running" });
    const result = await callRoute<{ coverage?: Coverage }>("POST", "/reembed", {});
    if (!result.ok) setReembed({ state: "failed", message: errorText(t, result.code, result.message) });
    else setReembed({ state: "running", coverage: result.body.coverage });
  };

  const startDownload = async () => {
    setDownloadError(undefined);
    const result = await callRoute<ModelStatus>("POST", "/model", {});
    if (result.ok) setModel(result.body);
    else setDownloadError(errorText(t, result.code, result.message));
  };

  const enabled = status?.plugin?.enabled === true;
  const embedding = status?.bridge?.embedding;
  const reembedBlocked = !enabled ? t("reembedNeedsMemory") : embedding && embedding.state !== "ready" ? t("reembedNeedsModel") : undefined;
  return h(
    "section",
    { className: "dshDream_status", "data-testid": "dream-status" },
    h("h3", null, t("statusSection"), " ", h("button", { type: "button", className: "dshDream_link", onClick: () => void refresh(), "data-testid": "dream-refresh" }, t("refresh"))),
    error ? h("div", { className: "dshDream_error", role: "alert" }, h(Folded, { t, text: t("networkError"), detail: error })) : null,
    status ? h(StatusFacts, { t, status }) : null,
    model && model.state !== "not_local" ? h(ModelSection, { t, model, onDownload: () => void startDownload(), error: downloadError }) : null,
    h(
      "div",
      { className: "dshDream_actions" },
      h("button", { type: "button", "data-testid": "dream-reembed", disabled: reembed.state === "running" || status === undefined || reembedBlocked !== undefined, onClick: () => void startReembed() }, t("reembedAction")),
      status && reembedBlocked ? h("span", { className: "dshDream_hint", "data-testid": "dream-reembed-blocked" }, reembedBlocked) : null,
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
  const rows: Array<[string, string, React.ReactNode]> = [
    ["memory", t("memoryState"), plugin.enabled ? (plugin.holographic ? t("memoryOnHolographic") : t("memoryOnHighlights")) : t("memoryOff")],
    ["bridge", t("bridge"), up ? t("bridgeRunning", { pid: bridge.bridge.pid }) : plugin.enabled ? h(Folded, { t, text: t("bridgeDown"), detail: bridge.reason }) : t("bridgeIdle")],
  ];
  if (up) {
    rows.push(["chroma", t("chroma"), !chroma || chroma.mode === "off" ? t("chromaOff") : chroma.healthy ? t("chromaHealthy", { mode: chroma.mode }) : chroma.starting ? t("chromaStarting", { mode: chroma.mode }) : t("chromaUnhealthy", { mode: chroma.mode })]);
    rows.push(["records", t("records"), String(bridge.records ?? 0)]);
    if (coverage) rows.push(["coverage", t("coverage"), coverage.records === 0 ? t("coverageEmpty") : t("coverageValue", { current: coverage.current_vectors, records: coverage.records, percent: percent(coverage.current_vectors, coverage.records) })]);
    if (embedding) {
      const state = t(`embedderStates.${embedding.state}`);
      const why = embedding.reason ? t(`fallbackReasons.${embedding.reason}`) : undefined;
      rows.push(["embedder", t("embedder"), h(Folded, { t, text: t("embedderValue", { provider: t(`providers.${embedding.provider}`), model: embedding.model, state: why ? `${state} — ${why}` : state }), detail: embedding.message ?? undefined })]);
    }
  }
  rows.push(["last-recall", t("lastFallback"), !last ? t("lastFallbackNone") : last.fallback_reason ? t("lastRecallFallback", { reason: t(`fallbackReasons.${last.fallback_reason}`) }) : t("lastRecallHybrid")]);
  const capture = plugin.capture;
  if (capture) rows.push(["capture", t("capture"), t("captureValue", { written: capture.written, pending: capture.pending, dropped: capture.dropped })]);
  return h("dl", null, ...rows.flatMap(([id, label, value]) => [h("dt", { key: `${id}-t` }, label), h("dd", { key: `${id}-d`, "data-testid": `dream-status-${id}` }, value)]));
}

function ModelSection(props: { t: Translate; model: ModelStatus; onDownload(): void; error?: string }): React.ReactElement {
  const { t, model, onDownload, error } = props;
  const busy = BUSY.has(model.state);
  const host = model.source ? hostOf(model.source) : "";
  let line: React.ReactNode;
  if (model.state === "ready") line = t("modelReady", { model: model.model ?? "" });
  else if (model.state === "not_downloaded") line = t("modelNotDownloaded", { model: model.model ?? "" });
  else if (model.state === "failed") line = h(Folded, { t, text: t(`downloadFailed.${model.reason}`, { host }), detail: model.message });
  else if (model.state === "checking") line = t("modelChecking", { host });
  else if (model.state === "verifying") line = t("modelVerifying");
  else line = null;
  const partial = model.partial_bytes ?? 0;
  const label = model.state === "failed" ? (partial > 0 ? t("downloadResume", { done: megabytes(partial) }) : t("downloadRetry")) : partial > 0 ? t("downloadResume", { done: megabytes(partial) }) : t("downloadAction");
  return h(
    "div",
    { className: "dshDream_model", "data-testid": "dream-local-model" },
    h("h3", null, t("modelSection")),
    h("div", { "data-testid": "dream-model-state" }, line),
    model.state === "downloading" ? h(DownloadProgress, { t, model }) : null,
    model.state === "ready" || busy
      ? null
      : h(
          "div",
          { className: "dshDream_actions" },
          h("button", { type: "button", "data-testid": "dream-download", onClick: onDownload }, label),
          h("span", { className: "dshDream_hint" }, t("downloadHint", { host })),
        ),
    error ? h("div", { className: "dshDream_error", role: "alert", "data-testid": "dream-download-error" }, error) : null,
  );
}

function DownloadProgress(props: { t: Translate; model: ModelStatus }): React.ReactElement {
  const { t, model } = props;
  const done = model.bytes_done ?? 0;
  const total = model.bytes_total ?? null;
  const value = total ? Math.floor((done / total) * 100) : undefined;
  return h(
    "div",
    { "data-testid": "dream-model-progress" },
    h("progress", value === undefined ? {} : { max: 100, value }),
    h("div", null, total ? t("downloadProgress", { done: megabytes(done), total: megabytes(total), percent: value ?? 0 }) : t("downloadProgressUnknown", { done: megabytes(done) })),
  );
}

/** A sentence in the panel's language, with the raw detail (often English, from the bridge) folded under it. */
export function Folded(props: { t: Translate; text: string; detail?: string }): React.ReactElement {
  const { t, text, detail } = props;
  return h(
    React.Fragment,
    null,
    text,
    detail ? h("details", { className: "dshDream_detail" }, h("summary", null, t("details")), h("pre", null, detail)) : null,
  );
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

/** A known code in the panel's language, followed by the server's own words (in English, so only in the English panel). */
export function errorText(t: Translate, code: string, message: string): string {
  const known = t(`errors.${code}`);
  if (code === "NETWORK") return t("networkError");
  if (known === `errors.${code}`) return t.lang === "en" ? message : t("errors.UNKNOWN");
  return t.lang === "en" ? `${known} ${message}` : known;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

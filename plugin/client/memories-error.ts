// A refused or failed call on the Memories page, worded in the page's language: a known code in
// words, the server's own (English) words folded under it in Chinese.
import * as React from "react";
import type { Translate } from "./i18n";
import { errorText, Folded } from "./status-block";

const h = React.createElement;

export function ErrorLine(props: { t: Translate; error: { code: string; message: string }; testid?: string }): React.ReactElement {
  const { t, error } = props;
  // No bridge is not the user's mistake: say so plainly, and keep the technical reason one click away.
  const down = error.code === "BRIDGE_UNAVAILABLE";
  const text = down ? t("memories.bridgeDown") : errorText(t, error.code, error.message);
  return h("div", { className: "dshDream_error", role: "alert", "data-testid": props.testid ?? "mem-error" }, h(Folded, { t, text, detail: t.lang === "en" && !down ? undefined : error.message }));
}

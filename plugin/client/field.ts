// One labelled control of the settings form, with its hint and the error the server named it in;
// shared by the panel's sections.
import * as React from "react";
import type { FieldName } from "./form";
import type { Translate } from "./i18n";
import { Folded } from "./status-block";

const h = React.createElement;

/** The label's children are its words and its control, in the order given. */
export function Field(props: { t: Translate; name: FieldName; hint?: string; error?: string; children?: React.ReactNode }): React.ReactElement {
  const { t, name, hint, error } = props;
  return h(
    "div",
    { className: "dshDream_field", "data-field": name },
    h("label", { className: "dshDream_label" }, props.children),
    hint ? h("div", { className: "dshDream_hint" }, hint) : null,
    error ? h(FieldError, { t, name, error }) : null,
  );
}

/** The server's words are English: the English panel shows them; the Chinese one says so in Chinese and folds them. */
export function FieldError(props: { t: Translate; name: FieldName; error: string }): React.ReactElement {
  const { t, name, error } = props;
  return h("div", { className: "dshDream_error", role: "alert", "data-testid": `dream-error-${name}` }, t.lang === "en" ? error : h(Folded, { t, text: t("fieldInvalid"), detail: error }));
}

/** A sentence with its control inside, where the translation puts `{n}` ("Forget memories older than {n} days"); spread it as children. */
export function sentence(text: string, control: React.ReactElement): React.ReactNode[] {
  const [before, after = ""] = text.split("{n}");
  return [before.trim(), control, after.trim()].filter((part) => part !== "");
}

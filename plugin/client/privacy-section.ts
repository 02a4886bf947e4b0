// The settings panel's privacy section: redaction of secrets, how long memories are kept (with
// per-scope overrides as rows), and what the audit log of recalls keeps. The plugin carries it into
// the bridge's bridge-config.json.
import * as React from "react";
import { Field, FieldError, sentence } from "./field";
import { duplicateScopeRows, privacyState, type FieldName, type FormState, type ScopeColumn, type ScopeLimitRow } from "./form";
import type { Translate } from "./i18n";

const h = React.createElement;

type NumberKey = "retentionMaxAgeDays" | "retentionMaxMemories" | "auditMaxAgeDays" | "auditMaxMegabytes";
type Errors = Partial<Record<FieldName, string>>;

export interface PrivacySectionProps {
  t: Translate;
  form: FormState;
  change(patch: Partial<FormState>): void;
  errors: Errors;
  open: boolean;
  onToggle(open: boolean): void;
}

export function PrivacySection(props: PrivacySectionProps): React.ReactElement {
  const { t, form, change, errors } = props;
  const state = privacyState(form);
  const checkbox = (name: FieldName, key: "redactSecrets" | "auditKeepQueryText") =>
    h("input", { type: "checkbox", "data-testid": `dream-${name}`, checked: form[key], onChange: (e: React.ChangeEvent<HTMLInputElement>) => change({ [key]: e.target.checked }) });
  const number = (name: FieldName, key: NumberKey) => numberInput(`dream-${name}`, form[key], (value) => change({ [key]: value }));
  const field = (name: FieldName, children: React.ReactNode[], hint?: string) => h(Field, { t, name, hint, error: errors[name] }, ...children);
  return h(
    "details",
    { open: props.open, onToggle: (e: React.SyntheticEvent<HTMLDetailsElement>) => props.onToggle(e.currentTarget.open), "data-testid": "dream-privacy" },
    h(
      "summary",
      null,
      t("privacySection"),
      h("span", { className: "dshDream_summaryState", "data-testid": "dream-privacy-state" }, t("privacyState", { redact: t(state.redact), limits: t(state.limits) })),
    ),
    field("redactSecrets", [t("redactSecrets"), checkbox("redactSecrets", "redactSecrets")], t("redactSecretsHint")),
    h("h3", null, t("retentionHeading")),
    field("retention-maxAgeDays", sentence(t("retentionMaxAgeDays"), number("retention-maxAgeDays", "retentionMaxAgeDays"))),
    field("retention-maxMemories", sentence(t("retentionMaxMemories"), number("retention-maxMemories", "retentionMaxMemories"))),
    h(ScopeLimits, { t, rows: form.scopeLimits, change, errors }),
    h("div", { className: "dshDream_meaning", role: "note", "data-testid": "dream-retention-erases" }, t("retentionHint")),
    h("h3", null, t("auditHeading")),
    field("audit-keepQueryText", [t("auditKeepQueryText"), checkbox("audit-keepQueryText", "auditKeepQueryText")], t("auditKeepQueryTextHint")),
    field("audit-maxAgeDays", sentence(t("auditMaxAgeDays"), number("audit-maxAgeDays", "auditMaxAgeDays"))),
    field("audit-maxMegabytes", sentence(t("auditMaxMegabytes"), number("audit-maxMegabytes", "auditMaxMegabytes")), t("auditMaxMegabytesHint")),
  );
}

/** Per-scope limits as rows: scope, days, count (empty: the limit above) and a remove button. */
function ScopeLimits(props: { t: Translate; rows: ScopeLimitRow[]; change(patch: Partial<FormState>): void; errors: Errors }): React.ReactElement {
  const { t, rows, change, errors } = props;
  const duplicates = new Set(duplicateScopeRows(rows));
  const update = (i: number, patch: Partial<ScopeLimitRow>) => change({ scopeLimits: rows.map((row, j) => (j === i ? { ...row, ...patch } : row)) });
  const cell = (i: number, column: ScopeColumn, placeholder: string, label: string) => {
    const testid = `dream-scope-${i}-${column}`;
    const onChange = (value: string) => update(i, { [column]: value });
    return column === "scope"
      ? h("input", { key: column, type: "text", "data-testid": testid, "aria-label": label, value: rows[i]![column], placeholder, spellCheck: false, onChange: (e: React.ChangeEvent<HTMLInputElement>) => onChange(e.target.value) })
      : numberInput(testid, rows[i]![column], onChange, { key: column, "aria-label": label, placeholder });
  };
  const rowErrors = (i: number) => [
    ...(["scope", "maxAgeDays", "maxMemories"] as const).map((column) => {
      const name: FieldName = `scope-${i}-${column}`;
      return errors[name] ? h("div", { key: `error-${column}`, className: "dshDream_scopeError" }, h(FieldError, { t, name, error: errors[name]! })) : null;
    }),
    duplicates.has(i) ? h("div", { key: "duplicate", className: "dshDream_scopeError dshDream_error", role: "alert", "data-testid": `dream-scope-${i}-duplicate` }, t("scopeDuplicate")) : null,
  ];
  return h(
    "div",
    { className: "dshDream_field", "data-field": "retention-scopes" },
    h("div", null, t("scopeLimits")),
    rows.length > 0
      ? h(
          "div",
          { className: "dshDream_scopes", "data-testid": "dream-scope-rows" },
          ...[t("scopeColumn"), t("scopeDaysColumn"), t("scopeCountColumn"), ""].map((text, i) => h("div", { key: `head-${i}`, className: "dshDream_hint dshDream_scopeHead" }, text)),
          ...rows.map((_, i) =>
            h(
              React.Fragment,
              { key: i },
              cell(i, "scope", "project:demo", t("scopeColumn")),
              cell(i, "maxAgeDays", t("scopeInherit"), t("scopeDaysColumn")),
              cell(i, "maxMemories", t("scopeInherit"), t("scopeCountColumn")),
              h("button", { type: "button", className: "dshDream_link", "data-testid": `dream-scope-${i}-remove`, onClick: () => change({ scopeLimits: rows.filter((__, j) => j !== i) }) }, t("scopeRemove")),
              ...rowErrors(i),
            ),
          ),
        )
      : null,
    h("button", { type: "button", "data-testid": "dream-scope-add", onClick: () => change({ scopeLimits: [...rows, { scope: "", maxAgeDays: "", maxMemories: "" }] }) }, t("scopeAdd")),
    h("div", { className: "dshDream_hint" }, t("scopeLimitsHint")),
    errors["retention-scopes"] ? h(FieldError, { t, name: "retention-scopes", error: errors["retention-scopes"] }) : null,
  );
}

/** Text, not type=number: what was typed reaches the server as typed, and its error names it. */
function numberInput(testid: string, value: string, onChange: (value: string) => void, extra: Record<string, string> = {}): React.ReactElement {
  return h("input", {
    ...extra,
    type: "text",
    inputMode: "numeric",
    className: "dshDream_number",
    "data-testid": testid,
    value,
    spellCheck: false,
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => onChange(e.target.value),
  });
}

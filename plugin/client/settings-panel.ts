// DSH Settings → DSH-DREAM: the switches, the advanced embedding settings (API key write-only), the
// privacy settings, and save with the errors the routes name per field; the status block sits below.
import * as React from "react";
import { callRoute, type SettingsBody } from "./api";
import { Field } from "./field";
import { captureMeaning, duplicateScopeRows, embeddingFields, formFromSettings, issuesByField, saveBody, sectionOf, type FieldName, type FormState } from "./form";
import type { Translate } from "./i18n";
import { PrivacySection } from "./privacy-section";
import { errorText, Folded, StatusBlock } from "./status-block";

const h = React.createElement;

type Load = { state: "loading" } | { state: "failed"; message: string } | { state: "ready"; keySet: boolean };
type Save = { state: "idle" } | { state: "saving" } | { state: "saved" } | { state: "failed"; message: string; detail: string };

export function SettingsPanel(props: { t: Translate }): React.ReactElement {
  const { t } = props;
  const [load, setLoad] = React.useState<Load>({ state: "loading" });
  const [form, setForm] = React.useState<FormState | undefined>(undefined);
  const [errors, setErrors] = React.useState<Partial<Record<FieldName, string>>>({});
  const [save, setSave] = React.useState<Save>({ state: "idle" });
  const [advancedOpen, setAdvancedOpen] = React.useState<boolean | undefined>(undefined);
  const [privacyOpen, setPrivacyOpen] = React.useState(false);
  // Bumped by every successful save, so the status below shows what the save changed.
  const [revision, setRevision] = React.useState(0);

  const accept = (body: SettingsBody) => {
    setForm(formFromSettings(body.settings));
    setLoad({ state: "ready", keySet: body.secrets?.embeddingApiKey?.set === true });
  };

  React.useEffect(() => {
    let live = true;
    void callRoute<SettingsBody>("GET", "/settings").then((result) => {
      if (!live) return;
      if (result.ok) accept(result.body);
      else setLoad({ state: "failed", message: result.message || result.code });
    });
    return () => {
      live = false;
    };
  }, []);

  if (load.state === "loading" || (load.state === "ready" && !form)) return h("div", { className: "dshDream", "data-testid": "dream-loading" }, t("loading"));
  if (load.state === "failed") return h("div", { className: "dshDream", role: "alert", "data-testid": "dream-load-failed" }, h(Folded, { t, text: t("loadFailed"), detail: load.message }));
  const current = form!;
  const change = (patch: Partial<FormState>) => {
    setForm({ ...current, ...patch });
    setSave({ state: "idle" });
    // A scope row's errors are held by its position: once a row goes, they would sit on the wrong rows.
    if (patch.scopeLimits && patch.scopeLimits.length < current.scopeLimits.length) {
      setErrors(Object.fromEntries(Object.entries(errors).filter(([name]) => !name.startsWith("scope-"))));
    }
  };

  const onSave = async (event: React.FormEvent) => {
    event.preventDefault();
    if (duplicateScopeRows(current.scopeLimits).length > 0) {
      setPrivacyOpen(true);
      setSave({ state: "failed", message: t("scopeDuplicate"), detail: "" });
      return;
    }
    setSave({ state: "saving" });
    const result = await callRoute<SettingsBody>("POST", "/settings", saveBody(current));
    if (result.ok) {
      accept(result.body);
      setErrors({});
      setSave({ state: "saved" });
      setRevision((n) => n + 1);
      return;
    }
    const byField = issuesByField(result.issues, current.scopeLimits);
    setErrors(byField);
    const sections = new Set((Object.keys(byField) as FieldName[]).map(sectionOf));
    if (sections.has("embedding")) setAdvancedOpen(true);
    if (sections.has("privacy")) setPrivacyOpen(true);
    setSave({ state: "failed", message: errorText(t, result.code, result.message), detail: result.message });
  };

  const field = (name: FieldName, label: string, control: React.ReactElement, hint?: string) => h(Field, { key: name, t, name, hint, error: errors[name] }, label, control);
  const checkbox = (name: "enabled" | "holographic" | "reembedOnDimensionMismatch") =>
    h("input", { type: "checkbox", "data-testid": `dream-${name}`, checked: current[name], onChange: (e: React.ChangeEvent<HTMLInputElement>) => change({ [name]: e.target.checked }) });
  const text = (name: "model" | "baseUrl" | "mirror", placeholder: string) =>
    h("input", { type: "text", "data-testid": `dream-${name}`, value: current[name], placeholder, spellCheck: false, onChange: (e: React.ChangeEvent<HTMLInputElement>) => change({ [name]: e.target.value }) });

  const keyState = current.removeApiKey ? t("apiKeyWillRemove") : load.keySet ? t("apiKeySet") : t("apiKeyNotSet");
  return h(
    "form",
    { className: "dshDream", onSubmit: onSave, "data-testid": "dream-settings", autoComplete: "off" },
    h(PanelStyle),
    h("h2", null, t("title")),
    h("p", { className: "dshDream_hint" }, t("intro")),
    h(
      "fieldset",
      null,
      h("legend", null, t("memorySection")),
      field("enabled", t("enabled"), checkbox("enabled"), t("enabledHint")),
      field("holographic", t("holographic"), checkbox("holographic"), t("holographicHint")),
      h("div", { className: "dshDream_meaning", role: "note", "data-testid": "dream-capture-meaning" }, t(captureMeaning(current))),
    ),
    h(
      "details",
      {
        // Open at first when a non-default provider is set; after that the user decides (and errors open it).
        open: advancedOpen ?? current.provider !== "local",
        onToggle: (e: React.SyntheticEvent<HTMLDetailsElement>) => setAdvancedOpen(e.currentTarget.open),
        "data-testid": "dream-advanced",
      },
      h("summary", null, t("embeddingSection")),
      field(
        "provider",
        t("provider"),
        h(
          "select",
          { "data-testid": "dream-provider", value: current.provider, onChange: (e: React.ChangeEvent<HTMLSelectElement>) => change({ provider: e.target.value as FormState["provider"] }) },
          h("option", { value: "local" }, t("providerLocal")),
          h("option", { value: "openai_compatible" }, t("providerOpenai")),
          h("option", { value: "off" }, t("providerOff")),
        ),
      ),
      ...embeddingFields(current.provider).map((name) => {
        if (name === "model") return field("model", t("model"), text("model", current.provider === "local" ? "Xenova/bge-small-zh-v1.5" : "text-embedding-3-small"), current.provider === "local" ? t("modelHintLocal") : t("modelHintOpenai"));
        if (name === "mirror") return field("mirror", t("mirror"), text("mirror", "https://huggingface.co/"), t("mirrorHint"));
        if (name === "baseUrl") return field("baseUrl", t("baseUrl"), text("baseUrl", "https://api.openai.com/v1"), t("baseUrlHint"));
        if (name === "reembedOnDimensionMismatch") return field("reembedOnDimensionMismatch", t("reembed"), checkbox("reembedOnDimensionMismatch"), t("reembedHint"));
        return h(
          React.Fragment,
          { key: "apiKey" },
          field(
            "apiKey",
            t("apiKey"),
            h("input", {
              type: "password",
              "data-testid": "dream-apiKey",
              value: current.apiKey,
              autoComplete: "new-password",
              placeholder: load.keySet ? "••••••••" : "",
              onChange: (e: React.ChangeEvent<HTMLInputElement>) => change({ apiKey: e.target.value, removeApiKey: false }),
            }),
            `${keyState} ${t("apiKeyHint")}`,
          ),
          load.keySet && !current.removeApiKey
            ? h("button", { type: "button", className: "dshDream_link", "data-testid": "dream-apiKey-remove", onClick: () => change({ apiKey: "", removeApiKey: true }) }, t("apiKeyRemove"))
            : null,
        );
      }),
      current.provider === "off" ? h("div", { className: "dshDream_hint", "data-testid": "dream-provider-off-hint" }, t("providerOffHint")) : null,
    ),
    h(PrivacySection, { t, form: current, change, errors, open: privacyOpen, onToggle: setPrivacyOpen }),
    h(
      "div",
      { className: "dshDream_actions" },
      h("button", { type: "submit", "data-testid": "dream-save", disabled: save.state === "saving" }, save.state === "saving" ? t("saving") : t("save")),
      save.state === "saved" ? h("span", { className: "dshDream_ok", role: "status", "data-testid": "dream-saved" }, t("saved")) : null,
      save.state === "failed" ? h("span", { className: "dshDream_error", role: "alert", "data-testid": "dream-save-failed" }, h(Folded, { t, text: t("saveFailed", { message: save.message }), detail: t.lang === "en" ? undefined : save.detail })) : null,
      errors.form ? h("span", { className: "dshDream_error" }, errors.form) : null,
    ),
    h(StatusBlock, { t, revision }),
  );
}

const CSS = `
.dshDream{font:14px/1.5 system-ui,-apple-system,"Segoe UI","Microsoft YaHei","WenQuanYi Micro Hei",sans-serif;color:var(--dsw-alias-label-primary,#1d1d1f);max-width:720px;padding:4px 0}
.dshDream h2{font-size:18px;margin:0 0 4px}.dshDream h3{font-size:15px;margin:16px 0 8px}
.dshDream fieldset,.dshDream details{border:1px solid var(--dsw-alias-separator,#d9d9de);border-radius:8px;padding:8px 14px;margin:12px 0}
.dshDream legend,.dshDream summary{font-weight:600;padding:0 4px;cursor:default}
.dshDream_field{margin:8px 0}.dshDream_label{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.dshDream input[type=text],.dshDream input[type=password],.dshDream select{flex:1 1 260px;min-width:200px;padding:5px 8px;border:1px solid var(--dsw-alias-separator,#c7c7cc);border-radius:6px;font:inherit;background:transparent;color:inherit}
.dshDream_hint{color:var(--dsw-alias-label-secondary,#6e6e73);font-size:12.5px;margin-top:2px}
.dshDream_error{color:var(--dsw-alias-state-error-primary,#c4271e);font-size:12.5px;margin-top:2px}
.dshDream_ok{color:var(--dsw-alias-state-success-primary,#1f8a3b);margin-left:10px}
.dshDream_actions{display:flex;gap:10px;align-items:center;margin:10px 0}
.dshDream button{font:inherit;padding:5px 14px;border-radius:6px;border:1px solid var(--dsw-alias-separator,#c7c7cc);background:var(--dsw-alias-fill-secondary,#f2f2f7);color:inherit;cursor:pointer;white-space:nowrap;flex:none}
.dshDream button.dshDream_link{border:none;background:none;padding:0;text-decoration:underline;font-size:12.5px}
.dshDream dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}.dshDream dt{color:var(--dsw-alias-label-secondary,#6e6e73)}.dshDream dd{margin:0}
.dshDream progress{width:100%;height:10px}
.dshDream_meaning{margin:6px 0 2px;font-size:12.5px;padding:6px 10px;border-radius:6px;background:var(--dsw-alias-fill-secondary,#f2f2f7)}
.dshDream details.dshDream_detail{border:none;padding:0;margin:2px 0}.dshDream details.dshDream_detail summary{font-weight:400;font-size:12px;color:var(--dsw-alias-label-secondary,#6e6e73)}
.dshDream details.dshDream_detail pre{white-space:pre-wrap;font-size:12px;margin:4px 0}
.dshDream button:disabled{opacity:.5;cursor:default}
.dshDream details h3{font-size:14px;margin:14px 0 4px}
.dshDream input.dshDream_number{flex:0 0 auto;width:6.5em;min-width:0}
.dshDream_summaryState{font-weight:400;font-size:12.5px;color:var(--dsw-alias-label-secondary,#6e6e73);margin-left:8px}
.dshDream_scopes{display:grid;grid-template-columns:minmax(160px,1fr) 9.5em 9.5em max-content;gap:6px 8px;align-items:center;margin:6px 0}.dshDream_scopeHead{align-self:end}
.dshDream_scopes input[type=text]{min-width:0;width:100%;box-sizing:border-box}
.dshDream_scopeError{grid-column:1/-1;margin-top:-2px}
`;

function PanelStyle(): React.ReactElement {
  return h("style", null, CSS);
}

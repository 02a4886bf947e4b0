// What a person can do to one memory: edit it (a new memory replaces it; the old one is kept,
// quarantined), quarantine it with a reason or release it, and forget it, after saying plainly
// that forgetting erases it from every file. Each action asks first, inline, and shows its error there.
import * as React from "react";
import type { Translate } from "./i18n";
import { memoriesApi, type ApiResult, type MemoryDetail } from "./memories-api";
import { ErrorLine } from "./memories-error";

const h = React.createElement;

type Open = "none" | "edit" | "quarantine" | "forget";

export function MemoryActions(props: { t: Translate; detail: MemoryDetail; onChanged(message?: string): void; onForgotten(message: string): void; onOpen(id: string): void }): React.ReactElement {
  const { t, detail } = props;
  const record = detail.record;
  const [open, setOpen] = React.useState<Open>("none");
  const [text, setText] = React.useState(record.text);
  const [reason, setReason] = React.useState("");
  const [busy, setBusy] = React.useState(false);
  const [error, setError] = React.useState<{ code: string; message: string } | undefined>(undefined);

  const show = (next: Open) => {
    setOpen(next);
    setError(undefined);
    setText(record.text);
    setReason("");
  };
  /** Runs one call; on success `done` gets its answer, on failure the error stays under the form. */
  const act = async <T>(call: () => Promise<ApiResult<T>>, done: (body: T) => void) => {
    setBusy(true);
    setError(undefined);
    const result = await call();
    setBusy(false);
    if (!result.ok) return setError(result);
    setOpen("none");
    done(result.body);
  };
  const button = (name: string, label: string, onClick: () => void, extra: Record<string, unknown> = {}) =>
    h("button", { type: "button", "data-testid": `mem-${name}`, disabled: busy, onClick, ...extra }, label);
  const cancel = button("cancel", t("memories.actions.cancel"), () => show("none"), { className: "dshDream_link" });

  let form: React.ReactNode = null;
  if (open === "edit") {
    form = h(
      "div",
      { className: "dshDreamMem_actionForm", "data-testid": "mem-edit-form" },
      h("div", { className: "dshDream_hint" }, t("memories.actions.editHint")),
      h("textarea", { value: text, rows: 4, "data-testid": "mem-edit-text", onChange: (e: React.ChangeEvent<HTMLTextAreaElement>) => setText(e.target.value) }),
      h(
        "div",
        { className: "dshDream_actions" },
        button("edit-save", t("memories.actions.save"), () =>
          void act(
            () => memoriesApi.edit(record.id, text),
            (body) => {
              props.onOpen(body.record.id);
              props.onChanged(t("memories.actions.edited"));
            },
          ),
        { disabled: busy || text.trim() === "" || text === record.text }),
        cancel,
      ),
    );
  } else if (open === "quarantine") {
    form = h(
      "form",
      { className: "dshDreamMem_actionForm", "data-testid": "mem-quarantine-form", onSubmit: (e: React.FormEvent) => (e.preventDefault(), reason.trim() !== "" && void act(() => memoriesApi.quarantine(record.id, reason.trim()), () => props.onChanged(t("memories.actions.quarantinedDone")))) },
      h("div", { className: "dshDream_hint" }, t("memories.actions.quarantineHint")),
      h("label", { className: "dshDream_label" }, t("memories.actions.reason"), h("input", { type: "text", value: reason, maxLength: 200, placeholder: t("memories.actions.reasonPlaceholder"), "data-testid": "mem-quarantine-reason", onChange: (e: React.ChangeEvent<HTMLInputElement>) => setReason(e.target.value) })),
      h("div", { className: "dshDream_actions" }, h("button", { type: "submit", "data-testid": "mem-quarantine-confirm", disabled: busy || reason.trim() === "" }, t("memories.actions.quarantine")), cancel),
    );
  } else if (open === "forget") {
    form = h(
      "div",
      { className: "dshDreamMem_actionForm is-danger", role: "alertdialog", "data-testid": "mem-forget-confirm-box" },
      h("div", null, t("memories.actions.forgetConfirm")),
      h(
        "div",
        { className: "dshDream_actions" },
        button("forget-confirm", t("memories.actions.forgetYes"), () => void act(() => memoriesApi.forget(record.id), () => props.onForgotten(t("memories.actions.forgotten"))), { className: "dshDreamMem_danger" }),
        cancel,
      ),
    );
  }

  return h(
    "div",
    { className: "dshDreamMem_actions" },
    h(
      "div",
      { className: "dshDream_actions" },
      button("edit", t("memories.actions.edit"), () => show("edit")),
      record.quarantine
        ? button("release", t("memories.actions.release"), () => void act(() => memoriesApi.release(record.id), () => props.onChanged(t("memories.actions.released"))))
        : button("quarantine", t("memories.actions.quarantine"), () => show("quarantine")),
      button("forget", t("memories.actions.forget"), () => show("forget"), { className: "dshDreamMem_danger" }),
    ),
    form,
    error ? h(ErrorLine, { t, error, testid: "mem-action-error" }) : null,
  );
}

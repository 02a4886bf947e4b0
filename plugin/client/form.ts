// The settings form's state, and the conversions between it and the routes' JSON: pure, so the
// rules (what a save sends, which field an error belongs to) are tested without a browser.

/** One refused field, as the settings route lists it. */
export interface FieldIssue {
  field: string;
  message: string;
}

export interface FormState {
  enabled: boolean;
  holographic: boolean;
  provider: "local" | "openai_compatible" | "off";
  model: string;
  baseUrl: string;
  reembedOnDimensionMismatch: boolean;
  /** Where the local model is downloaded from (empty: the default hub). */
  mirror: string;
  /** Typed by the user; never filled from the server (the key is write-only). */
  apiKey: string;
  removeApiKey: boolean;
}

export function formFromSettings(settings: Record<string, any>): FormState {
  const embedding = settings.embedding ?? {};
  return {
    enabled: settings.enabled === true,
    holographic: settings.holographic === true,
    provider: embedding.provider ?? "local",
    model: embedding.model ?? "",
    baseUrl: embedding.baseUrl ?? "",
    reembedOnDimensionMismatch: embedding.reembedOnDimensionMismatch !== false,
    mirror: embedding.mirror ?? "",
    apiKey: "",
    removeApiKey: false,
  };
}

/** The POST body for a save: every field the form owns, and the key only when typed or removed. */
export function saveBody(form: FormState): { settings: Record<string, unknown>; secrets?: Record<string, string | null> } {
  const body: { settings: Record<string, unknown>; secrets?: Record<string, string | null> } = {
    settings: {
      enabled: form.enabled,
      holographic: form.holographic,
      embedding: {
        provider: form.provider,
        model: form.model.trim(),
        baseUrl: form.baseUrl.trim(),
        reembedOnDimensionMismatch: form.reembedOnDimensionMismatch,
        mirror: form.mirror.trim(),
      },
    },
  };
  if (form.apiKey !== "") body.secrets = { embeddingApiKey: form.apiKey };
  else if (form.removeApiKey) body.secrets = { embeddingApiKey: null };
  return body;
}

export type FieldName = "enabled" | "holographic" | "provider" | "model" | "apiKey" | "baseUrl" | "reembedOnDimensionMismatch" | "mirror" | "form";

const FIELD_BY_PATH: Record<string, FieldName> = {
  enabled: "enabled",
  holographic: "holographic",
  "embedding.provider": "provider",
  "embedding.model": "model",
  "embedding.baseUrl": "baseUrl",
  "embedding.reembedOnDimensionMismatch": "reembedOnDimensionMismatch",
  "embedding.mirror": "mirror",
  "secrets.embeddingApiKey": "apiKey",
};

/** Server issues grouped by the form field they belong to; anything else goes to the form. */
export function issuesByField(issues: readonly FieldIssue[]): Partial<Record<FieldName, string>> {
  const out: Partial<Record<FieldName, string>> = {};
  for (const issue of issues) {
    const field = FIELD_BY_PATH[issue.field] ?? "form";
    out[field] = out[field] ? `${out[field]}; ${issue.message}` : issue.message;
  }
  return out;
}

export function percent(current: number, total: number): number {
  return total === 0 ? 100 : Math.floor((current / total) * 100);
}

/** Which embedding fields apply to a provider: the others are hidden, not just ignored. */
export function embeddingFields(provider: FormState["provider"]): Array<"model" | "mirror" | "apiKey" | "baseUrl" | "reembedOnDimensionMismatch"> {
  if (provider === "off") return [];
  if (provider === "local") return ["model", "mirror", "reembedOnDimensionMismatch"];
  return ["model", "apiKey", "baseUrl", "reembedOnDimensionMismatch"];
}

/** What the two switches mean together, for the line under them (a key of the panel's dictionary). */
export function captureMeaning(form: Pick<FormState, "enabled" | "holographic">): "captureOff" | "captureOffHolographicWaits" | "captureHighlights" | "captureEverything" {
  if (!form.enabled) return form.holographic ? "captureOffHolographicWaits" : "captureOff";
  return form.holographic ? "captureEverything" : "captureHighlights";
}

/** Bytes as a person reads them: "12.3 MB". */
export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

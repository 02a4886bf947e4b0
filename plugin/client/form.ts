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
  redactSecrets: boolean;
  // Numbers are kept as typed and converted on save, so a bad one reaches the server and comes back as its field's error.
  retentionMaxAgeDays: string;
  retentionMaxMemories: string;
  /** Per-scope overrides in the order shown; an empty limit takes the one above. */
  scopeLimits: ScopeLimitRow[];
  auditKeepQueryText: boolean;
  auditMaxAgeDays: string;
  auditMaxMegabytes: string;
}

export interface ScopeLimitRow {
  scope: string;
  maxAgeDays: string;
  maxMemories: string;
}

export type ScopeColumn = keyof ScopeLimitRow;

export function formFromSettings(settings: Record<string, any>): FormState {
  const embedding = settings.embedding ?? {};
  const privacy = settings.privacy ?? {};
  const retention = privacy.retention ?? {};
  const audit = privacy.audit ?? {};
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
    redactSecrets: privacy.redactSecrets !== false,
    retentionMaxAgeDays: numberText(retention.maxAgeDays),
    retentionMaxMemories: numberText(retention.maxMemories),
    scopeLimits: Object.entries<Record<string, unknown>>(retention.scopes ?? {}).map(([scope, limits]) => ({
      scope,
      maxAgeDays: numberText(limits.maxAgeDays),
      maxMemories: numberText(limits.maxMemories),
    })),
    auditKeepQueryText: audit.keepQueryText !== false,
    auditMaxAgeDays: numberText(audit.maxAgeDays),
    auditMaxMegabytes: numberText(audit.maxMegabytes),
  };
}

function numberText(value: unknown): string {
  return typeof value === "number" ? String(value) : "";
}

/** A number when the text is one; otherwise the text itself, for the server to refuse by name. */
export function numberOrText(text: string): number | string {
  // A Chinese input method in full-width mode types ０-９.
  const plain = text.trim().replace(/[\uff10-\uff19]/g, (digit) => String.fromCharCode(digit.charCodeAt(0) - 0xfee0));
  return /^-?\d+(\.\d+)?$/.test(plain) ? Number(plain) : plain;
}

/** The scopes object a save sends (it replaces the saved one whole); rows left entirely empty are dropped. */
function scopesBody(rows: readonly ScopeLimitRow[]): Record<string, Record<string, number | string>> {
  const scopes: Record<string, Record<string, number | string>> = {};
  for (const row of rows) {
    if (isBlankRow(row)) continue;
    const limits: Record<string, number | string> = {};
    if (row.maxAgeDays.trim() !== "") limits.maxAgeDays = numberOrText(row.maxAgeDays);
    if (row.maxMemories.trim() !== "") limits.maxMemories = numberOrText(row.maxMemories);
    scopes[row.scope.trim()] = limits;
  }
  return scopes;
}

function isBlankRow(row: ScopeLimitRow): boolean {
  return row.scope.trim() === "" && row.maxAgeDays.trim() === "" && row.maxMemories.trim() === "";
}

/** Rows naming a scope an earlier row already names: a save would keep only one, so it is refused. */
export function duplicateScopeRows(rows: readonly ScopeLimitRow[]): number[] {
  const seen = new Set<string>();
  const out: number[] = [];
  rows.forEach((row, i) => {
    const scope = row.scope.trim();
    if (scope === "") return;
    if (seen.has(scope)) out.push(i);
    seen.add(scope);
  });
  return out;
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
      privacy: {
        redactSecrets: form.redactSecrets,
        retention: { maxAgeDays: numberOrText(form.retentionMaxAgeDays), maxMemories: numberOrText(form.retentionMaxMemories), scopes: scopesBody(form.scopeLimits) },
        audit: { keepQueryText: form.auditKeepQueryText, maxAgeDays: numberOrText(form.auditMaxAgeDays), maxMegabytes: numberOrText(form.auditMaxMegabytes) },
      },
    },
  };
  if (form.apiKey !== "") body.secrets = { embeddingApiKey: form.apiKey };
  else if (form.removeApiKey) body.secrets = { embeddingApiKey: null };
  return body;
}

type EmbeddingField = "provider" | "model" | "apiKey" | "baseUrl" | "reembedOnDimensionMismatch" | "mirror";
type PrivacyField = "redactSecrets" | "retention-maxAgeDays" | "retention-maxMemories" | "retention-scopes" | "audit-keepQueryText" | "audit-maxAgeDays" | "audit-maxMegabytes" | `scope-${number}-${ScopeColumn}`;
/** A control's name: its testid is `dream-<name>`, its error's `dream-error-<name>`. */
export type FieldName = "enabled" | "holographic" | EmbeddingField | PrivacyField | "form";

const FIELD_BY_PATH: Record<string, FieldName> = {
  enabled: "enabled",
  holographic: "holographic",
  "embedding.provider": "provider",
  "embedding.model": "model",
  "embedding.baseUrl": "baseUrl",
  "embedding.reembedOnDimensionMismatch": "reembedOnDimensionMismatch",
  "embedding.mirror": "mirror",
  "secrets.embeddingApiKey": "apiKey",
  "privacy.redactSecrets": "redactSecrets",
  "privacy.retention.maxAgeDays": "retention-maxAgeDays",
  "privacy.retention.maxMemories": "retention-maxMemories",
  "privacy.retention.scopes": "retention-scopes",
  "privacy.audit.keepQueryText": "audit-keepQueryText",
  "privacy.audit.maxAgeDays": "audit-maxAgeDays",
  "privacy.audit.maxMegabytes": "audit-maxMegabytes",
};

const SCOPES_PATH = "privacy.retention.scopes.";

/**
 * Server issues grouped by the form field they belong to; anything else goes to the form. An issue
 * under a scope goes to the row that sent it (`rows`: the scope rows as saved); a scope's name may
 * hold dots, so rows are matched by name rather than by splitting the path.
 */
export function issuesByField(issues: readonly FieldIssue[], rows: readonly ScopeLimitRow[] = []): Partial<Record<FieldName, string>> {
  const out: Partial<Record<FieldName, string>> = {};
  for (const issue of issues) {
    const field = FIELD_BY_PATH[issue.field] ?? scopeField(issue.field, rows) ?? "form";
    out[field] = out[field] ? `${out[field]}; ${issue.message}` : issue.message;
  }
  return out;
}

function scopeField(path: string, rows: readonly ScopeLimitRow[]): FieldName | undefined {
  if (!path.startsWith(SCOPES_PATH)) return undefined;
  const rest = path.slice(SCOPES_PATH.length);
  for (const [i, row] of rows.entries()) {
    if (isBlankRow(row)) continue;
    const scope = row.scope.trim();
    if (rest === scope) return `scope-${i}-scope`;
    for (const column of ["maxAgeDays", "maxMemories"] as const) if (rest === `${scope}.${column}`) return `scope-${i}-${column}`;
  }
  return "retention-scopes";
}

/** Which part of the panel holds a field, so a save that failed there can open it. */
export function sectionOf(field: FieldName): "memory" | "embedding" | "privacy" | "form" {
  if (field === "enabled" || field === "holographic") return "memory";
  if (field === "form") return "form";
  return field === "redactSecrets" || field.startsWith("retention-") || field.startsWith("audit-") || field.startsWith("scope-") ? "privacy" : "embedding";
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

/** The privacy section's folded line: whether secrets are redacted and whether any limit is set (keys of the panel's dictionary). */
export function privacyState(form: FormState): { redact: "privacyRedacted" | "privacyNotRedacted"; limits: "privacyLimits" | "privacyNoLimits" } {
  const limits = [form.retentionMaxAgeDays, form.retentionMaxMemories, ...form.scopeLimits.flatMap((row) => [row.maxAgeDays, row.maxMemories])];
  // An empty scope limit inherits; "0" is no limit.
  const limited = limits.some((text) => text.trim() !== "" && numberOrText(text) !== 0);
  return { redact: form.redactSecrets ? "privacyRedacted" : "privacyNotRedacted", limits: limited ? "privacyLimits" : "privacyNoLimits" };
}

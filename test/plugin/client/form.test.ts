// The settings form's rules without a browser: what a save sends, and where each error shows.
import { captureMeaning, duplicateScopeRows, embeddingFields, formFromSettings, issuesByField, megabytes, numberOrText, percent, privacyState, saveBody, sectionOf, type FieldName, type ScopeLimitRow } from "../../../plugin/client/form";
import { DEFAULT_CONFIG, parseConfig } from "../../../plugin/config";

/** The privacy part of a form at the defaults (numbers kept as the text a user would see). */
const PRIVACY_FORM = { redactSecrets: true, retentionMaxAgeDays: "0", retentionMaxMemories: "0", scopeLimits: [], auditKeepQueryText: true, auditMaxAgeDays: "0", auditMaxMegabytes: "128" };
const row = (scope: string, maxAgeDays = "", maxMemories = ""): ScopeLimitRow => ({ scope, maxAgeDays, maxMemories });

describe("the settings form", () => {
  it("starts from the effective settings and never from a key (the key is write-only)", () => {
    const form = formFromSettings({ ...DEFAULT_CONFIG, enabled: true, embedding: { ...DEFAULT_CONFIG.embedding, provider: "openai_compatible", model: "m", baseUrl: "https://x/v1", apiKey: "sk-leak" } });
    expect(form).toEqual({ enabled: true, holographic: false, provider: "openai_compatible", model: "m", baseUrl: "https://x/v1", reembedOnDimensionMismatch: true, mirror: "", apiKey: "", removeApiKey: false, ...PRIVACY_FORM });
  });

  it("saves every field it owns, and the key only when one was typed or removal was asked for", () => {
    const form = formFromSettings(DEFAULT_CONFIG);
    expect(saveBody({ ...form, model: "  bge  ", mirror: " https://hf-mirror.com/ " })).toEqual({
      settings: {
        enabled: false,
        holographic: false,
        embedding: { provider: "local", model: "bge", baseUrl: "", reembedOnDimensionMismatch: true, mirror: "https://hf-mirror.com/" },
        privacy: DEFAULT_CONFIG.privacy,
      },
    });
    expect(saveBody({ ...form, apiKey: "sk-new" }).secrets).toEqual({ embeddingApiKey: "sk-new" });
    expect(saveBody({ ...form, removeApiKey: true }).secrets).toEqual({ embeddingApiKey: null });
  });

  it("puts each server issue next to its field, and the rest on the form", () => {
    expect(
      issuesByField([
        { field: "embedding.baseUrl", message: "must be an http:// or https:// URL" },
        { field: "embedding.model", message: "is required" },
        { field: "secrets.embeddingApiKey", message: "must be one line" },
        { field: "recall.topK", message: "must be an integer" },
        { field: "embedding.baseUrl", message: "second problem" },
      ]),
    ).toEqual({ baseUrl: "must be an http:// or https:// URL; second problem", model: "is required", apiKey: "must be one line", form: "must be an integer" });
  });

  it("round-trips every privacy setting: the form of a config saves that config's privacy section", () => {
    const config = parseConfig({
      privacy: {
        redactSecrets: false,
        retention: { maxAgeDays: 365, maxMemories: 5000, scopes: { "project:a.b": { maxAgeDays: 7 }, global: { maxMemories: 100 }, "project:c": {} } },
        audit: { keepQueryText: false, maxAgeDays: 30, maxMegabytes: 16 },
      },
    });
    const form = formFromSettings(config);
    expect(form).toMatchObject({
      redactSecrets: false,
      retentionMaxAgeDays: "365",
      retentionMaxMemories: "5000",
      scopeLimits: [row("project:a.b", "7"), row("global", "", "100"), row("project:c")],
      auditKeepQueryText: false,
      auditMaxAgeDays: "30",
      auditMaxMegabytes: "16",
    });
    expect(saveBody(form).settings.privacy).toEqual(config.privacy);
  });

  it("converts typed numbers on save, keeps what is not a number as typed for the server to refuse, and treats an empty scope limit as inherited", () => {
    expect(["12", " 7 ", "０３０", "-1", "2.5", "abc", "", "1e3"].map(numberOrText)).toEqual([12, 7, 30, -1, 2.5, "abc", "", "1e3"]);
    const form = { ...formFromSettings(DEFAULT_CONFIG), retentionMaxAgeDays: "abc", scopeLimits: [row(" project:x ", "30"), row("", "", ""), row("global", "", "x")] };
    expect(saveBody(form).settings.privacy).toMatchObject({ retention: { maxAgeDays: "abc", maxMemories: 0, scopes: { "project:x": { maxAgeDays: 30 }, global: { maxMemories: "x" } } } });
  });

  it("finds the rows that name a scope an earlier row names", () => {
    expect(duplicateScopeRows([row("global"), row("project:a"), row(" global "), row(""), row(""), row("project:a", "1")])).toEqual([2, 5]);
  });

  it("puts each privacy issue next to its control, and a scope's issue on the row that sent it", () => {
    const rows = [row("", "", ""), row("project:a.b", "x"), row("projekt"), row("global", "", "-1")];
    expect(
      issuesByField(
        [
          { field: "privacy.redactSecrets", message: "bool" },
          { field: "privacy.retention.maxAgeDays", message: "days" },
          { field: "privacy.retention.maxMemories", message: "count" },
          { field: "privacy.audit.keepQueryText", message: "keep" },
          { field: "privacy.audit.maxAgeDays", message: "audit days" },
          { field: "privacy.audit.maxMegabytes", message: "size" },
          { field: "privacy.retention.scopes.project:a.b.maxAgeDays", message: "row days" },
          { field: "privacy.retention.scopes.projekt", message: "not a scope" },
          { field: "privacy.retention.scopes.global.maxMemories", message: "row count" },
          { field: "privacy.retention.scopes", message: "must be an object" },
          { field: "privacy.retention.scopes.project:gone", message: "no such row" },
          { field: "privacy.extra", message: "unknown" },
        ],
        rows,
      ),
    ).toEqual({
      redactSecrets: "bool",
      "retention-maxAgeDays": "days",
      "retention-maxMemories": "count",
      "audit-keepQueryText": "keep",
      "audit-maxAgeDays": "audit days",
      "audit-maxMegabytes": "size",
      "scope-1-maxAgeDays": "row days",
      "scope-2-scope": "not a scope",
      "scope-3-maxMemories": "row count",
      "retention-scopes": "must be an object; no such row",
      form: "unknown",
    });
  });

  it("names the section each field lives in, and sums up the privacy settings for the folded section", () => {
    expect(["enabled", "model", "apiKey", "redactSecrets", "retention-scopes", "scope-0-scope", "audit-maxMegabytes", "form"].map((f) => sectionOf(f as FieldName))).toEqual([
      "memory",
      "embedding",
      "embedding",
      "privacy",
      "privacy",
      "privacy",
      "privacy",
      "form",
    ]);
    const form = formFromSettings(DEFAULT_CONFIG);
    expect(privacyState(form)).toEqual({ redact: "privacyRedacted", limits: "privacyNoLimits" });
    expect(privacyState({ ...form, redactSecrets: false, retentionMaxAgeDays: "30" })).toEqual({ redact: "privacyNotRedacted", limits: "privacyLimits" });
    expect(privacyState({ ...form, scopeLimits: [row("global"), row("project:a", "0")] }).limits).toBe("privacyNoLimits");
    expect(privacyState({ ...form, scopeLimits: [row("global", "", "100")] }).limits).toBe("privacyLimits");
  });

  it("shows only the embedding fields that apply to the provider", () => {
    expect(embeddingFields("local")).toEqual(["model", "mirror", "reembedOnDimensionMismatch"]);
    expect(embeddingFields("openai_compatible")).toEqual(["model", "apiKey", "baseUrl", "reembedOnDimensionMismatch"]);
    expect(embeddingFields("off")).toEqual([]);
  });

  it("says what the two switches capture together", () => {
    expect([
      captureMeaning({ enabled: false, holographic: false }),
      captureMeaning({ enabled: false, holographic: true }),
      captureMeaning({ enabled: true, holographic: false }),
      captureMeaning({ enabled: true, holographic: true }),
    ]).toEqual(["captureOff", "captureOffHolographicWaits", "captureHighlights", "captureEverything"]);
    expect(megabytes(25.5 * 1024 * 1024)).toBe("25.5 MB");
  });

  it("rounds progress down, and calls an empty store complete", () => {
    expect([percent(0, 10), percent(9, 10), percent(10, 10), percent(1, 3), percent(0, 0)]).toEqual([0, 90, 100, 33, 100]);
  });
});

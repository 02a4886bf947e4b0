// The settings form's rules without a browser: what a save sends, and where each error shows.
import { captureMeaning, embeddingFields, formFromSettings, issuesByField, megabytes, percent, saveBody } from "../../../plugin/client/form";
import { DEFAULT_CONFIG } from "../../../plugin/config";

describe("the settings form", () => {
  it("starts from the effective settings and never from a key (the key is write-only)", () => {
    const form = formFromSettings({ ...DEFAULT_CONFIG, enabled: true, embedding: { ...DEFAULT_CONFIG.embedding, provider: "openai_compatible", model: "m", baseUrl: "https://x/v1", apiKey: "sk-leak" } });
    expect(form).toEqual({ enabled: true, holographic: false, provider: "openai_compatible", model: "m", baseUrl: "https://x/v1", reembedOnDimensionMismatch: true, mirror: "", apiKey: "", removeApiKey: false });
  });

  it("saves every field it owns, and the key only when one was typed or removal was asked for", () => {
    const form = formFromSettings(DEFAULT_CONFIG);
    expect(saveBody({ ...form, model: "  bge  ", mirror: " https://hf-mirror.com/ " })).toEqual({
      settings: { enabled: false, holographic: false, embedding: { provider: "local", model: "bge", baseUrl: "", reembedOnDimensionMismatch: true, mirror: "https://hf-mirror.com/" } },
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

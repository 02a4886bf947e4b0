import { DreamError } from "../../../bridge/protocol/errors";
import { redactSecrets } from "../../../plugin/routes/redact";

describe("redactSecrets", () => {
  it("replaces every non-empty string under a secret-named key, at any depth and inside arrays", () => {
    const input = {
      api_key: "sk-1",
      embedding: { apiKey: "sk-2", "openai-api-key": "sk-3" },
      providers: [{ token: "t-1" }, { auth: { Authorization: "Bearer b-1", password: "p-1", clientSecret: "s-1" } }],
    };
    expect(redactSecrets(input)).toEqual({
      api_key: "[redacted]",
      embedding: { apiKey: "[redacted]", "openai-api-key": "[redacted]" },
      providers: [{ token: "[redacted]" }, { auth: { Authorization: "[redacted]", password: "[redacted]", clientSecret: "[redacted]" } }],
    });
  });

  it("keeps apiKeyEnv, token budgets, empty secrets and keys that only begin with a secret word", () => {
    const input = { apiKeyEnv: "DSH_DREAM_EMBEDDING_API_KEY", maxTokens: 1200, token: "", tokenizer: "bge", secretary: "ada", password: 42 };
    expect(redactSecrets(input)).toEqual(input);
  });

  it("leaves its input untouched and returns scalars as they are", () => {
    const input = { nested: { token: "t-1" } };
    redactSecrets(input);
    expect(input).toEqual({ nested: { token: "t-1" } });
    expect(redactSecrets("token")).toBe("token");
    expect(redactSecrets(null)).toBeNull();
  });

  it("reads objects through toJSON as JSON.stringify would, so a Date stays a string and a wrapped secret is caught", () => {
    const at = new Date("2025-01-02T03:04:05.000Z");
    const wrapped = { toJSON: () => ({ bearerToken: "b-2", kept: "k" }) };
    expect(redactSecrets({ at, wrapped })).toEqual({ at: "2025-01-02T03:04:05.000Z", wrapped: { bearerToken: "[redacted]", kept: "k" } });
    const error = new DreamError("INVALID_FIELD", "bad", { field: "x" });
    expect(redactSecrets({ error })).toEqual({ error: error.toJSON() });
  });
});

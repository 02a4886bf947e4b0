import { parseBridgeConfig } from "../../bridge/server/bridge-config";

describe("bridge-config.json", () => {
  it("defaults to the embedded Chroma", () => {
    expect(parseBridgeConfig({}, "cfg", "/data").chroma).toEqual({ mode: "embedded" });
  });

  it("redacts secrets unless privacy.redactSecrets is false", () => {
    expect(parseBridgeConfig({}, "cfg", "/data").privacy.redactSecrets).toBe(true);
    expect(parseBridgeConfig({ privacy: {} }, "cfg", "/data").privacy.redactSecrets).toBe(true);
    expect(parseBridgeConfig({ privacy: { redactSecrets: false } }, "cfg", "/data").privacy.redactSecrets).toBe(false);
  });

  it("keeps everything and every query by default", () => {
    expect(parseBridgeConfig({}, "cfg", "/data").privacy).toEqual({
      redactSecrets: true,
      retention: { maxAgeDays: 0, maxMemories: 0, scopes: {} },
      audit: { keepQueryText: true, maxAgeDays: 0, maxMegabytes: 128 },
    });
  });

  it("reads retention limits per scope and the audit log's limits", () => {
    const privacy = parseBridgeConfig(
      {
        privacy: {
          retention: { maxAgeDays: 365, scopes: { "project:demo": { maxAgeDays: 30, maxMemories: 1000 }, global: { maxMemories: 0 } } },
          audit: { keepQueryText: false, maxAgeDays: 7, maxMegabytes: 10 },
        },
      },
      "cfg",
      "/data",
    ).privacy;
    expect(privacy.retention).toEqual({ maxAgeDays: 365, maxMemories: 0, scopes: { "project:demo": { maxAgeDays: 30, maxMemories: 1000 }, global: { maxMemories: 0 } } });
    expect(privacy.audit).toEqual({ keepQueryText: false, maxAgeDays: 7, maxMegabytes: 10 });
  });

  it("does not share the defaults between configs", () => {
    const first = parseBridgeConfig({ privacy: { retention: { scopes: { global: { maxAgeDays: 1 } } } } }, "cfg", "/data").privacy;
    expect(parseBridgeConfig({}, "cfg", "/data").privacy.retention.scopes).toEqual({});
    expect(first.retention.scopes).toEqual({ global: { maxAgeDays: 1 } });
  });

  it("accepts an external Chroma with headers, tenant and database, keeping only the URL origin", () => {
    expect(
      parseBridgeConfig({ chroma: { url: "https://chroma.example:8443/", headers: { Authorization: "Bearer t" }, tenant: "t1", database: "db" } }, "cfg", "/data").chroma,
    ).toEqual({ mode: "external", url: "https://chroma.example:8443", headers: { Authorization: "Bearer t" }, tenant: "t1", database: "db" });
  });

  it.each([
    [{ chroma: { mode: "cloud" } }, "chroma.mode", 'must be "embedded", "external" or "off"'],
    [{ chroma: { mode: "external" } }, "chroma.url", "must be an http(s) URL"],
    [{ chroma: { url: "https://user:pw@host" } }, "chroma.url", "must not carry credentials"],
    [{ chroma: { mode: "embedded", url: "http://x" } }, "chroma.url", 'only used with mode "external"'],
    [{ chroma: { url: "http://x", headers: { a: 1 } } }, "chroma.headers", "header name to string value"],
    [{ chroma: { port: 8000 } }, "chroma.port", "is not a known setting"],
    [{ chrome: {} }, "chrome", "is not a known setting"],
    [{ privacy: true }, "privacy", "must be an object"],
    [{ privacy: { redactSecrets: "yes" } }, "privacy.redactSecrets", "must be true or false"],
    [{ privacy: { redact: true } }, "privacy.redact", "is not a known setting"],
    [{ privacy: { retention: 30 } }, "privacy.retention", "must be an object"],
    [{ privacy: { retention: { maxAgeDays: -1 } } }, "privacy.retention.maxAgeDays", "whole number from 0 to 36500"],
    [{ privacy: { retention: { maxMemories: 1.5 } } }, "privacy.retention.maxMemories", "whole number from 0"],
    [{ privacy: { retention: { maxDays: 3 } } }, "privacy.retention.maxDays", "is not a known setting"],
    [{ privacy: { retention: { scopes: [] } } }, "privacy.retention.scopes", "scope to limits"],
    [{ privacy: { retention: { scopes: { work: { maxAgeDays: 3 } } } } }, "privacy.retention.scopes.work", 'use "global" or "project:<name>"'],
    [{ privacy: { retention: { scopes: { global: 30 } } } }, "privacy.retention.scopes.global", "must be an object"],
    [{ privacy: { retention: { scopes: { "project:a": { maxAgeDays: "30" } } } } }, "privacy.retention.scopes.project:a.maxAgeDays", "whole number"],
    [{ privacy: { audit: { keepQueryText: "no" } } }, "privacy.audit.keepQueryText", "must be true or false"],
    [{ privacy: { audit: { maxMegabytes: 0 } } }, "privacy.audit.maxMegabytes", "from 1 to 100000"],
    [{ privacy: { audit: { size: 1 } } }, "privacy.audit.size", "is not a known setting"],
  ])("rejects %j naming %s", (raw, field, message) => {
    expect(() => parseBridgeConfig(raw, "cfg", "/data")).toThrow(expect.objectContaining({ code: "INVALID_FIELD", field, message: expect.stringContaining(message) }));
  });

  it("never echoes header values in its errors", () => {
    expect(() => parseBridgeConfig({ chroma: { url: "ftp://x", headers: { Authorization: "Bearer s3cret" } } }, "cfg", "/data")).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("s3cret") }),
    );
  });
});

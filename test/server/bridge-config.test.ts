import { parseBridgeConfig } from "../../bridge/server/bridge-config";

describe("bridge-config.json", () => {
  it("defaults to the embedded Chroma", () => {
    expect(parseBridgeConfig({}, "cfg", "/data").chroma).toEqual({ mode: "embedded" });
  });

  it("redacts secrets unless privacy.redactSecrets is false", () => {
    expect(parseBridgeConfig({}, "cfg", "/data").privacy).toEqual({ redactSecrets: true });
    expect(parseBridgeConfig({ privacy: {} }, "cfg", "/data").privacy).toEqual({ redactSecrets: true });
    expect(parseBridgeConfig({ privacy: { redactSecrets: false } }, "cfg", "/data").privacy).toEqual({ redactSecrets: false });
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
  ])("rejects %j naming %s", (raw, field, message) => {
    expect(() => parseBridgeConfig(raw, "cfg", "/data")).toThrow(expect.objectContaining({ code: "INVALID_FIELD", field, message: expect.stringContaining(message) }));
  });

  it("never echoes header values in its errors", () => {
    expect(() => parseBridgeConfig({ chroma: { url: "ftp://x", headers: { Authorization: "Bearer s3cret" } } }, "cfg", "/data")).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("s3cret") }),
    );
  });
});

import { DreamError } from "../../../bridge/protocol/errors";
import { DEFAULT_PRIVACY, parseBridgeConfig, PRIVACY_LIMITS } from "../../../bridge/server/bridge-config";
import { ANCHOR_TOKEN_CAP, Config, ConfigError, DEFAULT_CONFIG, parseConfig, unwrapVolatile, validateConfig } from "../../../plugin/config";
import { estimateTokens } from "../../../plugin/recall/token-count";

const ROOT_KEYS = "enabled, holographic, dataDir, embedding, recall, anchors, privacy";
const EMBEDDING_KEYS = "provider, model, baseUrl, apiKeyEnv, reembedOnDimensionMismatch, mirror";
const RECALL_KEYS = "topK, maxTokens, timeBudgetMs";

/** A volatile wrapper whose `get` lives on the prototype (a class instance with no own keys). */
class PrototypeVolatile<T> {
  constructor(private readonly read: () => T) {
    Object.defineProperty(this, "read", { enumerable: false });
  }
  get(): T {
    return this.read();
  }
}

describe("validateConfig defaults", () => {
  it.each([
    ["undefined", undefined],
    ["null", null],
    ["an empty object", {}],
    ["empty nested objects", { embedding: {}, recall: {} }],
  ])("fills every key of DEFAULT_CONFIG when the raw config is %s", (_label, raw) => {
    expect(validateConfig(raw)).toEqual({ value: DEFAULT_CONFIG });
  });

  it("keeps the given keys and fills the missing siblings at every level", () => {
    const result = validateConfig({ enabled: true, embedding: { provider: "off" }, recall: { topK: 8 } });
    expect(result).toEqual({
      value: {
        ...DEFAULT_CONFIG,
        enabled: true,
        embedding: { ...DEFAULT_CONFIG.embedding, provider: "off" },
        recall: { ...DEFAULT_CONFIG.recall, topK: 8 },
      },
    });
  });

  it("trims surrounding whitespace from strings and anchors", () => {
    const result = validateConfig({ dataDir: "  /srv/memory  ", anchors: ["  always answer in French \n"] });
    expect(result).toEqual({ value: { ...DEFAULT_CONFIG, dataDir: "/srv/memory", anchors: ["always answer in French"] } });
  });
});

describe("validateConfig issues", () => {
  it("reports an unknown key at each level with its full path and the allowed keys", () => {
    expect(validateConfig({ verbose: true, embedding: { dims: 384 }, recall: { k: 3 } })).toEqual({
      issues: [
        { path: ["verbose"], message: `is not a known setting; allowed: ${ROOT_KEYS}` },
        { path: ["embedding", "dims"], message: `is not a known setting; allowed: ${EMBEDDING_KEYS}` },
        { path: ["recall", "k"], message: `is not a known setting; allowed: ${RECALL_KEYS}` },
      ],
    });
  });

  it.each([
    [{ enabled: "yes" }, ["enabled"], 'must be true or false (got "yes")'],
    [{ holographic: 1 }, ["holographic"], "must be true or false (got 1)"],
    [{ enabled: null }, ["enabled"], "must be true or false (got null)"],
    [{ dataDir: 5 }, ["dataDir"], "must be a string (got 5)"],
    [{ dataDir: ["a"] }, ["dataDir"], "must be a string (got a list)"],
    [{ embedding: [] }, ["embedding"], "must be an object"],
    [{ recall: "fast" }, ["recall"], "must be an object"],
    [{ embedding: { provider: "openai" } }, ["embedding", "provider"], 'must be one of "local", "openai_compatible", "off" (got "openai")'],
    [{ embedding: { model: { name: "m" } } }, ["embedding", "model"], "must be a string (got an object)"],
    [{ embedding: { reembedOnDimensionMismatch: "no" } }, ["embedding", "reembedOnDimensionMismatch"], 'must be true or false (got "no")'],
    [{ recall: { topK: 0 } }, ["recall", "topK"], "must be an integer from 1 to 50 (got 0)"],
    [{ recall: { topK: 51 } }, ["recall", "topK"], "must be an integer from 1 to 50 (got 51)"],
    [{ recall: { topK: 2.5 } }, ["recall", "topK"], "must be an integer from 1 to 50 (got 2.5)"],
    [{ recall: { maxTokens: "1200" } }, ["recall", "maxTokens"], 'must be an integer from 100 to 16000 (got "1200")'],
    [{ recall: { maxTokens: 99 } }, ["recall", "maxTokens"], "must be an integer from 100 to 16000 (got 99)"],
    [{ recall: { timeBudgetMs: 30_001 } }, ["recall", "timeBudgetMs"], "must be an integer from 50 to 30000 (got 30001)"],
    [{ recall: { timeBudgetMs: Number.NaN } }, ["recall", "timeBudgetMs"], "must be an integer from 50 to 30000 (got NaN)"],
    [{ anchors: "be brief" }, ["anchors"], 'must be a list of strings (got "be brief")'],
  ])("refuses %j with one issue at its path naming the value it got", (raw, path, message) => {
    expect(validateConfig(raw)).toEqual({ issues: [{ path, message }] });
  });

  it("names each bad anchor by its index and keeps checking the rest of the list", () => {
    expect(validateConfig({ anchors: ["ok", "   ", 3, null] })).toEqual({
      issues: [
        { path: ["anchors", "1"], message: 'must be a non-empty string (got "   ")' },
        { path: ["anchors", "2"], message: "must be a non-empty string (got 3)" },
        { path: ["anchors", "3"], message: "must be a non-empty string (got null)" },
      ],
    });
  });

  it("shortens a long got-value to its first 40 characters and an ellipsis", () => {
    const long = "x".repeat(60);
    expect(validateConfig({ enabled: long })).toEqual({ issues: [{ path: ["enabled"], message: `must be true or false (got "${"x".repeat(40)}…")` }] });
  });

  it.each([
    ["a string", "enabled: true"],
    ["a list", [{ enabled: true }]],
    ["a number", 7],
  ])("refuses a root config that is %s with an issue at the empty path", (_label, raw) => {
    expect(validateConfig(raw)).toEqual({ issues: [{ path: [], message: "must be an object" }] });
  });

  it("collects the issues of every field instead of stopping at the first", () => {
    const result = validateConfig({ enabled: "on", dataDir: 1, recall: { topK: -1, maxTokens: 1e9 }, extra: 0 });
    expect("issues" in result && result.issues.map((i) => i.path.join("."))).toEqual(["extra", "enabled", "dataDir", "recall.topK", "recall.maxTokens"]);
  });
});

describe("validateConfig embedding rules", () => {
  it.each(["https://hf-mirror.com/", "http://127.0.0.1:9000"])("accepts the download mirror %s", (mirror) => {
    expect(validateConfig({ embedding: { mirror } })).toEqual({ value: { ...DEFAULT_CONFIG, embedding: { ...DEFAULT_CONFIG.embedding, mirror } } });
  });

  it("refuses a mirror that is not an http(s) URL, naming the field and an example", () => {
    expect(validateConfig({ embedding: { mirror: "hf-mirror.com" } })).toEqual({
      issues: [{ path: ["embedding", "mirror"], message: 'must be empty or an http:// or https:// URL of a model hub mirror, e.g. https://hf-mirror.com/ (got "hf-mirror.com")' }],
    });
  });

  it("requires a model and a baseUrl when the provider is openai_compatible", () => {
    expect(validateConfig({ embedding: { provider: "openai_compatible" } })).toEqual({
      issues: [
        { path: ["embedding", "model"], message: "is required when provider is openai_compatible" },
        { path: ["embedding", "baseUrl"], message: "is required when provider is openai_compatible (e.g. https://api.example.com/v1)" },
      ],
    });
  });

  it("treats a whitespace-only model as missing for openai_compatible", () => {
    expect(validateConfig({ embedding: { provider: "openai_compatible", model: "   ", baseUrl: "https://api.example.com/v1" } })).toEqual({
      issues: [{ path: ["embedding", "model"], message: "is required when provider is openai_compatible" }],
    });
  });

  it.each(["ftp://files.example.com/v1", "api.example.com/v1", "file:///etc/passwd", "not a url"])(
    "refuses the openai_compatible baseUrl %s as not an http(s) URL",
    (baseUrl) => {
      expect(validateConfig({ embedding: { provider: "openai_compatible", model: "text-embedding-3-small", baseUrl } })).toEqual({
        issues: [{ path: ["embedding", "baseUrl"], message: `must be an http:// or https:// URL (got ${JSON.stringify(baseUrl)})` }],
      });
    },
  );

  it.each(["https://api.example.com/v1", "http://127.0.0.1:8080/v1"])("accepts openai_compatible with a model and the baseUrl %s", (baseUrl) => {
    const embedding = { provider: "openai_compatible" as const, model: "text-embedding-3-small", baseUrl, apiKeyEnv: "OPENAI_API_KEY", reembedOnDimensionMismatch: false, mirror: "" };
    expect(validateConfig({ embedding })).toEqual({ value: { ...DEFAULT_CONFIG, embedding } });
  });

  it("does not require a model or baseUrl for the local and off providers", () => {
    for (const provider of ["local", "off"]) {
      expect(validateConfig({ embedding: { provider } })).toEqual({ value: { ...DEFAULT_CONFIG, embedding: { ...DEFAULT_CONFIG.embedding, provider } } });
    }
  });

  it.each(["sk-live-0123456789abcdef", "2FA_KEY", "MY KEY", "$OPENAI_API_KEY"])("refuses the apiKeyEnv %j because it is not an environment variable name", (apiKeyEnv) => {
    expect(validateConfig({ embedding: { apiKeyEnv } })).toEqual({
      issues: [{ path: ["embedding", "apiKeyEnv"], message: "must be the name of an environment variable (letters, digits, _), not the key itself" }],
    });
  });

  it.each(["OPENAI_API_KEY", "_key2", "k", ""])("accepts the apiKeyEnv %j", (apiKeyEnv) => {
    expect(validateConfig({ embedding: { apiKeyEnv } })).toEqual({ value: { ...DEFAULT_CONFIG, embedding: { ...DEFAULT_CONFIG.embedding, apiKeyEnv } } });
  });
});

describe("validateConfig privacy", () => {
  const withPrivacy = (privacy: unknown) => ({ value: { ...DEFAULT_CONFIG, privacy } });

  it("defaults to the bridge's privacy defaults, in a copy of its own", () => {
    const result = validateConfig({});
    expect(result).toEqual(withPrivacy(DEFAULT_PRIVACY));
    const privacy = "value" in result ? result.value.privacy : undefined;
    expect(privacy?.retention.scopes).not.toBe(DEFAULT_PRIVACY.retention.scopes);
    expect(DEFAULT_CONFIG.privacy.retention.scopes).not.toBe(DEFAULT_PRIVACY.retention.scopes);
  });

  it("keeps the given privacy settings and fills the missing siblings; a scope keeps only the limits it names", () => {
    const raw = { redactSecrets: false, retention: { maxAgeDays: 365, scopes: { "project:x": { maxMemories: 10 }, global: {} } }, audit: { keepQueryText: false } };
    expect(validateConfig({ privacy: raw })).toEqual(
      withPrivacy({
        redactSecrets: false,
        retention: { maxAgeDays: 365, maxMemories: 0, scopes: { "project:x": { maxMemories: 10 }, global: {} } },
        audit: { keepQueryText: false, maxAgeDays: 0, maxMegabytes: 128 },
      }),
    );
  });

  it("accepts every limit at both ends of its range", () => {
    const low = { retention: { maxAgeDays: 0, maxMemories: 0, scopes: { global: { maxAgeDays: 0, maxMemories: 0 } } }, audit: { maxAgeDays: 0, maxMegabytes: 1 } };
    const high = {
      retention: { maxAgeDays: PRIVACY_LIMITS.maxAgeDays, maxMemories: PRIVACY_LIMITS.maxMemories, scopes: { global: { maxAgeDays: PRIVACY_LIMITS.maxAgeDays, maxMemories: PRIVACY_LIMITS.maxMemories } } },
      audit: { maxAgeDays: PRIVACY_LIMITS.maxAgeDays, maxMegabytes: PRIVACY_LIMITS.auditMaxMegabytes },
    };
    for (const raw of [low, high]) expect("value" in validateConfig({ privacy: raw })).toBe(true);
  });

  it("reports unknown keys at every level of privacy with their full path", () => {
    const result = validateConfig({ privacy: { redact: true, retention: { days: 3, scopes: { "project:x": { maxAgeDays: 1, ttl: 2 } } }, audit: { keep: true } } });
    expect(result).toEqual({
      issues: [
        { path: ["privacy", "redact"], message: "is not a known setting; allowed: redactSecrets, retention, audit" },
        { path: ["privacy", "retention", "days"], message: "is not a known setting; allowed: maxAgeDays, maxMemories, scopes" },
        { path: ["privacy", "audit", "keep"], message: "is not a known setting; allowed: keepQueryText, maxAgeDays, maxMegabytes" },
        { path: ["privacy", "retention", "scopes", "project:x", "ttl"], message: "is not a known setting; allowed: maxAgeDays, maxMemories" },
      ],
    });
  });

  it.each([
    [{ redactSecrets: "no" }, ["privacy", "redactSecrets"], 'must be true or false (got "no")'],
    [{ retention: { maxAgeDays: -1 } }, ["privacy", "retention", "maxAgeDays"], "must be an integer from 0 to 36500 (got -1)"],
    [{ retention: { maxAgeDays: 36_501 } }, ["privacy", "retention", "maxAgeDays"], "must be an integer from 0 to 36500 (got 36501)"],
    [{ retention: { maxAgeDays: "30" } }, ["privacy", "retention", "maxAgeDays"], 'must be an integer from 0 to 36500 (got "30")'],
    [{ retention: { maxMemories: 1.5 } }, ["privacy", "retention", "maxMemories"], "must be an integer from 0 to 100000000 (got 1.5)"],
    [{ retention: { scopes: [] } }, ["privacy", "retention", "scopes"], "must be an object"],
    [{ retention: { scopes: { project: { maxAgeDays: 1 } } } }, ["privacy", "retention", "scopes", "project"], 'is not a scope: use "global" or "project:<name>" (got "project")'],
    [{ retention: { scopes: { "project:x": 30 } } }, ["privacy", "retention", "scopes", "project:x"], "must be an object"],
    [{ retention: { scopes: { "project:x": { maxAgeDays: "abc" } } } }, ["privacy", "retention", "scopes", "project:x", "maxAgeDays"], 'must be an integer from 0 to 36500 (got "abc")'],
    [{ retention: { scopes: { "project:a.b": { maxMemories: null } } } }, ["privacy", "retention", "scopes", "project:a.b", "maxMemories"], "must be an integer from 0 to 100000000 (got null)"],
    [{ audit: { keepQueryText: 0 } }, ["privacy", "audit", "keepQueryText"], "must be true or false (got 0)"],
    [{ audit: { maxMegabytes: 0 } }, ["privacy", "audit", "maxMegabytes"], "must be an integer from 1 to 100000 (got 0)"],
    [{ audit: "off" }, ["privacy", "audit"], "must be an object"],
  ])("refuses privacy %j with one issue at %j", (privacy, path, message) => {
    expect(validateConfig({ privacy })).toEqual({ issues: [{ path, message }] });
  });

  it.each([
    ["defaults", {}],
    ["every field", { redactSecrets: false, retention: { maxAgeDays: 90, maxMemories: 5000, scopes: { "project:a.b": { maxAgeDays: 7 }, global: { maxMemories: 100 } } }, audit: { keepQueryText: false, maxAgeDays: 30, maxMegabytes: 16 } }],
    ["a bad scope name", { retention: { scopes: { "project:": {} } } }],
    ["a bad scope limit", { retention: { scopes: { global: { maxMemories: -5 } } } }],
    ["a bad audit size", { audit: { maxMegabytes: 100_001 } }],
    ["an unknown key", { retention: { keepDays: 3 } }],
  ])("agrees with the bridge's own reading of bridge-config.json on %s", (_label, privacy) => {
    const plugin = validateConfig({ privacy });
    let bridge: { privacy: unknown } | { field: unknown };
    try {
      bridge = { privacy: parseBridgeConfig({ privacy }, "bridge-config.json", "/data").privacy };
    } catch (error) {
      bridge = { field: (error as DreamError).field };
    }
    if ("value" in plugin) expect(bridge).toEqual({ privacy: plugin.value.privacy });
    else expect(bridge).toEqual({ field: plugin.issues[0]!.path.join(".") });
  });
});

describe("validateConfig anchor cap", () => {
  const ideographs = (n: number) => "记".repeat(n);

  it("accepts anchors holding exactly the cap in tokens", () => {
    const anchors = [ideographs(1500), ideographs(ANCHOR_TOKEN_CAP - 1500)];
    expect(anchors.reduce((sum, a) => sum + estimateTokens(a), 0)).toBe(ANCHOR_TOKEN_CAP);
    expect(validateConfig({ anchors })).toEqual({ value: { ...DEFAULT_CONFIG, anchors } });
  });

  it("refuses anchors one token over the cap, counted across all anchors, with the count in the message", () => {
    const anchors = [ideographs(1500), "word ".repeat(100).trim(), ideographs(ANCHOR_TOKEN_CAP - 1500 - 100 + 1)];
    const total = anchors.reduce((sum, a) => sum + estimateTokens(a), 0);
    expect(total).toBe(ANCHOR_TOKEN_CAP + 1);
    expect(validateConfig({ anchors })).toEqual({
      issues: [{ path: ["anchors"], message: `hold about ${total} tokens; anchors are capped at 2000 tokens in all — shorten or remove some` }],
    });
  });
});

describe("parseConfig and ConfigError", () => {
  it("returns the validated value for a good config", () => {
    expect(parseConfig({ enabled: true })).toEqual({ ...DEFAULT_CONFIG, enabled: true });
  });

  it("throws a ConfigError whose message lists every issue with its dotted path", () => {
    let thrown: unknown;
    try {
      parseConfig({ enabled: "yes", recall: { topK: 0 }, embedding: { provider: "openai_compatible", model: "m", baseUrl: "x" } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const error = thrown as ConfigError;
    expect(error.name).toBe("ConfigError");
    expect(error.message).toBe(
      [
        "invalid DSH-DREAM config:",
        '  - enabled: must be true or false (got "yes")',
        "  - recall.topK: must be an integer from 1 to 50 (got 0)",
        '  - embedding.baseUrl: must be an http:// or https:// URL (got "x")',
      ].join("\n"),
    );
    expect(error.issues.map((i) => i.path)).toEqual([["enabled"], ["recall", "topK"], ["embedding", "baseUrl"]]);
  });
});

describe("Config standard schema", () => {
  it("declares Standard Schema v1 from the dsh-dream vendor", () => {
    expect(Config["~standard"].version).toBe(1);
    expect(Config["~standard"].vendor).toBe("dsh-dream");
  });

  it("validates plain values exactly as validateConfig does", () => {
    const raw = { enabled: true, recall: { topK: 99 } };
    expect(Config["~standard"].validate(raw)).toEqual(validateConfig(raw));
    expect(Config["~standard"].validate({ holographic: true })).toEqual({ value: { ...DEFAULT_CONFIG, holographic: true } });
  });

  it("reads volatile wrappers at any depth through their get()", () => {
    const raw = {
      enabled: new PrototypeVolatile(() => true),
      recall: new PrototypeVolatile(() => ({ topK: new PrototypeVolatile(() => 9) })),
      anchors: new PrototypeVolatile(() => [new PrototypeVolatile(() => "cite sources")]),
    };
    expect(Config["~standard"].validate(raw)).toEqual({
      value: { ...DEFAULT_CONFIG, enabled: true, recall: { ...DEFAULT_CONFIG.recall, topK: 9 }, anchors: ["cite sources"] },
    });
  });

  it("reports a bad value read through a wrapper at the wrapped field's path", () => {
    expect(Config["~standard"].validate({ recall: { topK: new PrototypeVolatile(() => 0) } })).toEqual({
      issues: [{ path: ["recall", "topK"], message: "must be an integer from 1 to 50 (got 0)" }],
    });
  });
});

describe("unwrapVolatile", () => {
  it("returns primitives, plain objects and lists with the same data", () => {
    expect(unwrapVolatile(3)).toBe(3);
    expect(unwrapVolatile(null)).toBeNull();
    expect(unwrapVolatile({ a: [1, { b: "c" }] })).toEqual({ a: [1, { b: "c" }] });
  });

  it("reads a wrapper nested in a list and in a wrapper", () => {
    const nested = new PrototypeVolatile(() => new PrototypeVolatile(() => ({ list: [new PrototypeVolatile(() => "x")] })));
    expect(unwrapVolatile(nested)).toEqual({ list: ["x"] });
  });

  // DSH's own wrapper (cosmokit `createVolatile`, 1.8.5 in test/dsh-host) is
  // `Object.freeze({ get: () => current, [Symbol.for("cosmokit.volatile.write")]: … })`: `get` is an own key.
  it("reads through a wrapper whose get() is an own property, as DSH's createVolatile builds it", () => {
    const createVolatileLike = <T>(value: T) => Object.freeze({ get: () => value, [Symbol.for("cosmokit.volatile.write")]: () => undefined });
    expect(unwrapVolatile({ enabled: createVolatileLike(true) })).toEqual({ enabled: true });
    expect(Config["~standard"].validate({ enabled: createVolatileLike(true) })).toEqual({ value: { ...DEFAULT_CONFIG, enabled: true } });
  });
});

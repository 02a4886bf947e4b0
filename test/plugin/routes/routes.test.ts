import { DEFAULT_CONFIG } from "../../../plugin/config";
import { registerRoutes } from "../../../plugin/routes/routes";
import { ExactWebServer, MemorySettings, memoriesRoute, NO_KEY, postJson, REEMBED, request, SETTINGS, STATUS, useRouteHarness } from "./route-server";

const harness = useRouteHarness();
let h: ReturnType<typeof harness>;
beforeEach(() => {
  h = harness();
});

describe("plugin routes: happy paths", () => {
  it("answers GET settings with the effective settings as no-store, nosniff JSON", async () => {
    const answer = await request(h.port, { path: SETTINGS });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ settings: DEFAULT_CONFIG, secrets: NO_KEY });
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("applies a POSTed settings change, answers the new settings and keeps them for the next GET", async () => {
    const expected = { ...DEFAULT_CONFIG, recall: { ...DEFAULT_CONFIG.recall, topK: 8 } };
    const answer = await postJson(h.port, SETTINGS, { settings: { recall: { topK: 8 } } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ settings: expected, secrets: NO_KEY });
    expect((await request(h.port, { path: SETTINGS })).body).toEqual({ settings: expected, secrets: NO_KEY });
  });

  it("replaces the per-scope retention limits with those POSTed, so a scope left out is removed, and keeps the result", async () => {
    const scopes = (body: any) => body.settings.privacy.retention.scopes;
    const first = await postJson(h.port, SETTINGS, { settings: { privacy: { retention: { maxAgeDays: 90, scopes: { "project:a": { maxAgeDays: 7 }, global: { maxMemories: 500 } } } } } });
    expect(scopes(first.body)).toEqual({ "project:a": { maxAgeDays: 7 }, global: { maxMemories: 500 } });
    const second = await postJson(h.port, SETTINGS, { settings: { privacy: { retention: { scopes: { global: { maxMemories: 400 } } } } } });
    expect(second.status).toBe(200);
    expect(second.body.settings.privacy.retention).toEqual({ maxAgeDays: 90, maxMemories: 0, scopes: { global: { maxMemories: 400 } } });
    expect(scopes((await request(h.port, { path: SETTINGS })).body)).toEqual({ global: { maxMemories: 400 } });
    expect(h.settings.saved.at(-1)!.overrides).toEqual({ privacy: { retention: { maxAgeDays: 90, scopes: { global: { maxMemories: 400 } } } } });
  });

  it("answers GET status with what status() returned", async () => {
    const answer = await request(h.port, { path: STATUS });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ records: 3, bridge: "running" });
    expect(h.calls).toEqual(["status"]);
  });

  it("starts re-embedding on POST with an empty object and answers 202 with what reembed() returned", async () => {
    const answer = await postJson(h.port, REEMBED, {});
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ started: true, total: 3 });
    expect(h.calls).toEqual(["reembed"]);
  });

  it("answers GET model with the local model's state, and starts its download on POST with an empty object (202)", async () => {
    expect((await request(h.port, { path: `${SETTINGS.replace("/settings", "/model")}` })).body).toEqual({ state: "not_downloaded" });
    const started = await postJson(h.port, SETTINGS.replace("/settings", "/model"), {});
    expect([started.status, started.body]).toEqual([202, { state: "checking" }]);
    const refused = await postJson(h.port, SETTINGS.replace("/settings", "/model"), { mirror: "https://evil.example/" });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "INVALID_FIELD", field: "mirror" });
    expect(h.calls).toEqual(["modelStatus", "modelDownload"]);
  });

  it("answers GET reembed with the progress of the re-embedding job", async () => {
    const answer = await request(h.port, { path: REEMBED });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ running: true, done: 1, total: 3 });
    expect(h.calls).toEqual(["reembedProgress"]);
  });
});

describe("plugin routes: secrets and lifecycle", () => {
  it("stores an API key write-only: answers only that it is set, never the key, and removes it on null", async () => {
    const set = await postJson(h.port, SETTINGS, { secrets: { embeddingApiKey: "sk-route-secret-77" } });
    expect(set.status).toBe(200);
    expect(set.body.secrets).toEqual({ embeddingApiKey: { set: true } });
    expect(set.text).not.toContain("sk-route-secret-77");
    expect(h.settings.embeddingApiKey()).toBe("sk-route-secret-77");
    expect(h.settings.saved.at(-1)).toEqual({ overrides: {}, secrets: { embeddingApiKey: "sk-route-secret-77" } });
    const read = await request(h.port, { path: SETTINGS });
    expect(read.body.secrets).toEqual({ embeddingApiKey: { set: true } });
    expect(read.text).not.toContain("sk-route-secret-77");

    const cleared = await postJson(h.port, SETTINGS, { secrets: { embeddingApiKey: null } });
    expect(cleared.body.secrets).toEqual({ embeddingApiKey: { set: false } });
    expect(h.settings.embeddingApiKey()).toBeUndefined();
  });

  it("refuses a malformed API key naming the field without echoing it, and keeps the settings and key as they were", async () => {
    await postJson(h.port, SETTINGS, { secrets: { embeddingApiKey: "sk-kept" } });
    const saves = h.settings.saved.length;
    const bad = await postJson(h.port, SETTINGS, { settings: { enabled: true }, secrets: { embeddingApiKey: "sk-with space-secret" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "INVALID_FIELD", field: "secrets.embeddingApiKey" });
    expect(bad.text).not.toContain("sk-with space-secret");
    expect(h.settings.embeddingApiKey()).toBe("sk-kept");
    expect(h.settings.effective().enabled).toBe(false);
    expect(h.settings.saved.length).toBe(saves);
  });

  it("answers a status holding an API key with [redacted] and never sends the key", async () => {
    h.script.status = async () => ({ embedding: { api_key: "sk-secret", apiKeyEnv: "DSH_DREAM_EMBEDDING_API_KEY" } });
    const answer = await request(h.port, { path: STATUS });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ embedding: { api_key: "[redacted]", apiKeyEnv: "DSH_DREAM_EMBEDDING_API_KEY" } });
    expect(answer.text).not.toContain("sk-secret");
    expect(JSON.stringify(answer.headers)).not.toContain("sk-secret");
  });

  it("removes every route with the one disposer, after which the paths answer 404", async () => {
    const memories = ["edit", "export", "forget", "get", "last-recall", "list", "quarantine", "release", "search", "stats"].map(memoriesRoute);
    expect([...h.web.routes.keys()].sort()).toEqual([...memories, SETTINGS.replace("/settings", "/model"), REEMBED, SETTINGS, STATUS]);
    h.dispose();
    expect(h.web.routes.size).toBe(0);
    expect((await request(h.port, { path: STATUS })).status).toBe(404);
    h.dispose();
    expect(h.web.routes.size).toBe(0);
  });

  it("leaves none of its routes behind when a path is already taken on the host", () => {
    const other = new ExactWebServer();
    other.register({ kind: "exact", path: STATUS, handler: () => undefined });
    const idle = async () => ({});
    const memories = { enabled: () => false, call: async <T>() => ({}) as T, newestRecall: () => undefined };
    const deps = { settings: new MemorySettings(), status: idle, reembed: idle, reembedProgress: idle, model: { status: () => ({}), download: () => ({}) }, memories };
    expect(() => registerRoutes(other, deps)).toThrow(`a route is already registered at exact ${STATUS}`);
    expect([...other.routes.keys()]).toEqual([STATUS]);
  });
});

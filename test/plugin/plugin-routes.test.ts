// The plugin's settings routes on DSH's real web server (from npm): saved settings apply live,
// survive a reload of the plugin, a bad value changes nothing, and no secret ever comes back.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { writeTinyModel } from "../embed/tiny-model";
import { OpenAiEmbeddingsServer } from "../fixtures/openai-embeddings-server";
import type { DshHost } from "./dsh-host-driver";
import { bridgeClient, bridgeRecords, closePluginHome, newPluginHome, waitFor, type PluginHome } from "./plugin-helpers";

const SECRET = "sk-test-secret-4242";

function request(port: number, method: string, route: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, method, path: route, headers: { host: `localhost:${port}`, ...(payload ? { "content-type": "application/json" } : {}) } },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, json: text === "" ? null : JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

describe("the plugin's settings routes on DSH's web server", () => {
  let home: PluginHome;
  let dataDir: string;
  let host: DshHost;

  beforeEach(() => {
    home = newPluginHome({ DSH_DREAM_EMBEDDING_API_KEY: SECRET });
    ({ dataDir, host } = home);
  });

  afterEach(() => closePluginHome(home));

  it("applies saved settings live, keeps them across a reload, refuses a bad one whole, and never returns the API key", async () => {
    const { webPort } = await host.boot({ enabled: false }, { webServer: true });
    const port = webPort!;
    const initial = await request(port, "GET", "/_dsh/holo-memory/settings");
    expect(initial.status).toBe(200);
    expect(initial.json.settings).toMatchObject({ enabled: false, holographic: false, embedding: { provider: "local", apiKeyEnv: "DSH_DREAM_EMBEDDING_API_KEY" } });
    await host.createAgent("s-1");
    const off = await host.turn("s-1", "记住我喜欢乌龙茶。", [{ text: "好的。" }]);
    expect(off.requests[0]!.tools).toEqual([]);
    // Looking at the settings page while memory is off starts no bridge.
    const idle = await request(port, "GET", "/_dsh/holo-memory/status");
    expect(idle.json.bridge).toEqual({ available: false, reason: `no bridge is running for ${dataDir} (long-term memory is off)` });
    expect(idle.json.plugin).toMatchObject({ enabled: false, last_recall: null });
    expect(fs.existsSync(path.join(dataDir, "bridge.json"))).toBe(false);

    const bad = await request(port, "POST", "/_dsh/holo-memory/settings", { settings: { enabled: true, embedding: { provider: "openai_compatible", model: "m", baseUrl: "ftp://example.com" } } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: "INVALID_FIELD", field: "embedding.baseUrl" });
    expect((await request(port, "GET", "/_dsh/holo-memory/settings")).json.settings).toEqual(initial.json.settings);
    expect(fs.existsSync(path.join(dataDir, "settings.json"))).toBe(false);

    const saved = await request(port, "POST", "/_dsh/holo-memory/settings", { settings: { enabled: true, holographic: true, embedding: { provider: "off" } } });
    expect(saved.status).toBe(200);
    expect(saved.json.settings).toMatchObject({ enabled: true, holographic: true, embedding: { provider: "off" } });
    const file = path.join(dataDir, "settings.json");
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ settings: { enabled: true, holographic: true, embedding: { provider: "off" } } });
    if (process.platform !== "win32") expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const on = await host.turn("s-1", "我最喜欢的茶是乌龙茶。", [{ text: "记住了。" }]);
    expect(on.requests[0]!.tools).toEqual(["holo_forget", "holo_receipt", "holo_remember", "holo_search", "holo_timeline"]);
    await waitFor(async () => bridgeRecords(await bridgeClient(dataDir)), (r) => r.length === 2);
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, "bridge-config.json"), "utf8")).embedding).toEqual({
      provider: "off",
      reembed_on_dimension_mismatch: true,
      api_key_env: "DSH_DREAM_EMBEDDING_API_KEY",
    });

    await host.send("disposePlugin");
    const reloaded = await host.send<{ webPort: number }>("load", { config: { enabled: false } });
    expect(reloaded.webPort).toBe(port);
    const after = await request(port, "GET", "/_dsh/holo-memory/settings");
    expect(after.json.settings).toMatchObject({ enabled: true, holographic: true });

    const status = await request(port, "GET", "/_dsh/holo-memory/status");
    expect(status.status).toBe(200);
    for (const response of [initial, idle, bad, saved, after, status]) expect(response.text).not.toContain(SECRET);
    expect(fs.readFileSync(file, "utf8")).not.toContain(SECRET);
    expect(fs.readFileSync(path.join(dataDir, "bridge-config.json"), "utf8")).not.toContain(SECRET);
  });

  it("restarts the bridge it started when a privacy setting is saved, so the next turn is stored under the new setting", async () => {
    const token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const { webPort } = await host.boot({ enabled: true, holographic: true, embedding: { provider: "off" } }, { webServer: true });
    await host.createAgent("s-p");
    await host.turn("s-p", `部署用的令牌是 ${token}。`, [{ text: "好的。" }]);
    const first = await bridgeClient(dataDir);
    const before = await first.call<Record<string, any>>("status", {});
    expect(before.privacy.redact_secrets).toBe(true);
    const redacted = await waitFor(() => bridgeRecords(first), (r) => r.length === 2);
    expect(redacted.map((r) => r.text).filter((text) => text.includes("[redacted: github-token]"))).toHaveLength(1);
    expect(JSON.stringify(redacted)).not.toContain(token);

    const saved = await request(webPort!, "POST", "/_dsh/holo-memory/settings", { settings: { privacy: { redactSecrets: false, retention: { scopes: { "project:demo": { maxAgeDays: 30 } } } } } });
    expect(saved.status).toBe(200);
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, "bridge-config.json"), "utf8")).privacy).toEqual({
      redactSecrets: false,
      retention: { maxAgeDays: 0, maxMemories: 0, scopes: { "project:demo": { maxAgeDays: 30 } } },
      audit: { keepQueryText: true, maxAgeDays: 0, maxMegabytes: 128 },
    });

    await host.turn("s-p", `再记一次：${token}`, [{ text: "记住了。" }]);
    const after = await waitFor(async () => (await bridgeClient(dataDir)).call<Record<string, any>>("status", {}), (s) => s.bridge.pid !== before.bridge.pid);
    expect(after.privacy.redact_secrets).toBe(false);
    const records = await waitFor(async () => bridgeRecords(await bridgeClient(dataDir)), (r) => r.length === 4);
    expect(records.slice(2).map((r) => r.text).filter((text) => text.includes(token))).toHaveLength(1);
  });

  it("starts re-embedding through the route and reports its progress until every memory has a vector", async () => {
    writeTinyModel(path.join(dataDir, "models"), "dream-test/tiny-bert-32", 32);
    const config = { enabled: true, holographic: true, embedding: { provider: "local", model: "dream-test/tiny-bert-32" }, recall: { timeBudgetMs: 8000 } };
    const { webPort } = await host.boot(config, { webServer: true });
    await host.createAgent("s-2");
    await host.turn("s-2", "我把护照放在抽屉里了。", [{ text: "好的，护照在抽屉里。" }]);

    const started = await request(webPort!, "POST", "/_dsh/holo-memory/reembed", {});
    expect(started.status).toBe(202);
    expect(started.json).toMatchObject({ provider: "local", model: "dream-test/tiny-bert-32", state: "ready" });
    const progress = await waitFor(
      () => request(webPort!, "GET", "/_dsh/holo-memory/reembed"),
      (r) => r.json?.embedding?.coverage?.records === 2 && r.json.embedding.coverage.current_vectors === 2,
    );
    expect(progress.json.embedding).toMatchObject({ state: "ready", dim: 32, coverage: { records: 2, current_vectors: 2, ratio: 1 } });
  });

  it("hands an API key saved from the settings page to the embedding provider, and keeps it out of every reply and the bridge's files", async () => {
    const saved = "sk-saved-from-panel-9031";
    const provider = await OpenAiEmbeddingsServer.start({ dims: 8, apiKey: saved, models: ["test-embed"] });
    try {
      const { webPort } = await host.boot({ enabled: true, holographic: true, recall: { timeBudgetMs: 8000 } }, { webServer: true });
      const port = webPort!;
      const answer = await request(port, "POST", "/_dsh/holo-memory/settings", {
        settings: { embedding: { provider: "openai_compatible", model: "test-embed", baseUrl: provider.baseUrl, apiKeyEnv: "PANEL_EMBED_KEY" } },
        secrets: { embeddingApiKey: saved },
      });
      expect(answer.status).toBe(200);
      expect(answer.json.secrets).toEqual({ embeddingApiKey: { set: true } });
      await host.createAgent("s-k");
      await host.turn("s-k", "我的护照号码不告诉你。", [{ text: "好的。" }]);
      const client = await bridgeClient(dataDir);
      const status = await waitFor(() => client.call<Record<string, any>>("status", {}), (s) => s.embedding.coverage.current_vectors === 2);
      expect(status.embedding).toMatchObject({ provider: "openai_compatible", model: "test-embed", state: "ready" });
      expect(provider.requests.length).toBeGreaterThan(0);
      expect(provider.requests.every((r) => r.auth === "matched")).toBe(true);

      const replies = [answer.text, (await request(port, "GET", "/_dsh/holo-memory/settings")).text, (await request(port, "GET", "/_dsh/holo-memory/status")).text];
      for (const text of replies) expect(text).not.toContain(saved);
      expect(JSON.stringify(status)).not.toContain(saved);
      for (const name of fs.readdirSync(dataDir)) {
        const file = path.join(dataDir, name);
        if (name === "settings.json" || !fs.statSync(file).isFile()) continue;
        expect(fs.readFileSync(file, "utf8")).not.toContain(saved);
      }
      expect(JSON.parse(fs.readFileSync(path.join(dataDir, "settings.json"), "utf8")).secrets).toEqual({ embeddingApiKey: saved });
    } finally {
      await provider.close();
    }
  });
});

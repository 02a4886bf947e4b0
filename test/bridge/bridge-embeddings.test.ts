// Embeddings end to end through the real bridge and its Chroma, with the openai_compatible provider
// against a local server speaking the OpenAI embeddings protocol.
import fs from "node:fs";
import path from "node:path";
import { ChromaCollections } from "../../bridge/chroma/chroma-collections";
import type { SearchResponse } from "../../bridge/store/search";
import { OpenAiEmbeddingsServer } from "../fixtures/openai-embeddings-server";
import { tempDir } from "../store/helpers";
import { serveBridge, waitForReplica, type ServedBridge } from "./bridge-process";

const KEY = "sk-test-SECRET-0123456789";
const ENV = { TEST_EMBED_KEY: KEY };

function configure(dataDir: string, embedding: Record<string, unknown>): void {
  fs.writeFileSync(path.join(dataDir, "bridge-config.json"), JSON.stringify({ embedding: { provider: "openai_compatible", api_key_env: "TEST_EMBED_KEY", ...embedding } }));
}

async function waitForEmbeddings(bridge: ServedBridge, timeoutMs = 60_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await bridge.client.call<Record<string, any>>("status", {});
    if (status.embedding.backlog === 0) return status;
    if (Date.now() > deadline) throw new Error(`embedding did not finish: ${JSON.stringify(status.embedding)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(bridge: ServedBridge): Promise<void> {
  if (bridge.child.exitCode !== null || bridge.child.signalCode !== null) return;
  await bridge.client.call("shutdown", {});
  await bridge.exited;
}

const memory = (i: number) => ({
  id: `e-${i}`,
  text: i % 2 ? `the garden tomatoes number ${i}` : `花园里的番茄 第${i}个`,
  source_type: "user_message",
  timestamp_ms: 1_700_000_000_000 + i,
  metadata: { n: i },
  tags: [`t${i % 3}`],
});

describe("embeddings through the bridge", () => {
  let server: OpenAiEmbeddingsServer;
  beforeAll(async () => {
    server = await OpenAiEmbeddingsServer.start({ dims: 8, apiKey: KEY, models: ["test-embed", "test-embed-12", "test-embed-b"] });
  });
  afterAll(async () => server.close());
  beforeEach(() => {
    server.dims = 8;
  });

  it("embeds every memory off the request path, recalls dense + FTS, mirrors vectors to Chroma, and never leaks the key", async () => {
    const dataDir = tempDir("embed-");
    configure(dataDir, { model: "test-embed", base_url: server.baseUrl });
    const bridge = await serveBridge(dataDir, [], ENV);
    try {
      await bridge.client.call("import", { records: Array.from({ length: 40 }, (_, i) => memory(i)) });
      const status = await waitForEmbeddings(bridge);
      expect(status.embedding).toMatchObject({ provider: "openai_compatible", model: "test-embed", state: "ready", dim: 8, coverage: { records: 40, current_vectors: 40, ratio: 1 } });
      const { results, receipt } = await bridge.client.call<SearchResponse>("search", { query: "garden tomatoes", top_k: 5 });
      expect(results.length).toBeGreaterThan(0);
      expect(receipt.recall).toBe("Recall: dense + FTS");
      expect(receipt.dense).toMatchObject({ provider: "openai_compatible", model: "test-embed", dim: 8, model_digest: null, config_hash: expect.stringMatching(/^sha256:/) });
      expect(receipt.candidates.some((c) => c.dense_rank !== null)).toBe(true);
      expect(receipt.embedder).toEqual({ state: "ready", coverage: { records: 40, current_vectors: 40, ratio: 1 } });
      const replica = await waitForReplica(bridge.client);
      const chroma = new ChromaCollections({ url: replica.chroma.url });
      expect(await chroma.count(replica.chroma.collections[0].name)).toBe(40);
      for (const file of ["bridge.log", "audit.jsonl", "journal.jsonl"]) expect(fs.readFileSync(path.join(dataDir, file), "utf8")).not.toContain(KEY);
      expect(JSON.stringify(status)).not.toContain(KEY);
    } finally {
      await stop(bridge);
    }
  });

  it("falls back to lexical recall with provider_error when the provider fails, and keeps answering", async () => {
    const failing = await OpenAiEmbeddingsServer.start({ dims: 8, apiKey: KEY, models: ["test-embed"] });
    const dataDir = tempDir("embed-err-");
    configure(dataDir, { model: "test-embed", base_url: failing.baseUrl });
    const bridge = await serveBridge(dataDir, [], ENV);
    try {
      await bridge.client.call("add", memory(1));
      await waitForEmbeddings(bridge);
      failing.failNext(20, 500);
      const { results, receipt } = await bridge.client.call<SearchResponse>("search", { query: "garden tomatoes" });
      expect(results.map((r) => r.id)).toEqual(["e-1"]);
      expect(receipt.fallback_reason).toBe("provider_error");
      expect(receipt.recall).toContain("Recall: FTS fallback (provider error");
    } finally {
      await stop(bridge);
      await failing.close();
    }
  });

  it("refuses a dimension change when lossless re-embedding is off, keeps lexical recall, and changes nothing", async () => {
    const dataDir = tempDir("embed-refuse-");
    configure(dataDir, { model: "test-embed", base_url: server.baseUrl });
    let bridge = await serveBridge(dataDir, [], ENV);
    try {
      await bridge.client.call("import", { records: Array.from({ length: 10 }, (_, i) => memory(i)) });
      await waitForEmbeddings(bridge);
    } finally {
      await stop(bridge);
    }
    const journalBefore = fs.readFileSync(path.join(dataDir, "journal.jsonl"));

    server.dims = 12;
    configure(dataDir, { model: "test-embed-12", base_url: server.baseUrl, reembed_on_dimension_mismatch: false });
    bridge = await serveBridge(dataDir, [], ENV);
    try {
      const status = await bridge.client.call<Record<string, any>>("status", {});
      expect(status.embedding.state).toBe("refused");
      expect(status.embedding.message).toContain("On dimension mismatch, try lossless re-embedding");
      await expect(bridge.client.call("reembed", {})).rejects.toMatchObject({ code: "REEMBED_REFUSED" });
      const { receipt } = await bridge.client.call<SearchResponse>("search", { query: "garden" });
      expect(receipt.fallback_reason).toBe("index_not_current");
      expect(receipt.embedder).toEqual({ state: "refused", coverage: { records: 10, current_vectors: 0, ratio: 0 } });
      expect(receipt.retrieved_chunk_ids.length).toBeGreaterThan(0);
      expect(fs.readFileSync(path.join(dataDir, "journal.jsonl")).equals(journalBefore)).toBe(true);
    } finally {
      await stop(bridge);
    }
  });

  it("re-embeds stale vectors when the model changes with the same dimension, and drops the old ones", async () => {
    const dataDir = tempDir("embed-same-dim-");
    configure(dataDir, { model: "test-embed", base_url: server.baseUrl });
    let bridge = await serveBridge(dataDir, [], ENV);
    try {
      await bridge.client.call("import", { records: Array.from({ length: 20 }, (_, i) => memory(i)) });
      await waitForEmbeddings(bridge);
    } finally {
      await stop(bridge);
    }
    configure(dataDir, { model: "test-embed-b", base_url: server.baseUrl });
    bridge = await serveBridge(dataDir, [], ENV);
    try {
      const status = await waitForEmbeddings(bridge);
      expect(status.embedding).toMatchObject({ model: "test-embed-b", coverage: { current_vectors: 20 } });
      const deadline = Date.now() + 10_000;
      let spaces = status.chroma.collections;
      while (spaces.length !== 1 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        spaces = (await bridge.client.call<Record<string, any>>("status", {})).chroma.collections;
      }
      expect(spaces.map((s: { model: string }) => s.model)).toEqual(["test-embed-b"]);
    } finally {
      await stop(bridge);
    }
  });
});

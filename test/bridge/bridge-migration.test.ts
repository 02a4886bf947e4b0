// Switching embedding models: the local provider (real transformers.js on generated tiny models)
// through the bridge, and a 10,000-memory dimension migration that survives kill -9 and loses nothing, nor
// brings the superseded collection back when the replica is rebuilt from the journal.
import fs from "node:fs";
import path from "node:path";
import { ChromaCollections } from "../../bridge/chroma/chroma-collections";
import { exportPages } from "../../bridge/client/export-pages";
import type { SearchResponse } from "../../bridge/store/search";
import { writeTinyModel } from "../embed/tiny-model";
import { OpenAiEmbeddingsServer } from "../fixtures/openai-embeddings-server";
import { tempDir } from "../store/helpers";
import { serveBridge, type ServedBridge } from "./bridge-process";

async function statusOf(bridge: ServedBridge): Promise<Record<string, any>> {
  return bridge.client.call<Record<string, any>>("status", {});
}

async function until(bridge: ServedBridge, done: (status: Record<string, any>) => boolean, timeoutMs = 120_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await statusOf(bridge);
    if (done(status)) return status;
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(status.embedding)} ${JSON.stringify(status.chroma)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stop(bridge: ServedBridge): Promise<void> {
  if (bridge.child.exitCode !== null || bridge.child.signalCode !== null) return;
  await bridge.client.call("shutdown", {});
  await bridge.exited;
}

async function exportAll(bridge: ServedBridge): Promise<string[]> {
  const lines: string[] = [];
  for await (const records of exportPages(bridge.client)) lines.push(...records.map((r) => JSON.stringify(r)));
  return lines;
}

describe("embedding model changes through the bridge", () => {
  it("recalls dense + FTS with the local provider and migrates to a model of another dimension", async () => {
    const dataDir = tempDir("local-embed-");
    const modelDir = path.join(dataDir, "models");
    writeTinyModel(modelDir, "test/tiny-32", 32, 1);
    writeTinyModel(modelDir, "test/tiny-48", 48, 2);
    const configure = (model: string) =>
      fs.writeFileSync(path.join(dataDir, "bridge-config.json"), JSON.stringify({ embedding: { provider: "local", model, model_dir: "models" } }));
    configure("test/tiny-32");
    let bridge = await serveBridge(dataDir);
    try {
      await bridge.client.call("import", {
        records: ["今天逛街买了一个蓝色马克杯", "the key is in the flower pot", "我们讨论了向量数据库", "weekly team meeting notes"].map((text, i) => ({
          id: `l-${i}`,
          text,
          source_type: "user_message",
          timestamp_ms: i,
        })),
      });
      const ready = await until(bridge, (s) => s.embedding.backlog === 0);
      expect(ready.embedding).toMatchObject({ provider: "local", model: "test/tiny-32", dim: 32, model_digest: expect.stringMatching(/^sha256:/) });
      const { receipt } = await bridge.client.call<SearchResponse>("search", { query: "蓝色马克杯" });
      expect(receipt.recall).toBe("Recall: dense + FTS");
      expect(receipt.dense).toMatchObject({ provider: "local", model: "test/tiny-32", dim: 32, model_digest: ready.embedding.model_digest });
    } finally {
      await stop(bridge);
    }
    configure("test/tiny-48");
    bridge = await serveBridge(dataDir);
    try {
      const migrated = await until(bridge, (s) => s.embedding.backlog === 0 && s.chroma.collections.length === 1);
      expect(migrated.embedding).toMatchObject({ model: "test/tiny-48", dim: 48, coverage: { records: 4, current_vectors: 4 } });
      expect(migrated.chroma.collections).toEqual([expect.objectContaining({ model: "test/tiny-48", dim: 48, vectors: 4 })]);
      expect((await bridge.client.call<SearchResponse>("search", { query: "flower pot" })).receipt.dense).toMatchObject({ dim: 48 });
    } finally {
      await stop(bridge);
    }
  });

  it("migrates 10,000 memories to a new dimension losslessly across a kill -9 in the middle", async () => {
    const server = await OpenAiEmbeddingsServer.start({ dims: 8, models: ["old-8", "new-16"] });
    const dataDir = tempDir("migrate-");
    const configure = (model: string) =>
      fs.writeFileSync(path.join(dataDir, "bridge-config.json"), JSON.stringify({ embedding: { provider: "openai_compatible", model, base_url: server.baseUrl } }));
    try {
      configure("old-8");
      let bridge = await serveBridge(dataDir);
      let before: string[];
      try {
        for (let start = 0; start < 10_000; start += 5000) {
          const records = Array.from({ length: 5000 }, (_, k) => {
            const i = start + k;
            return { id: `mig-${i}`, text: `memory ${i} 记忆 ${i % 101}`, source_type: i % 4 ? "user_message" : "assistant_message", timestamp_ms: 1_600_000_000_000 + i * 1000, metadata: { i, tag: `g${i % 7}` }, tags: [`t${i % 5}`] };
          });
          await bridge.client.call("import", { records });
        }
        await until(bridge, (s) => s.embedding.backlog === 0);
        before = await exportAll(bridge);
      } finally {
        await stop(bridge);
      }

      server.dims = 16;
      configure("new-16");
      // Past the first 3,000 new vectors each answer (32 inputs) waits 200 ms: the rest would take 44 s or
      // more, so the polls see the migration midway however fast or loaded the machine is.
      server.slowDownAfter(3000, 200);
      bridge = await serveBridge(dataDir);
      // Killed whatever the assertions find: a bridge left running holds a child process in this jest
      // worker, which the next test file there (chroma-process) counts as its own.
      try {
        const midway = await until(bridge, (s) => s.embedding.coverage.current_vectors >= 3000);
        expect(midway.embedding.backlog).toBeGreaterThan(0);
        const during = await bridge.client.call<SearchResponse>("search", { query: "memory 42" });
        expect(during.receipt.fallback_reason).toBe("index_not_current");
      } finally {
        bridge.child.kill("SIGKILL");
        await bridge.exited;
      }
      server.delayMs = 0;

      bridge = await serveBridge(dataDir);
      try {
        const resumed = await statusOf(bridge);
        expect(resumed.embedding.coverage.current_vectors).toBeGreaterThanOrEqual(3000);
        const done = await until(bridge, (s) => s.embedding.backlog === 0 && s.chroma.collections.length === 1 && s.chroma.pending_bytes === 0);
        expect(done.records).toBe(10_000);
        expect(done.chroma.collections).toEqual([expect.objectContaining({ model: "new-16", dim: 16, vectors: 10_000, chroma_rows: 10_000 })]);
        expect(await exportAll(bridge)).toEqual(before);
        expect((await bridge.client.call<SearchResponse>("search", { query: "memory 42" })).receipt.recall).toBe("Recall: dense + FTS");
      } finally {
        await stop(bridge);
      }

      // A replica rebuilt from the journal (removed here, as after a crash loop) holds the new space only:
      // the journal still has the old vectors' adds, and the drop after them.
      fs.rmSync(path.join(dataDir, "chroma"), { recursive: true, force: true });
      fs.rmSync(path.join(dataDir, "chroma-sync.json"), { force: true });
      bridge = await serveBridge(dataDir);
      try {
        const rebuilt = await until(bridge, (s) => s.chroma.healthy === true && s.chroma.pending_bytes === 0 && s.chroma.collections.length > 0);
        expect(rebuilt.chroma.collections).toEqual([expect.objectContaining({ model: "new-16", dim: 16, vectors: 10_000, chroma_rows: 10_000 })]);
        expect(await new ChromaCollections({ url: rebuilt.chroma.url }).listCollections()).toEqual([rebuilt.chroma.collections[0].name]);
      } finally {
        await stop(bridge);
      }
    } finally {
      await server.close();
    }
    // 10,000 imports, a migration and Chroma's catch-up: beside other suites on a loaded machine, over a minute.
  }, 180_000);
});

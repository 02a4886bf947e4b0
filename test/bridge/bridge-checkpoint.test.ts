// The bridge's own checkpoints (issue 18, item 4): at a quiet moment once the journal grew, written in
// slices between requests; the second rewrites only what changed; a restart opens from the newest one.
import fs from "node:fs";
import path from "node:path";
import { BridgeClient } from "../../bridge/client/bridge-client";
import { defaultEmbeddingConfig } from "../../bridge/embed/embedding-config";
import { DEFAULT_SEARCH, defaultPrivacy } from "../../bridge/server/bridge-config";
import { startBridge } from "../../bridge/server/daemon";
import { tempDir } from "../store/helpers";

const until = async (condition: () => boolean): Promise<void> => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
};

describe("the bridge's checkpoints", () => {
  it("writes one in the background once the journal grew, then only the changed segments, and starts from the newest", async () => {
    const dataDir = tempDir("bridge-ckpt-");
    const start = () =>
      startBridge({
        dataDir,
        config: { chroma: { mode: "off" }, embedding: { ...defaultEmbeddingConfig(dataDir), provider: "off" }, privacy: defaultPrivacy(), search: { ...DEFAULT_SEARCH } },
        version: "test",
        env: {},
        housekeeping: { checkEveryMs: 50, quietMs: 100, checkpointAfterBytes: 1 },
      });
    const log = () => (fs.existsSync(path.join(dataDir, "bridge.log")) ? fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8") : "");
    const checkpoints = () => [...log().matchAll(/checkpoint at journal offset (\d+) \((\d+) parts written, (\d+) kept\)/g)].map((m) => m.slice(1).map(Number));

    const bridge = await start();
    let offset = 0;
    try {
      const client = BridgeClient.fromDataDir(dataDir);
      const records = Array.from({ length: 50 }, (_, i) => ({ id: `m-${i}`, text: `memory ${i} about the garden and the keys`, source_type: "user_message" }));
      await client.call("import", { records });
      await until(() => checkpoints().length === 1);
      const [[firstOffset, written, kept]] = checkpoints();
      expect({ written, kept }).toEqual({ written: 3, kept: 0 });

      await client.call("add", { id: "late", text: "the umbrella is in the hallway", source_type: "user_message" });
      await until(() => checkpoints().length === 2);
      const [, [secondOffset, writtenAgain, keptAgain]] = checkpoints();
      expect(secondOffset).toBeGreaterThan(firstOffset);
      // One segment of 51 docs changed; the BM25 snapshot is kept (one doc past it).
      expect({ writtenAgain, keptAgain }).toEqual({ writtenAgain: 2, keptAgain: 1 });
      offset = secondOffset;
      expect(log()).not.toMatch(/checkpoint (failed|given up)/);
    } finally {
      await bridge.stop("test over");
    }

    const again = await start();
    try {
      const status = await BridgeClient.fromDataDir(dataDir).call<{ records: number; checkpoint: Record<string, unknown> }>("status");
      expect(status.records).toBe(51);
      expect(status.checkpoint).toMatchObject({ used: true, offset, entries_replayed_after: 0 });
      // The log says how each start opened the store: the first from nothing, this one from the checkpoint.
      const opens = [...log().matchAll(/store opened in \d+ ms: (.*)/g)].map((m) => m[1]);
      expect(opens).toEqual(["0 memories, the whole journal replayed (no checkpoint)", "51 memories, from the checkpoint and 0 journal entries after it"]);
    } finally {
      await again.stop("test over");
    }
  }, 60_000);

  it("writes one when the ANN lists were built after the newest checkpoint, though the journal did not grow", async () => {
    const dataDir = tempDir("bridge-ckpt-lists-");
    const start = (flatMaxRecords: number) =>
      startBridge({
        dataDir,
        config: { chroma: { mode: "off" }, embedding: { ...defaultEmbeddingConfig(dataDir), provider: "off" }, privacy: defaultPrivacy(), search: { ...DEFAULT_SEARCH, flatMaxRecords } },
        version: "test",
        env: {},
        housekeeping: { checkEveryMs: 50, quietMs: 100, checkpointAfterBytes: 1 },
      });
    const log = () => (fs.existsSync(path.join(dataDir, "bridge.log")) ? fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8") : "");
    const checkpoints = () => [...log().matchAll(/checkpoint at journal offset (\d+) \((\d+) parts written, (\d+) kept\)/g)].map((m) => m.slice(1).map(Number));
    type Index = { mode: string; lists?: number };
    const indexOf = (client: BridgeClient) => client.call<{ vectors: Array<{ index: Index }> }>("status").then((status) => status.vectors[0].index);

    // Exact at first: the checkpoint written after the import holds no lists.
    let bridge = await start(1_000_000);
    try {
      const client = BridgeClient.fromDataDir(dataDir);
      const records = Array.from({ length: 600 }, (_, i) => ({
        id: `v-${i}`,
        text: `memory ${i}`,
        source_type: "user_message",
        embedding: { provider: "test", model: "unit-8", vector: Array.from({ length: 8 }, (_, d) => Math.sin(i * (d + 1))) },
      }));
      await client.call("import", { records });
      await until(() => checkpoints().length === 1);
      expect(await indexOf(client)).toMatchObject({ mode: "flat" });
    } finally {
      await bridge.stop("test over");
    }
    const [[offset]] = checkpoints();

    // Over a lower limit, the lists are built after the open; then the lists part alone is written.
    bridge = await start(100);
    let lists: number | undefined;
    try {
      const client = BridgeClient.fromDataDir(dataDir);
      let index = await indexOf(client);
      while (index.mode !== "ivf") [index] = await Promise.all([indexOf(client), new Promise((resolve) => setTimeout(resolve, 50))]);
      lists = index.lists;
      // Bounded: without it, no checkpoint would come (the journal did not grow) until the stop's.
      const deadline = Date.now() + 20_000;
      await until(() => checkpoints().length === 2 || Date.now() > deadline);
      expect(checkpoints()[1]).toEqual([offset, 1, expect.any(Number)]);
    } finally {
      await bridge.stop("test over");
    }

    // The next start answers from those lists at once.
    bridge = await start(100);
    try {
      expect(await indexOf(BridgeClient.fromDataDir(dataDir))).toEqual(expect.objectContaining({ mode: "ivf", lists }));
      expect(checkpoints()).toHaveLength(2);
    } finally {
      await bridge.stop("test over");
    }
  }, 60_000);
});

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
});

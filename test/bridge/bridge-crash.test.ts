// kill -9 of the bridge in the middle of a 10,000-record import: nothing acknowledged is lost,
// nothing is duplicated, and the Chroma replica converges to exactly the journal's records.
import { ChromaCollections } from "../../bridge/chroma/chroma-collections";
import type { ImportReport } from "../../bridge/store/memory-store";
import { tempDir } from "../store/helpers";
import { serveBridge, waitForReplica } from "./bridge-process";

const BATCH = 250;
const TOTAL = 10_000;

const record = (i: number) => ({
  id: `imp-${i}`,
  text: `imported memory ${i} 导入的记忆 ${i % 97}`,
  source_type: "user_message",
  timestamp_ms: 1_700_000_000_000 + i,
  embedding: { provider: "test", model: "tiny-3", vector: [1 + (i % 5), (i % 11) / 11, (i % 3) - 1] },
});

describe("kill -9 of the bridge during an import", () => {
  it("keeps every acknowledged record exactly once, in the store and in Chroma", async () => {
    const dataDir = tempDir("bridge-crash-");
    const bridge = await serveBridge(dataDir);
    const acknowledged: string[] = [];
    let batches = 0;
    try {
      for (let start = 0; start < TOTAL; start += BATCH) {
        const records = Array.from({ length: BATCH }, (_, i) => record(start + i));
        if (++batches === 17) setTimeout(() => bridge.child.kill("SIGKILL"), 5);
        const report = await bridge.client.call<ImportReport>("import", { records });
        expect(report.added + report.unchanged).toBe(BATCH);
        acknowledged.push(...records.map((r) => r.id));
      }
    } catch (error) {
      expect((error as { code?: string }).code).toBe("BRIDGE_UNAVAILABLE");
    }
    await bridge.exited;
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(acknowledged.length).toBeLessThan(TOTAL);

    const restarted = await serveBridge(dataDir);
    try {
      for (const id of acknowledged) {
        await expect(restarted.client.call("get", { id })).resolves.toMatchObject({ record: { id } });
      }
      // Re-running the whole import after the crash must not duplicate anything.
      for (let start = 0; start < TOTAL; start += 5000) {
        await restarted.client.call("import", { records: Array.from({ length: 5000 }, (_, i) => record(start + i)) });
      }
      const status = await waitForReplica(restarted.client, 120_000);
      expect(status.records).toBe(TOTAL);
      const chroma = new ChromaCollections({ url: status.chroma.url });
      expect(await chroma.count(chroma.collectionName({ provider: "test", model: "tiny-3", dim: 3 }))).toBe(TOTAL);
    } finally {
      await restarted.client.call("shutdown", {});
      await restarted.exited;
    }
  });
});

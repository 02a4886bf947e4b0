// Issue 18 item 1 in the store: the approximate index is built in the background once a space passes
// flat_max_records, the receipt says which index answered, and forgetting brings it back to exact.
import fs from "node:fs";
import path from "node:path";
import { parseBridgeConfig } from "../../bridge/server/bridge-config";
import { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { seededRandom } from "../fixtures/seeded-random";
import { tempDir } from "./helpers";

const DIM = 16;
const emb = (vector: number[]) => ({ provider: "test", model: "clustered-16d", vector });

function clustered(count: number, seed: number): number[][] {
  const random = seededRandom(seed);
  const centres = Array.from({ length: 12 }, () => Array.from({ length: DIM }, () => random() * 2 - 1));
  return Array.from({ length: count }, (_, i) => centres[i % 12].map((c) => c + 0.1 * (random() - 0.5)));
}

interface SpaceStatus {
  vectors: number;
  index: { mode: string; lists?: number; recallEstimate?: number; flatMaxRecords: number };
}

function space(store: MemoryStore): SpaceStatus {
  return (store.status().vectors as SpaceStatus[])[0];
}

/** Lets the store's background slices run until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

function denseIndexOf(store: MemoryStore, vector: number[]) {
  return store.search(parseSearchRequest({ query: "where is it", top_k: 3, query_embedding: emb(vector) })).receipt.dense!.index;
}

describe("the approximate index in the store", () => {
  it("builds in the background above flat_max_records, says so in receipts, and is kept in checkpoints", async () => {
    const dataDir = tempDir("dense-ann-");
    const vectors = clustered(4_000, 1);
    const store = MemoryStore.open({ dataDir, vectorIndex: { flatMaxRecords: 3_000 } });
    let built!: SpaceStatus["index"];
    try {
      store.importRecords(vectors.map((vector, i) => ({ id: `m${i}`, text: `memory number ${i}`, source_type: "user_message", embedding: emb(vector) })));
      await until(() => space(store).index.mode === "ivf");
      built = space(store).index;
      // A checkpoint borrows the index's array for the lists part and gives it back: the next fills the same.
      const dense = store.vectors.list()[0].index;
      const lent = dense.lendLists()!;
      lent.release();
      store.checkpoint();
      const again = dense.lendLists()!;
      expect(again.image.listOf.buffer).toBe(lent.image.listOf.buffer);
      again.release();
      expect(space(store)).toMatchObject({ vectors: 4_000, index: { mode: "ivf", flatMaxRecords: 3_000 } });
      const index = denseIndexOf(store, vectors[5]);
      expect(index).toMatchObject({ kind: "ivf", lists: space(store).index.lists, recall_estimate: space(store).index.recallEstimate });
      // The dense retriever asks for 50 candidates and gathers at least 64 docs for each.
      expect(index!.scanned).toBeGreaterThanOrEqual(3_200);
      expect(index!.scanned).toBeLessThan(4_000);

      // Forgetting 1,001 memories brings the space to 2,999 vectors: exact again, at once.
      for (let i = 0; i < 1_001; i++) store.forget(`m${i}`);
      expect(denseIndexOf(store, vectors[2_000])).toEqual({ kind: "flat", scanned: 2_999 });
      store.checkpoint();
      // After the checkpoint: in the journal's tail only.
      store.add({ id: "late", text: "a memory after the checkpoint", source_type: "user_message", embedding: emb(vectors[3_999].map((x) => -x)) });
    } finally {
      store.close();
    }

    // The lists are in the checkpoint: a reopened store over the limit answers from them at once.
    const reopened = MemoryStore.open({ dataDir, vectorIndex: { flatMaxRecords: 2_500 } });
    try {
      expect(space(reopened).index).toMatchObject({ mode: "ivf", lists: built.lists, recallEstimate: built.recallEstimate });
      expect(reopened.maintainVectorIndexes()).toBe(false);
      expect(denseIndexOf(reopened, vectors[2_000])!.kind).toBe("ivf");
      const late = reopened.searchVector({ ...emb([]), vector: Float32Array.from(vectors[3_999], (x) => -x) }, 1);
      expect(late[0].id).toBe("late");
      expect(reopened.vectors.list()[0].index.lastSearch.index).toBe("ivf");
    } finally {
      reopened.close();
    }

    // A damaged lists part fails its checksum: the checkpoint is not used, and the lists are rebuilt.
    const listsPart = fs.readdirSync(path.join(dataDir, "checkpoint")).find((name) => name.includes(".lists-"))!;
    const bytes = fs.readFileSync(path.join(dataDir, "checkpoint", listsPart));
    bytes[bytes.length - 1] ^= 1;
    fs.writeFileSync(path.join(dataDir, "checkpoint", listsPart), bytes);
    const damaged = MemoryStore.open({ dataDir, vectorIndex: { flatMaxRecords: 2_500 } });
    try {
      expect(damaged.status().checkpoint).toMatchObject({ used: false });
      expect(space(damaged).index.mode).toBe("building");
      expect(damaged.size).toBe(3_000);
      await until(() => space(damaged).index.mode === "ivf");
    } finally {
      damaged.close();
    }
  });

  it("checkpoints lists built after the newest checkpoint, so that a restart does not build them again", async () => {
    // A store opened by replaying its whole journal writes its first checkpoint while the lists are still being
    // built; with no journal growth after, every restart used to build them again.
    const dataDir = tempDir("dense-ann-later-");
    const vectors = clustered(4_000, 4);
    const store = MemoryStore.open({ dataDir, vectorIndex: { flatMaxRecords: 3_000 } });
    let built!: SpaceStatus["index"];
    try {
      store.importRecords(vectors.map((vector, i) => ({ id: `m${i}`, text: `memory number ${i}`, source_type: "user_message", embedding: emb(vector) })));
      expect(space(store).index.mode).toBe("building");
      expect(store.checkpoint()).toMatchObject({ parts_reused: 0 });
      expect(store.checkpointLacksLists).toBe(false); // no lists yet: nothing to hold
      await until(() => space(store).index.mode === "ivf");
      built = space(store).index;
      expect(store.checkpointLacksLists).toBe(true);
      expect(store.journalBytesSinceCheckpoint).toBe(0);
      // Only the lists part is new: every segment is kept.
      const written = store.checkpoint();
      expect(written).not.toHaveProperty("unchanged");
      expect(written).toMatchObject({ parts_written: 1 });
      expect(store.checkpointLacksLists).toBe(false);
      expect(store.checkpoint()).toHaveProperty("unchanged", true);
      // Lists kept current by a later add are the same lists: the add's journal entry carries it.
      store.add({ id: "late", text: "a memory after the lists", source_type: "user_message", embedding: emb(vectors[7]) });
      expect(store.checkpointLacksLists).toBe(false);
    } finally {
      store.close();
    }
    const reopened = MemoryStore.open({ dataDir, vectorIndex: { flatMaxRecords: 3_000 } });
    try {
      expect(space(reopened).index).toMatchObject({ mode: "ivf", lists: built.lists, recallEstimate: built.recallEstimate });
      expect(reopened.maintainVectorIndexes()).toBe(false);
      expect(reopened.checkpointLacksLists).toBe(false);
    } finally {
      reopened.close();
    }
  });

  it("withholds a quarantined memory and keeps other projects out when the lists answer", async () => {
    const vectors = clustered(4_000, 3);
    const store = MemoryStore.open({ dataDir: tempDir("dense-ann-filters-"), vectorIndex: { flatMaxRecords: 3_000 } });
    try {
      store.importRecords(vectors.map((vector, i) => ({ id: `f${i}`, text: `note ${i}`, source_type: "user_message", scope: i % 10 === 0 ? "project:x" : i % 10 === 1 ? "project:y" : "global", embedding: emb(vector) })));
      await until(() => space(store).index.mode === "ivf");
      store.quarantine("f120", "test: looks wrong");
      const hybrid = (vector: number[], scope?: string) => store.search(parseSearchRequest({ query: "zzz", top_k: 5, query_embedding: emb(vector), ...(scope ? { scope } : {}) }));
      const all = hybrid(vectors[120]);
      expect(all.receipt.dense!.index!.kind).toBe("ivf");
      // Found by meaning, then withheld: quarantine is applied after retrieval, whichever index answered.
      expect(all.receipt.candidates.map((c) => c.id)).toContain("f120");
      expect(all.results.map((r) => r.id)).not.toContain("f120");
      expect(all.receipt.withheld).toContainEqual(expect.objectContaining({ id: "f120" }));
      // Asked from project:x with project:y's own vector: project:x and global memories only.
      const scoped = hybrid(vectors[121], "project:x");
      expect(scoped.receipt.dense!.index!.kind).toBe("ivf");
      expect(scoped.results.length).toBeGreaterThan(0);
      expect(scoped.receipt.candidates.filter((c) => Number(c.id.slice(1)) % 10 === 1)).toEqual([]);
      // Unscoped, the same query finds f121 itself first by meaning.
      expect(hybrid(vectors[121]).receipt.candidates.find((c) => c.dense_rank === 1)?.id).toBe("f121");
    } finally {
      store.close();
    }
  });

  it("stops building when closed and keeps nothing running", async () => {
    const records = clustered(3_000, 2).map((vector, i) => ({ id: `c${i}`, text: `memory ${i}`, source_type: "user_message" as const, embedding: emb(vector) }));
    // Two stores with a build to do: one with a fifth of the work is closed at once, the other runs as a
    // yardstick (left running, the small build would be done long before the large one).
    const closed = MemoryStore.open({ dataDir: tempDir("dense-ann-close-"), vectorIndex: { flatMaxRecords: 10 } });
    const running = MemoryStore.open({ dataDir: tempDir("dense-ann-open-"), vectorIndex: { flatMaxRecords: 10 } });
    try {
      closed.importRecords(records.slice(0, 600));
      running.importRecords(records);
      expect(space(closed).index.mode).toBe("building");
      closed.close();
      await until(() => space(running).index.mode === "ivf");
      // As long as the open store's whole build took, and the closed one did not move.
      expect(space(closed).index.mode).toBe("building");
    } finally {
      running.close();
    }
  });
});

describe("search settings in bridge-config.json", () => {
  it("defaults to 200,000 exact and a 0.98 recall target, and takes both", () => {
    expect(parseBridgeConfig({}, "bridge-config.json", "/data").search).toEqual({ flatMaxRecords: 200_000, annRecallTarget: 0.98 });
    expect(parseBridgeConfig({ search: { flatMaxRecords: 50_000, annRecallTarget: 0.99 } }, "bridge-config.json", "/data").search).toEqual({ flatMaxRecords: 50_000, annRecallTarget: 0.99 });
  });

  it("names the field and the fix for a bad value", () => {
    expect(() => parseBridgeConfig({ search: { flatMaxRecords: "lots" } }, "bridge-config.json", "/data")).toThrow(/search\.flatMaxRecords must be a whole number from 0 to 100000000; up to this many vectors are searched exactly/);
    expect(() => parseBridgeConfig({ search: { annRecallTarget: 2 } }, "bridge-config.json", "/data")).toThrow(/search\.annRecallTarget must be a number from 0\.5 to 1/);
    expect(() => parseBridgeConfig({ search: { flatMax: 1 } }, "bridge-config.json", "/data")).toThrow(/search\.flatMax/);
  });
});

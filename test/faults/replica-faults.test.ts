// Issue 15, item 4: the Chroma replica never retries one batch for ever. A memory Chroma refuses (a
// lone surrogate journalled by an earlier version) is set aside with Chroma's reason while the rest
// of its batch and everything after it goes in; a forget clears it; a restart offers it again. A
// cursor that does not sit on an entry boundary is noticed and the replica rebuilt from the start.
import fs from "node:fs";
import path from "node:path";
import { ChromaCollections } from "../../bridge/chroma/chroma-collections";
import { EmbeddedChroma } from "../../bridge/chroma/chroma-process";
import { ChromaSync, storeSyncSource } from "../../bridge/chroma/chroma-sync";
import { encodeLine } from "../../bridge/store/journal";
import { encodeAdd } from "../../bridge/store/journal-entries";
import type { MemoryStore } from "../../bridge/store/memory-store";
import type { MemoryRecord } from "../../bridge/store/records";
import { openStore, tempDir } from "../store/helpers";

const BINDING = { provider: "test", model: "unit-2", dim: 2 };
let chroma: EmbeddedChroma;

beforeAll(async () => {
  chroma = await EmbeddedChroma.start({ dataDir: tempDir("replica-faults-chroma-") });
});

afterAll(async () => {
  await chroma.stop();
});

function addWithVector(store: MemoryStore, id: string, text = `memory ${id}`): void {
  store.add({ id, text, source_type: "user_message", embedding: { provider: BINDING.provider, model: BINDING.model, vector: [1, id.length] } });
}

/** What an earlier version journalled: a memory with a lone surrogate, which Chroma cannot parse. */
function poisonedMemory(dataDir: string, id: string): void {
  const record: MemoryRecord = { id, text: `broken \ud83d emoji ${id}`, source_type: "user_message", timestamp_ms: 1_750_000_000_000, scope: "global", metadata: {}, content_hash: `h-${id}` };
  fs.appendFileSync(path.join(dataDir, "journal.jsonl"), encodeLine(encodeAdd(record, { provider: BINDING.provider, model: BINDING.model, vector: new Float32Array([1, 2]) })));
}

async function chromaIds(collections: ChromaCollections): Promise<string[]> {
  return (await collections.listIds(collections.collectionName(BINDING), { limit: 1000, offset: 0 })).sort();
}

describe("a memory Chroma refuses", () => {
  it("is set aside with Chroma's reason while the rest of its batch and everything after it goes in", async () => {
    const dataDir = tempDir("replica-set-aside-");
    const first = openStore(dataDir);
    addWithVector(first, "a");
    first.close();
    poisonedMemory(dataDir, "bad");
    const store = openStore(dataDir);
    addWithVector(store, "c");
    const collections = new ChromaCollections({ url: chroma.url });
    await collections.deleteCollection(collections.collectionName(BINDING)).catch(() => undefined);
    const cursorPath = path.join(dataDir, "chroma-sync.json");
    const sync = new ChromaSync(storeSyncSource(store), collections, cursorPath, "test");
    try {
      await sync.whenIdle();
      expect(await chromaIds(collections)).toEqual(["a", "c"]);
      const status = sync.status();
      expect(status.pending_bytes).toBe(0);
      expect(status.last_error).toBeNull();
      expect(Object.keys(status.set_aside ?? {})).toEqual(["bad"]);
      expect(status.set_aside!.bad).toMatch(/^Chroma upsert into \S+ failed \(ChromaClientError\): /);

      // Later writes are not held up.
      addWithVector(store, "d");
      sync.poke(0);
      await sync.whenIdle();
      expect(await chromaIds(collections)).toEqual(["a", "c", "d"]);

      // Kept across a restart of the sync (it is offered to Chroma again, refused again, still shown).
      sync.stop();
      const again = new ChromaSync(storeSyncSource(store), collections, cursorPath, "test");
      again.poke(0);
      await again.whenIdle();
      expect(Object.keys(again.status().set_aside ?? {})).toEqual(["bad"]);

      // Forgetting it clears it.
      store.forget("bad");
      again.poke(0);
      await again.whenIdle();
      expect(again.status().set_aside).toBeUndefined();
      expect(JSON.parse(fs.readFileSync(cursorPath, "utf8")).set_aside).toBeUndefined();
      again.stop();
    } finally {
      sync.stop();
      store.close();
    }
  });
});

describe("a sync cursor that is not at the start of an entry", () => {
  it("is noticed, said in status, and the replica is rebuilt from the start", async () => {
    const dataDir = tempDir("replica-cursor-");
    const store = openStore(dataDir);
    for (const id of ["x1", "x2", "x3"]) addWithVector(store, id);
    const collections = new ChromaCollections({ url: chroma.url });
    await collections.deleteCollection(collections.collectionName(BINDING)).catch(() => undefined);
    const cursorPath = path.join(dataDir, "chroma-sync.json");
    // Two bytes into the last entry: what a journal copied from another machine, or cut short, leaves.
    fs.writeFileSync(cursorPath, JSON.stringify({ target: "test", journal_offset: store.journalEndOffset - 2 }));
    const sync = new ChromaSync(storeSyncSource(store), collections, cursorPath, "test");
    try {
      expect(sync.status().resynced).toBe(`the saved cursor ${store.journalEndOffset - 2} is not at the start of a journal entry`);
      sync.poke(0);
      await sync.whenIdle();
      expect(await chromaIds(collections)).toEqual(["x1", "x2", "x3"]);
      expect(sync.status().pending_bytes).toBe(0);
    } finally {
      sync.stop();
      store.close();
    }
  });

  it("past the end of the journal (a journal replaced by a shorter one) is rebuilt too", async () => {
    const dataDir = tempDir("replica-cursor-past-");
    const store = openStore(dataDir);
    addWithVector(store, "y1");
    const collections = new ChromaCollections({ url: chroma.url });
    await collections.deleteCollection(collections.collectionName(BINDING)).catch(() => undefined);
    const cursorPath = path.join(dataDir, "chroma-sync.json");
    fs.writeFileSync(cursorPath, JSON.stringify({ target: "test", journal_offset: store.journalEndOffset + 5_000 }));
    const sync = new ChromaSync(storeSyncSource(store), collections, cursorPath, "test");
    try {
      sync.poke(0);
      await sync.whenIdle();
      expect(await chromaIds(collections)).toEqual(["y1"]);
    } finally {
      sync.stop();
      store.close();
    }
  });
});

describe("a long catch-up after one failed batch", () => {
  it("says 'catching up', not the old error, as soon as a batch goes through", async () => {
    const dataDir = tempDir("replica-catch-up-");
    const store = openStore(dataDir);
    // About 9 MB of journal: three 4 MB reads, so the catch-up has batches after the first.
    const text = "umbrella ".repeat(300);
    store.importRecords(Array.from({ length: 3_000 }, (_, i) => ({ id: `r${i}`, text: `${i} ${text}`, source_type: "user_message", embedding: { provider: "test", model: "unit-2", vector: [1, i + 1] } })));
    const real = new ChromaCollections({ url: chroma.url });
    let calls = 0;
    let held = false;
    let releaseHeld!: () => void;
    const heldUpsert = new Promise<void>((resolve) => (releaseHeld = resolve));
    let heldStarted!: () => void;
    const heldReached = new Promise<void>((resolve) => (heldStarted = resolve));
    // Chroma as it behaves under a big catch-up: one upsert times out, the next go through, slowly.
    const flaky = Object.assign(Object.create(real) as ChromaCollections, {
      upsert: async (name: string, rows: Parameters<ChromaCollections["upsert"]>[1]) => {
        calls++;
        if (calls === 1) throw Object.assign(new Error("Chroma upsert timed out after 30000 ms"), { code: "CHROMA_UNAVAILABLE" });
        // Held: the first upsert after a whole read batch has gone in (the cursor moved).
        if (!held && sync.status().cursor > 0) {
          held = true;
          heldStarted();
          await heldUpsert;
        }
        return real.upsert(name, rows);
      },
    });
    const sync = new ChromaSync(storeSyncSource(store), flaky, path.join(dataDir, "chroma-sync.json"), "test");
    try {
      sync.poke(0);
      await waitFor(() => sync.status().last_error !== null);
      expect(sync.status().last_error).toBe("Chroma upsert timed out after 30000 ms");
      // The retry's first batch goes through; while the next one is in flight, more is pending.
      await heldReached;
      const catching = sync.status();
      expect(catching.pending_bytes).toBeGreaterThan(0);
      expect(catching.last_error).toBeNull();
      // Progress and an ETA at the rate so far: the first 4 MB read went in, the rest is pending.
      expect(catching.catch_up).toEqual({ since_ms: expect.any(Number), synced_bytes: catching.cursor, bytes_per_s: expect.any(Number), eta_s: expect.any(Number) });
      expect(catching.catch_up!.bytes_per_s!).toBeGreaterThan(0);
      expect(catching.catch_up!.eta_s!).toBeGreaterThanOrEqual(Math.floor(catching.pending_bytes / catching.catch_up!.bytes_per_s!));
      releaseHeld();
      await sync.whenIdle();
      expect(sync.status()).toMatchObject({ pending_bytes: 0, last_error: null });
      expect(sync.status().catch_up).toBeUndefined();
    } finally {
      releaseHeld();
      sync.stop();
      store.close();
    }
  }, 60_000);
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

// The lexical index re-packs in the background (issue 18, lexical p95 at 1M): once its delta or its dead
// docs grow, the store packs them between requests, searches answer the same before, during and after, and
// status says how the index stands.
import { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { seededRandom } from "../fixtures/seeded-random";
import { tempDir } from "./helpers";

const WORDS = ["passport", "drawer", "kitchen", "keys", "mug", "paris", "tuesday", "meeting", "护照", "抽屉", "钥匙", "厨房"];

function memories(from: number, count: number, seed: number) {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => ({
    id: `m${from + i}`,
    text: Array.from({ length: 4 + Math.floor(random() * 8) }, () => WORDS[Math.floor(WORDS.length * random() ** 2)]).join(" "),
    source_type: "user_message" as const,
  }));
}

interface LexicalStatus {
  docs: number;
  postings: number;
  delta_postings: number;
  dead_docs: number;
  repacking: boolean;
}

const lexical = (store: MemoryStore) => store.status().lexical as LexicalStatus;
const QUERIES = ["where is my passport", "钥匙在厨房", "paris meeting tuesday", "mug drawer"];
const answers = (store: MemoryStore) => QUERIES.map((query) => store.search(parseSearchRequest({ query, top_k: 8 })).receipt.retrieved_chunk_ids);

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("the lexical re-pack in the store", () => {
  it("packs the delta and drops forgotten docs between requests, answering the same throughout", async () => {
    const dataDir = tempDir("lexical-repack-");
    const store = MemoryStore.open({ dataDir });
    let after: LexicalStatus;
    let expected: string[][];
    try {
      store.importRecords(memories(0, 3_000, 1));
      // Packed first; then forgetting and new memories leave work behind.
      while (store.maintainLexicalIndex(50));
      for (let i = 0; i < 3_000; i += 7) store.forget(`m${i}`);
      store.importRecords(memories(3_000, 600, 2));
      const before = lexical(store);
      expect(before).toMatchObject({ docs: 3_600 - 429, dead_docs: 429 });
      expect(before.delta_postings).toBeGreaterThan(before.postings / 16);
      expected = answers(store);
      expect(expected.flat().length).toBeGreaterThan(20);
      await until(() => lexical(store).dead_docs === 0 && !lexical(store).repacking);
      after = lexical(store);
      expect(after).toMatchObject({ docs: 3_171, delta_postings: 0, dead_docs: 0, repacking: false });
      expect(answers(store)).toEqual(expected);
    } finally {
      store.close();
    }
    // The same memories restored and replayed from disk, and packed there: the same postings, the same answers.
    const reopened = MemoryStore.open({ dataDir });
    try {
      while (reopened.maintainLexicalIndex(50));
      expect(lexical(reopened)).toEqual(after);
      expect(answers(reopened)).toEqual(expected);
    } finally {
      reopened.close();
    }
  });

  it("stops re-packing when closed", async () => {
    const closed = MemoryStore.open({ dataDir: tempDir("lexical-repack-closed-") });
    const running = MemoryStore.open({ dataDir: tempDir("lexical-repack-open-") });
    try {
      // The open one, with three times the work, is the yardstick: left running, the closed one's re-pack
      // would be done long before it.
      for (const [store, count] of [[closed, 3_000], [running, 9_000]] as const) {
        store.importRecords(memories(0, count, 3));
        store.checkpoint();
        for (let i = 0; i < count; i += 6) store.forget(`m${i}`);
      }
      expect(lexical(closed).dead_docs).toBe(500);
      closed.close();
      await until(() => lexical(running).dead_docs === 0);
      expect(lexical(closed)).toMatchObject({ dead_docs: 500, repacking: false });
    } finally {
      running.close();
    }
  });
});

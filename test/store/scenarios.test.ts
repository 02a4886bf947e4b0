// The seed documents' scenarios, end to end through the store.
import { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { makeTrivia } from "../fixtures/trivia";
import { openStore, searchIds } from "./helpers";

const HOUR_MS = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

describe("the 10,000-record blue mug stress test", () => {
  let store: MemoryStore;
  const facts: Record<number, [string, string]> = {
    2500: ["T1", "今天逛街买了一个星巴克的蓝色马克杯。"],
    5000: ["T2", "不小心把蓝色马克杯摔碎了，好可惜。"],
    7500: ["T3", "又买了一个新的蓝色马克杯作为替代。"],
  };

  beforeAll(() => {
    store = openStore();
    const records = makeTrivia(10_000).map((text, i) => {
      const [id, factText] = facts[i] ?? [`day-${i}`, text];
      return { id, text: factText, source_type: "user_message", timestamp_ms: T0 + i * HOUR_MS };
    });
    expect(store.importRecords(records).added).toBe(10_000);
  });
  afterAll(() => store.close());

  it("returns T1 → T2 → T3 in ascending time in timeline mode with top_k 5", () => {
    const { results, receipt } = store.search(parseSearchRequest({ query: "蓝色马克杯的完整历史", top_k: 5, timeline: true }));
    expect(results.length).toBeLessThanOrEqual(5);
    expect(results.map((r) => r.id).filter((id) => /^T\d$/.test(id))).toEqual(["T1", "T2", "T3"]);
    const times = results.map((r) => r.timestamp_ms);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(receipt.mode).toBe("timeline");
    expect(receipt.conflicts).toEqual([]);
  });

  it("keeps the bought → broke → replaced sequence whole in latest mode", () => {
    const { results, receipt } = store.search(parseSearchRequest({ query: "蓝色马克杯", top_k: 5 }));
    expect(results.map((r) => r.id).slice(0, 3).sort()).toEqual(["T1", "T2", "T3"]);
    expect(receipt.conflicts).toEqual([]);
  });
});

describe("state changes collapse to the newest in latest mode", () => {
  let store: MemoryStore;
  beforeAll(() => {
    store = openStore();
    const filler = makeTrivia(2_000, 7).map((text, i) => ({ id: `f-${i}`, text, source_type: "user_message", timestamp_ms: T0 + i * HOUR_MS }));
    store.importRecords([
      ...filler,
      { id: "key-old", text: "钥匙放在鞋柜里了。", source_type: "user_message", timestamp_ms: T0 + 500 * HOUR_MS },
      { id: "key-new", text: "我把钥匙放到了花盆里。", source_type: "user_message", timestamp_ms: T0 + 900 * HOUR_MS },
      { id: "en-old", text: "My keys are in the shoe cabinet.", source_type: "user_message", timestamp_ms: T0 + 500 * HOUR_MS },
      { id: "en-new", text: "I moved my keys to the flower pot.", source_type: "user_message", timestamp_ms: T0 + 900 * HOUR_MS },
      { id: "mug-1", text: "I bought a blue mug.", source_type: "user_message", timestamp_ms: T0 + 100 * HOUR_MS },
      { id: "mug-2", text: "I broke the blue mug.", source_type: "user_message", timestamp_ms: T0 + 200 * HOUR_MS },
      { id: "mug-3", text: "I bought a replacement blue mug.", source_type: "user_message", timestamp_ms: T0 + 300 * HOUR_MS },
    ]);
  });
  afterAll(() => store.close());

  it("gives only the flower pot for the key moved from the shoe cabinet (Chinese)", () => {
    const { results, receipt } = store.search(parseSearchRequest({ query: "钥匙在哪里？", top_k: 5 }));
    const ids = results.map((r) => r.id);
    expect(ids).toContain("key-new");
    expect(ids).not.toContain("key-old");
    expect(receipt.conflicts).toEqual([expect.objectContaining({ id: "key-old", superseded_by: "key-new", kind: "location" })]);
  });

  it("gives only the flower pot for the keys moved from the shoe cabinet (English)", () => {
    const ids = searchIds(store, { query: "where are my keys?", top_k: 5 });
    expect(ids).toContain("en-new");
    expect(ids).not.toContain("en-old");
  });

  it("returns both key locations in ascending time in timeline mode", () => {
    const ids = searchIds(store, { query: "钥匙在哪里？", top_k: 5, timeline: true }).filter((id) => id.startsWith("key-"));
    expect(ids).toEqual(["key-old", "key-new"]);
  });

  it("keeps the English bought → broke → replaced sequence whole", () => {
    const ids = searchIds(store, { query: "blue mug", top_k: 5 });
    expect(ids.slice(0, 3).sort()).toEqual(["mug-1", "mug-2", "mug-3"]);
  });
});

// The caller's context on a search: window_hash and anchor_version echoed into the receipt, and
// exclude_ids (memories already in the agent's recent window) withheld without costing a result slot.
import { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { openStore, searchIds } from "./helpers";

const search = (store: MemoryStore, request: Record<string, unknown>) => store.search(parseSearchRequest(request));

describe("search with exclude_ids", () => {
  let store: MemoryStore;
  beforeEach(() => {
    store = openStore();
    store.importRecords([
      // r1 is the newer of the two near-equal scores, so recency and BM25 agree on r1 first (ranking.ts).
      { id: "r1", text: "rust borrow checker borrow checker borrow checker", source_type: "user_message", timestamp_ms: 2 },
      { id: "r2", text: "rust borrow checker borrow checker", source_type: "user_message", timestamp_ms: 1 },
      { id: "r3", text: "the rust borrow checker complained again today", source_type: "user_message", timestamp_ms: 3 },
      { id: "r4", text: "rust is a language with a strict compiler and a package manager", source_type: "user_message", timestamp_ms: 4 },
      { id: "r5", text: "a note about checker pieces on a board game table at home", source_type: "user_message", timestamp_ms: 5 },
      { id: "x", text: "groceries: milk, eggs and bread", source_type: "user_message", timestamp_ms: 6 },
    ]);
  });
  afterEach(() => store.close());

  it("ranks the remaining memories exactly as an unrestricted search does, with the excluded ones taken out", () => {
    expect(searchIds(store, { query: "rust borrow checker", top_k: 5 })).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    expect(searchIds(store, { query: "rust borrow checker", top_k: 3 })).toEqual(["r1", "r2", "r3"]);
    expect(searchIds(store, { query: "rust borrow checker", top_k: 3, exclude_ids: ["r1"] })).toEqual(["r2", "r3", "r4"]);
    expect(searchIds(store, { query: "rust borrow checker", top_k: 3, exclude_ids: ["r2", "r1", "no-such-id"] })).toEqual(["r3", "r4", "r5"]);
  });

  it("lists excluded candidates as withheld 'in recent window' and keeps them among the candidates, not the retrieved ids", () => {
    const { results, receipt } = search(store, { query: "rust borrow checker", top_k: 2, exclude_ids: ["r1", "x"] });
    expect(results.map((r) => r.id)).toEqual(["r2", "r3"]);
    expect(receipt.retrieved_chunk_ids).toEqual(["r2", "r3"]);
    // "x" matches nothing, so it was never a candidate and is not reported as withheld.
    expect(receipt.withheld).toEqual([{ id: "r1", reason: "in recent window" }]);
    expect(receipt.candidates.find((c) => c.id === "r1")).toEqual(expect.objectContaining({ lexical_rank: 1, selected: false }));
  });

  it("names quarantine, not the recent window, when an excluded memory is also quarantined", () => {
    store.quarantine("r1", "suspected prompt injection");
    const { receipt } = search(store, { query: "rust borrow checker", top_k: 2, exclude_ids: ["r1", "r2"] });
    expect(receipt.retrieved_chunk_ids).toEqual(["r3", "r4"]);
    expect(receipt.withheld).toEqual([
      { id: "r1", reason: "quarantined: suspected prompt injection" },
      { id: "r2", reason: "in recent window" },
    ]);
  });

  it("still fills top_k when more strong matches are excluded than a search would normally retrieve", () => {
    const strong = Array.from({ length: 80 }, (_, i) => ({ id: `s${i}`, text: `deploy deploy deploy ${i}`, source_type: "system_fact" }));
    store.importRecords(strong);
    store.importRecords([
      { id: "w1", text: "the deploy notes are kept in the team wiki under operations", source_type: "system_fact" },
      { id: "w2", text: "ask about the deploy window before friday evening release", source_type: "system_fact" },
    ]);
    const { results, receipt } = search(store, { query: "deploy", top_k: 2, exclude_ids: strong.map((s) => s.id) });
    expect(results.map((r) => r.id).sort()).toEqual(["w1", "w2"]);
    expect(receipt.withheld).toHaveLength(80);
  });

  it("copies window_hash and anchor_version into the receipt, and leaves them null when not given", () => {
    const tagged = search(store, { query: "rust", window_hash: "sha256:abc123", anchor_version: "anchors-v7" }).receipt;
    expect(tagged).toEqual(expect.objectContaining({ window_hash: "sha256:abc123", anchor_version: "anchors-v7" }));
    const plain = search(store, { query: "rust" }).receipt;
    expect(plain).toEqual(expect.objectContaining({ window_hash: null, anchor_version: null, withheld: [] }));
  });
});

describe("exclude_ids and state conflicts", () => {
  it("keeps suppressing an old state when the newer one that replaced it is excluded", () => {
    const store = openStore();
    store.importRecords([
      { id: "en-old", text: "My keys are in the shoe cabinet.", source_type: "user_message", timestamp_ms: 1_000 },
      { id: "en-new", text: "I moved my keys to the flower pot.", source_type: "user_message", timestamp_ms: 2_000 },
    ]);
    const { results, receipt } = search(store, { query: "where are my keys?", exclude_ids: ["en-new"] });
    expect(results).toEqual([]);
    expect(receipt.conflicts).toEqual([expect.objectContaining({ id: "en-old", superseded_by: "en-new" })]);
    expect(receipt.withheld).toEqual([{ id: "en-new", reason: "in recent window" }]);
    store.close();
  });
});

describe("search context validation", () => {
  const base = { query: "rust" };
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ["an empty window_hash", { window_hash: "" }, "window_hash", 'window_hash must be a non-empty string of at most 128 characters (got "")'],
    ["a window_hash over 128 characters", { window_hash: "h".repeat(129) }, "window_hash", "window_hash must be a non-empty string of at most 128 characters"],
    ["a numeric anchor_version", { anchor_version: 7 }, "anchor_version", "anchor_version must be a non-empty string of at most 128 characters (got 7)"],
    ["exclude_ids that is not an array", { exclude_ids: "r1" }, "exclude_ids", 'exclude_ids must be an array of at most 200 memory ids (got "r1")'],
    ["more than 200 exclude_ids", { exclude_ids: Array.from({ length: 201 }, (_, i) => `m${i}`) }, "exclude_ids", "exclude_ids must be an array of at most 200 memory ids (got 201 items)"],
    ["an exclude_ids item that is not a string", { exclude_ids: ["r1", 5] }, "exclude_ids", "exclude_ids[1] must be a memory id: a non-empty string of at most 256 characters (got 5)"],
    ["an empty exclude_ids item", { exclude_ids: [""] }, "exclude_ids", 'exclude_ids[0] must be a memory id: a non-empty string of at most 256 characters (got "")'],
  ];
  it.each(cases)("refuses %s with INVALID_FIELD naming the field", (_label, extra, field, message) => {
    expect(() => parseSearchRequest({ ...base, ...extra })).toThrow(expect.objectContaining({ code: "INVALID_FIELD", field, message: expect.stringContaining(message) }));
  });

  it("accepts exactly 200 exclude_ids and 128-character tags", () => {
    const request = parseSearchRequest({ ...base, exclude_ids: Array.from({ length: 200 }, (_, i) => `m${i}`), window_hash: "w".repeat(128), anchor_version: "a" });
    expect(request.excludeIds!.size).toBe(200);
    expect(request.windowHash).toHaveLength(128);
  });
});

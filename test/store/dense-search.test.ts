import { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { openStore } from "./helpers";

const emb = (vector: number[]) => ({ provider: "test", model: "unit-4d", vector });

describe("hybrid search with stored vectors", () => {
  let store: MemoryStore;
  beforeEach(() => {
    store = openStore();
    store.importRecords([
      { id: "drawer", text: "The key is in the drawer.", source_type: "user_message", timestamp_ms: 100, embedding: emb([1, 0, 0, 0]) },
      { id: "pot", text: "The key is in the flower pot.", source_type: "user_message", timestamp_ms: 200, embedding: emb([0.9, 0.1, 0, 0]) },
      { id: "garden", text: "Planted tomatoes in the garden.", source_type: "user_message", timestamp_ms: 300, embedding: emb([0, 1, 0, 0]) },
      { id: "plain", text: "drawer handles need polishing", source_type: "user_message", timestamp_ms: 50 },
    ]);
  });
  afterEach(() => store.close());

  it("records dense + FTS recall with ranks, identity and a query-vector hash but no raw vector", () => {
    const { receipt } = store.search(parseSearchRequest({ query: "drawer", top_k: 2, query_embedding: emb([1, 0, 0, 0]) }));
    expect(receipt.recall).toBe("Recall: dense + FTS");
    expect(receipt.fallback_reason).toBeNull();
    expect(receipt.dense).toEqual({
      provider: "test",
      model: "unit-4d",
      dim: 4,
      model_digest: null,
      config_hash: null,
      query_vector_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      // Three vectors, far under flat_max_records: every one was scored.
      index: { kind: "flat", scanned: 3 },
    });
    expect(receipt.index_coverage).toEqual({ records: 4, current_vectors: 3, ratio: 0.75 });
    const drawer = receipt.candidates.find((c) => c.id === "drawer")!;
    expect([drawer.lexical_rank, drawer.dense_rank]).toEqual([2, 1]);
    expect(JSON.stringify(receipt)).not.toContain("[1,0,0,0]");
  });

  it("keeps every lexical top-k result and adds dense-only candidates after them", () => {
    const { results, receipt } = store.search(parseSearchRequest({ query: "drawer", top_k: 2, query_embedding: emb([0, 1, 0, 0]) }));
    expect(results.map((r) => r.id).slice(0, 2).sort()).toEqual(["drawer", "plain"]);
    expect(results.map((r) => r.id)).toContain("garden");
    expect(receipt.lexical_recall_preserved).toBe(true);
    expect(receipt.dense_only_candidates).toEqual(expect.arrayContaining(["garden", "pot"]));
  });

  it("never lets a dense-only candidate suppress a lexical one, while a lexical newer state does", () => {
    const denseOnly = store.search(parseSearchRequest({ query: "drawer", top_k: 3, query_embedding: emb([0.9, 0.1, 0, 0]) }));
    expect(denseOnly.results.map((r) => r.id)).toEqual(expect.arrayContaining(["drawer", "pot"]));
    expect(denseOnly.receipt.conflicts).toEqual([]);

    const lexical = store.search(parseSearchRequest({ query: "key", top_k: 3 }));
    expect(lexical.results.map((r) => r.id)).toEqual(["pot"]);
    expect(lexical.receipt.conflicts).toEqual([expect.objectContaining({ id: "drawer", superseded_by: "pot", kind: "location" })]);
  });

  it("falls back to lexical recall with the reason when no query embedding is given", () => {
    const { results, receipt } = store.search(parseSearchRequest({ query: "drawer", top_k: 5 }));
    // Both contain "drawer" once; BM25 length normalisation ranks the shorter memory first, but their scores
    // are within the recency tolerance, so latest mode shows the newer one first.
    expect(receipt.candidates.map((c) => [c.id, c.lexical_rank])).toEqual([["plain", 1], ["drawer", 2]]);
    expect(results.map((r) => r.id)).toEqual(["drawer", "plain"]);
    expect(receipt.recall).toBe("Recall: FTS fallback (runtime missing: no embedding runtime or provider available)");
    expect(receipt.fallback_reason).toBe("runtime_missing");
    expect(receipt.dense_only_candidates).toEqual([]);
  });

  it("falls back with index_not_current when the query model has no stored vectors", () => {
    const other = { provider: "test", model: "other-model", vector: [1, 0, 0, 0] };
    const { receipt } = store.search(parseSearchRequest({ query: "drawer", query_embedding: other }));
    expect(receipt.fallback_reason).toBe("index_not_current");
    expect(receipt.index_coverage.current_vectors).toBe(0);
  });
});

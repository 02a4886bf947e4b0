// Vectors computed by an embedder are bound to the memory's text and to the embedder's identity.
import { openStore, tempDir } from "./helpers";

const binding = { provider: "local", model: "tiny", dim: 2, modelDigest: "sha256:aa", configHash: "sha256:cc" };
const embedding = (vector: number[], overrides: Partial<typeof binding> = {}) => ({ ...binding, ...overrides, vector: Float32Array.from(vector) });

describe("vector binding in the store", () => {
  it("lists memories lacking a current vector, attaches vectors durably, and survives a reopen", () => {
    const dir = tempDir();
    const store = openStore(dir);
    store.importRecords([
      { id: "a", text: "alpha", source_type: "user_message" },
      { id: "b", text: "beta", source_type: "user_message" },
    ]);
    const first = store.memoriesNeedingVectors(binding, 0, 10);
    expect(first.items.map((i) => i.id)).toEqual(["a", "b"]);
    store.attachVectors([{ id: "a", contentHash: first.items[0].contentHash, embedding: embedding([1, 0]) }]);
    expect(store.memoriesNeedingVectors(binding, 0, 10).items.map((i) => i.id)).toEqual(["b"]);
    expect(store.vectorCount(binding)).toBe(1);
    store.close();
    const again = openStore(dir);
    expect(again.vectorCount(binding)).toBe(1);
    expect(again.searchVector(embedding([1, 0]), 5).map((h) => h.id)).toEqual(["a"]);
    again.close();
  });

  it("never installs a vector computed for text the memory no longer has", () => {
    const store = openStore();
    store.add({ id: "a", text: "alpha", source_type: "user_message" });
    store.attachVectors([{ id: "a", contentHash: "sha256:stale", embedding: embedding([1, 0]) }]);
    expect(store.vectorCount(binding)).toBe(0);
    store.close();
  });

  it("treats a vector from another model digest or config as not current", () => {
    const store = openStore();
    const { record } = store.add({ id: "a", text: "alpha", source_type: "user_message" });
    store.attachVectors([{ id: "a", contentHash: record.content_hash, embedding: embedding([1, 0], { modelDigest: "sha256:old" }) }]);
    expect(store.memoriesNeedingVectors(binding, 0, 10).items.map((i) => i.id)).toEqual(["a"]);
    expect(() => store.searchVector(embedding([1, 0]), 5)).toThrow(expect.objectContaining({ code: "VECTOR_MISMATCH" }));
    store.close();
  });

  it("drops a superseded space durably", () => {
    const dir = tempDir();
    const store = openStore(dir);
    const { record } = store.add({ id: "a", text: "alpha", source_type: "user_message" });
    store.attachVectors([{ id: "a", contentHash: record.content_hash, embedding: embedding([1, 0]) }]);
    store.dropVectors(binding);
    expect(store.vectorCount(binding)).toBe(0);
    store.close();
    const again = openStore(dir);
    expect(again.vectors.summary()).toEqual([]);
    again.close();
  });
});

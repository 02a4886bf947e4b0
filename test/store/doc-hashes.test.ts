// The content hashes of a vector space by doc number (issue 18, memory at 1M): an array where a Map was.
// It must answer every call as a Map<number, string> would, whatever the order of sets and deletes.
import fc from "fast-check";
import { DocHashes } from "../../bridge/store/vector-spaces";

describe("DocHashes", () => {
  it("answers as a Map would through any sets and deletes, and lists its docs in doc order", () => {
    const op = fc.oneof(
      fc.record({ set: fc.nat({ max: 3000 }), hash: fc.constantFrom("sha256:a", "sha256:b", "") }),
      fc.record({ delete: fc.nat({ max: 3000 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const hashes = new DocHashes();
        const reference = new Map<number, string>();
        for (const o of ops) {
          if ("set" in o) {
            hashes.set(o.set, o.hash);
            reference.set(o.set, o.hash);
          } else expect(hashes.delete(o.delete)).toBe(reference.delete(o.delete));
        }
        expect(hashes.size).toBe(reference.size);
        expect([...hashes.keys()]).toEqual([...reference.keys()].sort((a, b) => a - b));
        // Collected, not asserted one by one: thousands of expect() calls would dominate the run.
        const wrong: number[] = [];
        for (let doc = 0; doc <= 3001; doc++) if (hashes.get(doc) !== reference.get(doc) || hashes.has(doc) !== reference.has(doc)) wrong.push(doc);
        expect(wrong).toEqual([]);
      }),
    );
  });

  it("holds a doc set far past the last one, and a million docs in order", () => {
    const hashes = new DocHashes();
    hashes.set(1_000_000, "sha256:far");
    expect([hashes.size, hashes.get(1_000_000), hashes.has(999_999)]).toEqual([1, "sha256:far", false]);
    for (let doc = 0; doc < 1_000_000; doc++) hashes.set(doc, "sha256:x");
    expect(hashes.size).toBe(1_000_001);
    expect(hashes.delete(500_000)).toBe(true);
    expect(hashes.delete(500_000)).toBe(false);
    expect(hashes.size).toBe(1_000_000);
  });
});

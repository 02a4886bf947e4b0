// The live records' doc numbers by id (issue 18, an open of 1M): a typed-array table where a Map was. It
// must answer as the Map did through any adds and deletes, reading each id from the record it indexes.
import fc from "fast-check";
import { DocIds, idHash } from "../../bridge/store/doc-ids";

type Op = { add: string } | { delete: string };

describe("DocIds", () => {
  const ids = fc.constantFrom("a", "b", "c", "", "mem-1", "mem-2", "记忆", "😀", "a".repeat(300), "A");

  it("answers as a Map would through any adds and deletes, the records holding the ids", () => {
    const op: fc.Arbitrary<Op> = fc.oneof(fc.record({ add: ids }), fc.record({ delete: ids }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.nat({ max: 40 }), (ops, expected) => {
        const records: Array<{ id: string } | undefined> = [];
        const table = new DocIds(records, expected);
        const reference = new Map<string, number>();
        for (const o of ops) {
          if ("add" in o) {
            if (reference.has(o.add)) {
              // A second add of a live id changes nothing (its doc stays the first one).
              expect(table.add(o.add, reference.get(o.add)!)).toBe(false);
              continue;
            }
            // As the state does: the record first, then its id.
            records.push({ id: o.add });
            expect(table.add(o.add, records.length - 1)).toBe(true);
            reference.set(o.add, records.length - 1);
          } else {
            const doc = reference.get(o.delete);
            expect(table.delete(o.delete)).toBe(reference.delete(o.delete));
            // As a forget does: the id goes before the record.
            if (doc !== undefined) records[doc] = undefined;
          }
        }
        expect(table.size).toBe(reference.size);
        for (const id of ["a", "b", "c", "", "mem-1", "mem-2", "记忆", "😀", "a".repeat(300), "A", "never"]) {
          expect([id, table.get(id), table.has(id)]).toEqual([id, reference.get(id), reference.has(id)]);
        }
      }),
    );
  });

  it("tells apart ids whose hashes are equal", () => {
    // Two ids with the same 32-bit hash, found by trying (a birthday search over a few hundred thousand).
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i++) {
      const id = `id-${i}`;
      const other = seen.get(idHash(id));
      if (other !== undefined) pair = [other, id];
      else seen.set(idHash(id), id);
    }
    const [first, second] = pair;
    expect(idHash(first)).toBe(idHash(second));
    const records: Array<{ id: string } | undefined> = [{ id: first }, { id: "between" }, { id: second }];
    const table = new DocIds(records);
    expect([table.add(first, 0), table.add("between", 1), table.add(second, 2)]).toEqual([true, true, true]);
    expect([table.get(first), table.get("between"), table.get(second)]).toEqual([0, 1, 2]);
    expect(table.delete(first)).toBe(true);
    records[0] = undefined;
    expect([table.get(first), table.get(second), table.size]).toEqual([undefined, 2, 2]);
    // The freed slot is used again: the first id comes back at a new doc.
    records.push({ id: first });
    expect(table.add(first, 3)).toBe(true);
    expect([table.get(first), table.get(second)]).toEqual([3, 2]);
  });

  it("grows past what it was made for, and stays usable through many deletes", () => {
    const records: Array<{ id: string } | undefined> = [];
    const table = new DocIds(records, 4);
    for (let round = 0; round < 3; round++) {
      const from = records.length;
      for (let i = 0; i < 20_000; i++) {
        records.push({ id: `r${round}-${i}` });
        expect(table.add(`r${round}-${i}`, from + i)).toBe(true);
      }
      // All but every tenth of this round deleted: the slots they leave must not fill the table.
      for (let i = 0; i < 20_000; i++) {
        if (i % 10 === 0) continue;
        expect(table.delete(`r${round}-${i}`)).toBe(true);
        records[from + i] = undefined;
      }
    }
    expect(table.size).toBe(3 * 2_000);
    const missing: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 20_000; i++) {
        const doc = table.get(`r${round}-${i}`);
        if (i % 10 === 0 ? doc !== round * 20_000 + i : doc !== undefined) missing.push(`r${round}-${i}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("refuses a doc whose record does not hold the id, and a doc that is not a doc number", () => {
    const records = [{ id: "kept" }];
    const table = new DocIds(records);
    expect(() => table.add("other", 0)).toThrow(`DocIds.add: doc 0's record does not hold id "other"`);
    expect(() => table.add("kept", 1)).toThrow(`DocIds.add: doc 1's record does not hold id "kept"`);
    expect(() => table.add("kept", -1)).toThrow("DocIds.add: doc -1 is not a doc number");
    expect([table.size, table.has("kept"), table.has("other")]).toEqual([0, false, false]);
  });
});

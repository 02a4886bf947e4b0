// A checkpoint reads the records as they were at its first step without copying them then (RecordsFreeze):
// a block is copied only when a record in it is about to be replaced, so what slice() gives is what the
// records were at the freeze, block edges, removals and appends included.
import type { MemoryRecord } from "../../bridge/store/records";
import { RecordsFreeze } from "../../bridge/store/records-freeze";

const record = (id: string) => ({ id }) as unknown as MemoryRecord;

describe("RecordsFreeze", () => {
  it("gives the records as they were at the freeze, whatever is replaced, removed or appended after", () => {
    const records: Array<MemoryRecord | undefined> = Array.from({ length: 3000 }, (_, i) => (i % 97 === 0 ? undefined : record(`r${i}`)));
    const before = records.slice();
    const released: RecordsFreeze[] = [];
    const freeze = new RecordsFreeze(records, records.length, (done) => released.push(done));
    const replace = (doc: number, value: MemoryRecord | undefined) => {
      freeze.keep(doc);
      records[doc] = value;
    };
    // Both sides of the first block's edge (1,024 docs a block), a removal, a doc replaced twice, and appends.
    replace(1023, record("new-1023"));
    replace(1024, undefined);
    replace(5, record("new-5"));
    replace(5, record("newer-5"));
    replace(2999, record("new-2999"));
    records.push(record("appended"));
    freeze.keep(3000);
    expect(freeze.keptBlocks).toBe(3);
    expect(freeze.slice(0, 3000)).toEqual(before);
    expect(freeze.slice(1000, 1100)).toEqual(before.slice(1000, 1100));
    expect(freeze.slice(2048, 2048)).toEqual([]);
    expect(() => freeze.slice(0, 3001)).toThrow("docs [0, 3001) are not within the 3000 frozen");
    // The live array holds the changes; the freeze only copies.
    expect(records[5]).toEqual(record("newer-5"));
    freeze.release();
    freeze.release();
    expect(released).toEqual([freeze]);
    expect(() => freeze.slice(0, 1)).toThrow("the freeze was released");
  });
});

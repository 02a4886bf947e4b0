// What many records repeat is held once after an open (issue 18, memory at 1M): one frozen metadata object
// per distinct metadata, one string per distinct session id, source type and scope. Records must read as
// before, change as before, and no change made through one record may reach another.
import { decodeRecordPart, encodeRecordPart, SharedValues } from "../../bridge/store/checkpoint-parts";
import type { MemoryRecord } from "../../bridge/store/records";
import { copyDataDir, observe, openAt, RECORDS, writeHistory } from "./checkpoint-fixtures";
import { tempDir } from "./helpers";

describe("values shared among the records an open reads", () => {
  it("gives records with equal metadata one frozen object, deeply, and records with other metadata their own", () => {
    const record = (id: string, metadata: Record<string, unknown>): MemoryRecord => ({ id, text: id, source_type: "assistant_message", timestamp_ms: 1, scope: "global", metadata, content_hash: "h", session_id: "a-session-id-longer-than-ten" });
    const written = [
      record("a", { cwd: "/home/user/project", tools: ["read", "write"] }),
      record("b", { cwd: "/home/user/project", tools: ["read", "write"] }),
      record("c", { cwd: "/home/user/project", tools: ["read"] }),
      record("d", {}),
      record("e", {}),
    ];
    const shared = new SharedValues();
    const bytes = Buffer.concat([...encodeRecordPart(written)]);
    const [a, b, c, d, e] = decodeRecordPart(bytes, written.length, shared) as MemoryRecord[];
    expect([a, b, c, d, e]).toEqual(written);
    expect(a.metadata).toBe(b.metadata);
    expect(a.metadata).not.toBe(c.metadata);
    expect(d.metadata).toBe(e.metadata);
    expect(Object.isFrozen(a.metadata) && Object.isFrozen(a.metadata.tools) && Object.isFrozen(d.metadata)).toBe(true);
    expect(() => (a.metadata.tools as string[]).push("exec")).toThrow(TypeError);
    expect(b.metadata).toEqual({ cwd: "/home/user/project", tools: ["read", "write"] });
    // A second part of the same open shares with the first: whole metadata, and the lists inside others.
    const big = { notes: "x".repeat(2000) };
    const more = [record("f", {}), record("g", { cwd: "/elsewhere", tools: ["read", "write"] }), record("h", big), record("i", big)];
    const [f, g, h, i] = decodeRecordPart(Buffer.concat([...encodeRecordPart(more)]), more.length, shared) as MemoryRecord[];
    expect(f.metadata).toBe(d.metadata);
    expect(g.metadata).not.toBe(a.metadata);
    expect(g.metadata.tools).toBe(a.metadata.tools);
    expect(Object.isFrozen(g.metadata)).toBe(true);
    // A large one is neither shared nor frozen.
    expect([h.metadata, i.metadata]).toEqual([big, big]);
    expect(h.metadata).not.toBe(i.metadata);
    expect(Object.isFrozen(h.metadata)).toBe(false);
  });

  it("shares and freezes the metadata of what a write, an import, a replay and a compaction store, the caller's objects left its own", () => {
    const dataDir = tempDir();
    const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    const capture = () => ({ captured_by: "dsh-plugin", cwd: "/home/user/project", tools: ["read_file", "write_file"] });
    const given = [capture(), capture(), { ...capture(), cwd: "/elsewhere" }];
    const inputs = given.map((metadata, i) => ({ id: `t${i}`, text: `turn ${i}`, source_type: "assistant_message", session_id: "a-session-id-longer-than-ten", turn: i, metadata }));
    expect(store.add(inputs[0]).record.metadata).toEqual(capture());
    expect(store.importRecords(inputs.slice(1)).added).toBe(2);
    store.add({ id: "bare-1", text: "no metadata", source_type: "user_message" });
    store.importRecords([{ id: "bare-2", text: "none either", source_type: "user_message" }]);
    const check = (opened: typeof store) => {
      const [a, b, c] = ["t0", "t1", "t2"].map((id) => opened.get(id)!);
      expect(a.metadata).toBe(b.metadata);
      expect(c.metadata).not.toBe(a.metadata);
      expect(c.metadata.tools).toBe(a.metadata.tools);
      expect(opened.get("bare-1")!.metadata).toBe(opened.get("bare-2")!.metadata);
      expect(Object.isFrozen(a.metadata) && Object.isFrozen(a.metadata.tools) && Object.isFrozen(opened.get("bare-1")!.metadata)).toBe(true);
      expect([a, b, c].map((record) => record.metadata)).toEqual([capture(), capture(), { ...capture(), cwd: "/elsewhere" }]);
      expect(opened.get("bare-2")!.metadata).toEqual({});
    };
    check(store);
    // What the caller handed over is its own still: copied, neither frozen nor changed.
    expect(given.some((metadata) => Object.isFrozen(metadata) || Object.isFrozen(metadata.tools))).toBe(false);
    given[0].tools.push("exec");
    expect(store.get("t0")!.metadata.tools).toEqual(["read_file", "write_file"]);
    store.close();
    const replayed = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    expect(replayed.opened.replayed).toBeGreaterThan(0);
    check(replayed);
    // An edit gives only its new record the edit's facts, as in a store opened from a checkpoint.
    expect(replayed.edit("t0", "turn 0, edited").record.metadata).toMatchObject({ cwd: "/home/user/project", edited_from: "t0" });
    expect(replayed.get("t1")!.metadata).toEqual(capture());
    // A compaction gives the records of a store opened from its checkpoint, their metadata shared and frozen
    // already, to a state of its own: taken as they are.
    replayed.checkpoint();
    replayed.close();
    const reopened = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    expect(reopened.opened.replayed).toBe(0);
    reopened.compact();
    const [b, c] = ["t1", "t2"].map((id) => reopened.get(id)!);
    expect(c.metadata.tools).toBe(b.metadata.tools);
    expect(Object.isFrozen(b.metadata)).toBe(true);
    expect([b.metadata, c.metadata]).toEqual([capture(), { ...capture(), cwd: "/elsewhere" }]);
    reopened.close();
  });

  it("forgets what it holds every 16,384 values, and finds what recurs again", () => {
    const shared = new SharedValues();
    const first = shared.metadata(JSON.parse('{"model":"deepseek-chat"}'));
    for (let n = 0; n < 20_000; n++) shared.metadata({ n });
    const later = shared.metadata(JSON.parse('{"model":"deepseek-chat"}'));
    expect(later).not.toBe(first);
    expect(shared.metadata(JSON.parse('{"model":"deepseek-chat"}'))).toBe(later);
  });

  it("leaves a re-opened store reading and changing its records as one replayed from the journal", () => {
    const dataDir = tempDir();
    const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    writeHistory(store, 0, 200);
    store.checkpoint();
    store.close();
    const reopened = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    const replayed = openAt(copyDataDir(dataDir, { withCheckpoint: false }), { checkpointOnCloseBytes: Infinity });
    expect(observe(reopened)).toEqual(observe(replayed));
    // Records without metadata share one empty object; an edit of one gives only the new record its facts.
    const plain = RECORDS.slice(0, 200).filter((r, i) => i % 9 !== 0 && reopened.get(r.id as string) && !reopened.get(r.id as string)!.quarantine);
    const [first, second] = plain.map((r) => r.id as string);
    expect(reopened.get(first)!.metadata).toBe(reopened.get(second)!.metadata);
    for (const store of [reopened, replayed]) {
      const { record } = store.edit(first, "edited text");
      expect(record.metadata).toMatchObject({ edited_from: first });
      expect(store.get(second)!.metadata).toEqual({});
    }
    expect(observe(reopened)).toEqual(observe(replayed));
    reopened.close();
    replayed.close();
  });
});

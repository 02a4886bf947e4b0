// The management views of the store (list, inspect, history, stats) and edit, on the store itself:
// what a page holds and in which order, what survives a reopen, and what recall does after an edit.
import { DreamError } from "../../bridge/protocol/errors";
import type { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { openStore, searchIds, tempDir } from "./helpers";

const T = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

function seed(store: MemoryStore): void {
  store.importRecords([
    { id: "a", text: "我的自行车停在一号楼下。", source_type: "user_message", timestamp_ms: T, session_id: "s", turn: 1 },
    { id: "b", text: "ok", source_type: "user_message", timestamp_ms: T + DAY, session_id: "s", turn: 2 },
    { id: "c", text: "自行车我挪到地下车库了。", source_type: "user_message", timestamp_ms: T + 2 * DAY, tags: ["bike"] },
    { id: "d", text: "Build logs are in /var/log/ci.", source_type: "tool_result", timestamp_ms: T + 2 * DAY, scope: "project:ci" },
    { id: "e", text: "自行车又停回一号楼下了。", source_type: "user_message", timestamp_ms: T + 3 * DAY },
  ]);
}

describe("memory views", () => {
  let dir: string;
  let store: MemoryStore;
  beforeEach(() => {
    dir = tempDir("views-");
    store = openStore(dir);
    seed(store);
  });
  afterEach(() => store.close());

  it("pages newest first, ties in time in write order, with every filter applied together", () => {
    const first = store.list({ limit: 2 });
    expect([first.total, first.memories.map((m) => m.id), first.next_offset]).toEqual([5, ["e", "d"], 2]);
    expect(store.list({ limit: 2, offset: 2 }).memories.map((m) => m.id)).toEqual(["c", "b"]);
    expect(store.list({ limit: 2, offset: 4 })).toEqual(expect.objectContaining({ memories: [expect.objectContaining({ id: "a", act: "statement" })], next_offset: null }));
    expect(store.list({ order: "oldest" }).memories.map((m) => m.id)).toEqual(["a", "b", "c", "d", "e"]);
    expect(store.list({ sourceType: "user_message", sinceMs: T + DAY, untilMs: T + 3 * DAY }).memories.map((m) => m.id)).toEqual(["c", "b"]);
    expect(store.list({ sessionId: "s" }).memories.map((m) => [m.id, m.act])).toEqual([
      ["b", "acknowledgement"],
      ["a", "statement"],
    ]);
    expect(store.list({ tag: "bike", contains: "车库" }).memories.map((m) => m.id)).toEqual(["c"]);
    store.quarantine("d", "noisy");
    expect(store.list({ status: "quarantined" }).memories.map((m) => [m.id, m.quarantine?.reason])).toEqual([["d", "noisy"]]);
    expect(store.list({ status: "active" }).total).toBe(4);
  });

  it("cuts a long text in a listing and says how long it was; inspect gives it whole", () => {
    const text = "长".repeat(3000);
    store.add({ id: "long", text, source_type: "tool_result", timestamp_ms: T + 9 * DAY });
    const listed = store.list({ limit: 1 }).memories[0];
    expect([listed.id, listed.text.length, listed.text_chars]).toEqual(["long", 1000, 3000]);
    expect(store.inspect("long").record.text).toBe(text);
  });

  it("inspects a memory: its slot's statements oldest first with the current one marked, and the receipts that returned it", () => {
    const asked = store.search(parseSearchRequest({ query: "自行车停在哪里" }));
    expect(asked.results.map((r) => r.id)).toEqual(["e"]);
    store.search(parseSearchRequest({ query: "build logs" }));
    const detail = store.inspect("e");
    expect(detail.slots).toEqual([expect.objectContaining({ kind: "location", value: expect.stringContaining("一号楼") })]);
    expect(detail.slot_history).toHaveLength(1);
    expect(detail.slot_history[0].values.map((v) => [v.id, v.current])).toEqual([
      ["a", false],
      ["c", false],
      ["e", true],
    ]);
    expect(detail.receipts).toEqual([{ receipt_id: asked.receipt.receipt_id, created_at_ms: asked.receipt.created_at_ms, query: "自行车停在哪里", mode: "latest", rank: 1 }]);
    expect(store.inspect("d").receipts.map((r) => r.query)).toEqual(["build logs"]);
    expect(() => store.inspect("nope")).toThrow(expect.objectContaining({ code: "NOT_FOUND", field: "id" }));
  });

  it("gives a subject's values over time by any phrase that names it, and nothing for a thing never stated", () => {
    expect(store.history("自行车").map((h) => h.values.map((v) => v.id))).toEqual([["a", "c", "e"]]);
    expect(store.history("我的自行车在哪").map((h) => h.values.map((v) => v.id))).toEqual([["a", "c", "e"]]);
    expect(store.history("雨伞")).toEqual([]);
  });

  it("edits in one write: the new statement is current, the old one is quarantined with a link, and both survive a reopen", () => {
    const { record, replaced } = store.edit("e", "自行车停在公司楼下了。");
    expect([record.source_type, record.scope, record.metadata.edited_from]).toEqual(["user_message", "global", "e"]);
    expect(replaced.quarantine?.reason).toBe(`edited: replaced by ${record.id}`);
    expect(searchIds(store, { query: "自行车停在哪里" })).toEqual([record.id]);
    store.close();
    store = openStore(dir);
    const old = store.inspect("e");
    expect([old.replaced_by, old.record.quarantine?.reason]).toEqual([record.id, `edited: replaced by ${record.id}`]);
    expect(store.inspect(record.id).edited_from).toBe("e");
    expect(store.history("自行车")[0].values.map((v) => [v.id, v.quarantined, v.current])).toEqual([
      ["a", false, false],
      ["c", false, false],
      ["e", true, false],
      [record.id, false, true],
    ]);
  });

  it("refuses an edit that changes nothing, an empty text or an unknown id, and writes nothing", () => {
    const entries = store.status().journal as { entries: number };
    for (const [id, text, code] of [
      ["e", "自行车又停回一号楼下了。", "INVALID_FIELD"],
      ["e", "   ", "INVALID_FIELD"],
      ["nope", "x", "NOT_FOUND"],
    ] as const) {
      let caught: unknown;
      try {
        store.edit(id, text);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(DreamError);
      expect((caught as DreamError).code).toBe(code);
    }
    expect((store.status().journal as { entries: number }).entries).toBe(entries.entries);
  });

  it("counts by source, scope and month, over live memories only", () => {
    store.forget("d");
    store.quarantine("b", "noise");
    const stats = store.stats();
    expect(stats).toEqual(
      expect.objectContaining({
        memories: 4,
        quarantined: 1,
        forgotten_not_erased: 1,
        by_source_type: { user_message: 4 },
        by_scope: { global: 4 },
        by_month: [{ month: "2026-01", memories: 4 }],
        sessions: 1,
        oldest_ms: T,
        newest_ms: T + 3 * DAY,
      }),
    );
  });
});

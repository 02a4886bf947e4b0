// The Memories page's routes over a real store, reached through the bridge's own request handler:
// what each answers, and what each change leaves in the store.
import { DreamError } from "../../../bridge/protocol/errors";
import type { RecallNote } from "../../../plugin/recall/recall";
import { ALL_SEEDS, NOTES_SEED, PASSPORT } from "./memory-seeds";
import { memoriesRoute, postJson, request, useRouteHarness } from "./route-server";

const harness = useRouteHarness();
let h: ReturnType<typeof harness>;
beforeEach(() => {
  h = harness();
  expect(h.store.importRecords(ALL_SEEDS).added).toBe(ALL_SEEDS.length);
});

const post = (name: string, body: unknown) => postJson(h.port, memoriesRoute(name), body);
const ids = (memories: Array<{ id: string }>) => memories.map((m) => m.id);

function note(receiptId: string | null): RecallNote {
  return { session_id: "s-b", turn: 2, at_ms: 1_750_000_000_000, intent: "latest", receipt_id: receiptId, injected_ids: ["m-3"], truncated_ids: [], anchor_version: null, window_hash: null, recall: "Recall: FTS fallback (runtime missing)" };
}

describe("memory routes: reading", () => {
  it("lists a page newest first, says where the next starts, and filters by source type, phrase and status", async () => {
    const first = await post("list", { limit: 20 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 25, offset: 0, next_offset: 20 });
    expect(ids(first.body.memories).slice(0, 3)).toEqual(["n-20", "n-19", "n-18"]);
    const second = await post("list", { limit: 20, offset: 20 });
    expect(ids(second.body.memories)).toEqual(["m-5", "m-4", "m-3", "m-2", "m-1"]);
    expect(second.body.next_offset).toBeNull();
    const passport = await post("list", { contains: "护照", order: "oldest", source_type: "user_message", status: "active" });
    expect(ids(passport.body.memories)).toEqual(["m-1", "m-2", "m-3"]);
    const facts = await post("list", { source_type: "system_fact" });
    expect(ids(facts.body.memories)).toEqual(NOTES_SEED.filter((n) => n.source_type === "system_fact").map((n) => n.id).reverse());
  });

  it("searches for the passport's current place in latest mode and for every place, oldest first, in timeline mode", async () => {
    const latest = await post("search", { query: "护照在哪里？" });
    expect(latest.status).toBe(200);
    expect(ids(latest.body.results)).toEqual(["m-3"]);
    expect(latest.body.receipt).toMatchObject({ mode: "latest", retrieved_chunk_ids: ["m-3"], collapsed_slots: [{ subject: "护照", superseded: 2, current_id: "m-3", current_value: "保险箱" }] });
    // The candidates that ranked lower come with their text, for the page's "why these results".
    expect(latest.body.memories["m-1"]).toEqual({ text: PASSPORT[0].text, source_type: "user_message", timestamp_ms: PASSPORT[0].timestamp_ms, quarantined: false });
    expect(latest.body.memories["m-3"]).toBeUndefined();
    const timeline = await post("search", { query: "护照在哪里？", timeline: true });
    expect(ids(timeline.body.results)).toEqual(["m-1", "m-2", "m-3"]);
    expect(timeline.body.receipt.mode).toBe("timeline");
  });

  it("opens a memory with what it states, its slot's values over time with the current one marked, and the receipts that used it", async () => {
    const search = await post("search", { query: "护照在哪里？" });
    const answer = await post("get", { id: "m-2" });
    expect(answer.status).toBe(200);
    expect(answer.body.record).toMatchObject({ id: "m-2", text: PASSPORT[1].text, session_id: "s-a", turn: 2 });
    expect(answer.body.slots).toEqual([{ kind: "location", subject: "护照", attribute: null, value: "衣柜顶" }]);
    const [history] = answer.body.slot_history;
    expect(history.values.map((v: { value: string; current: boolean }) => [v.value, v.current])).toEqual([["书桌抽屉", false], ["衣柜顶", false], ["保险箱", true]]);
    expect(answer.body.receipts).toEqual([]);
    const current = await post("get", { id: "m-3" });
    expect(current.body.receipts).toEqual([expect.objectContaining({ receipt_id: search.body.receipt.receipt_id, query: "护照在哪里？", mode: "latest", rank: 1 })]);
  });

  it("answers an unknown id with 404 NOT_FOUND naming the field", async () => {
    const answer = await post("get", { id: "m-404" });
    expect(answer.status).toBe(404);
    expect(answer.body.error).toMatchObject({ code: "NOT_FOUND", field: "id" });
  });

  it("counts the memories while memory is on, and answers stats null — not an error — while it is off and no bridge runs", async () => {
    const on = await request(h.port, { path: memoriesRoute("stats") });
    expect(on.body).toMatchObject({ enabled: true, stats: { memories: 25, quarantined: 0 } });
    h.script.memoryEnabled = false;
    h.script.beforeCall = () => {
      throw new DreamError("BRIDGE_UNAVAILABLE", "no bridge is running (long-term memory is off)");
    };
    const off = await request(h.port, { path: memoriesRoute("stats") });
    expect([off.status, off.body]).toEqual([200, { enabled: false, stats: null }]);
    const list = await post("list", {});
    expect(list.status).toBe(500);
    expect(list.body.error.code).toBe("BRIDGE_UNAVAILABLE");
  });
});

describe("memory routes: changes", () => {
  it("edits a memory into a new one; the list shows the new text and the old one quarantined as replaced", async () => {
    const edit = await post("edit", { id: "m-3", text: "我把护照放进银行保险柜了。" });
    expect(edit.status).toBe(200);
    const newId = edit.body.record.id;
    expect(edit.body.replaced).toMatchObject({ id: "m-3", quarantine: { reason: `edited: replaced by ${newId}` } });
    const active = await post("list", { contains: "护照", status: "active" });
    expect(active.body.memories.map((m: { text: string }) => m.text)).toEqual(["我把护照放进银行保险柜了。", PASSPORT[1].text, PASSPORT[0].text]);
    const quarantined = await post("list", { status: "quarantined" });
    expect(ids(quarantined.body.memories)).toEqual(["m-3"]);
    expect((await post("get", { id: "m-3" })).body.replaced_by).toBe(newId);
    expect((await post("get", { id: newId })).body.edited_from).toBe("m-3");
    expect(h.store.get("m-3")!.quarantine?.reason).toBe(`edited: replaced by ${newId}`);
  });

  it("quarantines a memory with a reason, which search then leaves out, and releases it again", async () => {
    const quarantined = await post("quarantine", { id: "m-3", reason: "wrong: I moved it since" });
    expect(quarantined.body.quarantined).toMatchObject({ id: "m-3", quarantine: { reason: "wrong: I moved it since" } });
    expect(h.store.get("m-3")!.quarantine?.reason).toBe("wrong: I moved it since");
    expect(ids((await post("search", { query: "护照在哪里？" })).body.results)).toEqual(["m-2"]);
    const released = await post("release", { id: "m-3" });
    expect(released.status).toBe(200);
    expect(h.store.get("m-3")!.quarantine).toBeUndefined();
    expect(ids((await post("search", { query: "护照在哪里？" })).body.results)).toEqual(["m-3"]);
  });

  it("forgets a memory: gone from the list, from search and from get", async () => {
    const forgotten = await post("forget", { id: "m-3" });
    expect(forgotten.status).toBe(200);
    expect(forgotten.body.forgotten.id).toBe("m-3");
    expect(h.store.get("m-3")).toBeUndefined();
    expect(ids((await post("list", { contains: "护照" })).body.memories)).toEqual(["m-2", "m-1"]);
    expect(ids((await post("search", { query: "护照在哪里？" })).body.results)).toEqual(["m-2"]);
    expect((await post("get", { id: "m-3" })).status).toBe(404);
  });
});

describe("memory routes: the last recall", () => {
  it("answers null before any recall", async () => {
    const answer = await request(h.port, { path: memoriesRoute("last-recall") });
    expect([answer.status, answer.body]).toEqual([200, { recall: null, receipt: null, memories: {} }]);
  });

  it("answers the newest recall with its receipt and the text of each memory it names, a forgotten one left out", async () => {
    const search = await post("search", { query: "护照在哪里？" });
    h.script.newestRecall = note(search.body.receipt.receipt_id);
    h.store.forget("m-2");
    const answer = await request(h.port, { path: memoriesRoute("last-recall") });
    expect(answer.status).toBe(200);
    expect(answer.body.recall).toEqual(h.script.newestRecall);
    expect(answer.body.receipt.receipt_id).toBe(search.body.receipt.receipt_id);
    expect(Object.keys(answer.body.memories).sort()).toEqual(["m-1", "m-3", "m-4"]);
    expect(answer.body.memories["m-3"].text).toBe(PASSPORT[2].text);
  });

  it("answers a recall whose receipt the bridge no longer keeps with the recall and why its receipt is missing", async () => {
    h.script.newestRecall = note("rcpt_gone");
    const answer = await request(h.port, { path: memoriesRoute("last-recall") });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ recall: { receipt_id: "rcpt_gone" }, receipt: null, receipt_unavailable: { code: "NOT_FOUND" }, memories: {} });
  });
});

describe("memory routes: export", () => {
  it("downloads every memory as NDJSON, read from the bridge page by page, as a no-store, nosniff attachment", async () => {
    const bulk = Array.from({ length: 1100 }, (_, i) => ({ id: `bulk-${i}`, text: `第 ${i} 条记录`, source_type: "tool_result" as const, timestamp_ms: 1_700_000_000_000 + i }));
    h.store.importRecords(bulk);
    h.store.quarantine("m-1", "wrong");
    const answer = await request(h.port, { path: memoriesRoute("export") });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/x-ndjson; charset=utf-8");
    expect(answer.headers["content-disposition"]).toMatch(/^attachment; filename="dsh-dream-memories-\d{4}-\d\d-\d\d\.ndjson"$/);
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    const records = answer.text.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(records.map((r) => r.id)).toEqual([...ALL_SEEDS.map((s) => s.id), ...bulk.map((b) => b.id)]);
    expect(records[0]).toMatchObject({ id: "m-1", text: PASSPORT[0].text, quarantined: "wrong" });
    expect(h.calls.filter((call) => call === "bridge.export")).toHaveLength(2);
  });

  it("answers an export that cannot start with its error as JSON, not a broken file", async () => {
    h.script.beforeCall = (method) => {
      if (method === "export") throw new DreamError("BRIDGE_UNAVAILABLE", "no bridge is running (long-term memory is off)");
    };
    const answer = await request(h.port, { path: memoriesRoute("export") });
    expect(answer.status).toBe(500);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(answer.headers["content-disposition"]).toBeUndefined();
    expect(answer.body.error).toMatchObject({ code: "BRIDGE_UNAVAILABLE", message: "no bridge is running (long-term memory is off)" });
  });
});

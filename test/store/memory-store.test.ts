import fs from "node:fs";
import path from "node:path";
import { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { openStore, searchIds, tempDir } from "./helpers";

const journalOf = (store: MemoryStore) => fs.readFileSync(path.join(store.dataDir, "journal.jsonl"), "utf8");

describe("MemoryStore records", () => {
  let store: MemoryStore;
  beforeEach(() => (store = openStore()));
  afterEach(() => store.close());

  it("rejects model_hint naming the value and the allowed set, and writes nothing", () => {
    const before = journalOf(store);
    expect(() => store.add({ text: "use gpt", source_type: "model_hint" })).toThrow(
      expect.objectContaining({
        code: "INVALID_SOURCE_TYPE",
        field: "source_type",
        message: 'source_type "model_hint" is not allowed; allowed: user_message, assistant_message, system_fact, tool_result',
      }),
    );
    expect(journalOf(store)).toBe(before);
    expect(store.size).toBe(0);
  });

  it("keeps given ids exactly and stores a content hash of the text", () => {
    const { record } = store.add({ id: "  Mixed/ID:1 ", text: "hello", source_type: "user_message", timestamp_ms: 5 });
    expect(store.get("  Mixed/ID:1 ")).toEqual({
      id: "  Mixed/ID:1 ",
      text: "hello",
      source_type: "user_message",
      timestamp_ms: 5,
      scope: "global",
      metadata: {},
      content_hash: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    });
    expect(record.id).toBe("  Mixed/ID:1 ");
  });

  it("treats re-adding the same memory as unchanged and a different text under the same id as a conflict", () => {
    store.add({ id: "a", text: "one", source_type: "user_message" });
    expect(store.add({ id: "a", text: "one", source_type: "user_message" }).status).toBe("unchanged");
    const before = journalOf(store);
    expect(() => store.add({ id: "a", text: "two", source_type: "user_message" })).toThrow(expect.objectContaining({ code: "ID_CONFLICT" }));
    expect(journalOf(store)).toBe(before);
    expect(store.get("a")!.text).toBe("one");
  });

  it("names the bad field for malformed records", () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ source_type: "user_message" }, "text", "INVALID_FIELD"],
      [{ text: "x" }, "source_type", "MISSING_FIELD"],
      [{ text: "x", source_type: "user_message", timestamp_ms: -1 }, "timestamp_ms", "INVALID_FIELD"],
      [{ text: "x", source_type: "user_message", scope: "team:x" }, "scope", "INVALID_FIELD"],
      [{ text: "x", source_type: "user_message", colour: "red" }, "colour", "INVALID_FIELD"],
      [{ text: "x".repeat(200_001), source_type: "user_message" }, "text", "INPUT_TOO_LARGE"],
    ];
    for (const [input, field, code] of cases) {
      expect(() => store.add(input)).toThrow(expect.objectContaining({ field, code }));
    }
    expect(store.size).toBe(0);
  });

  it("imports good records and reports bad ones by index without writing them", () => {
    const report = store.importRecords([
      { id: "ok-1", text: "first", source_type: "user_message" },
      { id: "bad", text: "second", source_type: "model_hint" },
      { id: "ok-2", text: "third", source_type: "tool_result" },
      { id: "ok-1", text: "first", source_type: "user_message" },
    ]);
    expect(report).toEqual({
      added: 2,
      unchanged: 1,
      rejected: [{ index: 1, code: "INVALID_SOURCE_TYPE", message: expect.stringContaining('"model_hint"') }],
    });
    expect(store.get("bad")).toBeUndefined();
  });
});

describe("MemoryStore durability and lifecycle", () => {
  it("rebuilds the same search results from the journal after reopening", () => {
    const dir = tempDir();
    const first = openStore(dir);
    first.add({ id: "m1", text: "我的护照在书桌抽屉里", source_type: "user_message", timestamp_ms: 1 });
    first.add({ id: "m2", text: "passport renewal is due in May", source_type: "system_fact", timestamp_ms: 2 });
    first.add({ id: "m3", text: "weather was sunny", source_type: "user_message", timestamp_ms: 3 });
    first.forget("m3");
    const before = searchIds(first, { query: "passport 护照", top_k: 5 });
    first.close();
    const second = openStore(dir);
    expect(second.size).toBe(2);
    expect(searchIds(second, { query: "passport 护照", top_k: 5 })).toEqual(before);
    expect(searchIds(second, { query: "weather sunny" })).toEqual([]);
    second.close();
  });

  it("refuses a second open of the same data directory while the first is open", () => {
    const dir = tempDir();
    const first = openStore(dir);
    expect(() => openStore(dir)).toThrow(expect.objectContaining({ code: "DATA_DIR_LOCKED" }));
    first.close();
    openStore(dir).close();
  });

  it("takes over a lock left behind by a dead process", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "store.lock"), JSON.stringify({ pid: 2 ** 22 + 12345 }));
    const store = openStore(dir);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "store.lock"), "utf8")).pid).toBe(process.pid);
    store.close();
    expect(fs.existsSync(path.join(dir, "store.lock"))).toBe(false);
  });

  it("reports NOT_FOUND when forgetting an unknown id and changes nothing", () => {
    const store = openStore();
    store.add({ id: "keep", text: "keep me", source_type: "user_message" });
    expect(() => store.forget("nope")).toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    expect(store.size).toBe(1);
    store.close();
  });
});

describe("MemoryStore scopes and quarantine", () => {
  let store: MemoryStore;
  beforeEach(() => {
    store = openStore();
    store.importRecords([
      { id: "g", text: "deploy checklist global", source_type: "system_fact", scope: "global" },
      { id: "a", text: "deploy checklist for alpha", source_type: "system_fact", scope: "project:alpha" },
      { id: "b", text: "deploy checklist for beta", source_type: "system_fact", scope: "project:beta" },
    ]);
  });
  afterEach(() => store.close());

  it("lets a project search see that project plus global, and nothing of other projects", () => {
    expect(searchIds(store, { query: "deploy checklist", scope: "project:alpha" }).sort()).toEqual(["a", "g"]);
    expect(searchIds(store, { query: "deploy checklist", scope: "global" })).toEqual(["g"]);
    expect(searchIds(store, { query: "deploy checklist" }).sort()).toEqual(["a", "b", "g"]);
  });

  it("retrieves a quarantined memory as a candidate but withholds it, and says so in the receipt", () => {
    store.quarantine("a", "suspected prompt injection");
    const { results, receipt } = store.search(parseSearchRequest({ query: "deploy checklist alpha", scope: "project:alpha" }));
    expect(results.map((r) => r.id)).toEqual(["g"]);
    expect(receipt.candidates.map((c) => c.id)).toContain("a");
    expect(receipt.withheld).toEqual([{ id: "a", reason: "quarantined: suspected prompt injection" }]);
    store.release("a");
    expect(searchIds(store, { query: "deploy checklist alpha", scope: "project:alpha" })).toEqual(["a", "g"]);
  });

  it("writes a receipt line to the audit log for every search", () => {
    searchIds(store, { query: "deploy" });
    searchIds(store, { query: "checklist" });
    const lines = fs.readFileSync(path.join(store.dataDir, "audit.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).query)).toEqual(["deploy", "checklist"]);
  });
});

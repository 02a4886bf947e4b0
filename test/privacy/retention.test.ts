// Issue 16 item 5: retention limits per scope (age, count) and for the audit log (age, size, query
// text), applied by forgetting and compaction, so what the limits let go leaves every file.
import fs from "node:fs";
import path from "node:path";
import { defaultEmbeddingConfig } from "../../bridge/embed/embedding-config";
import { BridgeClient } from "../../bridge/client/bridge-client";
import { DEFAULT_SEARCH, defaultPrivacy, type PrivacyConfig } from "../../bridge/server/bridge-config";
import { startBridge } from "../../bridge/server/daemon";
import { AuditLog, UNKEPT_QUERY } from "../../bridge/store/audit-log";
import { MemoryStore } from "../../bridge/store/memory-store";
import type { MemoryRecord } from "../../bridge/store/records";
import type { Receipt } from "../../bridge/store/receipts";
import { DAY_MS, retentionVerdict, type RetentionConfig } from "../../bridge/store/retention";
import { tempDir } from "../store/helpers";
import { filesHolding } from "./files-holding";

const NOW = Date.UTC(2026, 11, 1);

function record(id: string, scope: string, ageDays: number): MemoryRecord {
  return { id, text: `text of ${id}`, source_type: "user_message", timestamp_ms: NOW - ageDays * DAY_MS, scope, metadata: {}, content_hash: `h-${id}` };
}

function policy(patch: Partial<RetentionConfig>): RetentionConfig {
  return { maxAgeDays: 0, maxMemories: 0, scopes: {}, ...patch };
}

function ids(records: Array<MemoryRecord | undefined>, docs: number[]): string[] {
  return docs.map((doc) => records[doc]!.id);
}

describe("retention verdict", () => {
  const records = [record("g-old", "global", 400), record("g-new", "global", 1), undefined, record("p-old", "project:a", 40), record("p-mid", "project:a", 10), record("p-new", "project:a", 0.5)];

  it("lets nothing go when no limit is set", () => {
    expect(retentionVerdict(records, policy({}), NOW)).toEqual({ docs: [], byScope: {} });
  });

  it("forgets by age in every scope, by the memory's own time", () => {
    const verdict = retentionVerdict(records, policy({ maxAgeDays: 30 }), NOW);
    expect(ids(records, verdict.docs)).toEqual(["g-old", "p-old"]);
    expect(verdict.byScope).toEqual({ global: { age: 1, count: 0 }, "project:a": { age: 1, count: 0 } });
  });

  it("keeps each scope's newest N, counting only what the age limit kept", () => {
    const verdict = retentionVerdict(records, policy({ maxAgeDays: 30, maxMemories: 1 }), NOW);
    expect(ids(records, verdict.docs)).toEqual(["g-old", "p-old", "p-mid"]);
    expect(verdict.byScope["project:a"]).toEqual({ age: 1, count: 1 });
  });

  it("lets a scope override one limit and inherit the other; 0 lifts a limit for that scope", () => {
    const verdict = retentionVerdict(records, policy({ maxAgeDays: 30, scopes: { "project:a": { maxMemories: 2 }, global: { maxAgeDays: 0 } } }), NOW);
    expect(ids(records, verdict.docs)).toEqual(["p-old"]);
    const tighter = retentionVerdict(records, policy({ scopes: { "project:a": { maxAgeDays: 5 } } }), NOW);
    expect(ids(records, tighter.docs)).toEqual(["p-old", "p-mid"]);
  });

  it("breaks ties in time by keeping the later memory", () => {
    const tied = [record("first", "global", 2), record("second", "global", 2)];
    expect(ids(tied, retentionVerdict(tied, policy({ maxMemories: 1 }), NOW).docs)).toEqual(["first"]);
  });
});

describe("retention in the store", () => {
  it("forgets what the limits let go in one write, and compaction erases its text", () => {
    const dataDir = tempDir("retention-store-");
    const store = MemoryStore.open({ dataDir, nowMs: () => NOW });
    try {
      store.add({ id: "old", text: "the lease on the Maple Road flat ended", source_type: "user_message", timestamp_ms: NOW - 90 * DAY_MS });
      store.add({ id: "new", text: "the umbrella is in the hallway", source_type: "user_message", timestamp_ms: NOW - DAY_MS });
      const before = store.journalEndOffset;
      const report = store.applyRetention(policy({ maxAgeDays: 60 }));
      expect(report).toEqual({ forgotten: 1, by_scope: { global: { age: 1, count: 0 } } });
      expect(store.get("old")).toBeUndefined();
      expect(store.get("new")?.id).toBe("new");
      expect(store.journalEndOffset).toBeGreaterThan(before);
      expect(store.applyRetention(policy({ maxAgeDays: 60 })).forgotten).toBe(0);
      expect(filesHolding(dataDir, "Maple Road").length).toBeGreaterThan(0);
      expect(store.compact().erased).toBe(1);
      expect(filesHolding(dataDir, "Maple Road")).toEqual([]);
    } finally {
      store.close();
    }
    const reopened = MemoryStore.open({ dataDir, nowMs: () => NOW });
    try {
      expect(reopened.size).toBe(1);
    } finally {
      reopened.close();
    }
  });
});

function receipt(id: string, ageDays: number, query: string): Receipt {
  return { receipt_id: id, created_at_ms: NOW - ageDays * DAY_MS, query } as Receipt;
}

function receiptLines(file: string): Array<{ receipt_id: string; query: string }> {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

describe("the audit log's limits", () => {
  it("writes no query text when keepQueryText is off, and masks what was written before", () => {
    const dir = tempDir("audit-query-");
    const file = path.join(dir, "audit.jsonl");
    const keeping = new AuditLog(file);
    keeping.write(receipt("r1", 0, "where did I park the van"));
    const unkept = new AuditLog(file, { keepQueryText: false, maxAgeDays: 0, maxMegabytes: 128 });
    unkept.write(receipt("r2", 0, "what is my sister's new address"));
    expect(receiptLines(file).map((r) => r.query)).toEqual(["where did I park the van", UNKEPT_QUERY]);
    expect(unkept.trim(NOW)).toEqual({ dropped: 0, masked: 1 });
    expect(receiptLines(file).map((r) => r.query)).toEqual([UNKEPT_QUERY, UNKEPT_QUERY]);
    expect(filesHolding(dir, "park the van")).toEqual([]);
    expect(filesHolding(dir, "new address")).toEqual([]);
    // A second trim finds nothing left to do.
    expect(unkept.trim(NOW)).toEqual({ dropped: 0, masked: 0 });
  });

  it("removes receipts older than maxAgeDays from the log and its rotated file", () => {
    const dir = tempDir("audit-age-");
    const file = path.join(dir, "audit.jsonl");
    fs.writeFileSync(path.join(dir, "audit.1.jsonl"), JSON.stringify(receipt("ancient", 400, "q0")) + "\n");
    const log = new AuditLog(file, { keepQueryText: true, maxAgeDays: 30, maxMegabytes: 128 });
    log.write(receipt("old", 31, "q1"));
    log.write(receipt("recent", 29, "q2"));
    log.write(receipt("today", 0, "q3"));
    expect(log.trim(NOW)).toEqual({ dropped: 2, masked: 0 });
    expect(receiptLines(file).map((r) => r.receipt_id)).toEqual(["recent", "today"]);
    expect(receiptLines(path.join(dir, "audit.1.jsonl"))).toEqual([]);
    expect(log.recent.require().receipt_id).toBe("today");
  });

  it("keeps the log and its rotated file under maxMegabytes together, newest receipts kept", () => {
    const dir = tempDir("audit-size-");
    const file = path.join(dir, "audit.jsonl");
    const padding = "x".repeat(10_000);
    // Written under the default limit, then the limit is lowered to 1 MB (0.5 MB per file).
    const big = new AuditLog(file);
    for (let i = 0; i < 300; i++) big.write(receipt(`r${i}`, 0, `${i} ${padding}`));
    expect(fs.statSync(file).size).toBeGreaterThan(1024 * 1024);
    const small = new AuditLog(file, { keepQueryText: true, maxAgeDays: 0, maxMegabytes: 1 });
    const trimmed = small.trim(NOW);
    expect(trimmed.dropped).toBeGreaterThan(200);
    const kept = receiptLines(file);
    expect(kept.at(-1)?.receipt_id).toBe("r299");
    expect(fs.statSync(file).size).toBeLessThanOrEqual(512 * 1024);
    // New writes rotate at half the limit: the two files stay under it.
    for (let i = 300; i < 500; i++) small.write(receipt(`r${i}`, 0, `${i} ${padding}`));
    const total = fs.statSync(file).size + fs.statSync(path.join(dir, "audit.1.jsonl")).size;
    expect(total).toBeLessThanOrEqual(1024 * 1024);
    expect(receiptLines(file).at(-1)?.receipt_id).toBe("r499");
  });
});

describe("retention through a real bridge", () => {
  it("erases memories past the limits from every file by itself, and says so in status", async () => {
    const dataDir = tempDir("retention-bridge-");
    // Written before the limit existed, as a user's store would be.
    const seed = MemoryStore.open({ dataDir });
    seed.add({ id: "old", text: "the lease on the Maple Road flat ended", source_type: "user_message", timestamp_ms: Date.now() - 100 * DAY_MS });
    seed.add({ id: "p1", text: "project note one, the blue door", source_type: "user_message", scope: "project:a", timestamp_ms: Date.now() - 3 * DAY_MS });
    seed.add({ id: "p2", text: "project note two", source_type: "user_message", scope: "project:a", timestamp_ms: Date.now() - 2 * DAY_MS });
    seed.add({ id: "keep", text: "the umbrella is in the hallway", source_type: "user_message", timestamp_ms: Date.now() - DAY_MS });
    seed.search({ query: "Maple Road lease", topK: 3, timeline: false });
    seed.close();
    expect(filesHolding(dataDir, "Maple Road").length).toBeGreaterThan(0);

    const privacy: PrivacyConfig = { ...defaultPrivacy(), retention: { maxAgeDays: 30, maxMemories: 0, scopes: { "project:a": { maxMemories: 1 } } }, audit: { keepQueryText: false, maxAgeDays: 0, maxMegabytes: 128 } };
    const bridge = await startBridge({
      dataDir,
      config: { chroma: { mode: "off" }, embedding: { ...defaultEmbeddingConfig(dataDir), provider: "off" }, privacy, search: { ...DEFAULT_SEARCH } },
      version: "test",
      env: {},
      housekeeping: { checkEveryMs: 100, quietMs: 200, eraseAfterMs: 60_000 },
    });
    try {
      const client = BridgeClient.fromDataDir(dataDir);
      while (filesHolding(dataDir, "Maple Road").length > 0 || filesHolding(dataDir, "blue door").length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const status = await client.call<{ records: number; privacy: { retention: RetentionConfig; limits_last_applied: { forgotten: number; by_scope: Record<string, unknown> } } }>("status");
      expect(status.records).toBe(2);
      expect(status.privacy.retention.maxAgeDays).toBe(30);
      expect(status.privacy.limits_last_applied).toMatchObject({ forgotten: 2, by_scope: { global: { age: 1, count: 0 }, "project:a": { age: 0, count: 1 } } });
      expect(await client.call("get", { id: "p2" })).toMatchObject({ record: { id: "p2" } });
      expect(await client.call("get", { id: "keep" })).toMatchObject({ record: { id: "keep" } });
      // keepQueryText off: a new recall's query is not written either.
      await client.call("search", { query: "where is the umbrella kept" });
      expect(filesHolding(dataDir, "umbrella kept")).toEqual([]);
      expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).toMatch(/retention: forgot 2 memories/);
    } finally {
      await bridge.stop("test over");
    }
  }, 60_000);
});

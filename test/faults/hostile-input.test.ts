// Issue 15, items 1, 4 (lone surrogates) and 5, and the nesting case of 7: input that could poison
// replay is refused before the journal write ("rejected" means nothing on disk), a journal already
// poisoned by an older version still opens, and stored times that no Date can hold are printed, not
// thrown over.
import fs from "node:fs";
import path from "node:path";
import { formatSearch } from "../../bridge/cli/format";
import type { DreamError } from "../../bridge/protocol/errors";
import { isoTime } from "../../bridge/protocol/time";
import { httpStatusFor } from "../../bridge/protocol/wire";
import { createBridgeService } from "../../bridge/server/bridge-service";
import { encodeLine } from "../../bridge/store/journal";
import { encodeAdd } from "../../bridge/store/journal-entries";
import type { MemoryRecord } from "../../bridge/store/records";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { openStore, searchIds, tempDir } from "../store/helpers";

const journalOf = (dataDir: string) => path.join(dataDir, "journal.jsonl");

function journalBytes(dataDir: string): Buffer {
  return fs.existsSync(journalOf(dataDir)) ? fs.readFileSync(journalOf(dataDir)) : Buffer.alloc(0);
}

/** Adds `input` and expects it refused with INVALID_FIELD naming `field`, the journal byte-for-byte as before. */
function expectRefused(input: Record<string, unknown>, field: string, message: RegExp): void {
  const dataDir = tempDir("hostile-");
  const store = openStore(dataDir);
  try {
    store.add({ id: "before", text: "a memory stored before", source_type: "user_message" });
    const before = journalBytes(dataDir);
    expect(() => store.add(input)).toThrow(expect.objectContaining({ code: "INVALID_FIELD", field, message: expect.stringMatching(message) }));
    expect(journalBytes(dataDir).equals(before)).toBe(true);
    expect(store.size).toBe(1);
  } finally {
    store.close();
  }
  // And the directory still opens.
  const again = openStore(dataDir);
  expect(again.size).toBe(1);
  again.close();
}

const vector = (values: number[]) => ({ provider: "test", model: "m", vector: values });

describe("input that could poison replay is refused before the journal", () => {
  it("refuses a vector value finite as a double but not as float32", () => {
    expectRefused({ text: "huge", source_type: "user_message", embedding: vector([1e39, 1]) }, "embedding.vector", /^embedding\.vector\[0\] is 1e\+39, outside the float32 range/);
  });

  it("refuses a vector whose values all round to 0 as float32", () => {
    expectRefused({ text: "tiny", source_type: "user_message", embedding: vector([1e-46, -1e-46]) }, "embedding.vector", /^embedding\.vector must not be all zeros \(as float32/);
  });

  it("refuses a time no Date can hold, and takes the largest one that it can", () => {
    expectRefused({ text: "far", source_type: "user_message", timestamp_ms: 8.64e15 + 1 }, "timestamp_ms", /^timestamp_ms must be an integer of milliseconds from 0 to 8640000000000000/);
    const store = openStore();
    expect(store.add({ id: "edge", text: "the last day", source_type: "user_message", timestamp_ms: 8.64e15 })).toMatchObject({ status: "added" });
    store.close();
  });

  it("refuses metadata nested deeper than 32 levels with a 4xx code, not an internal error", async () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 8000; i++) deep = { d: deep };
    expectRefused({ text: "deep", source_type: "user_message", metadata: deep }, "metadata", /^metadata is nested more than 32 levels deep$/);
    // Through the bridge's handler (which walks metadata to redact secrets first): the same refusal, answered 400.
    const store = openStore();
    try {
      const hooks = { status: async () => ({}), shutdown: () => undefined, embedQuery: async () => ({ fallback: "runtime_missing" as const }), reembed: () => ({}), purge: async () => ({}) };
      const handle = createBridgeService(store, hooks, { redactSecrets: true });
      const error = await handle("add", { text: "deep", source_type: "user_message", metadata: deep }).then(() => undefined, (failure: DreamError) => failure);
      expect(error).toMatchObject({ code: "INVALID_FIELD", field: "metadata" });
      expect(httpStatusFor(error!.code)).toBe(400);
    } finally {
      store.close();
    }
  });

  it("refuses an id with a lone surrogate, which could not round-trip", () => {
    expectRefused({ id: "id-\ud83d", text: "x", source_type: "user_message" }, "id", /lone surrogates/);
  });

  it("stores lone surrogates in text, tags, session and metadata as U+FFFD, and pairs as they are", () => {
    const store = openStore();
    store.add({
      id: "s",
      text: "broken \ud83d and whole 😀 and \ude00 low",
      source_type: "user_message",
      session_id: "sess-\udfff",
      tags: ["t\ud800"],
      metadata: { ["k\ud801"]: ["v\udc00", { deep: "😀\ud83d" }] },
    });
    const record = store.get("s")!;
    expect(record.text).toBe("broken \ufffd and whole 😀 and \ufffd low");
    expect(record.session_id).toBe("sess-\ufffd");
    expect(record.tags).toEqual(["t\ufffd"]);
    expect(record.metadata).toEqual({ ["k\ufffd"]: ["v\ufffd", { deep: "😀\ufffd" }] });
    // What every UTF-8 consumer (Chroma among them) receives is what is stored.
    expect(Buffer.from(JSON.stringify(record), "utf8").toString("utf8")).toBe(JSON.stringify(record));
    store.close();
  });
});

describe("a journal poisoned by an earlier version", () => {
  function poison(dataDir: string, id: string, values: number[]): void {
    const record: MemoryRecord = { id, text: `poisoned memory ${id} umbrella`, source_type: "user_message", timestamp_ms: 1_750_000_000_000, scope: "global", metadata: {}, content_hash: "x" };
    fs.appendFileSync(journalOf(dataDir), encodeLine(encodeAdd(record, { provider: "test", model: "m", vector: new Float32Array(values) })));
  }

  it("opens, keeps each memory without its unusable vector, counts it in status, and serves as before", () => {
    const dataDir = tempDir("poisoned-");
    const first = openStore(dataDir);
    first.add({ id: "good", text: "a good umbrella memory", source_type: "user_message", embedding: vector([1, 0]) });
    first.close();
    poison(dataDir, "inf", [Infinity, 1]);
    poison(dataDir, "zero", [0, 0]);
    poison(dataDir, "nan", [NaN, 1]);

    const store = openStore(dataDir);
    try {
      expect(store.size).toBe(4);
      expect(store.status()).toMatchObject({ records: 4, journal: { unusable_vectors: { count: 3, ids: ["inf", "zero", "nan"] } } });
      expect(searchIds(store, { query: "umbrella", top_k: 10 }).sort()).toEqual(["good", "inf", "nan", "zero"]);
      // The dense side still works for the good vector.
      expect(searchIds(store, { query: "umbrella", top_k: 1, query_embedding: { provider: "test", model: "m", vector: [1, 0] } })).toEqual(["good"]);
      store.add({ id: "after", text: "written after the poisoned lines", source_type: "user_message" });
    } finally {
      store.close();
    }
    const reopened = openStore(dataDir);
    expect(reopened.size).toBe(5);
    reopened.close();
  });

  it("refuses an embedder's unusable vector before the journal, so it is never re-embedded for ever", () => {
    const dataDir = tempDir("embedder-");
    const store = openStore(dataDir);
    try {
      store.add({ id: "m", text: "needs a vector", source_type: "user_message" });
      const before = journalBytes(dataDir);
      const hash = store.get("m")!.content_hash;
      expect(() => store.attachVectors([{ id: "m", contentHash: hash, embedding: { provider: "test", model: "m", vector: new Float32Array([NaN, 1]) } }])).toThrow(
        expect.objectContaining({ code: "INVALID_FIELD", message: expect.stringContaining('the embedder\'s vector for "m"') }),
      );
      expect(journalBytes(dataDir).equals(before)).toBe(true);
    } finally {
      store.close();
    }
  });
});

describe("times no Date can hold", () => {
  it("print as a description instead of throwing", () => {
    expect(isoTime(1_750_000_000_000)).toBe("2025-06-15T15:06:40.000Z");
    expect(isoTime(9e15)).toBe("(time 9000000000000000 out of range)");
    expect(isoTime(Number.NaN)).toBe("(time NaN out of range)");
  });

  it("do not stop the CLI's human search output (a memory stored by an earlier version)", () => {
    const dataDir = tempDir("far-");
    openStore(dataDir).close();
    const record: MemoryRecord = { id: "far", text: "from the far future", source_type: "user_message", timestamp_ms: 9e15, scope: "global", metadata: {}, content_hash: "x" };
    fs.appendFileSync(journalOf(dataDir), encodeLine(encodeAdd(record)));
    const store = openStore(dataDir);
    try {
      const text = formatSearch(store.search(parseSearchRequest({ query: "far future" })));
      expect(text).toContain("[user_message] (time 9000000000000000 out of range)  far");
      expect(text).toContain("from the far future");
    } finally {
      store.close();
    }
  });
});

describe("quarantine reasons", () => {
  it("longer than 1000 characters are refused, and nothing is written", () => {
    const dataDir = tempDir("reason-");
    const store = openStore(dataDir);
    try {
      store.add({ id: "q", text: "a memory to hold back", source_type: "user_message" });
      const before = journalBytes(dataDir);
      expect(() => store.quarantine("q", "x".repeat(1001))).toThrow(
        expect.objectContaining({ code: "INPUT_TOO_LARGE", field: "reason", message: "reason is 1001 characters; the limit is 1000" }),
      );
      expect(journalBytes(dataDir).equals(before)).toBe(true);
      expect(store.quarantine("q", "y".repeat(1000)).quarantine?.reason).toHaveLength(1000);
    } finally {
      store.close();
    }
  });

  it("stored huge by an earlier version are clipped in every receipt", () => {
    const dataDir = tempDir("huge-reason-");
    const store = openStore(dataDir);
    store.add({ id: "q", text: "the umbrella memory held back", source_type: "user_message" });
    store.close();
    fs.appendFileSync(journalOf(dataDir), encodeLine({ op: "quarantine", id: "q", reason: "r".repeat(1_000_000), at_ms: 1 }));
    const reopened = openStore(dataDir);
    try {
      const response = reopened.search(parseSearchRequest({ query: "umbrella" }));
      const withheld = response.receipt.withheld;
      expect(withheld.map((w) => w.id)).toEqual(["q"]);
      expect(withheld[0]!.reason).toBe(`quarantined: ${"r".repeat(200)}… (1000000 characters)`);
      expect(JSON.stringify(response).length).toBeLessThan(20_000);
    } finally {
      reopened.close();
    }
  });
});

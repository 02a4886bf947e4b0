// The receipt history behind the `receipt` RPC: a bounded ring in memory, seeded on open from the
// tail of audit.jsonl, which may end in a torn line and may have been written with CRLF.
import fs from "node:fs";
import path from "node:path";
import { readRecentReceipts, ReceiptHistory } from "../../bridge/store/receipt-history";
import type { Receipt } from "../../bridge/store/receipts";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { openStore, tempDir } from "./helpers";

const receipt = (id: string, query = "q"): Receipt => ({ receipt_id: id, query }) as Receipt;

describe("ReceiptHistory", () => {
  it("answers the newest receipt, or one by id, and forgets the oldest beyond its capacity", () => {
    const history = new ReceiptHistory(3);
    for (const id of ["r1", "r2", "r3", "r4"]) history.remember(receipt(id));
    expect(history.require().receipt_id).toBe("r4");
    expect(history.require("r2").receipt_id).toBe("r2");
    expect(() => history.require("r1")).toThrow(
      expect.objectContaining({ code: "NOT_FOUND", field: "receipt_id", message: 'no receipt with id "r1" among the 3 most recent searches' }),
    );
  });

  it("says that no search was made yet when it holds nothing", () => {
    expect(() => new ReceiptHistory().require()).toThrow(
      expect.objectContaining({ code: "NOT_FOUND", message: "no search receipt is recorded for this data directory yet; run a search first" }),
    );
  });
});

describe("readRecentReceipts", () => {
  let dir: string;
  beforeEach(() => (dir = tempDir("receipts-")));

  it("returns nothing for a data directory without an audit log", () => {
    expect(readRecentReceipts(path.join(dir, "audit.jsonl"))).toEqual([]);
  });

  it("reads CRLF lines and skips a torn last line", () => {
    const file = path.join(dir, "audit.jsonl");
    fs.writeFileSync(file, [JSON.stringify(receipt("r1")), JSON.stringify(receipt("r2")), '{"receipt_id":"r3","que'].join("\r\n"));
    expect(readRecentReceipts(file).map((r) => r.receipt_id)).toEqual(["r1", "r2"]);
  });

  it("reads only the tail of a large log, dropping the line the tail cuts in half", () => {
    const file = path.join(dir, "audit.jsonl");
    const lines = Array.from({ length: 100 }, (_, i) => JSON.stringify(receipt(`r${i}`, "x".repeat(80))) + "\n");
    fs.writeFileSync(file, lines.join(""));
    const lastTen = ["r90", "r91", "r92", "r93", "r94", "r95", "r96", "r97", "r98", "r99"];
    // Ten whole lines and the end of an eleventh, then exactly ten whole lines.
    expect(readRecentReceipts(file, lines[99].length * 10 + 5).map((r) => r.receipt_id)).toEqual(lastTen);
    expect(readRecentReceipts(file, lines[99].length * 10).map((r) => r.receipt_id)).toEqual(lastTen);
  });
});

describe("MemoryStore receipts", () => {
  it("finds the last receipt and an earlier one by id after the store is reopened", () => {
    const dataDir = tempDir("receipts-store-");
    let store = openStore(dataDir);
    store.add({ id: "a", text: "blue mug on the desk", source_type: "user_message" });
    const first = store.search(parseSearchRequest({ query: "blue mug" })).receipt;
    const second = store.search(parseSearchRequest({ query: "desk" })).receipt;
    expect(store.receipts.require()).toEqual(second);
    store.close();
    // A crash mid-append leaves a torn line behind; the receipts before it are still found.
    fs.appendFileSync(path.join(dataDir, "audit.jsonl"), '{"receipt_id":"torn');
    store = openStore(dataDir);
    expect(store.receipts.require()).toEqual(second);
    expect(store.receipts.require(first.receipt_id)).toEqual(first);
    store.close();
  });
});

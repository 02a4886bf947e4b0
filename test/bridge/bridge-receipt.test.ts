// The `receipt` RPC through the real bridge process: the newest search receipt or one by id, also
// after the bridge restarts (seeded from audit.jsonl), and NOT_FOUND for an id it does not know.
import { DreamError } from "../../bridge/protocol/errors";
import type { Receipt, ReceiptResponse } from "../../bridge/store/receipts";
import type { SearchResponse } from "../../bridge/store/search";
import { tempDir } from "../store/helpers";
import { serveBridge, type ServedBridge } from "./bridge-process";

async function stopServed(bridge: ServedBridge): Promise<void> {
  if (bridge.child.exitCode !== null || bridge.child.signalCode !== null) return;
  await bridge.client.call("shutdown", {}).catch(() => undefined);
  await bridge.exited;
}

// Chroma plays no part in receipts, so these bridges run without it.
const serve = (dataDir: string) => serveBridge(dataDir, ["--no-chroma"]);

describe("the receipt RPC", () => {
  let dataDir: string;
  let bridge: ServedBridge;
  beforeEach(async () => {
    dataDir = tempDir("bridge-receipt-");
    bridge = await serve(dataDir);
  });
  afterEach(async () => stopServed(bridge));

  it("answers the newest receipt, an earlier one by id, and the same newest one after a restart", async () => {
    await bridge.client.call("import", {
      records: [
        { id: "mug", text: "I bought a blue mug", source_type: "user_message" },
        { id: "desk", text: "the desk is by the window", source_type: "user_message" },
      ],
    });
    const first = await bridge.client.call<SearchResponse>("search", { query: "blue mug", window_hash: "w-1" });
    const second = await bridge.client.call<SearchResponse>("search", { query: "desk window", exclude_ids: ["desk"], anchor_version: "a-2" });
    expect(second.receipt).toEqual(expect.objectContaining({ anchor_version: "a-2", withheld: [{ id: "desk", reason: "in recent window" }] }));

    expect(await bridge.client.call<ReceiptResponse>("receipt", {})).toEqual({ receipt: second.receipt });
    expect(await bridge.client.call<ReceiptResponse>("receipt", { receipt_id: first.receipt.receipt_id })).toEqual({ receipt: first.receipt });

    await stopServed(bridge);
    bridge = await serve(dataDir);
    const afterRestart = await bridge.client.call<{ receipt: Receipt }>("receipt", {});
    expect(afterRestart.receipt).toEqual(second.receipt);
    expect((await bridge.client.call<ReceiptResponse>("receipt", { receipt_id: first.receipt.receipt_id })).receipt.window_hash).toBe("w-1");
  });

  it("answers NOT_FOUND for an unknown id and for a data directory that has seen no search", async () => {
    const none = await bridge.client.call("receipt", {}).catch((error: DreamError) => error);
    expect(none).toMatchObject({ code: "NOT_FOUND", message: "no search receipt is recorded for this data directory yet; run a search first" });
    await bridge.client.call("search", { query: "anything" });
    await expect(bridge.client.call("receipt", { receipt_id: "rcpt_nope" })).rejects.toMatchObject({
      code: "NOT_FOUND",
      field: "receipt_id",
      message: 'no receipt with id "rcpt_nope" among the 1 most recent searches',
    });
    await expect(bridge.client.call("receipt", { receipt_id: 42 })).rejects.toMatchObject({ code: "INVALID_FIELD", field: "receipt_id" });
  });
});

// Issue 18: status and receipts say when the approximate index answers and how long the replica needs.
import { formatReceipt, formatStatus } from "../../bridge/cli/views";
import type { Receipt } from "../../bridge/store/receipts";

const base = { records: 1_200_000, data_dir: "/data" };

describe("status at scale", () => {
  it("gives the replica's catch-up rate and time left, and nothing before a batch is in", () => {
    const chroma = { mode: "embedded", healthy: true, pending_bytes: 3 * 2 ** 30 };
    const eta = formatStatus({ ...base, chroma: { ...chroma, catch_up: { since_ms: 0, synced_bytes: 2 ** 30, bytes_per_s: 2 * 2 ** 20, eta_s: 1_536 } } });
    expect(eta).toContain("replica     Chroma (embedded) catching up (3.0 GiB of the journal to go, about 26 min left at 2.0 MiB/s)");
    const early = formatStatus({ ...base, chroma: { ...chroma, catch_up: { since_ms: 0, synced_bytes: 0, bytes_per_s: null, eta_s: null } } });
    expect(early).toContain("catching up (3.0 GiB of the journal to go)\n");
    // The bridge serves before its replica is up (daemon.ts): not "down" meanwhile.
    expect(formatStatus({ ...base, chroma: { mode: "embedded", starting: true, healthy: false, collections: [] } })).toContain("replica     Chroma (embedded) starting\n");
  });

  it("names the approximate index of a space over the limit, or that it is being built", () => {
    const space = { provider: "local", model: "bge-small-zh", vectors: 1_200_000 };
    const ivf = formatStatus({ ...base, vectors: [{ ...space, index: { mode: "ivf", flatMaxRecords: 200_000, lists: 1_095, recallEstimate: 0.9912 } }] });
    expect(ivf).toContain("dense       local/bge-small-zh: 1200000 vectors, approximate index, 1095 lists, recall@10 ≈ 0.991 (exact search covers up to 200000)");
    const building = formatStatus({ ...base, vectors: [{ ...space, index: { mode: "building", flatMaxRecords: 200_000 } }] });
    expect(building).toContain("searched exactly while the approximate index is built (exact search covers up to 200000)");
    expect(formatStatus({ ...base, vectors: [{ ...space, vectors: 10, index: { mode: "flat", flatMaxRecords: 200_000 } }] })).not.toContain("dense ");
  });

  it("says in a receipt that meaning came from the approximate index, with its recall", () => {
    const receipt = {
      receipt_id: "rcpt_1",
      created_at_ms: 0,
      query: "where is my passport",
      mode: "latest",
      scope: null,
      top_k: 3,
      recall: "Recall: dense + FTS",
      retrieved_chunk_ids: [],
      candidates: [],
      withheld: [],
      collapsed_slots: [],
      conflicts: [],
      slots: [],
      dense: { index: { kind: "ivf", scanned: 24_000, lists_probed: 31, lists: 1_095, recall_estimate: 0.9912 } },
    } as unknown as Receipt;
    expect(formatReceipt(receipt, new Map())).toContain("recall  dense + FTS · meaning from the approximate index (31 of 1095 lists, 24000 vectors, recall@10 ≈ 0.991)");
  });
});

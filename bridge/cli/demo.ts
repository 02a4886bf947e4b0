// `dsh-dream demo`: a short offline walk through the store — capture, recall with receipts,
// a state change collapsing to the newest, an action sequence kept whole, and the timeline.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MemoryStore } from "../store/memory-store";
import { parseSearchRequest } from "../store/search-request";
import { formatSearch } from "./format";
import type { CliIo } from "./io";

const DAY_MS = 86_400_000;
const START_MS = Date.UTC(2026, 2, 1, 9, 0, 0);

const CONVERSATION: Array<[number, "user_message" | "assistant_message", string]> = [
  [0, "user_message", "今天逛街买了一个星巴克的蓝色马克杯。"],
  [0, "assistant_message", "好看！蓝色很适合早上的咖啡。"],
  [1, "user_message", "钥匙放在鞋柜里了，提醒我一下。"],
  [2, "user_message", "My passport is in the desk drawer."],
  [3, "user_message", "I adopted a puppy named Max today."],
  [5, "user_message", "不小心把蓝色马克杯摔碎了，好可惜。"],
  [6, "user_message", "我把钥匙放到了花盆里，鞋柜太满了。"],
  [7, "user_message", "I moved my passport to the safe in the closet."],
  [9, "user_message", "又买了一个新的蓝色马克杯作为替代。"],
  [10, "user_message", "Max learned to sit and shake hands."],
];

const QUERIES: Array<{ title: string; request: Record<string, unknown> }> = [
  { title: "Latest state: where are the keys?", request: { query: "钥匙在哪里？", top_k: 3 } },
  { title: "Latest state in English", request: { query: "Where is my passport?", top_k: 3 } },
  { title: "Action sequence, latest mode (nothing collapses)", request: { query: "蓝色马克杯", top_k: 3 } },
  { title: "Timeline mode: the blue mug's whole history", request: { query: "蓝色马克杯的完整历史", top_k: 5, timeline: true } },
];

export function demoCommand(io: CliIo, dataDirFlag: string | undefined): number {
  const dataDir = dataDirFlag ?? fs.mkdtempSync(path.join(os.tmpdir(), "dsh-dream-demo-"));
  io.out(`DSH-DREAM demo · data directory ${dataDir}\n\n`);
  let clock = START_MS;
  const store = MemoryStore.open({ dataDir, nowMs: () => clock });
  try {
    io.out(`[1/2] Capturing ${CONVERSATION.length} turns (every turn is written in full)\n`);
    CONVERSATION.forEach(([day, sourceType, text], i) => {
      clock = START_MS + day * DAY_MS + i * 60_000;
      const { record } = store.add({ id: `demo-${i + 1}`, text, source_type: sourceType, timestamp_ms: clock, session_id: "demo" });
      io.out(`  + ${record.id} ${new Date(record.timestamp_ms).toISOString().slice(0, 10)} [${sourceType}] ${text}\n`);
    });
    io.out(`\n[2/2] Recall (${store.size} memories)\n`);
    for (const { title, request } of QUERIES) {
      io.out(`\n== ${title}\n> ${String(request.query)}${request.timeline ? "  (timeline)" : ""}\n`);
      io.out(formatSearch(store.search(parseSearchRequest(request))));
    }
    const last = store.search(parseSearchRequest({ query: "钥匙在哪里？", top_k: 3 })).receipt;
    io.out(`\nReceipt for the first query (also in ${path.join(dataDir, "audit.jsonl")}):\n`);
    io.out(
      JSON.stringify(
        {
          retrieved_chunk_ids: last.retrieved_chunk_ids,
          recall: last.recall,
          conflicts: last.conflicts,
          lexical_recall_preserved: last.lexical_recall_preserved,
          candidates: last.candidates.slice(0, 4),
        },
        null,
        2,
      ) + "\n",
    );
  } finally {
    store.close();
    if (dataDirFlag === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  }
  io.out(`\nDone${dataDirFlag === undefined ? "; the temporary data directory was removed" : ""}.\n`);
  return 0;
}

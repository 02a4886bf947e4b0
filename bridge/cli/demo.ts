// `dsh-dream demo`: a short offline walk-through on the embedded defaults — a bridge with a local
// Chroma in a temporary data directory — showing capture, recall with receipts, a state change
// collapsing to the newest, an action sequence kept whole, and the timeline.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BridgeClient } from "../client/bridge-client";
import { defaultBridgeConfig } from "../server/bridge-config";
import { startBridge } from "../server/daemon";
import type { SearchResponse } from "../store/search";
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

export async function demoCommand(io: CliIo, dataDirFlag: string | undefined): Promise<number> {
  const dataDir = dataDirFlag ?? fs.mkdtempSync(path.join(os.tmpdir(), "dsh-dream-demo-"));
  io.out(`DSH-DREAM demo · data directory ${dataDir}\n\n[1/3] Starting the bridge and its local Chroma (embedded defaults, no network)\n`);
  const bridge = await startBridge({ dataDir, config: defaultBridgeConfig(dataDir), version: io.version, env: io.env });
  try {
    const client = BridgeClient.fromDataDir(dataDir);
    io.out(`  bridge on 127.0.0.1:${bridge.port}, pid ${process.pid}\n\n[2/3] Capturing ${CONVERSATION.length} turns (every turn is written in full)\n`);
    for (const [i, [day, sourceType, text]] of CONVERSATION.entries()) {
      const timestamp = START_MS + day * DAY_MS + i * 60_000;
      // One session per day: turns of the same day's chat are neighbours, other days' are not.
      const record = { id: `demo-${i + 1}`, text, source_type: sourceType, timestamp_ms: timestamp, session_id: `demo-day-${day}`, turn: i };
      const { status } = await client.call<{ status: string }>("add", record);
      io.out(`  ${status === "added" ? "+" : "="} ${record.id} ${new Date(timestamp).toISOString().slice(0, 10)} [${sourceType}] ${text}\n`);
    }
    io.out(`\n[3/3] Recall\n`);
    let first: SearchResponse | undefined;
    for (const { title, request } of QUERIES) {
      io.out(`\n== ${title}\n> ${String(request.query)}${request.timeline ? "  (timeline)" : ""}\n`);
      const response = await client.call<SearchResponse>("search", request);
      first ??= response;
      io.out(formatSearch(response));
    }
    const receipt = first!.receipt;
    io.out(`\nReceipt of the first query (every receipt is also in ${path.join(dataDir, "audit.jsonl")}):\n`);
    const excerpt = {
      retrieved_chunk_ids: receipt.retrieved_chunk_ids,
      recall: receipt.recall,
      conflicts: receipt.conflicts,
      lexical_recall_preserved: receipt.lexical_recall_preserved,
      persistence: receipt.persistence,
      candidates: receipt.candidates.slice(0, 3),
    };
    io.out(JSON.stringify(excerpt, null, 2) + "\n");
  } finally {
    await bridge.stop("demo finished");
    if (dataDirFlag === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  }
  io.out(`\nDone; the bridge and Chroma stopped${dataDirFlag === undefined ? " and the temporary data directory was removed" : ""}.\n`);
  return 0;
}

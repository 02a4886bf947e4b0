// `dsh-dream demo`: a short offline walk-through on the embedded defaults — a bridge with a local
// Chroma in a temporary data directory. The conversation goes through the DSH plugin's own capture
// code (DSH-shaped session events, holographic mode) and its own recall; then recall with
// receipts, a state change collapsing to the newest, an action sequence kept whole, the timeline,
// and the message the model would be given in a new conversation.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { TurnCapture } from "../../plugin/capture/capture";
import { CaptureQueue } from "../../plugin/capture/capture-queue";
import { TurnBuffer } from "../../plugin/capture/turn-buffer";
import type { TurnRecord } from "../../plugin/capture/turn-records";
import { parseConfig } from "../../plugin/config";
import type { HostSession, UserMessage } from "../../plugin/host-types";
import { Recall, type SearchAnswer } from "../../plugin/recall/recall";
import { BridgeClient } from "../client/bridge-client";
import { defaultBridgeConfig } from "../server/bridge-config";
import { startBridge } from "../server/daemon";
import type { SearchResponse } from "../store/search";
import { DEMO_ANCHORS, DEMO_NEW_QUESTION, DEMO_QUERIES, DEMO_TURNS } from "./demo-script";
import { formatSearch } from "./format";
import type { CliIo } from "./io";

const DAY_MS = 86_400_000;
const START_MS = Date.UTC(2026, 2, 1, 9, 0, 0);

export async function demoCommand(io: CliIo, dataDirFlag: string | undefined): Promise<number> {
  const dataDir = dataDirFlag ?? fs.mkdtempSync(path.join(os.tmpdir(), "dsh-dream-demo-"));
  io.out(`DSH-DREAM demo · data directory ${dataDir}\n\n[1/4] Starting the bridge and its local Chroma (embedded defaults, no network, no key)\n`);
  const bridge = await startBridge({ dataDir, config: defaultBridgeConfig(dataDir), version: io.version, env: io.env });
  try {
    const client = BridgeClient.fromDataDir(dataDir);
    io.out(`  bridge on 127.0.0.1:${bridge.port}, pid ${process.pid}\n`);
    const settings = parseConfig({ enabled: true, holographic: true, anchors: DEMO_ANCHORS });
    const log = { warn: (message: string) => io.err(`  warning: ${message}\n`) };
    const queue = new CaptureQueue(
      {
        importRecords: (records: TurnRecord[]) => client.call("import", { records }),
        forget: async (id: string) => void (await client.call("forget", { id })),
      },
      log,
    );
    const buffer = new TurnBuffer();
    const capture = new TurnCapture(buffer, queue, () => settings, log);

    io.out(`\n[2/4] Holographic capture: ${DEMO_TURNS.length} turns through the plugin's capture, one conversation a day\n`);
    for (const [i, turn] of DEMO_TURNS.entries()) {
      const session: HostSession = { header: { id: `demo-day-${turn.day}`, cwd: "/demo" } };
      const at = START_MS + turn.day * DAY_MS + i * 60_000;
      let seq = 0;
      const event = (type: string, data: Record<string, unknown>, time = at) => capture.onSessionEvent(session, { type, seq: seq++, time, data });
      event("turn/start", { turn: 1 });
      event("user/message", { id: `u${i}`, role: "user", content: [{ type: "text", text: turn.user }], source: { kind: "user" } });
      event("assistant/message", { turn: 1, step: 1, message: { content: [{ type: "text", text: turn.assistant }], source: { kind: "model", provider: "offline", model: "script" } } }, at + 30_000);
      capture.onTurnStopping({ agent: { id: session.header.id, session }, turn: 1, signal: new AbortController().signal });
      event("turn/end", { turn: 1, reason: { kind: "completed" } }, at + 30_000);
      await queue.drain(10_000);
      const head = `  ${new Date(at).toISOString().slice(0, 10)} turn:${session.header.id}:1 · `;
      io.out(`${head}user:      ${turn.user}\n${" ".repeat(head.length)}assistant: ${turn.assistant}\n`);
    }
    const written = queue.status();
    io.out(`  ${written.written} turns written in full (${written.written * 2} memories: every user message and every reply), ${written.pending} waiting\n`);

    io.out(`\n[3/4] Recall\n`);
    let first: SearchResponse | undefined;
    for (const { title, request } of DEMO_QUERIES) {
      io.out(`\n== ${title}\n> ${String(request.query)}${request.timeline ? "  (timeline)" : ""}\n`);
      const response = await client.call<SearchResponse>("search", request);
      first ??= response;
      io.out(formatSearch(response));
    }
    const receipt = first!.receipt;
    io.out(`\nReceipt of the first query (every receipt is also in ${path.join(dataDir, "audit.jsonl")}):\n`);
    const excerpt = { retrieved_chunk_ids: receipt.retrieved_chunk_ids, recall: receipt.recall, conflicts: receipt.conflicts, lexical_recall_preserved: receipt.lexical_recall_preserved, candidates: receipt.candidates.slice(0, 3) };
    io.out(JSON.stringify(excerpt, null, 2) + "\n");

    io.out(`\n[4/4] What the model is given in a new conversation (the plugin's recall at pre-step)\n> ${DEMO_NEW_QUESTION}\n`);
    await showRecallMessage(io, client, buffer, settings, log);
  } finally {
    await bridge.stop("demo finished");
    if (dataDirFlag === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  }
  io.out(`\nDone; the bridge and Chroma stopped${dataDirFlag === undefined ? " and the temporary data directory was removed" : ""}.\n`);
  return 0;
}

async function showRecallMessage(io: CliIo, client: BridgeClient, buffer: TurnBuffer, settings: ReturnType<typeof parseConfig>, log: { warn(m: string): void }): Promise<void> {
  const recall = new Recall(buffer, { search: (params, timeoutMs) => client.call<SearchAnswer>("search", params, { timeoutMs }), drainWrites: async () => true }, () => settings, log);
  const session: HostSession = { header: { id: "demo-new", cwd: "/demo" } };
  const question: UserMessage = { id: "q", role: "user", content: [{ type: "text", text: DEMO_NEW_QUESTION }], source: { kind: "user" } };
  const decision = await recall.onPreStep({ agent: { id: session.header.id, session }, messages: [question], turn: 1, step: 1, signal: new AbortController().signal }, async () => ({ kind: "enter", messages: [question] }));
  const added = decision.kind === "enter" ? decision.messages.find((m) => m.source.kind === "dsh-dream") : undefined;
  io.out(added ? `${String(added.content[0]?.text).replace(/^/gm, "  │ ")}\n` : "  (nothing to add)\n");
  const note = recall.lastNote(session.header.id);
  if (note) io.out(`  audit snapshot (receipt, not sent to the model): ${note.receipt_id} · intent ${note.intent} · anchors ${note.anchor_version} · ${note.recall}\n`);
}

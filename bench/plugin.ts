// `npm run bench:plugin -- --records N [--turns T] [--json]`: what the DSH plugin adds to each turn,
// measured on the plugin's own code (turn buffer, capture queue, recall) against a real bridge
// process holding N memories: the pre-step recall (queue wait + search RPC + building the message),
// the turn-stopping listener (must return at once), and how long a captured turn takes to be
// acknowledged by the bridge in the background. The DSH loop's own cost is not included.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { TurnCapture } from "../plugin/capture/capture";
import { CaptureQueue } from "../plugin/capture/capture-queue";
import { TurnBuffer } from "../plugin/capture/turn-buffer";
import type { TurnRecord } from "../plugin/capture/turn-records";
import { parseConfig } from "../plugin/config";
import type { HostSession, PreStepDecision, UserMessage } from "../plugin/host-types";
import { Recall, type SearchAnswer } from "../plugin/recall/recall";
import { serveBridge, stopBridge } from "./bridge-process";
import { machineInfo, percentile } from "./stats";
import { SyntheticCorpus } from "./synthetic-corpus";

const IMPORT_BATCH = 1000;

function flag(argv: string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  const value = at === -1 ? fallback : Number(argv[at + 1]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

async function main(argv: string[]): Promise<void> {
  const records = flag(argv, "--records", 10_000);
  const turns = flag(argv, "--turns", 200);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-plugin-"));
  const corpus = new SyntheticCorpus();
  const bridge = await serveBridge(dataDir);
  try {
    for (let start = 0; start < records; start += IMPORT_BATCH) {
      const batch = [];
      for (let i = start; i < Math.min(records, start + IMPORT_BATCH); i++) {
        const r = corpus.record(i);
        batch.push({ id: r.id, text: r.text, source_type: i % 2 ? "assistant_message" : "user_message", timestamp_ms: 1_700_000_000_000 + i });
      }
      await bridge.client.call("import", { records: batch });
      process.stderr.write(`\rimported ${Math.min(records, start + IMPORT_BATCH)}/${records}`);
    }
    process.stderr.write("\n");

    const settings = parseConfig({ enabled: true, holographic: true, recall: { timeBudgetMs: 5000 } });
    const log = { warn: (message: string) => process.stderr.write(`warn: ${message}\n`) };
    const buffer = new TurnBuffer();
    const acked: number[] = [];
    const enqueued = new Map<string, number>();
    const queue = new CaptureQueue(
      {
        importRecords: async (batch: TurnRecord[]) => {
          const result = await bridge.client.call<{ rejected: Array<{ index: number; code: string; message: string }> }>("import", { records: batch });
          const enqueuedAt = enqueued.get(batch[0]!.id);
          if (enqueuedAt !== undefined) acked.push(performance.now() - enqueuedAt);
          return result;
        },
        forget: async (id: string) => void (await bridge.client.call("forget", { id })),
      },
      log,
    );
    const capture = new TurnCapture(buffer, queue, () => settings, log);
    const recall = new Recall(buffer, { search: (params, timeoutMs) => bridge.client.call<SearchAnswer>("search", params, { timeoutMs }), drainWrites: (ms) => queue.drain(ms) }, () => settings, log);

    const session: HostSession = { header: { id: "bench-session", cwd: "/bench" } };
    const preStep: number[] = [];
    const stopping: number[] = [];
    let seq = 0;
    const event = (type: string, data: Record<string, unknown>) => capture.onSessionEvent(session, { type, seq: seq++, time: Date.now(), data });
    for (let turn = 1; turn <= turns; turn++) {
      const question = corpus.query(corpus.record((turn * 37) % records)).text;
      const message: UserMessage = { id: `u${turn}`, role: "user", content: [{ type: "text", text: question }], source: { kind: "user" } };
      event("turn/start", { turn });
      const next = async (): Promise<PreStepDecision> => ({ kind: "enter", messages: [message] });
      const started = performance.now();
      await recall.onPreStep({ agent: { id: session.header.id, session }, messages: [message], turn, step: 1, signal: new AbortController().signal }, next);
      preStep.push(performance.now() - started);
      event("user/message", { ...message });
      event("assistant/message", { turn, step: 1, message: { content: [{ type: "text", text: corpus.record(records + turn).text }], source: { kind: "model", provider: "bench", model: "m" } } });
      enqueued.set(`turn:bench-session:${turn}:user`, performance.now());
      const stopStarted = performance.now();
      capture.onTurnStopping({ agent: { id: session.header.id, session }, turn, signal: new AbortController().signal });
      stopping.push(performance.now() - stopStarted);
      event("turn/end", { turn, reason: { kind: "completed" } });
      await new Promise((resolve) => setTimeout(resolve, 20)); // a user does not type the next message within a millisecond
    }
    await queue.drain(30_000);
    queue.close();
    const status = await bridge.client.call<Record<string, any>>("status", {});
    const result = {
      benchmark: "plugin",
      records,
      turns,
      recall_pre_step_ms: { p50_ms: percentile(preStep, 50), p95_ms: percentile(preStep, 95) },
      turn_stopping_listener_ms: { p50_ms: percentile(stopping, 50), p95_ms: percentile(stopping, 95) },
      capture_ack_ms: { p50_ms: percentile(acked, 50), p95_ms: percentile(acked, 95) },
      captured_records: status.records - records,
      machine: machineInfo(),
    };
    console.log(`recall at pre-step: p50 ${result.recall_pre_step_ms.p50_ms} ms, p95 ${result.recall_pre_step_ms.p95_ms} ms (lexical; ${records} memories)`);
    console.log(`turn-stopping listener: p50 ${result.turn_stopping_listener_ms.p50_ms} ms, p95 ${result.turn_stopping_listener_ms.p95_ms} ms`);
    console.log(`captured turn acknowledged after: p50 ${result.capture_ack_ms.p50_ms} ms, p95 ${result.capture_ack_ms.p95_ms} ms (${result.captured_records} records written)`);
    if (argv.includes("--json")) console.log(JSON.stringify(result));
  } finally {
    await stopBridge(bridge);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

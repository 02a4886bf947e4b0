// `npm run bench:bridge -- --records N [--json]`: a real bridge process with its embedded Chroma.
// Measures write acknowledgement (single `add` RPCs), bulk import, Chroma ingest (until the replica
// has caught up), bridge start until the first search is answered, and RSS of bridge and Chroma.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BridgeClient } from "../bridge/client/bridge-client";
import { bridgeEnv } from "../bridge/client/bridge-launcher";
import { serveBridge, stopBridge } from "./bridge-process";
import { machineInfo, percentile } from "./stats";
import { SyntheticCorpus } from "./synthetic-corpus";

const IMPORT_BATCH = 1000;
const ACK_SAMPLES = 300;


function rssMiB(pid: number | null | undefined): number | null {
  if (!pid || process.platform !== "linux") return null;
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Math.round(Number(match[1]) / 1024) : null;
}

async function timeAdds(client: BridgeClient, corpus: SyntheticCorpus, first: number, gapMs: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = first; i < first + ACK_SAMPLES; i++) {
    const r = corpus.record(i);
    // What capture sends: the turn's text. Its vector is computed later by the bridge's embedder.
    const request = { id: r.id, text: r.text, source_type: "user_message", session_id: "bench", turn: i };
    const started = performance.now();
    await client.call("add", request);
    samples.push(performance.now() - started);
    if (gapMs) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return samples;
}

async function waitForReplica(client: BridgeClient): Promise<Record<string, any>> {
  for (;;) {
    const status = await client.call<Record<string, any>>("status", {});
    process.stderr.write(`\rchroma pending ${status.chroma.pending_bytes} bytes      `);
    if (status.chroma.pending_bytes === 0) return status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * `--start-only DIR [--runs N]`: bridge start to first answered search on a data directory made before
 * (built through the bridge, a million memories wait ~28 minutes for the replica, docs/benchmarks.md;
 * `bench:search -- --keep DIR` makes one in minutes). DIR is used as it is: the bridge's replica starts
 * catching up with it after each start.
 */
async function timeStarts(dataDir: string, runs: number, json: boolean): Promise<void> {
  if (!fs.existsSync(path.join(dataDir, "journal.jsonl"))) throw new Error(`--start-only: ${dataDir} holds no store (no journal.jsonl)`);
  const startMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    const bridge = await serveBridge(dataDir, { firstSearch: true });
    startMs.push(Math.round(bridge.startMs));
    const rss = rssMiB(bridge.child.pid);
    await stopBridge(bridge);
    console.log(`bridge start (to first answered search) ${startMs[run]} ms; RSS bridge ${rss} MiB`);
  }
  if (json) console.log(JSON.stringify({ benchmark: "bridge-start", data_dir: dataDir, bridge_start_ms: startMs, bridge_glibc_tunables: bridgeEnv(process.env).GLIBC_TUNABLES ?? null, machine: machineInfo() }));
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes("--start-only")) {
    const runs = argv.includes("--runs") ? Number(argv[argv.indexOf("--runs") + 1]) : 3;
    if (!Number.isInteger(runs) || runs <= 0) throw new Error("--runs must be a positive integer");
    return timeStarts(path.resolve(argv[argv.indexOf("--start-only") + 1] ?? ""), runs, argv.includes("--json"));
  }
  const at = argv.indexOf("--records");
  const records = at === -1 ? 10_000 : Number(argv[at + 1]);
  if (!Number.isInteger(records) || records <= 0) throw new Error("--records must be a positive integer");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-bridge-"));
  const corpus = new SyntheticCorpus();
  const embedding = (vector: number[]) => ({ provider: "bench", model: "synthetic-512", vector });
  try {
    let bridge = await serveBridge(dataDir, { firstSearch: true });
    const ingestStarted = performance.now();
    for (let start = 0; start < records; start += IMPORT_BATCH) {
      const batch = [];
      for (let i = start; i < Math.min(records, start + IMPORT_BATCH); i++) {
        const r = corpus.record(i);
        batch.push({ id: r.id, text: r.text, source_type: "user_message", timestamp_ms: 1_700_000_000_000 + i, embedding: embedding(r.vector) });
      }
      await bridge.client.call("import", { records: batch });
      process.stderr.write(`\rimported ${Math.min(records, start + IMPORT_BATCH)}/${records}`);
    }
    const importSeconds = (performance.now() - ingestStarted) / 1000;
    // Writes while the replica is still catching up with the import (Chroma busy on the other core)...
    const acksUnderSync = await timeAdds(bridge.client, corpus, records, 0);
    const status = await waitForReplica(bridge.client);
    const chromaSeconds = (performance.now() - ingestStarted) / 1000;
    // ...and one finished turn at a time, as holographic capture writes them (gaps are not timed).
    const acksQuiet = await timeAdds(bridge.client, corpus, records + ACK_SAMPLES, 20);
    const rss = { bridge_mib: rssMiB(bridge.child.pid), chroma_mib: rssMiB(status.chroma.pid) };
    await stopBridge(bridge);
    bridge = await serveBridge(dataDir, { firstSearch: true });
    const restartMs = bridge.startMs;
    await stopBridge(bridge);
    process.stderr.write("\n");
    const result = {
      benchmark: "bridge",
      records,
      dim: corpus.dim,
      write_ack_ms: { p50_ms: percentile(acksQuiet, 50), p95_ms: percentile(acksQuiet, 95) },
      write_ack_during_catch_up_ms: { p50_ms: percentile(acksUnderSync, 50), p95_ms: percentile(acksUnderSync, 95) },
      import_records_per_s: Math.round(records / importSeconds),
      chroma_ingest_records_per_s: Math.round(records / chromaSeconds),
      bridge_start_ms: Math.round(restartMs),
      rss,
      bridge_glibc_tunables: bridgeEnv(process.env).GLIBC_TUNABLES ?? null,
      machine: machineInfo(),
    };
    console.log(`write ack p50 ${result.write_ack_ms.p50_ms} ms, p95 ${result.write_ack_ms.p95_ms} ms (one turn at a time)`);
    const busy = result.write_ack_during_catch_up_ms;
    console.log(`write ack while Chroma catches up: p50 ${busy.p50_ms} ms, p95 ${busy.p95_ms} ms`);
    console.log(`import ${result.import_records_per_s} rec/s; chroma caught up at ${result.chroma_ingest_records_per_s} rec/s`);
    console.log(`bridge start (to first answered search) ${result.bridge_start_ms} ms; RSS bridge ${rss.bridge_mib} MiB, chroma ${rss.chroma_mib} MiB`);
    if (argv.includes("--json")) console.log(JSON.stringify(result));
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

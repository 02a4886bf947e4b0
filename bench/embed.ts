// `npm run bench:embed -- --records N [--json]`: embedding through a real bridge with the local
// provider on generated tiny BERT models (no real model can be downloaded here). Times embedding
// N memories with the 32-dim model, then the lossless migration to the 48-dim model.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BridgeClient } from "../bridge/client/bridge-client";
import { serveBridge, stopBridge } from "./bridge-process";
import { machineInfo } from "./stats";
import { SyntheticCorpus } from "./synthetic-corpus";

const { makeTinyBert } = require(path.join(__dirname, "..", "scripts", "make-tiny-bert.cjs")) as {
  makeTinyBert(outDir: string, options: { hidden: number; seed: number }): unknown;
};


/** Seconds from now until the embedder has no backlog (and, if asked, Chroma has caught up). */
async function secondsUntilEmbedded(client: BridgeClient, label: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const status = await client.call<Record<string, any>>("status", {});
    process.stderr.write(`\r${label}: ${status.embedding.coverage.current_vectors}/${status.records}   `);
    if (status.embedding.state === "ready" && status.embedding.backlog === 0) return (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main(argv: string[]): Promise<void> {
  const at = argv.indexOf("--records");
  const records = at === -1 ? 10_000 : Number(argv[at + 1]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-embed-"));
  const configure = (model: string) =>
    fs.writeFileSync(path.join(dataDir, "bridge-config.json"), JSON.stringify({ embedding: { provider: "local", model, model_dir: "models" } }));
  try {
    makeTinyBert(path.join(dataDir, "models", "bench", "tiny-32"), { hidden: 32, seed: 1 });
    makeTinyBert(path.join(dataDir, "models", "bench", "tiny-48"), { hidden: 48, seed: 2 });
    configure("bench/tiny-32");
    const corpus = new SyntheticCorpus();
    let bridge = await serveBridge(dataDir);
    const importStarted = performance.now();
    for (let start = 0; start < records; start += 2000) {
      const batch = [];
      for (let i = start; i < Math.min(records, start + 2000); i++) batch.push({ id: `b-${i}`, text: corpus.record(i).text, source_type: "user_message" });
      await bridge.client.call("import", { records: batch });
    }
    const embedSeconds = (performance.now() - importStarted) / 1000 + (await secondsUntilEmbedded(bridge.client, "embedding"));
    await stopBridge(bridge);
    configure("bench/tiny-48");
    const migrationStarted = performance.now();
    bridge = await serveBridge(dataDir);
    await secondsUntilEmbedded(bridge.client, "re-embedding");
    const migrationSeconds = (performance.now() - migrationStarted) / 1000;
    await stopBridge(bridge);
    process.stderr.write("\n");
    const result = {
      benchmark: "embedding",
      records,
      model: "generated tiny BERT (hidden 32, then 48), local provider through transformers.js",
      embed_records_per_s: Math.round(records / embedSeconds),
      migration_seconds: Math.round(migrationSeconds * 10) / 10,
      machine: machineInfo(),
    };
    console.log(`import + embed ${records} memories: ${result.embed_records_per_s} memories/s; migration 32 → 48 dims: ${result.migration_seconds} s`);
    if (argv.includes("--json")) console.log(JSON.stringify(result));
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

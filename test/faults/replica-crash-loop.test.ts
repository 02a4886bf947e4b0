// Issue 18, item 5 (the replica at scale): a replica Chroma cannot read. An HNSW segment cut short by a
// kill mid-flush (chroma-core/chroma#7238) makes Chroma die with SIGSEGV each time the segment is read;
// a 1M replica in the field did so every ~5 s, restarted for ever, and never caught up. Chroma is no
// longer restarted after three quick deaths in a row; the bridge rebuilds the replica from the journal.
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { BridgeClient } from "../../bridge/client/bridge-client";
import { EmbeddedChroma, type ChromaExit } from "../../bridge/chroma/chroma-process";
import { defaultEmbeddingConfig } from "../../bridge/embed/embedding-config";
import { DEFAULT_SEARCH, defaultPrivacy } from "../../bridge/server/bridge-config";
import { startBridge } from "../../bridge/server/daemon";
import { tempDir } from "../store/helpers";

const until = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * A stand-in for the launcher: answers Chroma's heartbeat on --host/--port, then dies by SIGSEGV after the
 * lifetime its run number is given in LIFETIMES (runs counted in a file beside it).
 */
function crashingLauncher(lifetimesMs: number[]): string {
  const dir = tempDir("crash-launcher-");
  const file = path.join(dir, "launcher.cjs");
  fs.writeFileSync(
    file,
    `const fs = require("node:fs");
const http = require("node:http");
const args = process.argv.slice(2);
const arg = (name) => args[args.indexOf(name) + 1];
const runs = ${JSON.stringify(path.join(dir, "runs"))};
const run = fs.existsSync(runs) ? Number(fs.readFileSync(runs, "utf8")) : 0;
fs.writeFileSync(runs, String(run + 1));
const lifetimes = ${JSON.stringify(lifetimesMs)};
http.createServer((request, response) => response.end("{}")).listen(Number(arg("--port")), arg("--host"), () => {
  setTimeout(() => process.kill(process.pid, "SIGSEGV"), lifetimes[Math.min(run, lifetimes.length - 1)]);
});
`,
  );
  return file;
}

describe("a Chroma that keeps dying soon after each start", () => {
  it("is restarted until it died three times in a row before running stableMs, then reported and left down", async () => {
    // The second run lives past stableMs: the count starts again after it.
    const launcherPath = crashingLauncher([100, 700, 100, 100, 100]);
    const chroma = await EmbeddedChroma.start({ dataDir: tempDir("crash-loop-"), launcherPath, restart: { initialDelayMs: 50, stableMs: 400 } });
    try {
      const restarts: number[] = [];
      const exits: ChromaExit[] = [];
      chroma.on("restarted", (info) => restarts.push(info.attempt));
      chroma.on("exit", (exit) => exits.push(exit));
      const [loop] = (await once(chroma, "crash-loop")) as [{ deaths: number; last: ChromaExit }];
      expect(loop.deaths).toBe(3);
      expect(loop.last.signal).toBe("SIGSEGV");
      expect(exits.map((exit) => exit.signal)).toEqual(["SIGSEGV", "SIGSEGV", "SIGSEGV", "SIGSEGV"]);
      expect(restarts).toEqual([1, 2, 3]);
      // Left down: no restart is scheduled.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(restarts).toEqual([1, 2, 3]);
      expect(chroma.pid).toBeUndefined();
      expect(await chroma.healthy()).toBe(false);
    } finally {
      await chroma.stop();
    }
  });
});

describe("a replica that crashes Chroma each time it is read", () => {
  const binding = { provider: "test", model: "unit-8", dim: 8 };
  const memory = (i: number) => ({
    id: `m-${i}`,
    text: `memory ${i} about the garden ${i % 17}`,
    source_type: "user_message",
    embedding: { ...binding, vector: [1, Math.sin(i), Math.cos(i), i % 7, i % 3, 0, 0, 1] },
  });

  it("is rebuilt from the journal, and the rebuilt one holds every memory", async () => {
    const dataDir = tempDir("crash-replica-");
    const start = () =>
      startBridge({
        dataDir,
        config: { chroma: { mode: "embedded" }, embedding: { ...defaultEmbeddingConfig(dataDir), provider: "off" }, privacy: defaultPrivacy(), search: { ...DEFAULT_SEARCH } },
        version: "test",
        env: {},
      });
    const log = () => fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8");
    const chromaRows = async (): Promise<number | undefined> => {
      const status = await BridgeClient.fromDataDir(dataDir).call<{ chroma: { collections?: Array<{ chroma_rows?: number }> } }>("status");
      return status.chroma.collections?.[0]?.chroma_rows;
    };
    // Past Chroma's sync_threshold (1,000), so that the HNSW segment is written to disk.
    const count = 1200;
    let bridge = await start();
    try {
      await BridgeClient.fromDataDir(dataDir).call("import", { records: Array.from({ length: count }, (_, i) => memory(i)) });
      await until(async () => (await chromaRows()) === count, "the replica to catch up");
    } finally {
      await bridge.stop("test over");
    }
    // What a kill mid-flush leaves: the segment's level-0 graph overwritten (Chroma then dies by SIGSEGV on
    // the next write, as the field's 1M replica did on its first read).
    const chromaDir = path.join(dataDir, "chroma");
    const segment = fs.readdirSync(chromaDir).find((name) => fs.existsSync(path.join(chromaDir, name, "data_level0.bin")));
    expect(segment).toBeDefined();
    const level0 = path.join(chromaDir, segment!, "data_level0.bin");
    fs.writeFileSync(level0, Buffer.alloc(fs.statSync(level0).size, 0x7f));

    bridge = await start();
    try {
      await BridgeClient.fromDataDir(dataDir).call("add", memory(count));
      await until(() => log().includes("rebuilding the replica from the journal"), "the rebuild", 90_000);
      expect(log()).toMatch(/embedded Chroma crashed 3 times in a row soon after each start \(last: signal SIGSEGV\): its replica cannot be read; rebuilding the replica from the journal/);
      const chroma = async () => (await BridgeClient.fromDataDir(dataDir).call<{ chroma: Record<string, unknown> }>("status")).chroma;
      await until(async () => (await chroma()).pending_bytes === 0, "the rebuilt replica to catch up", 90_000);
      expect(await chromaRows()).toBe(count + 1);
      expect(await chroma()).toMatchObject({ mode: "embedded", healthy: true, pending_bytes: 0, last_error: null });
    } finally {
      await bridge.stop("test over");
    }
  }, 180_000);
});

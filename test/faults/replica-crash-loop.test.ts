// Issue 18, item 5 (the replica at scale): a replica Chroma cannot read. An HNSW segment cut short by a
// kill mid-flush (chroma-core/chroma#7238) makes Chroma die with SIGSEGV each time the segment is read;
// a 1M replica in the field did so every ~5 s, restarted for ever, and never caught up. Chroma is no
// longer restarted after three quick deaths in a row; the bridge rebuilds the replica from the journal.
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

/** A stand-in for the launcher: answers Chroma's heartbeat on --host/--port until it is killed. */
function answeringLauncher(): string {
  const file = path.join(tempDir("crash-launcher-"), "launcher.cjs");
  fs.writeFileSync(
    file,
    `const http = require("node:http");
const args = process.argv.slice(2);
const arg = (name) => args[args.indexOf(name) + 1];
http.createServer((request, response) => response.end("{}")).listen(Number(arg("--port")), arg("--host"));
`,
  );
  return file;
}

describe("a Chroma that keeps dying soon after each start", () => {
  it("is restarted until it died three times in a row before running stableMs, then reported and left down", async () => {
    // A run's age is read from this clock, moved by the test: how slowly a loaded machine starts a process
    // must not make a quick death look like a long run.
    let now = 0;
    const chroma = await EmbeddedChroma.start({ dataDir: tempDir("crash-loop-"), launcherPath: answeringLauncher(), restart: { initialDelayMs: 50, stableMs: 400 }, clock: () => now });
    try {
      const restarts: number[] = [];
      const exits: ChromaExit[] = [];
      const loops: Array<{ deaths: number; last: ChromaExit }> = [];
      chroma.on("restarted", (info) => restarts.push(info.attempt));
      chroma.on("exit", (exit) => exits.push(exit));
      chroma.on("crash-loop", (loop) => loops.push(loop));
      const kill = async (ageMs: number) => {
        const deaths = exits.length;
        now += ageMs;
        process.kill(chroma.pid!, "SIGSEGV");
        await until(() => exits.length > deaths, "the death to be seen");
      };
      // Quick; then one past stableMs, after which the count starts again; then three quick ones.
      await kill(100);
      await until(() => restarts.length === 1, "the first restart");
      await kill(700);
      await until(() => restarts.length === 2, "the second restart");
      await kill(100);
      await until(() => restarts.length === 3, "the third restart");
      expect(loops).toEqual([]);
      await kill(100);
      await until(() => loops.length === 1, "the crash loop to be reported");
      expect(loops[0].deaths).toBe(3);
      expect(loops[0].last.signal).toBe("SIGSEGV");
      expect(exits.map((exit) => exit.signal)).toEqual(["SIGSEGV", "SIGSEGV", "SIGSEGV", "SIGSEGV"]);
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

// The bridge as users meet it: a real `dsh-dream serve` process with its embedded Chroma on loopback.
import fs from "node:fs";
import path from "node:path";
import { BridgeClient } from "../../bridge/client/bridge-client";
import { ChromaCollections } from "../../bridge/chroma/chroma-collections";
import type { SearchResponse } from "../../bridge/store/search";
import { tempDir } from "../store/helpers";
import { serveBridge, waitForChromaRows, waitForReplica, waitForReplicaStart, type ServedBridge } from "./bridge-process";

const vector = (i: number) => [Math.cos(i), Math.sin(i), 0.5, (i % 7) / 7];
const record = (i: number) => ({
  id: `m-${i}`,
  text: `memory number ${i} about topic ${i % 13} 话题${i % 13}`,
  source_type: "user_message",
  timestamp_ms: 1_700_000_000_000 + i,
  embedding: { provider: "test", model: "tiny-4", vector: vector(i) },
});
const binding = { provider: "test", model: "tiny-4", dim: 4 };

async function stopBridge(bridge: ServedBridge): Promise<void> {
  if (bridge.child.exitCode !== null || bridge.child.signalCode !== null) return;
  await bridge.client.call("shutdown", {}).catch(() => undefined);
  await bridge.exited;
}

describe("the bridge process", () => {
  let dataDir: string;
  let bridge: ServedBridge;
  beforeEach(async () => {
    dataDir = tempDir("bridge-");
    bridge = await serveBridge(dataDir);
  });
  afterEach(async () => stopBridge(bridge));

  it("adds, searches and forgets through the bridge, mirrors to Chroma, and gives the same results after a restart", async () => {
    await bridge.client.call("import", { records: [record(1), record(2), record(3)] });
    await bridge.client.call("forget", { id: "m-2" });
    const before = await bridge.client.call<SearchResponse>("search", { query: "topic 1", top_k: 5 });
    const status = await waitForReplica(bridge.client);
    const chroma = new ChromaCollections({ url: status.chroma.url });
    expect(await chroma.count(chroma.collectionName(binding))).toBe(2);
    await stopBridge(bridge);
    expect(fs.existsSync(path.join(dataDir, "bridge.json"))).toBe(false);

    bridge = await serveBridge(dataDir);
    const after = await bridge.client.call<SearchResponse>("search", { query: "topic 1", top_k: 5 });
    expect(after.results).toEqual(before.results);
    expect((await bridge.client.call<Record<string, number>>("status", {})).records).toBe(2);
  });

  it("reports bridge, Chroma health, counts, pending writes and data-dir size in status", async () => {
    await bridge.client.call("import", { records: [record(1), record(2)] });
    const status = await waitForReplica(bridge.client);
    expect(status).toMatchObject({
      records: 2,
      bridge: { pid: bridge.child.pid, port: expect.any(Number), version: expect.any(String), data_dir_bytes: expect.any(Number) },
      chroma: {
        mode: "embedded",
        healthy: true,
        pid: expect.any(Number),
        pending_bytes: 0,
        collections: [{ provider: "test", model: "tiny-4", dim: 4, vectors: 2, chroma_rows: 2, name: expect.stringMatching(/^dsh-dream-[0-9a-f]{16}$/) }],
      },
    });
    expect(status.bridge.data_dir_bytes).toBeGreaterThan(0);
    expect(JSON.stringify(status)).not.toContain(JSON.parse(fs.readFileSync(path.join(dataDir, "bridge.json"), "utf8")).token);
  });

  // SIGHUP is what a closed terminal sends, and what Node raises on Windows when the console window of `serve` is closed.
  it.each(["SIGTERM", "SIGHUP"] as const)("shuts down gracefully on %s: removes its bridge file and stops its Chroma", async (signal) => {
    const { chroma } = await waitForReplicaStart(bridge.client);
    bridge.child.kill(signal);
    expect(await bridge.exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, "bridge.json"))).toBe(false);
    expect(() => process.kill(chroma.pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    expect(fs.existsSync(path.join(dataDir, "store.lock"))).toBe(false);
  });

  it("answers before its Chroma replica is up: status and receipts say it is starting, and what was written meanwhile reaches Chroma once it is", async () => {
    await bridge.client.call("import", { records: [record(1), record(2)] });
    await waitForReplica(bridge.client);
    await stopBridge(bridge);
    // The embedded Chroma's process (and only it) waits at its start until the file "go" is there.
    const hold = tempDir("chroma-hold-");
    const go = path.join(hold, "go");
    const script = path.join(hold, "hold.js");
    fs.writeFileSync(
      script,
      `if ((process.argv[1] ?? "").endsWith("chroma-launcher.cjs")) {
        const fs = require("node:fs");
        fs.writeFileSync(require("node:path").join(${JSON.stringify(hold)}, "held-" + process.pid), "");
        const sleep = new Int32Array(new SharedArrayBuffer(4));
        while (!fs.existsSync(${JSON.stringify(go)})) Atomics.wait(sleep, 0, 0, 20);
      }`,
    );
    const held = { NODE_OPTIONS: `--require ${JSON.stringify(script)}` };
    bridge = await serveBridge(dataDir, [], held);
    expect((await bridge.client.call<Record<string, any>>("status", {})).chroma).toEqual({ mode: "embedded", starting: true, healthy: false, collections: [] });
    await bridge.client.call("add", record(3));
    const response = await bridge.client.call<SearchResponse>("search", { query: "memory number 3", top_k: 3 });
    expect(response.results[0]!.id).toBe("m-3");
    expect(response.receipt.persistence).toEqual({ chroma: "embedded", replica: "starting" });
    expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).toMatch(/serving on 127\.0\.0\.1:\d+, pid \d+, chroma embedded, starting\n(?![\s\S]*replica up)/);
    fs.writeFileSync(go, "");
    const status = await waitForReplica(bridge.client);
    expect(status.chroma).toMatchObject({ mode: "embedded", healthy: true, pid: expect.any(Number), collections: [expect.objectContaining({ vectors: 3, chroma_rows: 3 })] });
    expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).toContain("chroma embedded replica up");
    await stopBridge(bridge);

    // Stopped while its Chroma is still starting: the start is given up, the Chroma process stopped.
    fs.rmSync(go);
    for (const name of fs.readdirSync(hold)) if (name.startsWith("held-")) fs.rmSync(path.join(hold, name));
    bridge = await serveBridge(dataDir, [], held);
    let heldPid: number | undefined;
    for (const deadline = Date.now() + 30_000; heldPid === undefined && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const name = fs.readdirSync(hold).find((entry) => entry.startsWith("held-"));
      heldPid = name ? Number(name.slice("held-".length)) : undefined;
    }
    expect(heldPid).toEqual(expect.any(Number));
    await bridge.client.call("shutdown", {});
    expect(await bridge.exited).toBe(0);
    expect(() => process.kill(heldPid!, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    const log = fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8");
    expect(log.slice(log.lastIndexOf("serving on"))).toMatch(/^serving on [^\n]*chroma embedded, starting\n[^\n]*stopping: shutdown requested\n[^\n]*stopped\n$/);
  });

  it("rebuilds the Chroma replica from the journal when Chroma's files were lost", async () => {
    await bridge.client.call("import", { records: [record(1), record(2), record(3)] });
    await waitForReplica(bridge.client);
    await stopBridge(bridge);
    fs.rmSync(path.join(dataDir, "chroma"), { recursive: true, force: true });
    bridge = await serveBridge(dataDir);
    expect(await waitForChromaRows(bridge.client, 3)).toBe(3);
  });

  it("refuses a second bridge on the same data directory with a clear message", async () => {
    const second = await serveBridge(dataDir).then(
      () => "started",
      (error: Error) => error.message,
    );
    expect(second).toMatch(/DATA_DIR_LOCKED|in use by process/);
    expect((await bridge.client.health()).pid).toBe(bridge.child.pid);
  });

  it("refuses a request with a wrong token and changes nothing", async () => {
    const info = JSON.parse(fs.readFileSync(path.join(dataDir, "bridge.json"), "utf8"));
    const intruder = new BridgeClient({ dataDir, port: info.port, token: "x".repeat(43) });
    await expect(intruder.call("add", record(9))).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect((await bridge.client.call<Record<string, number>>("status", {})).records).toBe(0);
  });

  it("answers oversized and malformed requests with error codes and stores nothing", async () => {
    await expect(bridge.client.call("import", { records: Array.from({ length: 5001 }, (_, i) => record(i)) })).rejects.toMatchObject({
      code: "INPUT_TOO_LARGE",
    });
    await expect(bridge.client.call("add", { text: "x".repeat(200_001), source_type: "user_message" })).rejects.toMatchObject({
      code: "INPUT_TOO_LARGE",
      field: "text",
    });
    await expect(bridge.client.call("add", { text: "hi", source_type: "model_hint" })).rejects.toMatchObject({ code: "INVALID_SOURCE_TYPE" });
    await expect(bridge.client.call("search", { query: "" })).rejects.toMatchObject({ code: "INVALID_FIELD", field: "query" });
    expect((await bridge.client.call<Record<string, number>>("status", {})).records).toBe(0);
  });

  it("keeps acknowledging writes and answering searches while Chroma is down, then catches up", async () => {
    await bridge.client.call("import", { records: [record(1), record(2)] });
    const status = await waitForReplica(bridge.client);
    process.kill(status.chroma.pid, "SIGKILL");
    await bridge.client.call("add", record(3));
    const response = await bridge.client.call<SearchResponse>("search", { query: "memory number 3", top_k: 3 });
    expect(response.results[0].id).toBe("m-3");
    const caughtUp = await waitForReplica(bridge.client);
    expect(caughtUp.chroma.pid).not.toBe(status.chroma.pid);
    const chroma = new ChromaCollections({ url: caughtUp.chroma.url });
    expect(await chroma.count(chroma.collectionName(binding))).toBe(3);
  });

  it("serves without its Chroma replica when the embedded Chroma cannot start, says why, and catches up on a later start", async () => {
    await bridge.client.call("import", { records: [record(1), record(2)] });
    await waitForReplica(bridge.client);
    await stopBridge(bridge);
    // A chroma/ folder Chroma cannot use (a file in its place) makes its server abort at start.
    fs.rmSync(path.join(dataDir, "chroma"), { recursive: true, force: true });
    fs.writeFileSync(path.join(dataDir, "chroma"), "not a folder\n");

    bridge = await serveBridge(dataDir);
    await waitForReplicaStart(bridge.client);
    await bridge.client.call("add", record(3));
    const response = await bridge.client.call<SearchResponse>("search", { query: "memory number 3", top_k: 3 });
    expect(response.results[0]!.id).toBe("m-3");
    expect(response.receipt.persistence).toEqual({ chroma: "embedded", replica: "unavailable" });
    const status = await bridge.client.call<Record<string, any>>("status", {});
    expect(status.records).toBe(3);
    expect(status.chroma).toEqual({ mode: "embedded", healthy: false, collections: [], last_error: expect.stringMatching(/^embedded Chroma could not start: Chroma server exited during start/) });
    expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).toContain("serving from the journal without the Chroma replica");
    await stopBridge(bridge);

    fs.rmSync(path.join(dataDir, "chroma"));
    bridge = await serveBridge(dataDir);
    expect(await waitForChromaRows(bridge.client, 3)).toBe(3);
  });

  it("exports every memory in the import format so that export → import → export is identical", async () => {
    await bridge.client.call("import", {
      records: [
        { ...record(1), tags: ["a", "b"], metadata: { mood: "happy", nested: { n: 1 } }, session_id: "s", turn: 0 },
        { id: "plain", text: "没有向量的记忆", source_type: "system_fact", timestamp_ms: 5, scope: "project:x" },
      ],
    });
    await bridge.client.call("quarantine", { id: "plain", reason: "untrusted source" });
    const first = await bridge.client.call<{ records: object[]; next: number | null }>("export", {});
    const otherDir = tempDir("bridge-export-");
    const other = await serveBridge(otherDir);
    try {
      await other.client.call("import", { records: first.records });
      const second = await other.client.call<{ records: object[] }>("export", {});
      expect(second.records.map((r) => JSON.stringify(r))).toEqual(first.records.map((r) => JSON.stringify(r)));
      expect(first.records[1]).toEqual({
        id: "plain",
        text: "没有向量的记忆",
        source_type: "system_fact",
        timestamp_ms: 5,
        scope: "project:x",
        metadata: {},
        quarantined: "untrusted source",
      });
    } finally {
      await stopBridge(other);
    }
  });
});

// An external Chroma (here: a separate server process on loopback) replaces the embedded one, with
// the same collection layout; a bad Chroma setting stops the bridge before it touches anything.
import fs from "node:fs";
import path from "node:path";
import { ChromaCollections } from "../../bridge/chroma/chroma-collections";
import { EmbeddedChroma } from "../../bridge/chroma/chroma-process";
import { tempDir } from "../store/helpers";
import { runCli } from "../cli/run-cli";
import { serveBridge, waitForReplica } from "./bridge-process";

describe("a bridge on an external Chroma", () => {
  let external: EmbeddedChroma;
  beforeAll(async () => {
    external = await EmbeddedChroma.start({ dataDir: tempDir("external-chroma-"), restart: false });
  });
  afterAll(async () => external.stop());

  it("writes the same collection layout to the configured server and starts no Chroma of its own", async () => {
    const dataDir = tempDir("bridge-ext-");
    const bridge = await serveBridge(dataDir, ["--chroma-url", external.url]);
    try {
      await bridge.client.call("add", {
        id: "ext-1",
        text: "stored far away",
        source_type: "system_fact",
        timestamp_ms: 42,
        tags: ["remote"],
        embedding: { provider: "test", model: "ext-2", vector: [0.6, 0.8] },
      });
      const status = await waitForReplica(bridge.client);
      expect(status.chroma).toMatchObject({ mode: "external", url: external.url, pid: null });
      expect(fs.existsSync(path.join(dataDir, "chroma"))).toBe(false);
      const chroma = new ChromaCollections({ url: external.url });
      const name = chroma.collectionName({ provider: "test", model: "ext-2", dim: 2 });
      const [row] = await chroma.get(name, ["ext-1"]);
      expect(row.document).toBe("stored far away");
      expect(row.metadata).toMatchObject({ source_type: "system_fact", timestamp_ms: 42, provider: "test", model: "ext-2", dim: 2 });
    } finally {
      await bridge.client.call("shutdown", {});
      await bridge.exited;
    }
  });

  it("erases a forgotten memory while writes go on, and the replica follows: deleted, and every write made meanwhile arrives", async () => {
    const dataDir = tempDir("bridge-ext-purge-");
    const bridge = await serveBridge(dataDir, ["--chroma-url", external.url]);
    const vector = (i: number) => ({ provider: "test", model: "ext-purge", vector: [1, (i % 17) + 1, i % 5] });
    try {
      const records = Array.from({ length: 6000 }, (_, i) => ({ id: `p-${i}`, text: `garden note ${i}`, source_type: "user_message", embedding: vector(i) }));
      for (let i = 0; i < records.length; i += 1000) await bridge.client.call("import", { records: records.slice(i, i + 1000) });
      await bridge.client.call("add", { id: "gone", text: "the old door code was 2231, never again", source_type: "user_message", embedding: vector(1) });
      await waitForReplica(bridge.client);
      await bridge.client.call("forget", { id: "gone" });
      const purge = bridge.client.call<{ erased: number; replica: string; journal_bytes_after: number; carried_from_offset: number }>("purge");
      let done = false;
      void purge.finally(() => (done = true));
      // Written while the journal is rewritten, at the pace of a conversation's capture: carried into
      // the new journal, then into Chroma.
      let during = 0;
      while (!done) {
        await bridge.client.call("add", { id: `during-${during}`, text: `written during the purge ${during}`, source_type: "user_message", embedding: vector(during++) });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const report = await purge;
      expect(report).toMatchObject({ erased: 1, replica: "forgotten rows deleted; continuing" });
      expect(report.journal_bytes_after).toBeGreaterThan(report.carried_from_offset); // something was carried over
      await bridge.client.call("add", { id: "after", text: "written after the purge", source_type: "user_message", embedding: vector(7) });
      await waitForReplica(bridge.client);
      const chroma = new ChromaCollections({ url: external.url });
      const name = chroma.collectionName({ provider: "test", model: "ext-purge", dim: 3 });
      const ids = await chroma.listIds(name, { limit: 10_000, offset: 0 });
      expect(ids).not.toContain("gone");
      expect(ids.filter((id) => id.startsWith("during-")).sort()).toEqual(Array.from({ length: during }, (_, i) => `during-${i}`).sort());
      expect(ids).toContain("after");
      expect(ids.length).toBe(6000 + during + 1);
      // The cursor was moved to where the carried-over writes begin, not back to the start.
      expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).not.toMatch(/resyncing from the start/);
    } finally {
      await bridge.client.call("shutdown", {});
      await bridge.exited;
    }
  }, 120_000);

  it("acknowledges writes and still shuts down promptly when the configured Chroma is unreachable", async () => {
    const dataDir = tempDir("bridge-ext-down-");
    const bridge = await serveBridge(dataDir, ["--chroma-url", "http://127.0.0.1:9"]);
    await bridge.client.call("add", { id: "kept", text: "written while Chroma is away", source_type: "user_message", embedding: { provider: "t", model: "m", vector: [1, 0] } });
    const status = await bridge.client.call<Record<string, any>>("status", {});
    expect(status.chroma).toMatchObject({ mode: "external", healthy: false });
    await bridge.client.call("shutdown", {});
    expect(await bridge.exited).toBe(0);
    expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).toMatch(/info stopped\n$/);
    expect(fs.existsSync(path.join(dataDir, "store.lock"))).toBe(false);
    expect(fs.readFileSync(path.join(dataDir, "journal.jsonl"), "utf8")).toContain('"id":"kept"');
  });

  it("refuses to start with a malformed Chroma URL in bridge-config.json, naming the field", () => {
    const dataDir = tempDir("bridge-badcfg-");
    fs.writeFileSync(path.join(dataDir, "bridge-config.json"), JSON.stringify({ chroma: { mode: "external", url: "ftp://example" } }));
    const out = runCli(["--data-dir", dataDir, "serve"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("error [INVALID_FIELD]");
    expect(out.stderr).toContain("chroma.url must start with http:// or https://");
    expect(fs.existsSync(path.join(dataDir, "journal.jsonl"))).toBe(false);
  });
});

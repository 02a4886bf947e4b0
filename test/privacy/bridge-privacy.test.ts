// Issue 16 through a real bridge: secrets are redacted before anything is written, and a forgotten
// memory leaves every byte of the data directory, Chroma's files included: on request (`purge`),
// after a kill -9 in the middle of one, and by itself a little after the forget.
import fs from "node:fs";
import path from "node:path";
import { ChromaCollections } from "../../bridge/chroma/chroma-collections";
import { defaultEmbeddingConfig } from "../../bridge/embed/embedding-config";
import { redactSecrets } from "../../bridge/store/redact";
import { startBridge } from "../../bridge/server/daemon";
import { DEFAULT_SEARCH, defaultPrivacy } from "../../bridge/server/bridge-config";
import { BridgeClient } from "../../bridge/client/bridge-client";
import { serveBridge, waitForReplica, type ServedBridge } from "../bridge/bridge-process";
import { tempDir } from "../store/helpers";
import { filesHolding } from "./files-holding";

const VECTOR = { provider: "test", model: "m", vector: [1, 0, 0] };
// Private, but not a secret the redactor takes out at capture: only a forget can remove it.
const SECRET = "we met at the Zebra Cafe on Elm Street, table 4711";


async function stopServed(bridge: ServedBridge): Promise<void> {
  if (bridge.child.exitCode !== null) return;
  await bridge.client.call("shutdown", {}).catch(() => undefined);
  await bridge.exited;
}

describe("secrets at capture", () => {
  it("are redacted before the journal, counted by kind in the reply and status, never echoed", async () => {
    const dataDir = tempDir("redact-bridge-");
    const bridge = await serveBridge(dataDir, ["--no-chroma"]);
    const key = "sk-live-" + "4f9a2c71b8e6d3a0f5c2e8b1".repeat(2);
    const texts = [`my wifi password is hunter2!x`, `use the key ${key} for the staging API`];
    try {
      const added = await bridge.client.call<{ record: { text: string }; redactions?: Record<string, number> }>("add", { id: "wifi", text: texts[0], source_type: "user_message" });
      expect(added.record.text).toBe(redactSecrets(texts[0]).text);
      expect(added.record.text).toMatch(/\[redacted: [a-z_-]+\]/);
      expect(added.redactions).toEqual(redactSecrets(texts[0]).redactions);
      const imported = await bridge.client.call<{ added: number; redactions?: Record<string, number> }>("import", { records: [{ id: "key", text: texts[1], source_type: "user_message" }] });
      expect(imported.added).toBe(1);
      expect(Object.values(imported.redactions ?? {}).reduce((a, b) => a + b, 0)).toBe(1);
      const status = await bridge.client.call<{ privacy: { redact_secrets: boolean; redactions_since_start: Record<string, number> } }>("status");
      expect(status.privacy.redact_secrets).toBe(true);
      expect(Object.values(status.privacy.redactions_since_start).reduce((a, b) => a + b, 0)).toBe(2);
      expect(JSON.stringify(status)).not.toContain("hunter2");
      const search = await bridge.client.call<{ results: Array<{ text: string }> }>("search", { query: "wifi password staging key" });
      expect(JSON.stringify(search)).not.toMatch(/hunter2|4f9a2c71/);
      // The receipt counts what was taken out, by kind: from the query, and in the memories it returned.
      const asked = await bridge.client.call<{ results: Array<{ id: string }>; receipt: { redactions: { query: Record<string, number>; memories: Record<string, number> } } }>("search", {
        query: `what is ${key} used for on staging`,
      });
      expect(asked.results.map((r) => r.id)).toContain("key");
      expect(asked.receipt.redactions.query).toEqual(redactSecrets(key).redactions);
      expect(asked.receipt.redactions.memories).toEqual(expect.objectContaining(redactSecrets(texts[1]).redactions));
      expect(JSON.stringify(asked.receipt)).not.toContain("4f9a2c71");
    } finally {
      await stopServed(bridge);
    }
    expect(filesHolding(dataDir, "hunter2")).toEqual([]);
    expect(filesHolding(dataDir, "4f9a2c71b8e6")).toEqual([]);
  });

  it("are kept as written when privacy.redactSecrets is off", async () => {
    const dataDir = tempDir("redact-off-");
    fs.writeFileSync(path.join(dataDir, "bridge-config.json"), JSON.stringify({ chroma: { mode: "off" }, privacy: { redactSecrets: false } }));
    const bridge = await serveBridge(dataDir);
    try {
      const added = await bridge.client.call<{ record: { text: string } }>("add", { text: "my wifi password is hunter2!x", source_type: "user_message" });
      expect(added.record.text).toBe("my wifi password is hunter2!x");
    } finally {
      await stopServed(bridge);
    }
  });
});

describe("a forgotten memory, through a real bridge with its Chroma", () => {
  it("leaves every byte of the data directory and the replica on purge; the rest stays and is found", async () => {
    const dataDir = tempDir("purge-bridge-");
    const bridge = await serveBridge(dataDir);
    try {
      await bridge.client.call("add", { id: "secret", text: SECRET, source_type: "user_message", embedding: VECTOR });
      await bridge.client.call("add", { id: "keep", text: "the umbrella is in the hallway", source_type: "user_message", embedding: { ...VECTOR, vector: [0, 1, 0] } });
      await bridge.client.call("search", { query: "zebra cafe elm street" });
      await waitForReplica(bridge.client);
      await bridge.client.call("forget", { id: "secret" });
      const status = await waitForReplica(bridge.client);
      expect(status.journal.forgotten_not_erased).toBe(1);
      expect(filesHolding(dataDir, "table 4711").length).toBeGreaterThan(0);

      const report = await bridge.client.call<{ erased: number; replica: string }>("purge");
      expect(report).toMatchObject({ erased: 1, replica: "rebuilt from the compacted journal" });
      const after = await waitForReplica(bridge.client);
      expect(after.chroma.collections[0].chroma_rows).toBe(1);
      const chroma = new ChromaCollections({ url: after.chroma.url });
      const name = chroma.collectionName({ provider: "test", model: "m", dim: 3 });
      expect(await chroma.listIds(name, { limit: 10, offset: 0 })).toEqual(["keep"]);
      const search = await bridge.client.call<{ results: Array<{ id: string }> }>("search", { query: "umbrella hallway" });
      expect(search.results.map((r) => r.id)).toEqual(["keep"]);
    } finally {
      await stopServed(bridge);
    }
    expect(filesHolding(dataDir, "table 4711")).toEqual([]);
    expect(filesHolding(dataDir, "Zebra Cafe")).toEqual([]);
  }, 90_000);

  it("is still erased after a kill -9 in the middle of a purge, whichever step it cut", async () => {
    const dataDir = tempDir("purge-kill-");
    const first = await serveBridge(dataDir);
    try {
      for (let i = 0; i < 300; i++) await first.client.call("add", { id: `m${i}`, text: `memory ${i} about the garden`, source_type: "user_message", embedding: { ...VECTOR, vector: [1, i, 0] } });
      await first.client.call("add", { id: "secret", text: SECRET, source_type: "user_message", embedding: VECTOR });
      await waitForReplica(first.client);
      expect(filesHolding(dataDir, "table 4711").length).toBeGreaterThan(0);
      await first.client.call("forget", { id: "secret" });
      void first.client.call("purge").catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 30)));
      first.child.kill("SIGKILL");
      await first.exited;
    } finally {
      if (first.child.exitCode === null) first.child.kill("SIGKILL");
    }
    const second = await serveBridge(dataDir);
    try {
      const status = await second.client.call<{ records: number; journal: { forgotten_not_erased?: number } }>("status");
      expect(status.records).toBe(300);
      // Killed before the new journal was in place: the forget is still to be erased (the bridge would
      // do it unasked a minute later). Killed after: the next start rebuilt the replica by itself.
      if (status.journal.forgotten_not_erased) await second.client.call("purge");
      await waitForReplica(second.client);
    } finally {
      await stopServed(second);
    }
    expect(filesHolding(dataDir, "table 4711")).toEqual([]);
  }, 120_000);

  it("is erased by the bridge on its own soon after the forget", async () => {
    const dataDir = tempDir("purge-auto-");
    const bridge = await startBridge({
      dataDir,
      config: { chroma: { mode: "off" }, embedding: { ...defaultEmbeddingConfig(dataDir), provider: "off" }, privacy: defaultPrivacy(), search: { ...DEFAULT_SEARCH } },
      version: "test",
      env: {},
      housekeeping: { checkEveryMs: 100, quietMs: 200, eraseAfterMs: 300 },
    });
    try {
      const client = BridgeClient.fromDataDir(dataDir);
      await client.call("add", { id: "secret", text: SECRET, source_type: "user_message" });
      await client.call("add", { id: "keep", text: "the umbrella is in the hallway", source_type: "user_message" });
      expect(filesHolding(dataDir, "table 4711").length).toBeGreaterThan(0);
      await client.call("forget", { id: "secret" });
      while (filesHolding(dataDir, "table 4711").length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).toMatch(/erased 1 forgotten memories \(automatic, after a forget\)/);
      expect(await client.call("get", { id: "keep" })).toMatchObject({ record: { id: "keep" } });
    } finally {
      await bridge.stop("test over");
    }
  }, 60_000);
});

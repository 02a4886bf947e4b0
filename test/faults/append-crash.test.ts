// Issue 15, done-when: kill -9 at every fsync boundary of an append. Two ways: (1) the disk as a
// crash at each byte of an append would leave it (the new lines cut at every offset), reopened;
// (2) real SIGKILLs of a process appending as fast as it can, at random moments, 20 times over.
// Either way: every acknowledged entry is there exactly once, nothing else is damaged, the journal
// opens and takes new writes.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { encodeLine } from "../../bridge/store/journal";
import { encodeAdd } from "../../bridge/store/journal-entries";
import type { MemoryRecord } from "../../bridge/store/records";
import { openStore, tempDir } from "../store/helpers";
import { bundleScript } from "../bundle-script";

const record = (id: string): MemoryRecord => ({ id, text: `memory ${id} 记忆`, source_type: "user_message", timestamp_ms: 1_750_000_000_000, scope: "global", metadata: {}, content_hash: `h-${id}` });

describe("an append cut at every byte", () => {
  it("leaves the acknowledged entries and whole new lines only, and the journal opens and appends", () => {
    const dataDir = tempDir("append-cut-");
    const store = openStore(dataDir);
    for (const id of ["a", "b", "c"]) store.add({ id, text: `memory ${id}`, source_type: "user_message" });
    store.close();
    const journal = path.join(dataDir, "journal.jsonl");
    const acknowledged = fs.readFileSync(journal);
    // One batch of three entries, as one write: what a crash can cut anywhere.
    const batch = Buffer.concat(["x", "y", "z"].map((id) => encodeLine(encodeAdd(record(id), { provider: "t", model: "m", vector: new Float32Array([1, 2]) }))));
    const lineEnds = [...batch.entries()].filter(([, byte]) => byte === 0x0a).map(([i]) => i + 1);
    let opened = 0;
    for (let cut = 0; cut <= batch.length; cut++) {
      const copy = tempDir("append-cut-copy-");
      fs.writeFileSync(path.join(copy, "journal.jsonl"), Buffer.concat([acknowledged, batch.subarray(0, cut)]));
      const reopened = openStore(copy);
      try {
        const whole = lineEnds.filter((end) => end <= cut).length;
        expect(reopened.size).toBe(3 + whole);
        for (const id of ["a", "b", "c"]) expect(reopened.get(id)).toBeDefined();
        reopened.add({ id: "after", text: "a write after the crash", source_type: "user_message" });
      } finally {
        reopened.close();
      }
      const again = openStore(copy);
      expect(again.get("after")?.text).toBe("a write after the crash");
      again.close();
      fs.rmSync(copy, { recursive: true, force: true });
      opened++;
    }
    expect(opened).toBe(batch.length + 1);
  });
});

describe("SIGKILL while appending", () => {
  const KILLS = 20;

  it(`loses no acknowledged write over ${KILLS} kills at random moments`, async () => {
    const work = tempDir("append-kill-");
    const dataDir = path.join(work, "data");
    // The real store, bundled: it adds records forever and prints each id once add() has returned.
    const script = bundleScript(work, "writer.cjs", `
          const { MemoryStore } = require(${JSON.stringify(path.resolve(__dirname, "../../bridge/store/memory-store.ts"))});
          const [dataDir, prefix] = process.argv.slice(2);
          const store = MemoryStore.open({ dataDir });
          for (let i = 0; ; i++) {
            const batch = Array.from({ length: 1 + (i % 4) }, (_, j) => ({ id: prefix + "-" + i + "-" + j, text: "kill test " + i + " " + j, source_type: "user_message", embedding: { provider: "t", model: "m", vector: [1, i + 1] } }));
            if (batch.length === 1) store.add(batch[0]); else store.importRecords(batch);
            require("node:fs").writeSync(1, batch.map((r) => r.id).join("\\n") + "\\n");
          }`);
    const acknowledged: string[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      const child = spawn(process.execPath, [script, dataDir, `k${kill}`], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      const exited = new Promise((resolve) => child.on("exit", resolve));
      // Killed once it has acknowledged something, after a random extra moment.
      while (!out.includes("\n")) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 40)));
      child.kill("SIGKILL");
      await exited;
      acknowledged.push(...out.split("\n").filter((line) => line !== ""));
    }
    const store = openStore(dataDir);
    try {
      for (const id of acknowledged) expect(store.get(id)?.id).toBe(id);
      // Exactly once each, and nothing but whole records.
      expect(store.status()).toMatchObject({ records: store.size });
      expect(store.size).toBeGreaterThanOrEqual(new Set(acknowledged).size);
      expect(store.size - acknowledged.length).toBeLessThanOrEqual(KILLS * 4);
    } finally {
      store.close();
    }
    expect(acknowledged.length).toBeGreaterThan(KILLS);
  }, 120_000);
});

// Issue 16, item 3: the data directory and everything in it are readable by their user alone, also
// files an earlier version left readable and files created later by the bridge and by Chroma.
import fs from "node:fs";
import path from "node:path";
import { openStore, tempDir } from "../store/helpers";
import { serveBridge, waitForReplica } from "../bridge/bridge-process";

/** Every file and folder under `dir` whose mode lets group or others in, with its mode. */
function exposed(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isSymbolicLink()) continue;
      const mode = fs.statSync(full).mode & 0o777;
      if ((mode & 0o077) !== 0) found.push(`${path.relative(dir, full)} ${mode.toString(8)}`);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return found;
}

const posix = process.platform !== "win32";

(posix ? describe : describe.skip)("file modes in the data directory (POSIX)", () => {
  it("are owner-only after a bridge has run: old files tightened, new ones (Chroma's too) created so", async () => {
    const dataDir = tempDir("modes-");
    // What an earlier version left: a journal and a folder readable by everybody.
    const old = openStore(dataDir);
    old.add({ id: "old", text: "my bank PIN is 4711", source_type: "user_message" });
    old.close();
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, "journal.jsonl"), 0o644);
    fs.mkdirSync(path.join(dataDir, "notes"), { mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, "notes", "left-over.txt"), "x", { mode: 0o644 });
    expect(exposed(dataDir).length).toBeGreaterThan(0);

    const bridge = await serveBridge(dataDir);
    try {
      await bridge.client.call("add", { id: "new", text: "a memory written by this bridge", source_type: "user_message", embedding: { provider: "test", model: "m", vector: [1, 0] } });
      await bridge.client.call("search", { query: "memory" });
      await waitForReplica(bridge.client);
    } finally {
      await bridge.client.call("shutdown", {});
      await bridge.exited;
    }
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fs.existsSync(path.join(dataDir, "chroma"))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, "audit.jsonl"))).toBe(true);
    expect(exposed(dataDir)).toEqual([]);
  }, 60_000);
});

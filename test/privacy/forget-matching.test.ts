// Issue 16, item 1: forgetting a whole session, a project scope, or everything containing a phrase,
// with a preview of what will go; nothing changes until it is confirmed, and then the text is erased.
import fs from "node:fs";
import path from "node:path";
import { openStore, tempDir } from "../store/helpers";
import { filesHolding } from "./files-holding";
import { runCli } from "../cli/run-cli";
import { serveBridge } from "../bridge/bridge-process";

function seed(store: ReturnType<typeof openStore>): void {
  store.add({ id: "a1", text: "Alice's birthday is on May 3", source_type: "user_message", session_id: "s-alice", turn: 1 });
  store.add({ id: "a2", text: "she likes orchids", source_type: "assistant_message", session_id: "s-alice", turn: 1 });
  store.add({ id: "p1", text: "the Project X launch is in June", source_type: "system_fact", scope: "project:x" });
  store.add({ id: "g1", text: "the umbrella is in the hallway", source_type: "user_message", session_id: "s-other", turn: 1 });
}

describe("forgetting by session, scope or phrase (store)", () => {
  it("previews without changing anything, then forgets exactly the matches in one write", () => {
    const dataDir = tempDir("forget-many-");
    const store = openStore(dataDir);
    try {
      seed(store);
      const journal = () => fs.readFileSync(path.join(dataDir, "journal.jsonl"));
      const before = journal();
      expect(store.forgetMatching({ sessionId: "s-alice" }, false).map((r) => r.id)).toEqual(["a1", "a2"]);
      expect(store.forgetMatching({ scope: "project:x" }, false).map((r) => r.id)).toEqual(["p1"]);
      expect(store.forgetMatching({ textContains: "UMBRELLA" }, false).map((r) => r.id)).toEqual(["g1"]);
      expect(store.forgetMatching({ sessionId: "s-alice", textContains: "orchid" }, false).map((r) => r.id)).toEqual(["a2"]);
      expect(journal().equals(before)).toBe(true);
      expect(store.size).toBe(4);

      expect(store.forgetMatching({ sessionId: "s-alice" }, true).map((r) => r.id)).toEqual(["a1", "a2"]);
      expect(journal().length).toBeGreaterThan(before.length);
      expect([store.get("a1"), store.get("a2"), store.get("p1")?.id, store.get("g1")?.id]).toEqual([undefined, undefined, "p1", "g1"]);
      expect(store.forgetMatching({ sessionId: "s-alice" }, true)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it("refuses a filter that names nothing, which would match every memory", () => {
    const store = openStore();
    try {
      seed(store);
      expect(() => store.forgetMatching({}, true)).toThrow(expect.objectContaining({ code: "MISSING_FIELD" }));
      expect(() => store.forgetMatching({ textContains: "  " }, true)).toThrow(expect.objectContaining({ code: "MISSING_FIELD" }));
      expect(store.size).toBe(4);
    } finally {
      store.close();
    }
  });
});

describe("dsh-dream forget --session/--scope/--matching", () => {
  it("shows what would go, forgets it with --yes, and with --now erases it from every file", async () => {
    const dataDir = tempDir("forget-cli-");
    const bridge = await serveBridge(dataDir, ["--no-chroma"]);
    try {
      for (const record of [
        { id: "a1", text: "Alice's birthday is on May 3", source_type: "user_message", session_id: "s-alice", turn: 1 },
        { id: "a2", text: "she likes orchids", source_type: "assistant_message", session_id: "s-alice", turn: 1 },
        { id: "g1", text: "the umbrella is in the hallway", source_type: "user_message" },
      ]) await bridge.client.call("add", record);
      const preview = runCli(["--data-dir", dataDir, "forget", "--session", "s-alice"]);
      expect(preview.code).toBe(0);
      expect(preview.stdout).toMatch(/^  a1  \S+  Alice's birthday is on May 3\n  a2  \S+  she likes orchids\n2 memories would be forgotten; nothing was changed: run again with --yes to forget them\n$/);
      expect((await bridge.client.call<{ records: number }>("status")).records).toBe(3);

      const done = runCli(["--data-dir", dataDir, "forget", "--session", "s-alice", "--yes", "--now"]);
      expect(done.code).toBe(0);
      expect(done.stdout).toContain("forgot 2 memories\n");
      expect(done.stdout).toMatch(/erased 2 forgotten memories from the journal, checkpoint and receipts/);
      expect((await bridge.client.call<{ records: number }>("status")).records).toBe(1);
      expect(runCli(["--data-dir", dataDir, "forget", "--matching", "nothing like this"]).stdout).toBe("no memory matches; nothing was changed\n");
    } finally {
      await bridge.client.call("shutdown", {});
      await bridge.exited;
    }
    expect(filesHolding(dataDir, "likes orchids")).toEqual([]);
  }, 60_000);
});

// Crash injection around checkpoint writes: whichever file operation a crash interrupts, the next open must
// find the previous checkpoint or the new one, whole, and a state equal to a full journal replay.
import fs from "node:fs";
import path from "node:path";
import { manifestParts } from "../../bridge/store/checkpoint-format";
import type { MemoryStore } from "../../bridge/store/memory-store";
import { checkpointStatus, copyDataDir, observe, openAt, touchEarlier, writeHistory } from "./checkpoint-fixtures";
import { tempDir } from "./helpers";
import { runWithCrashAt } from "./crash-injection";

/** A data directory with one checkpoint and a journal that has grown since: the state just before the next checkpoint. */
function storeWithOldCheckpoint(): { dataDir: string; store: MemoryStore; oldOffset: number } {
  const dataDir = tempDir("ckpt-crash-");
  const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
  writeHistory(store, 0, 120);
  const oldOffset = store.checkpoint().offset;
  writeHistory(store, 120, 180);
  touchEarlier(store, 0, 120);
  return { dataDir, store, oldOffset };
}

describe("checkpoint crash injection", () => {
  it("leaves the old checkpoint or the new one usable whichever file operation a crash interrupts", () => {
    const { dataDir, store, oldOffset } = storeWithOldCheckpoint();
    const newOffset = store.journalEndOffset;
    const expected = observe(store);
    const seen = new Set<number>();
    let crashAt = 0;
    // Each crashed attempt leaves its debris behind for the next one, as repeated real crashes would.
    while (runWithCrashAt(crashAt, () => store.checkpoint())) {
      const reopened = openAt(copyDataDir(dataDir), { checkpointOnCloseBytes: Infinity });
      const status = checkpointStatus(reopened);
      expect(status).toMatchObject({ used: true });
      expect([oldOffset, newOffset]).toContain(status.offset);
      seen.add(status.offset);
      expect(observe(reopened)).toEqual(expected);
      reopened.close();
      crashAt++;
    }
    // The crashes covered the whole write: before the manifest rename and after it.
    expect(crashAt).toBeGreaterThan(10);
    expect([...seen].sort((a, b) => a - b)).toEqual([oldOffset, newOffset]);
    store.close();
    const manifest = JSON.parse(fs.readFileSync(path.join(dataDir, "checkpoint", "manifest.json"), "utf8"));
    const files = manifestParts(manifest).map((part) => part.file);
    expect(fs.readdirSync(path.join(dataDir, "checkpoint")).sort()).toEqual(["manifest.json", ...files].sort());
  });

  it("ignores a half-written part and temporary manifest left by a crash, and removes them at the next checkpoint", () => {
    const { dataDir, store, oldOffset } = storeWithOldCheckpoint();
    const expected = observe(store);
    store.close();
    const dir = path.join(dataDir, "checkpoint");
    const stale = ["o999-deadbeef.vectors-0.bin", "manifest.json.o999-deadbeef.tmp", "leftover.tmpdir"];
    fs.writeFileSync(path.join(dir, stale[0]), Buffer.alloc(100, 7));
    fs.writeFileSync(path.join(dir, stale[1]), '{"format":"dsh-dream-checkpoint","vers');
    fs.mkdirSync(path.join(dir, stale[2]));

    const reopened = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    expect(checkpointStatus(reopened)).toMatchObject({ used: true, offset: oldOffset });
    expect(observe(reopened)).toEqual(expected);
    reopened.checkpoint();
    reopened.close();
    for (const name of stale) expect(fs.existsSync(path.join(dir, name))).toBe(false);
    const latest = openAt(dataDir);
    expect(checkpointStatus(latest)).toMatchObject({ used: true, offset: latest.journalEndOffset, entries_replayed_after: 0 });
    expect(observe(latest)).toEqual(expected);
    latest.close();
  });

  it("releases the lock and reports the failure when the checkpoint on close cannot be written", () => {
    const dataDir = tempDir("ckpt-crash-");
    const store = openAt(dataDir, { checkpointOnCloseBytes: 0 });
    writeHistory(store, 0, 40);
    fs.writeFileSync(path.join(dataDir, "checkpoint"), "a file where the checkpoint directory belongs");
    expect(() => store.close()).toThrow(expect.objectContaining({ code: "IO_ERROR", message: expect.stringContaining("could not write the checkpoint") }));
    const reopened = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    expect(checkpointStatus(reopened)).toMatchObject({ used: false, reason: "no checkpoint" });
    expect(reopened.size).toBe(store.size);
    reopened.close();
  });
});

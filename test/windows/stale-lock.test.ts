// Finding 10 of issue 14 (and the lock race of issue 15): a lock is judged by its heartbeat, not by
// its pid alone. Windows reuses pids fast and a reboot reuses them all, so a lock naming a live
// stranger, a pid that answers EPERM, a lock from before this boot or one naming our own pid from an
// earlier life is taken over; a lock whose owner refreshes it is not; and several processes finding
// the same stale lock at once leave exactly one owner.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DirectoryLock, LOCK_FILE, LOCK_HEARTBEAT_MS, LOCK_STALE_MS, lockHolder, type LockClock } from "../../bridge/store/lock";
import { MemoryStore } from "../../bridge/store/memory-store";
import { tempDir } from "../store/helpers";
import { bundleScript } from "../bundle-script";

const strangers: ChildProcess[] = [];

/** A live process that is not a DSH-DREAM bridge: what a reused pid points at. */
function liveStranger(): number {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], { stdio: "ignore" });
  strangers.push(child);
  return child.pid!;
}

function writeLock(dataDir: string, pid: number, heartbeatAgoMs: number): string {
  const lockPath = path.join(dataDir, LOCK_FILE);
  fs.writeFileSync(lockPath, JSON.stringify({ pid, started_ms: Date.now() - heartbeatAgoMs }));
  const at = new Date(Date.now() - heartbeatAgoMs);
  fs.utimesSync(lockPath, at, at);
  return lockPath;
}

function ownerOf(lockPath: string): number {
  return JSON.parse(fs.readFileSync(lockPath, "utf8")).pid;
}

afterEach(() => {
  for (const child of strangers.splice(0)) child.kill("SIGKILL");
  jest.restoreAllMocks();
  jest.useRealTimers();
});

describe("a stale lock is taken over, a live one is not", () => {
  it("takes over a lock naming a live stranger that stopped refreshing it (a reused pid)", () => {
    const dataDir = tempDir("lock-reused-");
    const pid = liveStranger();
    const lockPath = writeLock(dataDir, pid, LOCK_STALE_MS + 5_000);
    const store = MemoryStore.open({ dataDir });
    try {
      expect(ownerOf(lockPath)).toBe(process.pid);
    } finally {
      store.close();
    }
    expect(fs.existsSync(lockPath)).toBe(false);
  });

  it("refuses a lock whose live owner refreshes it, naming the owner", () => {
    const dataDir = tempDir("lock-live-");
    const pid = liveStranger();
    const lockPath = writeLock(dataDir, pid, LOCK_HEARTBEAT_MS);
    expect(() => MemoryStore.open({ dataDir })).toThrow(
      expect.objectContaining({ code: "DATA_DIR_LOCKED", message: `the data directory is in use by process ${pid} (${lockPath})` }),
    );
    expect(ownerOf(lockPath)).toBe(pid);
    expect(fs.existsSync(`${lockPath}.takeover`)).toBe(false);
  });

  it("judges a pid that answers EPERM (someone else's process) by its heartbeat too", () => {
    const dataDir = tempDir("lock-eperm-");
    const foreignPid = 4_000_000;
    const realKill = process.kill.bind(process);
    jest.spyOn(process, "kill").mockImplementation((pid: number, signal?: string | number) => {
      if (pid === foreignPid) throw Object.assign(new Error("kill EPERM"), { code: "EPERM" });
      return realKill(pid, signal);
    });
    const lockPath = writeLock(dataDir, foreignPid, 1_000);
    expect(lockHolder(lockPath)).toEqual({ state: "live", pid: foreignPid });
    expect(() => DirectoryLock.acquire(lockPath)).toThrow(expect.objectContaining({ code: "DATA_DIR_LOCKED" }));

    writeLock(dataDir, foreignPid, LOCK_STALE_MS + 1_000);
    const lock = DirectoryLock.acquire(lockPath);
    expect(lock.tookOver).toMatch(new RegExp(`^process ${foreignPid} has not refreshed the lock for \\d+ s`));
    lock.release();
  });

  it("takes over a lock written before this machine started, even with a fresh-looking live pid", () => {
    const dataDir = tempDir("lock-boot-");
    const pid = liveStranger();
    const lockPath = writeLock(dataDir, pid, 2_000);
    const rebootedJustNow: LockClock = { nowMs: () => Date.now(), bootMs: () => Date.now() - 1_000, isProcessAlive: () => true };
    const lock = DirectoryLock.acquire(lockPath, rebootedJustNow);
    expect(lock.tookOver).toBe(`the lock was written before this machine started; process ${pid} is another program`);
    expect(ownerOf(lockPath)).toBe(process.pid);
    lock.release();
  });

  it("takes over a lock naming this very process's pid that this process does not hold", () => {
    const dataDir = tempDir("lock-self-");
    const lockPath = writeLock(dataDir, process.pid, 0);
    const lock = DirectoryLock.acquire(lockPath);
    expect(lock.tookOver).toBe(`an earlier process with this process's id (${process.pid}) left it`);
    // Held now: a second open in this process is refused, not taken over.
    expect(() => DirectoryLock.acquire(lockPath)).toThrow(
      expect.objectContaining({ code: "DATA_DIR_LOCKED", message: `the data directory is already open in this process (${lockPath})` }),
    );
    lock.release();
    expect(fs.existsSync(lockPath)).toBe(false);
  });

  it("keeps its own lock fresh while it is held", () => {
    jest.useFakeTimers({ doNotFake: ["performance", "hrtime", "nextTick", "queueMicrotask", "setImmediate"] });
    const dataDir = tempDir("lock-heartbeat-");
    const lockPath = path.join(dataDir, LOCK_FILE);
    const lock = DirectoryLock.acquire(lockPath);
    const old = new Date(Date.now() - LOCK_STALE_MS - 1_000);
    fs.utimesSync(lockPath, old, old);
    expect(lockHolder(lockPath)).toEqual({ state: "live", pid: process.pid }); // ours: held in this process
    jest.advanceTimersByTime(LOCK_HEARTBEAT_MS);
    expect(Date.now() - fs.statSync(lockPath).mtimeMs).toBeLessThan(LOCK_STALE_MS);
    lock.release();
    jest.advanceTimersByTime(LOCK_HEARTBEAT_MS * 2);
    expect(fs.existsSync(lockPath)).toBe(false); // released: no heartbeat recreates it
  });

  it("refreshes its lock through a whole-journal replay, a checkpoint and a compaction run in one go", () => {
    // Their timer cannot run while the store works synchronously: a replay of a million memories took minutes,
    // long enough for a second bridge to judge the lock stale and open the same directory. Here every look at
    // the clock finds a heartbeat due, as it would through minutes of such work.
    const dataDir = tempDir("lock-long-work-");
    const lockPath = path.join(dataDir, LOCK_FILE);
    const writing = MemoryStore.open({ dataDir, checkpointOnCloseBytes: Infinity });
    const imported = writing.importRecords(Array.from({ length: 3_000 }, (_, i) => ({ id: `m${i}`, text: `memory number ${i} about the lock`, source_type: "user_message" })));
    writing.close();
    expect(imported).toEqual({ added: 3_000, unchanged: 0, rejected: [] });
    expect(fs.existsSync(path.join(dataDir, "checkpoint"))).toBe(false);

    const refreshes = jest.spyOn(fs, "utimesSync");
    const lockRefreshes = (): number => refreshes.mock.calls.filter(([file]) => file === lockPath).length;
    let clock = Date.now();
    const dueEveryLook = jest.spyOn(Date, "now").mockImplementation(() => (clock += LOCK_HEARTBEAT_MS));
    const store = MemoryStore.open({ dataDir, checkpointOnCloseBytes: Infinity });
    try {
      expect(store.status()).toMatchObject({ journal: { entries_replayed: 3_000 }, checkpoint: { used: false } });
      const afterReplay = lockRefreshes();
      expect(afterReplay).toBeGreaterThan(0);
      store.checkpoint();
      const afterCheckpoint = lockRefreshes();
      expect(afterCheckpoint).toBeGreaterThan(afterReplay);
      store.forget("m7");
      expect(store.compact().erased).toBe(1);
      expect(lockRefreshes()).toBeGreaterThan(afterCheckpoint);

      // No heartbeat due: a look at the clock is all it costs.
      dueEveryLook.mockImplementation(() => clock);
      const before = lockRefreshes();
      store.add({ id: "late", text: "one more memory, so that the checkpoint has steps to run", source_type: "user_message" });
      expect(store.checkpoint()).not.toHaveProperty("unchanged");
      expect(lockRefreshes()).toBe(before);
      expect(ownerOf(lockPath)).toBe(process.pid);
    } finally {
      store.close();
    }
  });

  it("clears a takeover left by a crashed process", () => {
    const dataDir = tempDir("lock-takeover-");
    const lockPath = writeLock(dataDir, 4_000_001, 0);
    fs.writeFileSync(`${lockPath}.takeover`, JSON.stringify({ pid: 4_000_002 }));
    const lock = DirectoryLock.acquire(lockPath);
    expect(lock.tookOver).toBe("process 4000001 is not running");
    expect(fs.existsSync(`${lockPath}.takeover`)).toBe(false);
    lock.release();
  });
});

describe("several processes finding the same stale lock", () => {
  const ROUNDS = 20;
  const RACERS = 4;

  it("leave exactly one owner in every round", async () => {
    const work = tempDir("lock-race-");
    // Each racer is the real lock module, bundled; it waits for the start file, tries once, holds a winning
    // lock until told to stop, and prints what happened.
    const script = bundleScript(work, "racer.cjs", `
          const fs = require("node:fs");
          const { DirectoryLock } = require(${JSON.stringify(path.resolve(__dirname, "../../bridge/store/lock.ts"))});
          const [lockPath, go, done] = process.argv.slice(2);
          while (!fs.existsSync(go)) {}
          try {
            const lock = DirectoryLock.acquire(lockPath);
            process.stdout.write("won\\n");
            while (!fs.existsSync(done)) {}
            lock.release();
          } catch (error) {
            process.stdout.write((error.code || error.message) + "\\n");
          }`);
    const deadPid = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = path.join(work, `round-${round}`);
      fs.mkdirSync(dataDir);
      const lockPath = writeLock(dataDir, deadPid, 0);
      const go = path.join(dataDir, "go");
      const done = path.join(dataDir, "done");
      const outcomes = Array.from({ length: RACERS }, () => {
        const child = spawn(process.execPath, [script, lockPath, go, done], { stdio: ["ignore", "pipe", "inherit"] });
        let out = "";
        child.stdout.on("data", (chunk) => (out += chunk));
        return { child, out: () => out.trim(), exited: new Promise((resolve) => child.on("exit", resolve)) };
      });
      fs.writeFileSync(go, "");
      // Every loser has answered before the winner is told to let go.
      await waitUntil(() => outcomes.filter((o) => o.out() !== "").length === RACERS);
      fs.writeFileSync(done, "");
      await Promise.all(outcomes.map((o) => o.exited));
      const results = outcomes.map((o) => o.out()).sort();
      expect(results).toEqual(["DATA_DIR_LOCKED", "DATA_DIR_LOCKED", "DATA_DIR_LOCKED", "won"]);
      expect(fs.existsSync(lockPath)).toBe(false);
      expect(fs.existsSync(`${lockPath}.takeover`)).toBe(false);
    }
  }, 120_000);
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

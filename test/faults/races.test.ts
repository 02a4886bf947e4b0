// Issue 15, item 3: two bridges on one directory. Several real bridges started at once on a
// directory whose lock names a dead process leave exactly one serving, round after round; and
// several processes creating the bridge token at once all end up with the one on disk.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BridgeClient } from "../../bridge/client/bridge-client";
import { LOCK_STALE_MS } from "../../bridge/store/lock";
import { CLI } from "../cli/run-cli";
import { tempDir } from "../store/helpers";
import { bundleScript } from "../bundle-script";

const ROUNDS = 20;
const afterAllKill: ChildProcess[] = [];

afterAll(() => {
  for (const child of afterAllKill) child.kill("SIGKILL");
});

async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function deadPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
}

describe("bridges started at once on a stale lock", () => {
  const BRIDGES = 3;

  it(`leave exactly one serving in each of ${ROUNDS} rounds, the lock naming a dead pid or a reused one; the others say DATA_DIR_LOCKED`, async () => {
    const work = tempDir("bridge-race-");
    const gone = deadPid();
    // A live process that is no bridge: what a pid reused by Windows points at.
    const stranger = spawn(process.execPath, ["-e", "setTimeout(() => {}, 600000)"], { stdio: "ignore" });
    afterAllKill.push(stranger);
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = path.join(work, `round-${round}`);
      fs.mkdirSync(dataDir);
      const lockPath = path.join(dataDir, "store.lock");
      if (round % 2 === 0) {
        fs.writeFileSync(lockPath, JSON.stringify({ pid: gone, started_ms: 0 }));
      } else {
        fs.writeFileSync(lockPath, JSON.stringify({ pid: stranger.pid, started_ms: 0 }));
        const silent = new Date(Date.now() - LOCK_STALE_MS - 1_000);
        fs.utimesSync(lockPath, silent, silent);
      }
      const bridges = Array.from({ length: BRIDGES }, () => {
        const child: ChildProcess = spawn(process.execPath, [CLI, "--data-dir", dataDir, "serve", "--no-chroma"], { stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr!.on("data", (chunk) => (stderr += chunk));
        const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
        return { child, stderr: () => stderr, exit, exited: () => child.exitCode !== null };
      });
      try {
        // The losers exit; the winner answers.
        await waitUntil(() => bridges.filter((b) => b.exited()).length >= BRIDGES - 1, 60_000, `round ${round}: the losing bridges to exit`);
        const serving = bridges.filter((b) => !b.exited());
        expect(serving).toHaveLength(1);
        for (const loser of bridges.filter((b) => b.exited())) {
          expect(await loser.exit).not.toBe(0);
          expect(loser.stderr()).toMatch(/DATA_DIR_LOCKED/);
        }
        let health: { pid: number } | undefined;
        await waitUntil(() => fs.existsSync(path.join(dataDir, "bridge.json")), 60_000, `round ${round}: the bridge file`);
        health = await BridgeClient.fromDataDir(dataDir).health();
        expect(health.pid).toBe(serving[0]!.child.pid);
      } finally {
        for (const bridge of bridges) if (!bridge.exited()) bridge.child.kill("SIGTERM");
        await Promise.all(bridges.map((b) => b.exit));
      }
      expect(fs.existsSync(path.join(dataDir, "store.lock"))).toBe(false);
    }
  }, 300_000);
});

describe("the bridge token created by several processes at once", () => {
  const RACERS = 4;

  it(`is the same for all of them and on disk, in each of ${ROUNDS} rounds`, async () => {
    const work = tempDir("token-race-");
    const script = bundleScript(work, "racer.cjs", `
          const fs = require("node:fs");
          const { loadOrCreateToken } = require(${JSON.stringify(path.resolve(__dirname, "../../bridge/server/bridge-file.ts"))});
          const [dataDir, go] = process.argv.slice(2);
          while (!fs.existsSync(go)) {}
          process.stdout.write(loadOrCreateToken(dataDir));`);
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = path.join(work, `round-${round}`);
      fs.mkdirSync(dataDir);
      const go = path.join(dataDir, "go");
      const racers = Array.from({ length: RACERS }, () => {
        const child = spawn(process.execPath, [script, dataDir, go], { stdio: ["ignore", "pipe", "inherit"] });
        let out = "";
        child.stdout.on("data", (chunk) => (out += chunk));
        return new Promise<string>((resolve) => child.on("exit", () => resolve(out)));
      });
      // Give every racer time to start spinning before the gun.
      await new Promise((resolve) => setTimeout(resolve, 150));
      fs.writeFileSync(go, "");
      const tokens = await Promise.all(racers);
      const onDisk = fs.readFileSync(path.join(dataDir, "bridge.token"), "utf8").trim();
      expect(new Set(tokens)).toEqual(new Set([onDisk]));
      expect(fs.readdirSync(dataDir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    }
  }, 120_000);
});

// The embedded Chroma server against the real binding: start, heartbeat, crash and restart with its
// data, backoff while the port is blocked, clear start failures, and nothing left after stop().
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { ChromaCollections } from "../../bridge/chroma/chroma-collections";
import { EmbeddedChroma } from "../../bridge/chroma/chroma-process";
import { DreamError } from "../../bridge/protocol/errors";
import { tempDir } from "../store/helpers";

const BINDING = { provider: "test", model: "unit-8", dim: 8 };

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

function rows(n: number): Array<{ id: string; document: string; embedding: number[]; metadata: { n: number } }> {
  return Array.from({ length: n }, (_, i) => ({ id: `r${i}`, document: `doc ${i}`, embedding: [1, i, 0, 0, 0, 0, 0, 1], metadata: { n: i } }));
}

/** Resources this process holds, by kind: a child process shows up as ProcessWrap, timers as Timeout. */
function held(kind: string): number {
  return process.getActiveResourcesInfo().filter((name) => name === kind).length;
}

/** How many of a kind remain once short-lived ones (jest's, a closing socket's) have gone; ours last far longer. */
async function settled(kind: string, atMost: number): Promise<number> {
  for (let waitedMs = 0; held(kind) > atMost && waitedMs < 1000; waitedMs += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  return held(kind);
}

async function listen(server: net.Server, port = 0): Promise<number> {
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as net.AddressInfo).port;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  const port = await listen(server);
  server.close();
  await once(server, "close");
  return port;
}

/**
 * The launcher watching its stdin (with `nodeArgs` before it), whose stdin closes at once, as when its parent dies
 * at the spawn; waits up to `waitMs` for it to be gone (killed after that), and says how it ended.
 */
async function orphanedLauncher(nodeArgs: string[], waitMs: number): Promise<{ gone: boolean; code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const launcher = path.join(__dirname, "..", "..", "bridge", "chroma", "chroma-launcher.cjs");
  const args = [...nodeArgs, launcher, "run", "--path", tempDir("chroma-"), "--host", "127.0.0.1", "--port", String(await freePort())];
  const server = spawn(process.execPath, args, { stdio: ["pipe", "ignore", "pipe"], env: { ...process.env, DSH_DREAM_CHROMA_WATCH_STDIN: "1" } });
  let stderr = "";
  server.stderr!.on("data", (chunk) => (stderr += String(chunk)));
  const closed = once(server, "close") as Promise<[number | null, NodeJS.Signals | null]>;
  server.stdin!.end();
  const deadline = Date.now() + waitMs;
  while (!isGone(server.pid as number) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const gone = isGone(server.pid as number);
  if (!gone) server.kill("SIGKILL");
  const [code, signal] = await closed;
  return { gone, code, signal, stderr };
}

describe("EmbeddedChroma", () => {
  it("starts a server that answers its heartbeat, and stop() leaves no process and no timer behind", async () => {
    const timersBefore = held("Timeout");
    const pipesBefore = held("PipeWrap");
    const chroma = await EmbeddedChroma.start({ dataDir: tempDir("chroma-") });
    const pid = chroma.pid as number;
    // A random loopback address where the system answers one (Linux, Windows), else 127.0.0.1.
    expect(chroma.url).toMatch(process.platform === "darwin" ? /^http:\/\/127\.0\.0\.1:\d+$/ : /^http:\/\/127\.(?!0\.0\.)\d+\.\d+\.\d+:\d+$/);
    expect(isGone(pid)).toBe(false);
    expect(await chroma.healthy()).toBe(true);
    expect(await new ChromaCollections({ url: chroma.url }).heartbeat()).toBe(true);

    await chroma.stop();
    expect(isGone(pid)).toBe(true);
    expect(chroma.pid).toBeUndefined();
    expect(await chroma.healthy()).toBe(false);
    expect(held("ProcessWrap")).toBe(0);
    expect(await settled("Timeout", timersBefore)).toBeLessThanOrEqual(timersBefore);
    expect(await settled("PipeWrap", pipesBefore)).toBeLessThanOrEqual(pipesBefore);
    await chroma.stop(); // a second stop is harmless
  });

  it("restarts a server killed with SIGKILL on the same url, with its data", async () => {
    const chroma = await EmbeddedChroma.start({ dataDir: tempDir("chroma-"), restart: { initialDelayMs: 100 } });
    try {
      const collections = new ChromaCollections({ url: chroma.url });
      const name = await collections.ensureCollection(BINDING);
      await collections.upsert(name, rows(20));
      const firstPid = chroma.pid as number;
      const url = chroma.url;

      const died = once(chroma, "exit");
      const restarted = once(chroma, "restarted");
      process.kill(firstPid, "SIGKILL");
      const [exit] = await died;
      expect(exit.signal).toBe("SIGKILL");
      expect(exit.logTail.length).toBeGreaterThan(0);
      const [info] = await restarted;

      expect(info.attempt).toBe(1);
      expect(chroma.pid).toBe(info.pid);
      expect(info.pid).not.toBe(firstPid);
      expect(chroma.url).toBe(url);
      expect(await chroma.healthy()).toBe(true);
      expect(await collections.count(name)).toBe(20);
    } finally {
      await chroma.stop();
    }
  });

  it("backs off with doubling, bounded delays while its port is taken, then comes back", async () => {
    const chroma = await EmbeddedChroma.start({ dataDir: tempDir("chroma-"), restart: { initialDelayMs: 100, maxDelayMs: 300 } });
    const blocker = net.createServer();
    try {
      const port = Number(new URL(chroma.url).port);
      const failures: Array<{ message: string; nextDelayMs: number }> = [];
      chroma.on("restart-failed", (error, nextDelayMs) => failures.push({ message: error.message, nextDelayMs }));
      const died = once(chroma, "exit");
      process.kill(chroma.pid as number, "SIGKILL");
      await died;
      await listen(blocker, port);
      while (failures.length < 3) await new Promise((resolve) => setTimeout(resolve, 50));

      expect(failures.map((f) => f.nextDelayMs)).toEqual([200, 300, 300]);
      expect(failures[0].message).toBe(`port ${port} on 127.0.0.1 is already in use; choose another Chroma port`);
      const restarted = once(chroma, "restarted");
      blocker.close();
      await restarted;
      expect(await chroma.healthy()).toBe(true);
    } finally {
      blocker.close();
      await chroma.stop();
    }
  });

  it("with restarts disabled, reports the death and stays down", async () => {
    const chroma = await EmbeddedChroma.start({ dataDir: tempDir("chroma-"), restart: false });
    let restarts = 0;
    chroma.on("restarted", () => restarts++);
    const died = once(chroma, "exit");
    process.kill(chroma.pid as number, "SIGKILL");
    await died;
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(restarts).toBe(0);
    expect(await chroma.healthy()).toBe(false);
    await chroma.stop();
    expect(held("ProcessWrap")).toBe(0);
  });

  it("stop() while a restart is pending cancels it and leaves no timer behind", async () => {
    const timersBefore = held("Timeout");
    const chroma = await EmbeddedChroma.start({ dataDir: tempDir("chroma-"), restart: { initialDelayMs: 60_000 } });
    let restarts = 0;
    chroma.on("restarted", () => restarts++);
    const died = once(chroma, "exit");
    process.kill(chroma.pid as number, "SIGKILL");
    await died;
    await chroma.stop();
    expect(restarts).toBe(0);
    expect(await settled("Timeout", timersBefore)).toBeLessThanOrEqual(timersBefore);
    expect(held("ProcessWrap")).toBe(0);
  });

  it("the launcher stops its server when the process that started it dies, even by SIGKILL", async () => {
    const launcher = path.join(__dirname, "..", "..", "bridge", "chroma", "chroma-launcher.cjs");
    const port = await freePort();
    const parentScript = `
      const { spawn } = require("node:child_process");
      const args = [${JSON.stringify(launcher)}, "run", "--path", ${JSON.stringify(tempDir("chroma-"))}, "--host", "127.0.0.1", "--port", "${port}"];
      const env = { ...process.env, DSH_DREAM_CHROMA_WATCH_STDIN: "1" };
      const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"], env });
      console.log(child.pid);
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ["-e", parentScript], { stdio: ["ignore", "pipe", "inherit"] });
    const [line] = await once(parent.stdout!, "data");
    const serverPid = Number(String(line).trim());
    const server = new ChromaCollections({ url: `http://127.0.0.1:${port}` });
    while (!(await server.heartbeat())) await new Promise((resolve) => setTimeout(resolve, 50));

    parent.kill("SIGKILL");
    await once(parent, "close");
    const deadline = Date.now() + 10_000;
    while (!isGone(serverPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(isGone(serverPid)).toBe(true);
  });

  it("the launcher stops when the process that started it is gone before the server is up", async () => {
    // Its stdin closes at once: the watcher's first SIGINT comes before Chroma handles signals itself.
    const orphan = await orphanedLauncher([], 30_000);
    expect(orphan.gone).toBe(true);
    expect(orphan.stderr).toContain("chroma-launcher: parent went away (stdin closed); stopping");
  });

  it("the launcher kills itself when its server never takes the stop, as before Chroma handles signals", async () => {
    // A binding whose cli() blocks the main thread and sets up no signal handling of its own: each
    // SIGINT reaches only the launcher's JavaScript handler, which cannot run. Only the kill ends it.
    const preload = path.join(tempDir("chroma-blocked-"), "blocked-binding.cjs");
    fs.writeFileSync(
      preload,
      `const Module = require("node:module");
      const load = Module._load;
      Module._load = function (request, ...rest) {
        if (request.startsWith("chromadb-js-bindings-")) return { cli: () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0) };
        return load.call(this, request, ...rest);
      };`,
    );
    const orphan = await orphanedLauncher(["--require", preload], 40_000);
    expect(orphan.gone).toBe(true);
    expect({ code: orphan.code, signal: orphan.signal }).toEqual({ code: null, signal: "SIGKILL" });
    expect(orphan.stderr).toBe("chroma-launcher: parent went away (stdin closed); stopping\nchroma-launcher: still running 10000 ms after stdin closed; killing it\n");
  }, 60_000);

  it("refuses to start on a port that is already in use, naming the port", async () => {
    const blocker = net.createServer();
    const port = await listen(blocker);
    try {
      const start = EmbeddedChroma.start({ dataDir: tempDir("chroma-"), port, host: "127.0.0.1" });
      await expect(start).rejects.toThrow(DreamError);
      await expect(start).rejects.toMatchObject({
        code: "CHROMA_UNAVAILABLE",
        message: `port ${port} on 127.0.0.1 is already in use; choose another Chroma port`,
      });
    } finally {
      blocker.close();
    }
  });

  it("reports a server that exits during start with Chroma's own words, leaving nothing running", async () => {
    const notADirectory = path.join(tempDir("chroma-"), "file");
    fs.writeFileSync(notADirectory, "x");
    const failure: unknown = await EmbeddedChroma.start({ dataDir: notADirectory }).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: "CHROMA_UNAVAILABLE",
      message: expect.stringMatching(/^Chroma server exited during start \((signal SIGABRT|code \d+)\) on http:\/\/127\.\d+\.\d+\.\d+:\d+: /),
    });
    expect((failure as Error).message).toContain("File exists");
    expect(held("ProcessWrap")).toBe(0);
  });

  it("says where it looked when the launcher is missing", async () => {
    const launcherPath = path.join(tempDir("chroma-"), "missing-launcher.cjs");
    await expect(EmbeddedChroma.start({ dataDir: tempDir("chroma-"), launcherPath })).rejects.toMatchObject({
      code: "CHROMA_UNAVAILABLE",
      message: `Chroma launcher not found at ${launcherPath}`,
    });
  });
});

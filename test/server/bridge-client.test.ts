import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { inspect } from "node:util";
import { BridgeClient } from "../../bridge/client/bridge-client";
import { DreamError } from "../../bridge/protocol/errors";
import { RPC_LIMITS, type RpcMethod } from "../../bridge/protocol/wire";
import { loadOrCreateToken, writeBridgeFile } from "../../bridge/server/bridge-file";
import { startRpcServer, type RpcHandler, type RpcServer } from "../../bridge/server/rpc-server";
import { DirectoryLock, LOCK_FILE, LOCK_STALE_MS } from "../../bridge/store/lock";
import { tempDir } from "../store/helpers";

let dataDir: string;
let token: string;
let server: RpcServer | undefined;
let lock: DirectoryLock | undefined;
let calls: RpcMethod[];
let errors: DreamError[];

/** Records each call; `get` answers NOT_FOUND with a field, `forget` fails like a bug would. */
const fakeHandler: RpcHandler = async (method, params) => {
  calls.push(method);
  if (method === "get") throw new DreamError("NOT_FOUND", `no memory with id ${JSON.stringify(params.id)}`, { field: "id" });
  if (method === "forget") throw new TypeError("Cannot read properties of undefined (reading 'secret')");
  return { echoed: params };
};

/** A stand-in bridge in this process: it holds the store lock, as a real one does, and writes the bridge file. */
async function serve(handle: RpcHandler = fakeHandler): Promise<RpcServer> {
  lock = DirectoryLock.acquire(path.join(dataDir, LOCK_FILE));
  server = await startRpcServer({ token, handle, onError: () => undefined });
  writeBridgeFile(dataDir, { port: server.port, pid: process.pid, version: "0.1.0", protocol: 1, token, started_ms: Date.now() });
  return server;
}

async function failure(promise: Promise<unknown>): Promise<DreamError> {
  try {
    await promise;
  } catch (error) {
    errors.push(error as DreamError);
    return error as DreamError;
  }
  throw new Error("expected the call to fail");
}

beforeEach(() => {
  dataDir = tempDir("dream-bridge-client-");
  token = loadOrCreateToken(dataDir);
  calls = [];
  errors = [];
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  lock?.release();
  lock = undefined;
  fs.rmSync(dataDir, { recursive: true, force: true });
  for (const error of errors) {
    expect(error).toBeInstanceOf(DreamError);
    expect(`${error.message} ${JSON.stringify(error)} ${inspect(error)}`).not.toContain(token);
  }
});

describe("bridge client", () => {
  it("finds the bridge through the data directory and returns the handler's result", async () => {
    await serve();
    const client = BridgeClient.fromDataDir(dataDir);
    await expect(client.call("add", { text: "钥匙放在鞋柜里", source_type: "user_message" })).resolves.toEqual({
      echoed: { text: "钥匙放在鞋柜里", source_type: "user_message" },
    });
    await expect(client.health()).resolves.toEqual({ ok: true, pid: process.pid, protocol: 1 });
    expect(calls).toEqual(["add"]);
    expect(inspect(client) + JSON.stringify(client)).not.toContain(token);
  });

  it("turns a DreamError from the handler back into the same DreamError", async () => {
    await serve();
    const error = await failure(BridgeClient.fromDataDir(dataDir).call("get", { id: "m-404" }));
    expect(error.toJSON()).toEqual(new DreamError("NOT_FOUND", 'no memory with id "m-404"', { field: "id" }).toJSON());
  });

  it("reports a handler bug as INTERNAL without its message", async () => {
    await serve();
    const error = await failure(BridgeClient.fromDataDir(dataDir).call("forget", { id: "m-1" }));
    expect(error.code).toBe("INTERNAL");
    expect(error.message).toBe('the bridge failed while handling "forget"');
  });

  it("reports a wrong token as UNAUTHORIZED and the handler is not called", async () => {
    await serve();
    const client = new BridgeClient({ dataDir, port: server!.port, token: "not-the-token-of-this-install" });
    const error = await failure(client.call("status"));
    expect([error.code, error.hint]).toEqual(["UNAUTHORIZED", "Use the token from the bridge file in the data directory."]);
    expect(calls).toEqual([]);
  });

  it("reports a stopped bridge as BRIDGE_UNAVAILABLE naming the data directory, without waiting for the timeout", async () => {
    await serve();
    const client = BridgeClient.fromDataDir(dataDir);
    await server!.close();
    const error = await failure(client.call("status", {}, { timeoutMs: 30_000 }));
    expect(error.code).toBe("BRIDGE_UNAVAILABLE");
    expect(error.message).toContain(dataDir);
    expect(error.message).toContain("ECONNREFUSED");
  }, 5_000);

  it("reports a bridge that does not answer in time as BRIDGE_UNAVAILABLE", async () => {
    let release!: () => void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    await serve(async () => hung);
    const error = await failure(BridgeClient.fromDataDir(dataDir).call("status", {}, { timeoutMs: 200 }));
    expect(error.code).toBe("BRIDGE_UNAVAILABLE");
    expect(error.message).toContain("did not answer within 200 ms");
    release();
  });

  it("refuses a request over the body limit before sending it", async () => {
    await serve();
    const error = await failure(BridgeClient.fromDataDir(dataDir).call("import", { records: ["x".repeat(RPC_LIMITS.maxBodyBytes)] }));
    expect(error.code).toBe("INPUT_TOO_LARGE");
    expect(calls).toEqual([]);
  });

  it("reports a data directory without a bridge file, or with a dead bridge's file, as BRIDGE_UNAVAILABLE", async () => {
    const none = await failure(Promise.resolve().then(() => BridgeClient.fromDataDir(dataDir)));
    expect([none.code, none.message]).toEqual(["BRIDGE_UNAVAILABLE", `no bridge is running for the data directory ${dataDir}`]);

    const exited = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeBridgeFile(dataDir, { port: 9, pid: Number(exited.stdout), version: "0.1.0", protocol: 1, token, started_ms: 0 });
    const dead = await failure(Promise.resolve().then(() => BridgeClient.fromDataDir(dataDir)));
    expect([dead.code, dead.message]).toEqual(["BRIDGE_UNAVAILABLE", `the bridge recorded for ${dataDir} (process ${exited.stdout}) is no longer running`]);
  });

  it("never sends the token to a bridge whose pid is alive but whose lock has gone stale (a reused pid)", async () => {
    await serve();
    // What a dead bridge leaves when its pid is reused: a bridge file and a lock naming a live process
    // (here a stranger we start) that does not refresh the lock.
    lock!.release();
    const stranger = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      const pid = stranger.pid!;
      const lockPath = path.join(dataDir, LOCK_FILE);
      fs.writeFileSync(lockPath, JSON.stringify({ pid }));
      writeBridgeFile(dataDir, { port: server!.port, pid, version: "0.1.0", protocol: 1, token, started_ms: 0 });
      const silent = new Date(Date.now() - LOCK_STALE_MS - 1_000);
      fs.utimesSync(lockPath, silent, silent);
      const error = await failure(Promise.resolve().then(() => BridgeClient.fromDataDir(dataDir).call("status")));
      expect([error.code, error.message]).toEqual(["BRIDGE_UNAVAILABLE", `the bridge recorded for ${dataDir} (process ${pid}) is no longer running`]);
      expect(calls).toEqual([]);

      // The same files with a fresh heartbeat are a live bridge.
      fs.utimesSync(lockPath, new Date(), new Date());
      await BridgeClient.fromDataDir(dataDir).call("status");
      expect(calls).toEqual(["status"]);
    } finally {
      stranger.kill("SIGKILL");
    }
  });

  it("refuses a bridge of another protocol version with PROTOCOL_MISMATCH", async () => {
    writeBridgeFile(dataDir, { port: 9, pid: process.pid, version: "9.0.0", protocol: 2, token, started_ms: 0 });
    const error = await failure(Promise.resolve().then(() => BridgeClient.fromDataDir(dataDir)));
    expect(error.code).toBe("PROTOCOL_MISMATCH");
    expect(error.message).toContain("speaks protocol 2");
  });
});

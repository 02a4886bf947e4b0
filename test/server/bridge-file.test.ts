import fs from "node:fs";
import path from "node:path";
import { DreamError } from "../../bridge/protocol/errors";
import { loadOrCreateToken, readBridgeFile, removeBridgeFile, writeBridgeFile, type BridgeInfo } from "../../bridge/server/bridge-file";
import { tempDir } from "../store/helpers";

const posixIt = process.platform === "win32" ? it.skip : it;
let dataDir: string;

beforeEach(() => {
  dataDir = tempDir("dream-bridge-file-");
});

afterEach(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function sampleInfo(overrides: Partial<BridgeInfo> = {}): BridgeInfo {
  return { port: 43_210, pid: process.pid, version: "0.1.0", protocol: 1, token: loadOrCreateToken(dataDir), started_ms: 1_700_000_000_000, ...overrides };
}

function modeOf(file: string): number {
  return fs.statSync(path.join(dataDir, file)).mode & 0o777;
}

function thrown(action: () => unknown): DreamError {
  try {
    action();
  } catch (error) {
    return error as DreamError;
  }
  throw new Error("expected the action to throw");
}

describe("bridge token", () => {
  it("is created once as 32 random bytes in base64url and then reused", () => {
    const token = loadOrCreateToken(dataDir);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    expect(loadOrCreateToken(dataDir)).toBe(token);
    expect(fs.readFileSync(path.join(dataDir, "bridge.token"), "utf8")).toBe(token);
  });

  it("differs between two data directories", () => {
    const other = tempDir("dream-bridge-file-");
    try {
      expect(loadOrCreateToken(other)).not.toBe(loadOrCreateToken(dataDir));
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  posixIt("is readable by its owner alone, and a looser mode is tightened on load", () => {
    loadOrCreateToken(dataDir);
    expect(modeOf("bridge.token")).toBe(0o600);
    fs.chmodSync(path.join(dataDir, "bridge.token"), 0o644);
    loadOrCreateToken(dataDir);
    expect(modeOf("bridge.token")).toBe(0o600);
  });

  it("replaces a token file left empty by a crash, leaving no temporary files", () => {
    fs.writeFileSync(path.join(dataDir, "bridge.token"), "");
    const token = loadOrCreateToken(dataDir);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fs.readdirSync(dataDir)).toEqual(["bridge.token"]);
  });
});

describe("bridge file", () => {
  it("round-trips what the bridge wrote", () => {
    const info = sampleInfo();
    writeBridgeFile(dataDir, info);
    expect(readBridgeFile(dataDir)).toEqual(info);
  });

  it("is absent before a bridge writes it", () => {
    expect(readBridgeFile(dataDir)).toBeUndefined();
  });

  posixIt("is written with mode 0o600", () => {
    writeBridgeFile(dataDir, sampleInfo());
    expect(modeOf("bridge.json")).toBe(0o600);
  });

  it("is replaced atomically, leaving no temporary files behind", () => {
    writeBridgeFile(dataDir, sampleInfo({ port: 1111 }));
    writeBridgeFile(dataDir, sampleInfo({ port: 2222 }));
    expect(readBridgeFile(dataDir)?.port).toBe(2222);
    expect(fs.readdirSync(dataDir).sort()).toEqual(["bridge.json", "bridge.token"]);
  });

  it("fails with IO_ERROR when the rename fails, removing its temporary file", () => {
    const info = sampleInfo();
    fs.mkdirSync(path.join(dataDir, "bridge.json", "occupied"), { recursive: true });
    const error = thrown(() => writeBridgeFile(dataDir, info));
    expect(error.code).toBe("IO_ERROR");
    expect(error.message).not.toContain(info.token);
    expect(fs.readdirSync(dataDir).sort()).toEqual(["bridge.json", "bridge.token"]);
  });

  it("reads a file saved with a BOM and CRLF line endings", () => {
    const info = sampleInfo();
    const text = "\uFEFF" + JSON.stringify(info, null, 2).replace(/\n/g, "\r\n") + "\r\n";
    fs.writeFileSync(path.join(dataDir, "bridge.json"), text);
    expect(readBridgeFile(dataDir)).toEqual(info);
  });

  it("rejects a malformed file with BRIDGE_UNAVAILABLE naming the field but not the token", () => {
    const info = sampleInfo();
    fs.writeFileSync(path.join(dataDir, "bridge.json"), JSON.stringify({ ...info, port: "43210" }));
    const badPort = thrown(() => readBridgeFile(dataDir));
    expect([badPort.code, badPort.field]).toEqual(["BRIDGE_UNAVAILABLE", "port"]);
    expect(badPort.message).toContain("port must be an integer from 1 to 65535");

    fs.writeFileSync(path.join(dataDir, "bridge.json"), JSON.stringify(info).slice(0, -5));
    const truncated = thrown(() => readBridgeFile(dataDir));
    expect(truncated.code).toBe("BRIDGE_UNAVAILABLE");
    expect(truncated.message).toContain("is not valid JSON");
    for (const error of [badPort, truncated]) {
      expect(JSON.stringify({ ...error.toJSON(), cause: String(error.cause) })).not.toContain(info.token);
    }
  });

  it("is removed by the bridge that wrote it, and left alone for another pid", () => {
    writeBridgeFile(dataDir, sampleInfo({ pid: process.pid + 100_000 }));
    expect(removeBridgeFile(dataDir, process.pid)).toBe(false);
    expect(readBridgeFile(dataDir)?.pid).toBe(process.pid + 100_000);

    writeBridgeFile(dataDir, sampleInfo());
    expect(removeBridgeFile(dataDir, process.pid)).toBe(true);
    expect(readBridgeFile(dataDir)).toBeUndefined();
    expect(removeBridgeFile(dataDir, process.pid)).toBe(false);
  });
});

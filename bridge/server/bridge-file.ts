// The per-install token (`bridge.token`) and the bridge file (`bridge.json`) that tells clients
// where the running bridge listens. Both hold the secret, so both are readable by the user alone.
//
// On Windows, file modes do not restrict other users: the data directory's owner-only ACL, set by
// store/owner-only.ts at every bridge start and install, is what keeps these files private there.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DreamError } from "../protocol/errors";
import { renameWithRetry } from "../store/fs-retry";

export const BRIDGE_FILE = "bridge.json";
export const TOKEN_FILE = "bridge.token";

export interface BridgeInfo {
  port: number;
  pid: number;
  version: string;
  protocol: number;
  token: string;
  started_ms: number;
}

const OWNER_ONLY = 0o600;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const IS_POSIX = process.platform !== "win32";

/** Returns the data directory's token, creating it on first use (32 random bytes, base64url). */
export function loadOrCreateToken(dataDir: string): string {
  const tokenPath = path.join(dataDir, TOKEN_FILE);
  const existing = readToken(tokenPath);
  if (existing !== undefined) {
    restrictMode(tokenPath);
    return existing;
  }
  const token = randomBytes(32).toString("base64url");
  // Written whole under a private name, then linked into place: linking fails if a token appeared
  // meanwhile, so two starters can never each believe their own token is the one on disk.
  const draft = `${tokenPath}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    fs.writeFileSync(draft, token, { mode: OWNER_ONLY, flag: "wx" });
    fs.linkSync(draft, tokenPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      const winner = readToken(tokenPath);
      if (winner !== undefined) return winner;
      // A token file that is not a token (a crash of an older version between create and write)
      // cannot authenticate anybody, so replacing it locks nobody out.
      writeAtomically(tokenPath, token);
    } else if (code === "EPERM" || code === "ENOTSUP" || code === "ENOSYS") {
      // No hard links on this file system (FAT32, exFAT): create it exclusively instead.
      createExclusively(tokenPath, token);
    } else {
      throw ioError(`could not create ${tokenPath}`, error);
    }
  } finally {
    fs.rmSync(draft, { force: true });
  }
  restrictMode(tokenPath);
  return token;
}

function createExclusively(tokenPath: string, token: string): void {
  try {
    fs.writeFileSync(tokenPath, token, { mode: OWNER_ONLY, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw ioError(`could not create ${tokenPath}`, error);
    writeAtomically(tokenPath, token);
  }
}

/** Publishes where the bridge listens; readers never see a half-written file. */
export function writeBridgeFile(dataDir: string, info: BridgeInfo): void {
  writeAtomically(path.join(dataDir, BRIDGE_FILE), JSON.stringify(info) + "\n");
}

/** The bridge file, or undefined when none exists; DreamError when it is not one. */
export function readBridgeFile(dataDir: string): BridgeInfo | undefined {
  const filePath = path.join(dataDir, BRIDGE_FILE);
  let text: string;
  try {
    text = fs.readFileSync(filePath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw ioError(`could not read ${filePath}`, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    // The parser's message quotes the text, which holds the token: it is not passed on.
    throw new DreamError("BRIDGE_UNAVAILABLE", `the bridge file ${filePath} is not valid JSON`);
  }
  return validateBridgeInfo(parsed, filePath);
}

/**
 * Removes the bridge file only while it still names `pid`, so a bridge shutting down never
 * deletes the file of a newer bridge. The data-directory lock keeps read-then-remove race free.
 */
export function removeBridgeFile(dataDir: string, pid: number): boolean {
  const info = readBridgeFile(dataDir);
  if (info === undefined || info.pid !== pid) return false;
  fs.rmSync(path.join(dataDir, BRIDGE_FILE), { force: true });
  return true;
}

function validateBridgeInfo(value: unknown, filePath: string): BridgeInfo {
  const bad = (field: string, expected: string): never => {
    throw new DreamError("BRIDGE_UNAVAILABLE", `the bridge file ${filePath} is malformed: ${field} must be ${expected}`, { field });
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DreamError("BRIDGE_UNAVAILABLE", `the bridge file ${filePath} is malformed: it must hold a JSON object`);
  }
  const info = value as Record<string, unknown>;
  const isInt = (field: string, min: number, max: number) => {
    const n = info[field];
    if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) bad(field, `an integer from ${min} to ${max}`);
  };
  isInt("port", 1, 65_535);
  isInt("pid", 1, 2 ** 31 - 1);
  isInt("protocol", 1, 1_000_000);
  isInt("started_ms", 0, Number.MAX_SAFE_INTEGER);
  if (typeof info.version !== "string" || info.version === "") bad("version", "a non-empty string");
  if (typeof info.token !== "string" || !TOKEN_PATTERN.test(info.token)) bad("token", "a 43-character base64url token");
  const { port, pid, version, protocol, token, started_ms } = info as unknown as BridgeInfo;
  return { port, pid, version, protocol, token, started_ms };
}

function readToken(tokenPath: string): string | undefined {
  try {
    const token = fs.readFileSync(tokenPath, "utf8").trim();
    return TOKEN_PATTERN.test(token) ? token : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw ioError(`could not read ${tokenPath}`, error);
  }
}

function writeAtomically(filePath: string, text: string): void {
  const tmpPath = `${filePath}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const fd = fs.openSync(tmpPath, "wx", OWNER_ONLY);
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    restrictMode(tmpPath);
    renameWithRetry(tmpPath, filePath);
  } catch (error) {
    fs.rmSync(tmpPath, { force: true });
    throw ioError(`could not write ${filePath}`, error);
  }
}

// The creation mode is filtered by the umask and an older file may predate us; chmod makes the
// result owner-only whatever the umask or history.
function restrictMode(filePath: string): void {
  if (!IS_POSIX) return;
  try {
    if ((fs.statSync(filePath).mode & 0o777) !== OWNER_ONLY) fs.chmodSync(filePath, OWNER_ONLY);
  } catch (error) {
    throw ioError(`could not restrict ${filePath} to its owner`, error);
  }
}

function ioError(message: string, cause: unknown): DreamError {
  return new DreamError("IO_ERROR", `${message}: ${(cause as Error).message}`, { cause });
}

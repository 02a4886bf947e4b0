// The client side of the bridge wire, shared by the CLI and the DSH plugin: finds the bridge
// through its bridge file, calls it with the token, and turns every answer back into DreamError.
import http from "node:http";
import path from "node:path";
import { DreamError, ERROR_CODES, type ErrorCode } from "../protocol/errors";
import { HEALTH_PATH, PROTOCOL_VERSION, RPC_LIMITS, RPC_PATH, type HealthResult, type RpcMethod } from "../protocol/wire";
import { readBridgeFile } from "../server/bridge-file";
import { LOCK_FILE, lockHolder } from "../store/lock";

export interface BridgeTarget {
  dataDir: string;
  port: number;
  token: string;
}

export interface CallOptions {
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const HEALTH_TIMEOUT_MS = 5_000;

export class BridgeClient {
  readonly dataDir: string;
  readonly port: number;
  // A private field stays out of util.inspect and JSON.stringify, so logging the client is safe.
  readonly #token: string;

  constructor(target: BridgeTarget) {
    this.dataDir = target.dataDir;
    this.port = target.port;
    this.#token = target.token;
  }

  /** The bridge recorded in the data directory; BRIDGE_UNAVAILABLE when none is running there. */
  static fromDataDir(dataDir: string): BridgeClient {
    const info = readBridgeFile(dataDir);
    if (info === undefined) throw new DreamError("BRIDGE_UNAVAILABLE", `no bridge is running for the data directory ${dataDir}`);
    if (info.protocol !== PROTOCOL_VERSION) {
      throw new DreamError("PROTOCOL_MISMATCH", `the bridge for ${dataDir} speaks protocol ${info.protocol}; this client speaks ${PROTOCOL_VERSION}`);
    }
    // A dead bridge's port may since belong to another program, which must not be sent the token. The
    // bridge holds the store lock, whose heartbeat says it still runs: its pid alone may be reused.
    const holder = lockHolder(path.join(dataDir, LOCK_FILE));
    if (holder.state !== "live" || holder.pid !== info.pid) {
      throw new DreamError("BRIDGE_UNAVAILABLE", `the bridge recorded for ${dataDir} (process ${info.pid}) is no longer running`);
    }
    return new BridgeClient({ dataDir, port: info.port, token: info.token });
  }

  async call<T = unknown>(method: RpcMethod, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<T> {
    const body = JSON.stringify({ method, params });
    const bytes = Buffer.byteLength(body);
    // Refusing here saves sending megabytes only for the bridge to refuse them.
    if (bytes > RPC_LIMITS.maxBodyBytes) {
      throw new DreamError("INPUT_TOO_LARGE", `the "${method}" request is ${bytes} bytes; the bridge accepts at most ${RPC_LIMITS.maxBodyBytes}`);
    }
    return (await this.#request("POST", RPC_PATH, body, options.timeoutMs ?? DEFAULT_TIMEOUT_MS)) as T;
  }

  async health(options: CallOptions = {}): Promise<HealthResult> {
    const result = (await this.#request("GET", HEALTH_PATH, undefined, options.timeoutMs ?? HEALTH_TIMEOUT_MS)) as Partial<HealthResult> | null;
    if (result?.protocol !== PROTOCOL_VERSION) {
      throw new DreamError("PROTOCOL_MISMATCH", `the bridge for ${this.dataDir} speaks protocol ${String(result?.protocol)}; this client speaks ${PROTOCOL_VERSION}`);
    }
    return result as HealthResult;
  }

  async #request(httpMethod: "GET" | "POST", path: string, body: string | undefined, timeoutMs: number): Promise<unknown> {
    const headers: Record<string, string | number> = { authorization: `Bearer ${this.#token}` };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = Buffer.byteLength(body);
    }
    let answer: { status: number; text: string };
    try {
      answer = await send({ port: this.port, method: httpMethod, path, headers, body, timeoutMs });
    } catch (error) {
      throw this.#unavailable(error, timeoutMs);
    }
    return this.#decode(answer.status, answer.text);
  }

  #decode(status: number, text: string): unknown {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Whatever answered is not a bridge of this protocol (or not a bridge at all).
      throw this.#mismatch(`answered HTTP ${status} with a body that is not JSON`);
    }
    const envelope = (typeof parsed === "object" && parsed !== null ? parsed : {}) as { result?: unknown; error?: unknown };
    if (status === 200 && "result" in envelope) return envelope.result;
    const error = envelope.error as { code?: unknown; message?: unknown; field?: unknown } | undefined;
    if (typeof error?.code !== "string" || !(error.code in ERROR_CODES) || typeof error.message !== "string") {
      throw this.#mismatch(`answered HTTP ${status} with an error this client does not know`);
    }
    throw new DreamError(error.code as ErrorCode, error.message, typeof error.field === "string" ? { field: error.field } : {});
  }

  #unavailable(error: unknown, timeoutMs: number): DreamError {
    if ((error as Error)?.name === "TimeoutError") {
      return new DreamError("BRIDGE_UNAVAILABLE", `the bridge for ${this.dataDir} did not answer within ${timeoutMs} ms; the request may still complete`, { cause: error });
    }
    const code = (error as NodeJS.ErrnoException)?.code;
    const reason = typeof code === "string" ? code : (error as Error)?.message ?? String(error);
    return new DreamError("BRIDGE_UNAVAILABLE", `the bridge for ${this.dataDir} is not answering on 127.0.0.1:${this.port} (${reason})`, { cause: error });
  }

  #mismatch(what: string): DreamError {
    return new DreamError("PROTOCOL_MISMATCH", `the program on 127.0.0.1:${this.port} (bridge for ${this.dataDir}) ${what}`);
  }
}

// node:http with a keep-alive agent rather than fetch: about 1 ms less per call on loopback, which is
// most of a write acknowledgement's budget. Idle agent sockets are unref'd, so they never hold a CLI open.
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function send(request: {
  port: number;
  method: string;
  path: string;
  headers: Record<string, string | number>;
  body: string | undefined;
  timeoutMs: number;
}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: request.port, method: request.method, path: request.path, headers: request.headers, agent, signal: AbortSignal.timeout(request.timeoutMs) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", (error) => reject(req.destroyed && (error as Error).name === "AbortError" ? Object.assign(new Error("timeout"), { name: "TimeoutError" }) : error));
    req.end(request.body);
  });
}

// The bridge's HTTP transport on loopback: token check, size-limited JSON bodies, envelope
// validation and error mapping around a generic handler. It knows nothing of memories.
import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { DreamError, isDreamError } from "../protocol/errors";
import { readCappedBody } from "./read-body";
import {
  HEALTH_PATH,
  httpStatusFor,
  parseRpcEnvelope,
  PROTOCOL_VERSION,
  RPC_LIMITS,
  RPC_PATH,
  type RpcMethod,
  type RpcResponseBody,
} from "../protocol/wire";

export type RpcHandler = (method: RpcMethod, params: Record<string, unknown>) => Promise<unknown>;

export interface RpcServerOptions {
  token: string;
  /** Must answer before close() can finish; a `shutdown` handler should reply first, then close. */
  handle: RpcHandler;
  host?: "127.0.0.1";
  port?: number;
  maxBodyBytes?: number;
  /** After this long, close() cuts connections whose requests are still running. */
  closeGraceMs?: number;
  /** Receives failures the client only sees as INTERNAL; the default writes them to stderr. */
  onError?: (error: unknown, context: { method?: RpcMethod }) => void;
  /** Connections held at once; more are refused on accept (default 256). */
  maxConnections?: number;
  /** A connection that has not sent its headers by then is closed (default 10 s). */
  headersTimeoutMs?: number;
}

export interface RpcServer {
  readonly port: number;
  close(): Promise<void>;
}

const LOOPBACK = "127.0.0.1";
// The bridge's clients are the CLI and one plugin per DSH host; far fewer than this at any time.
const MAX_CONNECTIONS = 256;
// Node's defaults (60 s for headers, checked every 30 s) let half-open connections pile up for 90 s.
const HEADERS_TIMEOUT_MS = 10_000;
// A 16 MB import over loopback takes well under a second; a body trickling for a minute is not a client.
const REQUEST_TIMEOUT_MS = 60_000;
const MIN_TOKEN_CHARS = 16;

export async function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  // Anything but loopback would expose the memory store to the network; refuse instead of guessing.
  if (options.host !== undefined && options.host !== LOOPBACK) {
    throw new Error(`the bridge binds ${LOOPBACK} only (got host ${JSON.stringify(options.host)})`);
  }
  if (options.token.length < MIN_TOKEN_CHARS) throw new Error(`the bridge token must be at least ${MIN_TOKEN_CHARS} characters`);
  const expectedDigest = sha256(options.token);
  const maxBodyBytes = options.maxBodyBytes ?? RPC_LIMITS.maxBodyBytes;
  const onError = options.onError ?? reportToStderr;
  let closing = false;

  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server = http.createServer(
    { headersTimeout, requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout), connectionsCheckingInterval: Math.min(1_000, headersTimeout) },
    (req, res) => {
      serve(req, res).catch((error: unknown) => {
        onError(error, {});
        res.destroy();
      });
    },
  );
  server.maxConnections = options.maxConnections ?? MAX_CONNECTIONS;

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const reply = (status: number, body: RpcResponseBody, headers: http.OutgoingHttpHeaders = {}) =>
      send(res, status, body, closing || !req.complete ? { ...headers, connection: "close" } : headers);
    // The token is checked before anything else, so an unauthenticated caller learns nothing.
    if (!isAuthorized(req.headers.authorization, expectedDigest)) {
      const error = new DreamError("UNAUTHORIZED", "the request lacks a valid bridge token");
      return reply(401, { error: error.toJSON() }, { "www-authenticate": "Bearer" });
    }
    const path = (req.url ?? "").split("?")[0];
    const allowed = path === RPC_PATH ? "POST" : path === HEALTH_PATH ? "GET" : undefined;
    if (allowed === undefined) return replyError(reply, new DreamError("UNKNOWN_ROUTE", `no route ${JSON.stringify(path.slice(0, 60))}`));
    if (req.method !== allowed) {
      const error = new DreamError("METHOD_NOT_ALLOWED", `${path} answers ${allowed} only (got ${req.method})`);
      return reply(405, { error: error.toJSON() }, { allow: allowed });
    }
    if (path === HEALTH_PATH) return reply(200, { result: { ok: true, pid: process.pid, protocol: PROTOCOL_VERSION } });
    // Requiring JSON also forces a CORS preflight, which the bridge never answers, on any browser page.
    const mediaType = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
    if (mediaType !== "application/json") {
      return replyError(reply, new DreamError("UNSUPPORTED_MEDIA_TYPE", `Content-Type must be application/json (got ${JSON.stringify(mediaType.slice(0, 60))})`));
    }
    let method: RpcMethod | undefined;
    try {
      const envelope = parseRpcEnvelope(parseJson(await readCappedBody(req, maxBodyBytes)));
      method = envelope.method;
      const result = await options.handle(envelope.method, envelope.params);
      return reply(200, { result: result ?? null });
    } catch (error) {
      if (isClientGone(req, error)) return;
      if (isDreamError(error)) return replyError(reply, error);
      onError(error, { method });
      const internal = new DreamError("INTERNAL", method ? `the bridge failed while handling "${method}"` : "the bridge failed while reading the request");
      return replyError(reply, internal);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: LOOPBACK, port: options.port ?? 0, exclusive: true }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // After listening, a server error (e.g. accept failing with EMFILE) must reach the log, not crash the bridge.
  server.on("error", (error) => onError(error, {}));
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  function close(): Promise<void> {
    closed ??= new Promise<void>((resolve, reject) => {
      closing = true;
      const grace = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? 10_000);
      server.close((error) => {
        clearTimeout(grace);
        if (error) reject(error);
        else resolve();
      });
      // Idle keep-alive sockets would hold close() open until their timeout; busy ones get
      // `Connection: close` on their reply and end after it.
      server.closeIdleConnections();
    });
    return closed;
  }
  return { port, close };
}

function replyError(reply: (status: number, body: RpcResponseBody) => void, error: DreamError): void {
  reply(httpStatusFor(error.code), { error: error.toJSON() });
}

function send(res: http.ServerResponse, status: number, body: RpcResponseBody, headers: http.OutgoingHttpHeaders): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

// Both sides are hashed first so timingSafeEqual gets equal-length buffers and the comparison
// time reveals neither the token's content nor its length.
function isAuthorized(header: string | undefined, expectedDigest: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  const presented = sha256(match ? match[1] : "");
  return timingSafeEqual(presented, expectedDigest) && match !== null;
}

function parseJson(body: Buffer): unknown {
  const text = body.toString("utf8").replace(/^\uFEFF/, "");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DreamError("BAD_JSON", `the request body is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

// A client that hung up (timeout, Ctrl-C) cannot receive an answer; that is its choice, not a
// bridge failure, so it is not reported as one.
function isClientGone(req: http.IncomingMessage, error: unknown): boolean {
  return req.destroyed && !isDreamError(error) && (error as NodeJS.ErrnoException)?.code === "ECONNRESET";
}

function reportToStderr(error: unknown, context: { method?: RpcMethod }): void {
  const detail = error instanceof Error ? error.stack ?? error.message : String(error);
  process.stderr.write(`dsh-dream bridge: internal error${context.method ? ` in "${context.method}"` : ""}: ${detail}\n`);
}

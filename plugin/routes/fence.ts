// The trust fence for the plugin's own HTTP routes, and their size-capped JSON body reader.
// Routes on the host's web server bypass the /api gateway's fence (dsh-host.md §2.4), so every
// request is checked here: loopback peer, local Host, local Origin, not a cross-site fetch.
import type { IncomingMessage } from "node:http";
import { DreamError } from "../../bridge/protocol/errors";
import { readCappedBody } from "../../bridge/server/read-body";

/** Not in the bridge's error table: a fence refusal never comes from, or reaches, the bridge. */
export const FORBIDDEN = "FORBIDDEN";

export const MAX_BODY_BYTES = 64 * 1024;

export type FenceResult = { ok: true } | { ok: false; status: number; code: string; message: string };

type FenceRequest = Pick<IncomingMessage, "headers"> & { socket: { remoteAddress?: string } };

// A strict pattern rather than URL parsing: `new URL("http://" + host)` would accept
// "localhost/x" or "user@localhost" as a Host header, which no honest client sends.
const LOCAL_HOST_HEADER = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;
const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function fenceRequest(req: FenceRequest): FenceResult {
  const address = req.socket.remoteAddress;
  if (address === undefined || !isLoopback(address)) return refuse(`requests must come from this machine (got a peer at ${address ?? "an unknown address"})`);
  const host = req.headers.host;
  if (host === undefined || !LOCAL_HOST_HEADER.test(host)) {
    // A foreign Host on a loopback socket is the mark of DNS rebinding: a remote page whose name resolves to 127.0.0.1.
    return refuse(`the Host header must be localhost, 127.0.0.1 or [::1] (got ${host === undefined ? "none" : JSON.stringify(host.slice(0, 80))})`);
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !isLocalOrigin(origin)) return refuse(`requests from other sites are refused (Origin ${JSON.stringify(origin.slice(0, 80))})`);
  if (req.headers["sec-fetch-site"] === "cross-site") return refuse("requests from other sites are refused (Sec-Fetch-Site: cross-site)");
  return { ok: true };
}

function refuse(message: string): FenceResult {
  return { ok: false, status: 403, code: FORBIDDEN, message };
}

function isLoopback(address: string): boolean {
  const v4 = address.toLowerCase().replace(/^::ffff:/, "");
  return address === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function isLocalOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    // "null" (sandboxed frames, file: pages) and garbage are not URLs, and not local pages either.
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && LOCAL_HOSTNAMES.has(url.hostname);
}

/**
 * Reads a JSON object body. Throws DreamError: UNSUPPORTED_MEDIA_TYPE (which also forces a CORS
 * preflight on any browser page, and no preflight is ever answered), INPUT_TOO_LARGE as soon as
 * the body passes maxBytes (the rest is discarded, not buffered), BAD_JSON, or INVALID_FIELD.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const mediaType = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new DreamError("UNSUPPORTED_MEDIA_TYPE", `Content-Type must be application/json (got ${JSON.stringify(mediaType.slice(0, 60))})`);
  }
  const text = (await readCappedBody(req, maxBytes)).toString("utf8").replace(/^\uFEFF/, "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new DreamError("BAD_JSON", `the request body is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new DreamError("INVALID_FIELD", "the request body must be a JSON object", { field: "body" });
  }
  return body as Record<string, unknown>;
}

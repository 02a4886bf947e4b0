// The plugin's HTTP routes on the host's web server (settings, status, re-embedding, the local
// model's download, and the Memories page's, from memory-routes.ts), each behind the fence, and the
// one disposer that takes them all down. Handlers never throw into the host; every answer is JSON
// but the memories' export (an NDJSON download), never cached or sniffed, with secrets redacted.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { inspect } from "node:util";
import { DreamError, isDreamError } from "../../bridge/protocol/errors";
import { httpStatusFor } from "../../bridge/protocol/wire";
import { ConfigError, type PluginConfig } from "../config";
import type { Disposer, WebRoute, WebServerService } from "../host-types";
import { fenceRequest, readJsonBody } from "./fence";
import { memoryRoutes, type MemoryRouteDeps } from "./memory-routes";
import { redactSecrets } from "./redact";

export const ROUTE_PREFIX = "/_dsh/holo-memory";

export interface RouteDeps {
  settings: {
    effective(): PluginConfig;
    /** Whether each secret is set; the values themselves never leave the host. */
    secretsStatus(): Record<string, { set: boolean }>;
    /** Throws ConfigError (its `issues` name each bad field) on bad input, changing nothing. */
    update(patch: unknown, secrets?: unknown): Promise<PluginConfig>;
  };
  status(): Promise<Record<string, unknown>>;
  /** May throw DreamError (e.g. REEMBED_REFUSED); it is answered with its code's HTTP status. */
  reembed(): Promise<Record<string, unknown>>;
  reembedProgress(): Promise<Record<string, unknown>>;
  /** The local model's state, and starting its download (an explicit action; may throw DreamError). */
  model: { status(): unknown; download(): unknown };
  /** The Memories page: the bridge's memories, and the newest recall. */
  memories: MemoryRouteDeps;
  /** Hears failures a caller only sees as INTERNAL; wire it to the host logger. Default: stderr. */
  reportError?(error: unknown, route: string): void;
}

export type Answer = { status: number; body: unknown } | { download: Download };

/** A file the browser saves: sent page by page, each chunk written as soon as it is read. */
export interface Download {
  filename: string;
  contentType: string;
  chunks: AsyncIterable<string>;
}

/** `hint` comes with codes from the bridge's error table; FORBIDDEN and INTERNAL carry none. */
interface ErrorBody {
  code: string;
  message: string;
  field?: string;
  hint?: string;
}

export type MethodHandlers = Record<string, (req: IncomingMessage) => Promise<Answer>>;

const MAX_MESSAGE_CHARS = 500;

export function registerRoutes(webServer: WebServerService, deps: RouteDeps): () => void {
  const report = reportingSafely(deps.reportError ?? reportToStderr);
  const table: Record<string, MethodHandlers> = {
    "/settings": {
      GET: async () => ({ status: 200, body: { settings: deps.settings.effective(), secrets: deps.settings.secretsStatus() } }),
      POST: (req) => updateSettings(req, deps.settings),
    },
    "/status": { GET: async () => ({ status: 200, body: await deps.status() }) },
    "/reembed": {
      GET: async () => ({ status: 200, body: await deps.reembedProgress() }),
      POST: async (req) => {
        await readEmptyBody(req, "re-embedding");
        return { status: 202, body: await deps.reembed() };
      },
    },
    "/model": {
      GET: async () => ({ status: 200, body: deps.model.status() }),
      POST: async (req) => {
        await readEmptyBody(req, "a model download");
        return { status: 202, body: deps.model.download() };
      },
    },
    ...memoryRoutes(deps.memories),
  };
  const disposers: Disposer[] = [];
  try {
    for (const [suffix, methods] of Object.entries(table)) {
      const path = ROUTE_PREFIX + suffix;
      disposers.push(webServer.register({ kind: "exact", path, handler: routeHandler(path, methods, report) }));
    }
  } catch (error) {
    // A clash (the host throws on a duplicate path) must not leave half of our routes behind.
    disposeAll(disposers);
    throw error;
  }
  let disposed = false;
  return () => {
    if (disposed) return;
    disposed = true;
    disposeAll(disposers);
  };
}

function routeHandler(path: string, methods: MethodHandlers, report: (error: unknown, route: string) => void): WebRoute["handler"] {
  const byMethod = new Map(Object.entries(methods));
  const allow = [...byMethod.keys()].join(", ");

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      // The fence goes first, so a caller it refuses learns nothing about methods or bodies.
      const fence = fenceRequest(req);
      if (!fence.ok) return sendError(req, res, fence.status, { code: fence.code, message: fence.message });
      const handle = byMethod.get(req.method ?? "");
      if (handle === undefined) {
        const refusal = new DreamError("METHOD_NOT_ALLOWED", `${path} answers ${allow} only (got ${req.method})`);
        return sendDreamError(req, res, refusal, { allow });
      }
      const result = await handle(req);
      if ("download" in result) await sendDownload(req, res, result.download);
      else sendJson(req, res, result.status, result.body);
    } catch (error) {
      if (isDreamError(error)) return sendDreamError(req, res, error);
      report(error, `${req.method} ${path}`);
      // The message only: a stack names files and lines of the host process, which is no caller's business.
      sendError(req, res, 500, { code: "INTERNAL", message: `${req.method} ${path} failed: ${messageOf(error)}` });
    }
  }

  return (req, res) =>
    answer(req, res).catch((error: unknown) => {
      // Even the error reply failed (a reply was already half sent): all that is left is to hang up.
      res.destroy();
      report(error, `${req.method} ${path}`);
    });
}

async function updateSettings(req: IncomingMessage, settings: RouteDeps["settings"]): Promise<Answer> {
  const body = await readJsonBody(req);
  for (const key of Object.keys(body)) {
    if (key !== "settings" && key !== "secrets") {
      throw new DreamError("INVALID_FIELD", `unknown field ${JSON.stringify(key.slice(0, 60))}; the body is { "settings": { … }, "secrets": { … } }`, { field: key });
    }
  }
  const patch = body.settings;
  if (patch === undefined && body.secrets === undefined) {
    throw new DreamError("MISSING_FIELD", 'the body must hold "settings" (the settings to change) or "secrets"', { field: "settings" });
  }
  if (patch !== undefined && (patch === null || typeof patch !== "object" || Array.isArray(patch))) {
    throw new DreamError("INVALID_FIELD", '"settings" must be an object of the settings to change', { field: "settings" });
  }
  try {
    const next = await settings.update(patch, body.secrets);
    return { status: 200, body: { settings: next, secrets: settings.secretsStatus() } };
  } catch (error) {
    if (error instanceof ConfigError) return configRefusal(error);
    throw error;
  }
}

/** Every issue is listed so a form can mark all bad fields at once; `error` names the first. */
function configRefusal(error: ConfigError): Answer {
  const issues = error.issues.map((issue) => ({ field: issue.path.join(".") || "settings", message: issue.message }));
  const first = issues[0] ?? { field: "settings", message: "are not valid" };
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more, listed in "issues")` : "";
  const refusal = new DreamError("INVALID_FIELD", `${first.field} ${first.message}${more}`, { field: first.field });
  return { status: 400, body: { error: refusal.toJSON(), issues } };
}

// Re-embedding and a download take no options, but still demand a JSON `{}`: a JSON content type
// cannot be sent cross-origin without a preflight, which is never answered, so no page can start them.
async function readEmptyBody(req: IncomingMessage, what: string): Promise<void> {
  const body = await readJsonBody(req);
  const [key] = Object.keys(body);
  if (key !== undefined) throw new DreamError("INVALID_FIELD", `unknown field ${JSON.stringify(key.slice(0, 60))}; ${what} takes an empty object {}`, { field: key });
}

function disposeAll(disposers: Disposer[]): void {
  const failures: unknown[] = [];
  for (const dispose of disposers.splice(0).reverse()) {
    try {
      dispose();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} of the plugin's routes could not be removed`);
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_MESSAGE_CHARS ? text.slice(0, MAX_MESSAGE_CHARS) + "…" : text;
}

// A reporter that throws must not turn a handled failure into a rejection the host sees.
function reportingSafely(report: (error: unknown, route: string) => void): (error: unknown, route: string) => void {
  return (error, route) => {
    try {
      report(error, route);
    } catch (failure) {
      reportToStderr(new AggregateError([error, failure], "a route failed, and so did reporting it"), route);
    }
  };
}

function reportToStderr(error: unknown, route: string): void {
  // inspect, not .stack: it also prints the `cause` and the errors an AggregateError holds.
  process.stderr.write(`dsh-dream routes: ${route} failed: ${inspect(error)}\n`);
}

/** Serialises first, so a body that cannot be sent throws before any header is written. */
function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(redactSecrets(body));
  if (res.headersSent) throw new Error(`a reply was already sent for ${req.method} ${req.url}`);
  // A refused body may still be arriving; closing after the answer stops the host reading the rest.
  const closing = req.complete ? {} : { connection: "close" };
  res.writeHead(status, {
    ...headers,
    ...closing,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(text);
}

/**
 * The first chunk is read before any header is written, so a download that cannot start (no bridge)
 * is answered with its error as JSON; one that fails later is cut off, which the browser shows as failed.
 */
async function sendDownload(req: IncomingMessage, res: ServerResponse, download: Download): Promise<void> {
  const chunks = download.chunks[Symbol.asyncIterator]();
  let next = await chunks.next();
  if (res.headersSent) throw new Error(`a reply was already sent for ${req.method} ${req.url}`);
  res.writeHead(200, {
    "content-type": download.contentType,
    "content-disposition": `attachment; filename="${download.filename}"`,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  let closed = false;
  res.once("close", () => (closed = true));
  try {
    while (!next.done && !closed) {
      if (!res.write(next.value)) await drained(res);
      next = await chunks.next();
    }
  } finally {
    // A browser that cancelled the download stops the reading of pages too.
    if (!next.done) await chunks.return?.();
  }
  if (!closed) res.end();
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

function sendError(req: IncomingMessage, res: ServerResponse, status: number, error: ErrorBody, headers?: OutgoingHttpHeaders): void {
  sendJson(req, res, status, { error }, headers);
}

function sendDreamError(req: IncomingMessage, res: ServerResponse, error: DreamError, headers?: OutgoingHttpHeaders): void {
  sendError(req, res, httpStatusFor(error.code), error.toJSON(), headers);
}

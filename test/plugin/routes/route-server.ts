// A small stand-in for the host's web server (exact routes in a Map, duplicates refused, as the
// host does), served by a real node:http server on loopback, with the plugin's routes on it over
// an in-memory settings service and a real store behind the bridge's own request handler (in this
// process); plus a client that keeps the raw text of each answer.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { RpcMethod } from "../../../bridge/protocol/wire";
import { createBridgeService } from "../../../bridge/server/bridge-service";
import type { MemoryStore } from "../../../bridge/store/memory-store";
import { parseConfig } from "../../../plugin/config";
import type { RecallNote } from "../../../plugin/recall/recall";
import { PluginSettings } from "../../../plugin/settings/plugin-settings";
import type { SavedSettings } from "../../../plugin/settings/settings-store";
import type { Disposer, WebRoute, WebServerService } from "../../../plugin/host-types";
import { registerRoutes, ROUTE_PREFIX } from "../../../plugin/routes/routes";
import { openStore } from "../../store/helpers";

export class ExactWebServer implements WebServerService {
  readonly routes = new Map<string, WebRoute>();
  /** Anything a handler threw or rejected with: the host would have had to catch it. */
  readonly escaped: unknown[] = [];

  register(route: WebRoute): Disposer {
    if (route.kind !== "exact") throw new Error(`this test server holds exact routes only (got ${route.kind})`);
    if (this.routes.has(route.path)) throw new Error(`a route is already registered at exact ${route.path}`);
    this.routes.set(route.path, route);
    return () => {
      if (this.routes.get(route.path) === route) this.routes.delete(route.path);
    };
  }

  dispatch(req: http.IncomingMessage, res: http.ServerResponse): void {
    const route = this.routes.get((req.url ?? "").split("?")[0]);
    if (route === undefined) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("no route");
      return;
    }
    Promise.resolve()
      .then(() => route.handler(req, res))
      .catch((error: unknown) => {
        this.escaped.push(error);
        res.destroy();
      });
  }
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

export interface RequestOptions {
  method?: string;
  path: string;
  headers?: http.OutgoingHttpHeaders;
  body?: string | Buffer;
  /** Sends the body without Content-Length, so only counting the bytes can stop it. */
  chunked?: boolean;
}

/** The real settings service over an in-memory store, so a change is validated whole before it replaces anything. */
export class MemorySettings extends PluginSettings {
  readonly saved: SavedSettings[] = [];

  constructor() {
    const saved: SavedSettings[] = [];
    super(parseConfig({}), {
      filePath: "(memory)",
      load: () => ({ overrides: {}, secrets: {} }),
      save: (value) => void saved.push(structuredClone(value)),
    });
    this.saved = saved;
  }
}

type Json = Record<string, unknown>;

export interface RouteHarness {
  web: ExactWebServer;
  port: number;
  settings: MemorySettings;
  /** Names of the deps called, in order. */
  calls: string[];
  reported: Array<{ error: unknown; route: string }>;
  /** The store the memory routes reach through the bridge's request handler. */
  store: MemoryStore;
  /** Replace these to script what status(), reembed(), reportError() and the memory deps do next. */
  script: {
    status: () => Promise<Json>;
    reembed: () => Promise<Json>;
    report: (error: unknown, route: string) => void;
    memoryEnabled: boolean;
    newestRecall: RecallNote | undefined;
    /** Runs before each bridge call; throw from it to stand for a bridge that is gone. */
    beforeCall: (method: RpcMethod) => void;
  };
  dispose: () => void;
  stop(): Promise<void>;
}

export async function startRoutes(): Promise<RouteHarness> {
  const web = new ExactWebServer();
  const settings = new MemorySettings();
  const calls: string[] = [];
  const reported: RouteHarness["reported"] = [];
  const script: RouteHarness["script"] = {
    status: async () => ({ records: 3, bridge: "running" }),
    reembed: async () => ({ started: true, total: 3 }),
    report: (error, route) => reported.push({ error, route }),
    memoryEnabled: true,
    newestRecall: undefined,
    beforeCall: () => undefined,
  };
  const store = openStore();
  const hooks = { status: async () => ({}), shutdown: () => undefined, embedQuery: async () => ({ fallback: "runtime_missing" as const }), reembed: () => ({}), purge: async () => ({}) };
  const bridge = createBridgeService(store, hooks);
  const dispose = registerRoutes(web, {
    settings,
    status: () => (calls.push("status"), script.status()),
    reembed: () => (calls.push("reembed"), script.reembed()),
    reembedProgress: async () => (calls.push("reembedProgress"), { running: true, done: 1, total: 3 }),
    model: { status: () => (calls.push("modelStatus"), { state: "not_downloaded" }), download: () => (calls.push("modelDownload"), { state: "checking" }) },
    memories: {
      enabled: () => script.memoryEnabled,
      call: async <T>(method: RpcMethod, params: Record<string, unknown>) => {
        calls.push(`bridge.${method}`);
        script.beforeCall(method);
        // Through JSON, as over the wire: the routes get no live object of the store's.
        return JSON.parse(JSON.stringify(await bridge(method, structuredClone(params)))) as T;
      },
      newestRecall: () => script.newestRecall,
    },
    reportError: (error, route) => script.report(error, route),
  });
  const server = await startServer(web);
  const stop = async () => {
    dispose();
    await server.close();
    store.close();
  };
  return { web, port: server.port, settings, calls, reported, store, script, dispose, stop };
}

async function startServer(web: ExactWebServer): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => web.dispatch(req, res));
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
  return { port, close };
}

export function request(port: number, options: RequestOptions): Promise<Answer> {
  const headers: http.OutgoingHttpHeaders = { ...options.headers };
  if (options.body !== undefined && !options.chunked) headers["content-length"] = Buffer.byteLength(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method: options.method ?? "GET", path: options.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const json = (res.headers["content-type"] ?? "").startsWith("application/json");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: json ? JSON.parse(text) : undefined });
      });
    });
    // The server may close while a refused body is still being sent; its answer still arrives.
    req.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** POSTs `value` as JSON, the way the settings panel does. */
export function postJson(port: number, path: string, value: unknown, headers: http.OutgoingHttpHeaders = {}): Promise<Answer> {
  return request(port, { method: "POST", path, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(value) });
}

export const SETTINGS = `${ROUTE_PREFIX}/settings`;
export const STATUS = `${ROUTE_PREFIX}/status`;
export const REEMBED = `${ROUTE_PREFIX}/reembed`;
/** The Memories page's route at `name` ("list", "export"…). */
export const memoriesRoute = (name: string) => `${ROUTE_PREFIX}/memories/${name}`;
/** What GET settings says of the API key when none was saved. */
export const NO_KEY = { embeddingApiKey: { set: false } };

/** A fresh route harness per test, stopped afterwards; no handler may have thrown into the host. */
export function useRouteHarness(): () => RouteHarness {
  let h: RouteHarness;
  beforeEach(async () => {
    h = await startRoutes();
  });
  afterEach(async () => {
    await h.stop();
    expect(h.web.escaped).toEqual([]);
  });
  return () => h;
}

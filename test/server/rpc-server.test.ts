import { randomBytes } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { DreamError } from "../../bridge/protocol/errors";
import { RPC_LIMITS, type RpcMethod } from "../../bridge/protocol/wire";
import { startRpcServer, type RpcServer, type RpcServerOptions } from "../../bridge/server/rpc-server";

const TOKEN = randomBytes(32).toString("base64url");

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

let server: RpcServer;
let calls: { method: RpcMethod; params: Record<string, unknown> }[];
let reported: unknown[];
let answers: string[];

/** A counter that records every call; `get` with params.fail raises the errors the tests need. */
async function startFake(options: Partial<RpcServerOptions> = {}): Promise<void> {
  calls = [];
  reported = [];
  server = await startRpcServer({
    token: TOKEN,
    handle: async (method, params) => {
      calls.push({ method, params });
      if (params.fail === "dream") throw new DreamError("NOT_FOUND", 'no memory with id "m-9"', { field: "id" });
      if (params.fail === "bug") throw new Error("secret detail at /home/user/private");
      return { count: calls.length, method, params };
    },
    onError: (error) => reported.push(error),
    ...options,
  });
}

/** One request on its own connection; every answer is kept so the token check can see all of them. */
function request(options: { method?: string; path?: string; token?: string | null; contentType?: string; body?: string | Buffer; chunked?: boolean; agent?: http.Agent }): Promise<Answer> {
  const headers: http.OutgoingHttpHeaders = { "content-type": options.contentType ?? "application/json" };
  if (options.token !== null) headers.authorization = `Bearer ${options.token ?? TOKEN}`;
  if (options.body !== undefined && !options.chunked) headers["content-length"] = Buffer.byteLength(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, method: options.method ?? "POST", path: options.path ?? "/v1/rpc", headers, agent: options.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        answers.push(text, JSON.stringify(res.headers));
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) });
      });
    });
    // The server may close while a refused body is still being sent; the answer still arrives.
    req.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

const rpc = (method: string, params?: unknown, extra: Parameters<typeof request>[0] = {}) =>
  request({ body: JSON.stringify({ method, params }), ...extra });

beforeEach(() => {
  answers = [];
});

afterEach(async () => {
  await server?.close();
  for (const text of answers) expect(text).not.toContain(TOKEN);
});

describe("rpc server", () => {
  it("passes the method and params to the handler and answers 200 with its result", async () => {
    await startFake();
    const answer = await rpc("search", { query: "蓝色马克杯" });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ result: { count: 1, method: "search", params: { query: "蓝色马克杯" } } });
    expect(calls).toEqual([{ method: "search", params: { query: "蓝色马克杯" } }]);
  });

  it("refuses a missing token and a wrong token with the same 401 UNAUTHORIZED and never calls the handler", async () => {
    await startFake();
    const missing = await rpc("status", {}, { token: null });
    const wrongSameLength = await rpc("status", {}, { token: randomBytes(32).toString("base64url") });
    const wrongShort = await rpc("status", {}, { token: "abc" });
    const health = await request({ method: "GET", path: "/v1/health", token: null });
    for (const answer of [missing, wrongSameLength, wrongShort, health]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error).toEqual(missing.body.error);
    }
    expect(missing.body.error.code).toBe("UNAUTHORIZED");
    expect(missing.body.error.hint).toBe("Use the token from the bridge file in the data directory.");
    expect(calls).toEqual([]);
  });

  it("refuses a declared body one byte over the limit with 413 without calling the handler, then answers the next request", async () => {
    await startFake({ maxBodyBytes: 1024 });
    const padding = "x".repeat(1024 - JSON.stringify({ method: "add", params: { text: "" } }).length + 1);
    const answer = await rpc("add", { text: padding });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe("INPUT_TOO_LARGE");
    expect(calls).toEqual([]);
    expect((await rpc("status")).status).toBe(200);
  });

  it("stops reading a chunked body once it passes the limit, answers 413 and keeps serving", async () => {
    await startFake({ maxBodyBytes: 1024 });
    const answer = await request({ body: JSON.stringify({ method: "add", params: { text: "y".repeat(4096) } }), chunked: true });
    expect(answer.status).toBe(413);
    expect(answer.body.error.message).toContain("the limit is 1024");
    expect(calls).toEqual([]);
    expect((await rpc("status")).body.result.count).toBe(1);
  });

  it("holds the default limit at 16 MiB: a body just over it is refused before the handler", async () => {
    await startFake();
    const answer = await request({ body: Buffer.alloc(RPC_LIMITS.maxBodyBytes + 1, 0x20) });
    expect(answer.status).toBe(413);
    expect(calls).toEqual([]);
    expect((await rpc("status")).status).toBe(200);
  });

  it("answers malformed JSON with 400 BAD_JSON", async () => {
    await startFake();
    const answer = await request({ body: '{"method": "add", "params": {' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("BAD_JSON");
    expect(calls).toEqual([]);
  });

  it("answers an unknown method with UNKNOWN_METHOD naming it and the allowed methods", async () => {
    await startFake();
    const answer = await rpc("drop_everything", {});
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "UNKNOWN_METHOD", field: "method" });
    expect(answer.body.error.message).toContain('"drop_everything"');
    expect(answer.body.error.message).toContain("add, import, search, search_vector, get");
  });

  it("answers params that are not an object with INVALID_FIELD params", async () => {
    await startFake();
    const answer = await rpc("add", ["text"]);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "INVALID_FIELD", field: "params" });
    expect(calls).toEqual([]);
  });

  it("sends a handler's DreamError with its status, code, message and field", async () => {
    await startFake();
    const answer = await rpc("get", { fail: "dream" });
    expect(answer.status).toBe(404);
    expect(answer.body.error).toEqual(new DreamError("NOT_FOUND", 'no memory with id "m-9"', { field: "id" }).toJSON());
    expect(reported).toEqual([]);
  });

  it("answers any other handler error with 500 INTERNAL, keeping its details for onError only", async () => {
    await startFake();
    const answer = await rpc("get", { fail: "bug" });
    expect(answer.status).toBe(500);
    expect(answer.body.error).toMatchObject({ code: "INTERNAL", hint: "This is a bug; the bridge log has details." });
    expect(JSON.stringify(answer.body)).not.toContain("secret detail");
    expect(reported).toHaveLength(1);
    expect((reported[0] as Error).message).toBe("secret detail at /home/user/private");
  });

  it("answers /v1/health with its pid and protocol", async () => {
    await startFake();
    const answer = await request({ method: "GET", path: "/v1/health" });
    expect(answer).toMatchObject({ status: 200, body: { result: { ok: true, pid: process.pid, protocol: 1 } } });
    expect(calls).toEqual([]);
  });

  it("answers unknown paths with 404, wrong HTTP methods with 405 and non-JSON bodies with 415", async () => {
    await startFake();
    expect((await request({ path: "/v2/rpc", body: "{}" })).body.error.code).toBe("UNKNOWN_ROUTE");
    const wrongVerb = await request({ method: "GET", path: "/v1/rpc" });
    expect([wrongVerb.status, wrongVerb.headers.allow, wrongVerb.body.error.code]).toEqual([405, "POST", "METHOD_NOT_ALLOWED"]);
    const form = await request({ contentType: "text/plain", body: JSON.stringify({ method: "status" }) });
    expect([form.status, form.body.error.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    expect(calls).toEqual([]);
  });

  it("refuses to bind any host but 127.0.0.1", async () => {
    await startFake();
    const options = { token: TOKEN, handle: async () => null, host: "0.0.0.0" } as unknown as RpcServerOptions;
    await expect(startRpcServer(options)).rejects.toThrow("the bridge binds 127.0.0.1 only");
  });

  it("closes while a keep-alive connection is open, and the port is free afterwards", async () => {
    await startFake();
    const agent = new http.Agent({ keepAlive: true });
    expect((await rpc("status", {}, { agent })).status).toBe(200);
    expect(Object.keys(agent.freeSockets)).toHaveLength(1);
    await server.close();
    const port = server.port;
    const probe = net.createServer();
    await new Promise<void>((resolve, reject) => probe.once("error", reject).listen(port, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    agent.destroy();
  });

  it("lets a running request finish on close and answers it with Connection: close", async () => {
    let release!: () => void;
    let entered!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    await startFake({ handle: async () => (entered(), gate.then(() => ({ done: true }))) });
    const agent = new http.Agent({ keepAlive: true });
    const pending = rpc("status", {}, { agent });
    await inHandler;
    const closed = server.close();
    release();
    const answer = await pending;
    expect([answer.status, answer.body.result, answer.headers.connection]).toEqual([200, { done: true }, "close"]);
    await closed;
    agent.destroy();
  });
});

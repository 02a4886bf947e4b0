import http from "node:http";
import type { AddressInfo } from "node:net";
import { DreamError, ERROR_CODES } from "../../../bridge/protocol/errors";
import { httpStatusFor } from "../../../bridge/protocol/wire";
import { DEFAULT_CONFIG } from "../../../plugin/config";
import { PASSPORT } from "./memory-seeds";
import { memoriesRoute, NO_KEY, postJson, REEMBED, request, SETTINGS, STATUS, useRouteHarness, type Answer } from "./route-server";

const harness = useRouteHarness();
let h: ReturnType<typeof harness>;
beforeEach(() => {
  h = harness();
});

describe("plugin routes: refusals", () => {
  it("refuses a bad settings change with 400 naming embedding.baseUrl, and the effective settings stay as they were", async () => {
    const patch = { embedding: { provider: "openai_compatible", model: "m", baseUrl: "ftp://x" } };
    const answer = await postJson(h.port, SETTINGS, { settings: patch });
    const issue = 'must be an http:// or https:// URL (got "ftp://x")';
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: { code: "INVALID_FIELD", field: "embedding.baseUrl", message: `embedding.baseUrl ${issue}`, hint: ERROR_CODES.INVALID_FIELD },
      issues: [{ field: "embedding.baseUrl", message: issue }],
    });
    expect(h.settings.effective()).toEqual(DEFAULT_CONFIG);
    expect((await request(h.port, { path: SETTINGS })).body).toEqual({ settings: DEFAULT_CONFIG, secrets: NO_KEY });
  });

  it("lists every bad field of a settings change in issues and names the first in error", async () => {
    const answer = await postJson(h.port, SETTINGS, { settings: { recall: { topK: 0 }, enabled: "yes" } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.field).toBe("enabled");
    expect(answer.body.error.message).toContain('(and 1 more, listed in "issues")');
    expect(answer.body.issues.map((i: { field: string }) => i.field)).toEqual(["enabled", "recall.topK"]);
    expect(h.settings.effective()).toEqual(DEFAULT_CONFIG);
  });

  it("refuses an unknown body field with 400 INVALID_FIELD and a body without settings with 400 MISSING_FIELD", async () => {
    const answer = await postJson(h.port, SETTINGS, { recall: { topK: 8 } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "INVALID_FIELD", field: "recall" });
    const missing = await postJson(h.port, SETTINGS, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "MISSING_FIELD", field: "settings" });
  });

  it("answers a DreamError from reembed() with its code's HTTP status and the error as JSON", async () => {
    h.script.reembed = async () => {
      throw new DreamError("CHROMA_UNAVAILABLE", "Chroma is restarting");
    };
    const answer = await postJson(h.port, REEMBED, {});
    expect(answer.status).toBe(httpStatusFor("CHROMA_UNAVAILABLE"));
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ error: { code: "CHROMA_UNAVAILABLE", message: "Chroma is restarting", hint: ERROR_CODES.CHROMA_UNAVAILABLE } });
    expect(h.reported).toEqual([]);
  });

  it("refuses POST reembed with a text body as 415 and with options as 400, starting nothing", async () => {
    const text = await request(h.port, { method: "POST", path: REEMBED, headers: { "content-type": "text/plain" }, body: "{}" });
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const options = await postJson(h.port, REEMBED, { force: true });
    expect(options.status).toBe(400);
    expect(options.body.error).toMatchObject({ code: "INVALID_FIELD", field: "force" });
    expect(h.calls).toEqual([]);
  });

  it("refuses a body with a text content type with 415 and leaves the settings unchanged", async () => {
    const body = JSON.stringify({ settings: { enabled: true } });
    const answer = await request(h.port, { method: "POST", path: SETTINGS, headers: { "content-type": "text/plain" }, body });
    expect(answer.status).toBe(415);
    expect(answer.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(h.settings.effective()).toEqual(DEFAULT_CONFIG);
  });

  it("refuses malformed JSON with 400 BAD_JSON and a JSON array with 400 INVALID_FIELD", async () => {
    const bad = await request(h.port, { method: "POST", path: SETTINGS, headers: { "content-type": "application/json" }, body: '{"settings": {' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("BAD_JSON");
    const list = await postJson(h.port, SETTINGS, [{ settings: {} }]);
    expect(list.status).toBe(400);
    expect(list.body.error).toMatchObject({ code: "INVALID_FIELD", field: "body" });
  });

  it("refuses a declared body over 64 KiB with 413, leaves the settings unchanged and serves the next request", async () => {
    const answer = await postJson(h.port, SETTINGS, { settings: { anchors: ["x".repeat(64 * 1024)] } });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe("INPUT_TOO_LARGE");
    expect(answer.body.error.message).toContain("the limit is 65536");
    expect(h.settings.effective()).toEqual(DEFAULT_CONFIG);
    expect((await request(h.port, { path: STATUS })).status).toBe(200);
  });

  it("refuses a chunked body once it passes 64 KiB with 413", async () => {
    const body = JSON.stringify({ settings: { anchors: ["y".repeat(200 * 1024)] } });
    const answer = await request(h.port, { method: "POST", path: SETTINGS, headers: { "content-type": "application/json" }, body, chunked: true });
    expect(answer.status).toBe(413);
    expect(answer.body.error.message).toBe("the request body is more than 65536 bytes; the limit is 65536");
    expect(h.settings.effective()).toEqual(DEFAULT_CONFIG);
  });

  it("answers a method a route does not serve with 405 and an allow header", async () => {
    const remove = await request(h.port, { method: "DELETE", path: SETTINGS });
    expect(remove.status).toBe(405);
    expect(remove.headers.allow).toBe("GET, POST");
    expect(remove.body.error.code).toBe("METHOD_NOT_ALLOWED");
    const post = await postJson(h.port, STATUS, {});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET");
    expect(h.calls).toEqual([]);
  });

  it("turns an unexpected failure into 500 INTERNAL with its message and no stack, and reports it", async () => {
    h.script.status = async () => {
      throw new Error("disk on fire");
    };
    const answer = await request(h.port, { path: STATUS });
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ error: { code: "INTERNAL", message: `GET ${STATUS} failed: disk on fire` } });
    expect(answer.text).not.toMatch(/\bat .*:\d+:\d+/);
    expect(h.reported).toHaveLength(1);
    expect(h.reported[0].route).toBe(`GET ${STATUS}`);
    expect((h.reported[0].error as Error).message).toBe("disk on fire");
  });

  it("still answers 500 when the host's reporter throws, and writes both failures to stderr", async () => {
    h.script.status = async () => {
      throw new Error("disk on fire");
    };
    h.script.report = () => {
      throw new Error("logger is closed");
    };
    const written: string[] = [];
    const stderr = jest.spyOn(process.stderr, "write").mockImplementation((chunk) => (written.push(String(chunk)), true));
    try {
      const answer = await request(h.port, { path: STATUS });
      expect(answer.status).toBe(500);
      expect(answer.body.error.code).toBe("INTERNAL");
    } finally {
      stderr.mockRestore();
    }
    expect(written.join("")).toContain("disk on fire");
    expect(written.join("")).toContain("logger is closed");
  });
});

describe("plugin routes: fence", () => {
  it("refuses a foreign Host header with 403 FORBIDDEN before calling anything", async () => {
    const answer = await request(h.port, { path: STATUS, headers: { host: "memory.evil.example" } });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("FORBIDDEN");
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(h.calls).toEqual([]);
  });

  it("refuses a foreign Origin with 403 and serves a page on localhost", async () => {
    const foreign = await postJson(h.port, SETTINGS, { settings: { enabled: true } }, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("FORBIDDEN");
    expect(h.settings.effective().enabled).toBe(false);
    const local = await postJson(h.port, SETTINGS, { settings: { enabled: true } }, { origin: "http://localhost:5173" });
    expect(local.status).toBe(200);
    expect(h.settings.effective().enabled).toBe(true);
  });

  it("refuses a request marked sec-fetch-site: cross-site with 403", async () => {
    const answer = await postJson(h.port, REEMBED, {}, { "sec-fetch-site": "cross-site" });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("FORBIDDEN");
    expect(h.calls).toEqual([]);
  });
});

// Every memory route with a body it would accept: each refusal below must stop it before the bridge.
const MEMORY_POSTS: Array<[string, Record<string, unknown>]> = [
  ["search", { query: "护照在哪里？" }],
  ["list", { limit: 5 }],
  ["get", { id: "m-1" }],
  ["forget", { id: "m-1" }],
  ["quarantine", { id: "m-1", reason: "wrong" }],
  ["release", { id: "m-1" }],
  ["edit", { id: "m-1", text: "护照在背包里。" }],
];
const MEMORY_GETS = ["stats", "last-recall", "export"];

describe("memory routes: fence and refusals", () => {
  beforeEach(() => {
    h.store.importRecords(PASSPORT);
  });

  /** The memories are as seeded: nothing forgotten, quarantined or edited, and no bridge call made. */
  function expectUntouched(): void {
    expect(h.calls.filter((call) => call.startsWith("bridge."))).toEqual([]);
    expect(h.store.get("m-1")).toMatchObject({ text: PASSPORT[0].text });
    expect(h.store.get("m-1")!.quarantine).toBeUndefined();
    expect(h.store.size).toBe(PASSPORT.length);
  }

  async function eachRoute(send: (method: string, path: string, body?: Record<string, unknown>) => Promise<Answer>): Promise<Array<[string, number, string]>> {
    const out: Array<[string, number, string]> = [];
    for (const [name, body] of MEMORY_POSTS) {
      const answer = await send("POST", memoriesRoute(name), body);
      out.push([name, answer.status, answer.body?.error?.code]);
    }
    for (const name of MEMORY_GETS) {
      const answer = await send("GET", memoriesRoute(name));
      out.push([name, answer.status, answer.body?.error?.code]);
    }
    return out;
  }
  const allRefused = (status: number, code: string) => [...MEMORY_POSTS.map(([name]) => name), ...MEMORY_GETS].map((name) => [name, status, code]);

  it("refuses every memory route to a peer that is not on this machine with 403, reaching no bridge", async () => {
    // A real request whose peer address reads as another machine's, as the host's server would see it.
    const remote = http.createServer((req, res) => {
      Object.defineProperty(req.socket, "remoteAddress", { value: "203.0.113.9", configurable: true });
      h.web.dispatch(req, res);
    });
    await new Promise<void>((resolve) => remote.listen({ host: "127.0.0.1", port: 0 }, resolve));
    try {
      const port = (remote.address() as AddressInfo).port;
      const sent = await eachRoute((method, path, body) =>
        body === undefined ? request(port, { method, path }) : postJson(port, path, body),
      );
      expect(sent).toEqual(allRefused(403, "FORBIDDEN"));
    } finally {
      await new Promise((resolve) => remote.close(resolve));
    }
    expectUntouched();
  });

  it("refuses a foreign Host, a foreign Origin and a cross-site fetch on every memory route with 403, changing nothing", async () => {
    for (const headers of [{ host: "memory.evil.example" }, { origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }]) {
      const sent = await eachRoute((method, path, body) => (body === undefined ? request(h.port, { method, path, headers }) : postJson(h.port, path, body, headers)));
      expect([headers, sent]).toEqual([headers, allRefused(403, "FORBIDDEN")]);
    }
    expectUntouched();
  });

  it("refuses every memory change sent as text/plain with 415, changing nothing", async () => {
    for (const [name, body] of MEMORY_POSTS) {
      const answer = await request(h.port, { method: "POST", path: memoriesRoute(name), headers: { "content-type": "text/plain" }, body: JSON.stringify(body) });
      expect([name, answer.status, answer.body.error.code]).toEqual([name, 415, "UNSUPPORTED_MEDIA_TYPE"]);
    }
    expectUntouched();
  });

  it("refuses an unknown field on every memory route with 400 naming it, changing nothing", async () => {
    for (const [name, body] of MEMORY_POSTS) {
      const answer = await postJson(h.port, memoriesRoute(name), { ...body, apply: true });
      expect([name, answer.status, answer.body.error]).toEqual([name, 400, expect.objectContaining({ code: "INVALID_FIELD", field: "apply" })]);
      expect(answer.body.error.message).toMatch(/^unknown field "apply"; .* takes /);
    }
    expectUntouched();
  });

  it("refuses a missing or ill-typed value naming its field, changing nothing", async () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ["forget", {}, "MISSING_FIELD", "id"],
      ["forget", { id: "" }, "INVALID_FIELD", "id"],
      ["quarantine", { id: "m-1" }, "MISSING_FIELD", "reason"],
      ["quarantine", { id: "m-1", reason: "x".repeat(201) }, "INVALID_FIELD", "reason"],
      ["edit", { id: "m-1", text: "   " }, "INVALID_FIELD", "text"],
      ["search", { query: "护照", timeline: "yes" }, "INVALID_FIELD", "timeline"],
      ["list", { offset: 1.5 }, "INVALID_FIELD", "offset"],
      ["list", { status: "deleted" }, "INVALID_FIELD", "status"],
      ["list", { source_type: "email" }, "INVALID_FIELD", "source_type"],
    ];
    for (const [name, body, code, field] of cases) {
      const answer = await postJson(h.port, memoriesRoute(name), body);
      expect([name, body, answer.status, answer.body.error.code, answer.body.error.field]).toEqual([name, body, 400, code, field]);
    }
    expectUntouched();
    // A value of the right type but out of range is the bridge's to refuse, by the same field.
    const page = await postJson(h.port, memoriesRoute("list"), { limit: 1000 });
    expect([page.status, page.body.error.code, page.body.error.field]).toEqual([400, "INVALID_FIELD", "limit"]);
  });

  it("answers GET on a memory change and POST on the export with 405 and an allow header", async () => {
    const get = await request(h.port, { path: memoriesRoute("forget") });
    expect([get.status, get.headers.allow, get.body.error.code]).toEqual([405, "POST", "METHOD_NOT_ALLOWED"]);
    const post = await postJson(h.port, memoriesRoute("export"), {});
    expect([post.status, post.headers.allow]).toEqual([405, "GET"]);
    expectUntouched();
  });
});

import { DreamError, ERROR_CODES } from "../../../bridge/protocol/errors";
import { httpStatusFor } from "../../../bridge/protocol/wire";
import { DEFAULT_CONFIG } from "../../../plugin/config";
import { NO_KEY, postJson, REEMBED, request, SETTINGS, STATUS, useRouteHarness } from "./route-server";

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

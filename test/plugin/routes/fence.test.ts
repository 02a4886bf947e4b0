import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { DreamError } from "../../../bridge/protocol/errors";
import { fenceRequest, readJsonBody } from "../../../plugin/routes/fence";

const LOCAL = { host: "localhost:4242" };

function fake(remoteAddress: string | undefined, headers: Record<string, string>) {
  return { socket: { remoteAddress }, headers };
}

describe("fenceRequest", () => {
  it.each(["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])("admits a loopback peer at %s", (address) => {
    expect(fenceRequest(fake(address, LOCAL))).toEqual({ ok: true });
  });

  it.each(["10.0.0.5", "192.168.1.20", "::ffff:10.0.0.5", "fe80::1", "128.0.0.1"])("refuses a peer at %s with 403 FORBIDDEN naming it", (address) => {
    const result = fenceRequest(fake(address, LOCAL));
    expect(result).toMatchObject({ ok: false, status: 403, code: "FORBIDDEN" });
    expect(result.ok === false && result.message).toContain(address);
  });

  it("refuses a peer whose address is unknown (a socket already closed)", () => {
    expect(fenceRequest(fake(undefined, LOCAL))).toMatchObject({ ok: false, status: 403, code: "FORBIDDEN" });
  });

  it.each(["localhost", "LOCALHOST:80", "127.0.0.1", "127.0.0.1:65535", "[::1]", "[::1]:9"])("admits the Host header %s", (host) => {
    expect(fenceRequest(fake("127.0.0.1", { host }))).toEqual({ ok: true });
  });

  it.each(["evil.example", "localhost.evil.example", "localhost@evil.example", "localhost/x", "127.0.0.1.nip.io", "127.0.0.2", "::1", "localhost:"])(
    "refuses the Host header %s with 403",
    (host) => {
      expect(fenceRequest(fake("127.0.0.1", { host }))).toMatchObject({ ok: false, status: 403, code: "FORBIDDEN" });
    },
  );

  it("refuses a request without a Host header", () => {
    const result = fenceRequest(fake("127.0.0.1", {}));
    expect(result).toMatchObject({ ok: false, status: 403 });
    expect(result.ok === false && result.message).toContain("(got none)");
  });

  it.each(["http://localhost:5173", "https://127.0.0.1", "http://[::1]:8080"])("admits a page from the origin %s", (origin) => {
    expect(fenceRequest(fake("127.0.0.1", { ...LOCAL, origin }))).toEqual({ ok: true });
  });

  it.each(["https://evil.example", "http://localhost.evil.example", "null", "file://", "ftp://localhost", "chrome-extension://abc"])(
    "refuses the origin %s with 403",
    (origin) => {
      expect(fenceRequest(fake("127.0.0.1", { ...LOCAL, origin }))).toMatchObject({ ok: false, status: 403, code: "FORBIDDEN" });
    },
  );

  it("refuses sec-fetch-site: cross-site and admits same-origin, same-site and none", () => {
    expect(fenceRequest(fake("127.0.0.1", { ...LOCAL, "sec-fetch-site": "cross-site" }))).toMatchObject({ ok: false, status: 403 });
    for (const site of ["same-origin", "same-site", "none"]) {
      expect(fenceRequest(fake("127.0.0.1", { ...LOCAL, "sec-fetch-site": site }))).toEqual({ ok: true });
    }
  });
});

/** A request body as a socket delivers it: Buffers, with the headers beside them. */
function bodyStream(chunks: string[] | AsyncIterable<Buffer>, headers: Record<string, string>): IncomingMessage {
  const buffers = Array.isArray(chunks) ? chunks.map((text) => Buffer.from(text, "utf8")) : chunks;
  return Object.assign(Readable.from(buffers), { headers }) as unknown as IncomingMessage;
}

/** Like a socket, it yields to the event loop between chunks (a sync generator would never let go). */
async function* endless(): AsyncGenerator<Buffer> {
  const chunk = Buffer.alloc(16 * 1024, 0x20);
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve));
    yield chunk;
  }
}

describe("readJsonBody", () => {
  it("returns the parsed object of a JSON body, ignoring a charset and a byte-order mark", async () => {
    const req = bodyStream(["\uFEFF{\"settings\":", "{\"enabled\":true}}"], { "content-type": "Application/JSON; charset=utf-8" });
    await expect(readJsonBody(req)).resolves.toEqual({ settings: { enabled: true } });
  });

  it("refuses an endless body without Content-Length with INPUT_TOO_LARGE, so it never buffers the whole of it", async () => {
    const req = bodyStream(endless(), { "content-type": "application/json" });
    try {
      const refusal = await readJsonBody(req, 1024 * 1024).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(DreamError);
      expect(refusal).toMatchObject({ code: "INPUT_TOO_LARGE", message: "the request body is more than 1048576 bytes; the limit is 1048576" });
    } finally {
      req.destroy();
    }
  });

  it("refuses a declared Content-Length over the limit before reading a byte", async () => {
    const req = bodyStream(endless(), { "content-type": "application/json", "content-length": "65537" });
    try {
      await expect(readJsonBody(req)).rejects.toMatchObject({ code: "INPUT_TOO_LARGE", message: "the request body is 65537 bytes; the limit is 65536" });
      expect(req.readableFlowing).toBeNull();
    } finally {
      req.destroy();
    }
  });

  it("refuses a missing content type with UNSUPPORTED_MEDIA_TYPE", async () => {
    await expect(readJsonBody(bodyStream(["{}"], {}))).rejects.toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", message: 'Content-Type must be application/json (got "")' });
  });

  it("refuses an empty body with BAD_JSON and a JSON string with INVALID_FIELD", async () => {
    await expect(readJsonBody(bodyStream([], { "content-type": "application/json" }))).rejects.toMatchObject({ code: "BAD_JSON" });
    await expect(readJsonBody(bodyStream(['"text"'], { "content-type": "application/json" }))).rejects.toMatchObject({ code: "INVALID_FIELD", field: "body" });
  });
});

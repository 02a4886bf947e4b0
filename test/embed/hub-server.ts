// A local HTTP server that speaks the Hugging Face hub's file protocol, serving a generated model:
// `HEAD|GET /<model>/resolve/main/<file>`. Like the hub, an LFS file (*.onnx) answers with a 302 to
// a CDN path, carrying X-Linked-Size and X-Linked-Etag (the sha256 of the bytes); a small file
// answers 200 with Content-Length and an ETag that is its git blob sha1. The CDN path honours Range.
// Faults for tests: a 404, a file that never answers, a connection cut after N bytes (once), a
// wrong advertised hash, no HEAD support, and a throttle so progress can be watched.
import { createHash } from "node:crypto";
import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";

export interface Hub {
  url: string;
  /** "METHOD /path [range]" for every request, in order. */
  requests: string[];
  missing: Set<string>;
  silent: Set<string>;
  /** file → bytes of body to send before cutting the connection; used once, then deleted. */
  cutAfter: Map<string, number>;
  wrongHash: Set<string>;
  noHead: boolean;
  /** Bytes per second for file bodies (0: as fast as possible). */
  throttle: number;
  close(): Promise<void>;
}

const LFS = /\.onnx$/;

export async function startHub(model: string, folder: string): Promise<Hub> {
  const hub: Omit<Hub, "url" | "close"> = { requests: [], missing: new Set(), silent: new Set(), cutAfter: new Map(), wrongHash: new Set(), noHead: false, throttle: 0 };
  const prefix = `/${model}/resolve/main/`;
  const byHash = new Map<string, string>();
  const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
  const gitSha1 = (bytes: Buffer) => createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");

  const server = http.createServer((request, response) => {
    hub.requests.push(`${request.method} ${request.url}${request.headers.range ? ` ${request.headers.range}` : ""}`);
    const url = request.url ?? "";
    if (url.startsWith("/cdn/")) {
      const file = byHash.get(url.slice("/cdn/".length));
      if (!file) return void response.writeHead(404).end("no such object");
      return sendBody(request, response, file);
    }
    const file = url.startsWith(prefix) ? decodeURIComponent(url.slice(prefix.length)) : "";
    if (hub.silent.has(file)) return;
    if (request.method === "HEAD" && hub.noHead) return void response.writeHead(405).end();
    const full = path.join(folder, file);
    if (!file || hub.missing.has(file) || !fs.existsSync(full)) return void response.writeHead(404, { "x-error-code": "EntryNotFound" }).end("Entry not found");
    const bytes = fs.readFileSync(full);
    const advertised = hub.wrongHash.has(file) ? Buffer.concat([bytes, Buffer.from("tampered")]) : bytes;
    if (LFS.test(file)) {
      const hash = sha256(bytes);
      byHash.set(hash, file);
      const etag = `"${sha256(advertised)}"`;
      response.writeHead(302, { location: `/cdn/${hash}`, "x-linked-size": bytes.length, "x-linked-etag": etag, etag, "content-length": 0 }).end();
      return;
    }
    if (request.method === "HEAD") {
      response.writeHead(200, { "content-length": bytes.length, etag: `"${gitSha1(advertised)}"`, "accept-ranges": "bytes" }).end();
      return;
    }
    sendBody(request, response, file, `"${gitSha1(advertised)}"`);
  });

  function sendBody(request: http.IncomingMessage, response: http.ServerResponse, file: string, etag?: string): void {
    const bytes = fs.readFileSync(path.join(folder, file));
    const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? "");
    const start = range ? Number(range[1]) : 0;
    const body = bytes.subarray(start);
    const headers: http.OutgoingHttpHeaders = { "content-length": body.length, "accept-ranges": "bytes", "content-type": "application/octet-stream", ...(etag ? { etag } : {}) };
    if (range) headers["content-range"] = `bytes ${start}-${bytes.length - 1}/${bytes.length}`;
    response.writeHead(range ? 206 : 200, headers);
    if (request.method === "HEAD") return void response.end();
    const cut = hub.cutAfter.get(file);
    if (cut !== undefined) hub.cutAfter.delete(file);
    void stream(response, body, cut);
  }

  async function stream(response: http.ServerResponse, body: Buffer, cut: number | undefined): Promise<void> {
    const limit = cut ?? body.length;
    const chunk = hub.throttle > 0 ? Math.max(1, Math.floor(hub.throttle / 20)) : body.length;
    for (let sent = 0; sent < limit; sent += chunk) {
      if (response.destroyed) return;
      await new Promise((resolve) => response.write(body.subarray(sent, Math.min(limit, sent + chunk)), resolve));
      if (hub.throttle > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (cut !== undefined) {
      // Mid-body: the bytes written so far are flushed, then the connection is closed (FIN, so they
      // all reach the client before it sees the body end short).
      response.socket?.end();
      return;
    }
    response.end();
  }

  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    ...hub,
    get noHead() {
      return hub.noHead;
    },
    set noHead(value: boolean) {
      hub.noHead = value;
    },
    get throttle() {
      return hub.throttle;
    },
    set throttle(value: number) {
      hub.throttle = value;
    },
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

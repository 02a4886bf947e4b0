// ChromaCollections against a real Chroma server on loopback: idempotent upserts, batching, deletes,
// dimension refusals, a lossless record round trip, and the error codes a user sees.
import { once } from "node:events";
import http from "node:http";
import net from "node:net";
import { ChromaCollections, type ChromaRow } from "../../bridge/chroma/chroma-collections";
import { collectionName, metadataFor, recordFromChroma, type VectorBinding } from "../../bridge/chroma/chroma-records";
import { EmbeddedChroma } from "../../bridge/chroma/chroma-process";
import { hashContent, type MemoryRecord } from "../../bridge/store/records";
import { tempDir } from "../store/helpers";

const B8: VectorBinding = { provider: "test", model: "unit-8", dim: 8 };

function vector(seed: number, dim = 8): number[] {
  return Array.from({ length: dim }, (_, i) => Math.fround(Math.sin(seed * 7.1 + i) + 1.5));
}

function rows(n: number, doc = (i: number) => `doc ${i}`): ChromaRow[] {
  return Array.from({ length: n }, (_, i) => ({ id: `r${i}`, document: doc(i), embedding: vector(i), metadata: { n: i } }));
}

function record(id: string, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  const text = `memory ${id}`;
  return { id, text, source_type: "user_message", timestamp_ms: 1_750_000_000_123, scope: "global", metadata: {}, content_hash: hashContent(text), ...extra };
}

async function listen(server: net.Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

describe("ChromaCollections on a real Chroma server", () => {
  let chroma: EmbeddedChroma;
  let collections: ChromaCollections;

  beforeAll(async () => {
    chroma = await EmbeddedChroma.start({ dataDir: tempDir("chroma-"), restart: false });
    collections = new ChromaCollections({ url: chroma.url, timeoutMs: 10_000 });
  });
  afterAll(() => chroma.stop());

  it("names collections deterministically per binding, within Chroma's name rules", () => {
    expect(collectionName(B8)).toBe(collectionName({ ...B8 }));
    expect(collectionName(B8)).toMatch(/^dsh-dream-[0-9a-f]{16}$/);
    expect(collectionName({ ...B8, dim: 9 })).not.toBe(collectionName(B8));
    expect(collectionName({ ...B8, model: "unit-8\0" })).not.toBe(collectionName(B8));
  });

  it("creates a collection once and lists only ours", async () => {
    const name = await collections.ensureCollection(B8);
    expect(await new ChromaCollections({ url: chroma.url }).ensureCollection({ ...B8 })).toBe(name);
    expect((await collections.listCollections()).filter((n) => n === name)).toEqual([name]);
  });

  it("upserting the same ids twice keeps the count and replaces the documents", async () => {
    const name = await collections.ensureCollection({ ...B8, model: "upsert" });
    await collections.upsert(name, rows(5));
    await collections.upsert(name, rows(5, (i) => `updated ${i}`));
    expect(await collections.count(name)).toBe(5);
    const got = await collections.get(name, ["r3", "missing", "r0"]);
    expect(got.map((row) => [row.id, row.document, row.metadata])).toEqual([
      ["r3", "updated 3", { n: 3 }],
      ["r0", "updated 0", { n: 0 }],
    ]);
  });

  it("keeps the last row when one call repeats an id", async () => {
    const name = await collections.ensureCollection({ ...B8, model: "repeat" });
    await collections.upsert(name, [...rows(1), { ...rows(1)[0], document: "second" }]);
    expect(await collections.count(name)).toBe(1);
    expect((await collections.get(name, ["r0"]))[0].document).toBe("second");
  });

  it("deletes ids from one collection, and from every collection", async () => {
    const a = await collections.ensureCollection({ ...B8, model: "del-a" });
    const b = await collections.ensureCollection({ ...B8, model: "del-b" });
    await collections.upsert(a, rows(4));
    await collections.upsert(b, rows(4));
    await collections.delete(a, ["r0", "nope"]);
    expect(await collections.count(a)).toBe(3);
    await collections.deleteFromAll(["r1", "r2"]);
    expect((await collections.get(a, ["r0", "r1", "r2", "r3"])).map((row) => row.id)).toEqual(["r3"]);
    expect((await collections.get(b, ["r0", "r1", "r2", "r3"])).map((row) => row.id)).toEqual(["r0", "r3"]);
  });

  it("lands 6,000 rows sent in one call, more than Chroma's 5,461-row request limit, and pages through their ids", async () => {
    const name = await collections.ensureCollection({ ...B8, model: "bulk" });
    await collections.upsert(name, rows(6000));
    expect(await collections.count(name)).toBe(6000);
    const ids = new Set<string>();
    for (let offset = 0; offset < 6000; offset += 2500) {
      for (const id of await collections.listIds(name, { limit: 2500, offset })) ids.add(id);
    }
    expect(ids.size).toBe(6000);
  });

  it("refuses a vector of the wrong dimension before it can fix the collection's dimension", async () => {
    const name = await collections.ensureCollection({ ...B8, model: "dim-guard" });
    const write = collections.upsert(name, [{ id: "x", document: "x", embedding: [1, 2, 3, 4], metadata: { n: 1 } }]);
    await expect(write).rejects.toMatchObject({ code: "CHROMA_ERROR", message: expect.stringContaining("dimension") });
    expect(await collections.count(name)).toBe(0);
  });

  it("maps Chroma's own dimension refusal to CHROMA_ERROR", async () => {
    // Another client wrote 4-d vectors first, which fixed the server-side dimension at 4.
    const name = await collections.ensureCollection({ ...B8, model: "foreign" });
    const base = `${chroma.url}/api/v2/tenants/default_tenant/databases/default_database/collections`;
    const { id } = (await (await fetch(`${base}/${name}`)).json()) as { id: string };
    const foreign = await fetch(`${base}/${id}/upsert`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ids: ["f"], embeddings: [[1, 0, 0, 0]] }) });
    expect(foreign.status).toBe(200);
    await expect(collections.upsert(name, rows(1))).rejects.toMatchObject({
      code: "CHROMA_ERROR",
      message: `Chroma upsert into ${name} failed (ChromaClientError): Collection expecting embedding with dimension of 4, got 8`,
    });
  });

  it("recreates a collection that another client deleted, on the next ensureCollection", async () => {
    const binding = { ...B8, model: "deleted-behind-our-back" };
    const name = await collections.ensureCollection(binding);
    await collections.upsert(name, rows(3));
    const base = `${chroma.url}/api/v2/tenants/default_tenant/databases/default_database/collections`;
    expect((await fetch(`${base}/${name}`, { method: "DELETE" })).status).toBe(200);
    await expect(collections.count(name)).rejects.toMatchObject({ code: "CHROMA_ERROR", message: expect.stringContaining("could not be found") });
    expect(await collections.ensureCollection(binding)).toBe(name);
    await collections.upsert(name, rows(2));
    expect(await collections.count(name)).toBe(2);
  });

  it("round-trips records through Chroma metadata without loss", async () => {
    const binding = { ...B8, model: "round-trip" };
    const originals = [
      record("plain"),
      record("带 空格 的 id ✓", { scope: "project:数据", session_id: "s 1", turn: 0, tags: ["蓝色", "a,b", ""] }),
      record("nested", { metadata: { a: { b: [1, "二", null, true] }, n: 1.5 }, tags: [] }),
      record("held", { quarantine: { reason: "prompt injection", atMs: 1_750_000_000_999 }, source_type: "tool_result" }),
    ];
    const name = await collections.ensureCollection(binding);
    const vectors = originals.map((_, i) => new Float32Array(vector(i)));
    await collections.upsert(name, originals.map((r, i) => ({ id: r.id, document: r.text, embedding: vectors[i], metadata: metadataFor(r, binding) })));
    const back = await collections.get(name, originals.map((r) => r.id));
    expect(back.map((row) => recordFromChroma(row.id, row.document, row.metadata))).toEqual(originals);
    back.forEach((row, i) => row.embedding!.forEach((x, k) => expect(Math.abs(x - vectors[i][k])).toBeLessThan(1e-6 * Math.abs(vectors[i][k]) + 1e-7)));
    expect(metadataFor(originals[0], binding)).not.toHaveProperty("session_id");
  });

  it("refuses to read back a row that dsh-dream did not write", () => {
    expect(() => recordFromChroma("x", "text", { n: 1 })).toThrow(expect.objectContaining({ code: "CHROMA_ERROR" }));
  });

  it("answers CHROMA_UNAVAILABLE quickly once the server is stopped", async () => {
    const other = await EmbeddedChroma.start({ dataDir: tempDir("chroma-"), restart: false });
    const client = new ChromaCollections({ url: other.url });
    const name = await client.ensureCollection(B8);
    await other.stop();
    const started = Date.now();
    await expect(client.count(name)).rejects.toMatchObject({ code: "CHROMA_UNAVAILABLE", message: `Chroma count ${name} failed: cannot reach ${other.url}` });
    expect(await client.heartbeat()).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("gives up on a server that accepts but never answers once the deadline passes", async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    const url = await listen(silent);
    try {
      const client = new ChromaCollections({ url, timeoutMs: 300 });
      const started = Date.now();
      await expect(client.listCollections()).rejects.toMatchObject({ code: "CHROMA_UNAVAILABLE", message: `Chroma list collections timed out after 300 ms at ${url}` });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(sockets.size).toBeGreaterThan(0);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      silent.close();
    }
  });

  it("sends the auth header to an external server and never repeats it in messages", async () => {
    const seen: Array<string | undefined> = [];
    const guarded = http.createServer((request, response) => {
      seen.push(request.headers["x-chroma-token"] as string | undefined);
      response.writeHead(401, { "content-type": "application/json" }).end('{"error":"Unauthorized"}');
    });
    const url = await listen(guarded);
    try {
      const client = new ChromaCollections({ url, headers: { "X-Chroma-Token": "s3cr3t-token" }, tenant: "t1", database: "d1" });
      const failure = await client.listCollections().catch((error: Error) => error);
      expect(failure).toMatchObject({ code: "CHROMA_ERROR", message: "Chroma list collections failed (ChromaAuthError): Unauthorized; check the configured auth header" });
      expect(JSON.stringify(failure) + String((failure as Error).stack)).not.toContain("s3cr3t-token");
      expect(seen).toEqual(["s3cr3t-token"]);
    } finally {
      guarded.close();
    }
  });

  it("sends vectors as exact base64 float32 where the server takes it, as numbers where it does not", async () => {
    // A recording proxy in front of the real server; for the second client it says base64 is not supported.
    const upserts: Array<{ headers: http.IncomingHttpHeaders; body: { ids: string[]; embeddings: unknown[]; documents: string[]; metadatas: unknown[] } }> = [];
    let base64 = true;
    const proxy = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", async () => {
        const body = Buffer.concat(chunks);
        if (request.url!.endsWith("/upsert")) upserts.push({ headers: request.headers, body: JSON.parse(body.toString("utf8")) });
        const answer = await fetch(`${chroma.url}${request.url}`, { method: request.method, headers: { "content-type": "application/json" }, ...(body.length ? { body } : {}) });
        let text = await answer.text();
        if (request.url!.endsWith("/pre-flight-checks")) text = JSON.stringify({ ...JSON.parse(text), supports_base64_encoding: base64 });
        response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" }).end(text);
      });
    });
    const url = await listen(proxy);
    try {
      const vectors = [0, 1, 2].map((i) => new Float32Array(vector(i + 40)));
      const sent = vectors.map((embedding, i) => ({ id: `w${i}`, document: `wire ${i}`, embedding, metadata: { n: i } }));
      const viaBase64 = new ChromaCollections({ url, headers: { "X-Chroma-Token": "tok-1" }, timeoutMs: 10_000 });
      const name = await viaBase64.ensureCollection({ ...B8, model: "wire" });
      await viaBase64.upsert(name, sent);
      expect(upserts).toHaveLength(1);
      expect(upserts[0].headers).toMatchObject({ "x-chroma-token": "tok-1", "content-type": "application/json" });
      expect(upserts[0].body).toEqual({ ids: ["w0", "w1", "w2"], embeddings: vectors.map((v) => Buffer.from(v.buffer).toString("base64")), documents: ["wire 0", "wire 1", "wire 2"], metadatas: [{ n: 0 }, { n: 1 }, { n: 2 }] });
      // The bytes are the client's own packing (Float32Array's); reading back goes through JSON text, hence the tolerance.
      const stored = await collections.get(name, ["w0", "w1", "w2"]);
      stored.forEach((row, i) => row.embedding!.forEach((x, k) => expect(Math.abs(x - vectors[i][k])).toBeLessThan(1e-6 * Math.abs(vectors[i][k]))));

      base64 = false;
      const viaNumbers = new ChromaCollections({ url, timeoutMs: 10_000 });
      await viaNumbers.ensureCollection({ ...B8, model: "wire" });
      await viaNumbers.upsert(name, sent.map((row) => ({ ...row, id: `n${row.id}` })));
      expect(upserts).toHaveLength(2);
      expect(upserts[1].body.embeddings).toEqual(vectors.map((v) => Array.from(v)));
      expect(await collections.count(name)).toBe(6);
    } finally {
      proxy.close();
    }
  });

  it("rejects URLs the client cannot honour, without echoing credentials", () => {
    expect(() => new ChromaCollections({ url: "ftp://host:1" })).toThrow(expect.objectContaining({ code: "INVALID_FIELD" }));
    expect(() => new ChromaCollections({ url: "https://host/chroma" })).toThrow("Chroma URL must not have a path or query");
    expect(() => new ChromaCollections({ url: "http://me:pw0rd@host:8000" })).toThrow("Chroma URL must not carry credentials; pass an auth header instead");
  });
});

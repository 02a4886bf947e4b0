// Chroma collections: the only module importing chromadb. One cosine collection per vector binding
// (provider, model, dim) holding our own vectors; the row mapping lives in chroma-records.
import {
  ChromaClient,
  ChromaClientError,
  ChromaConnectionError,
  ChromaForbiddenError,
  ChromaNotFoundError,
  ChromaQuotaExceededError,
  ChromaRateLimitError,
  ChromaServerError,
  ChromaUnauthorizedError,
  ChromaUniqueError,
  type Collection,
} from "chromadb";
import { DreamError } from "../protocol/errors";
import type { MemoryRecord } from "../store/records";
import { COLLECTION_PREFIX, collectionName, metadataFor, type ChromaMetadata, type VectorBinding } from "./chroma-records";

export interface ChromaConnection {
  /** http(s)://host:port of the server; the embedded one is http://127.0.0.1:PORT. */
  url: string;
  /** e.g. {"Authorization": "Bearer …"} or {"X-Chroma-Token": …}; never echoed in messages. */
  headers?: Record<string, string>;
  tenant?: string;
  database?: string;
  /** Deadline for each request; default 30 s. */
  timeoutMs?: number;
}

export interface ChromaRow {
  id: string;
  document: string;
  embedding: number[] | Float32Array;
  metadata: ChromaMetadata;
}

export interface ChromaStoredRow {
  id: string;
  document: string | null;
  embedding: Float32Array | null;
  metadata: ChromaMetadata | null;
}

const MAX_ROWS_PER_REQUEST = 1000;
const LIST_PAGE = 100;

export class ChromaCollections {
  private client!: ChromaClient;
  private abort!: AbortController;
  private readonly handles = new Map<string, { collection: Collection; dim: number }>();
  private maxRows?: number;
  private base64?: boolean;
  private readonly origin: string;
  private readonly timeoutMs: number;

  constructor(private readonly connection: ChromaConnection) {
    const url = parseUrl(connection.url);
    this.origin = url.origin;
    this.timeoutMs = connection.timeoutMs ?? 30_000;
    this.connect();
  }

  /** True when the server answers; false when it cannot be reached; throws when it refuses us. */
  async heartbeat(): Promise<boolean> {
    try {
      await this.call("heartbeat", (client) => client.heartbeat());
      return true;
    } catch (error) {
      if (error instanceof DreamError && error.code === "CHROMA_UNAVAILABLE") return false;
      throw error;
    }
  }

  collectionName(binding: VectorBinding): string {
    return collectionName(binding);
  }

  metadataFor(record: MemoryRecord, binding: VectorBinding): ChromaMetadata {
    return metadataFor(record, binding);
  }

  /** Get-or-create; an existing collection must already be cosine with the same dimension. */
  async ensureCollection(binding: VectorBinding): Promise<string> {
    const name = collectionName(binding);
    if (this.handles.has(name)) return name;
    const collection = await this.call(`create collection ${name}`, (client) =>
      // embeddingFunction: null always: omitted, the client wires its default embedder, warns on
      // every access, and would try to load @chroma-core/default-embed.
      client.getOrCreateCollection({
        name,
        embeddingFunction: null,
        configuration: { hnsw: { space: "cosine" } },
        metadata: { provider: binding.provider, model: binding.model, dim: binding.dim },
      }),
    );
    // getOrCreate silently keeps an existing collection's own configuration and metadata.
    const space = collection.configuration?.hnsw?.space;
    if (space !== "cosine" || collection.metadata?.dim !== binding.dim) {
      throw new DreamError("CHROMA_ERROR", `Chroma collection ${name} exists with space ${space} and dimension ${collection.metadata?.dim}; expected cosine, ${binding.dim}`);
    }
    this.handles.set(name, { collection, dim: binding.dim });
    return name;
  }

  /** Idempotent writes in batches; within one call the last row for an id wins. */
  async upsert(name: string, rows: ChromaRow[]): Promise<void> {
    const { collection, dim } = await this.handle(name);
    const latest = [...new Map(rows.map((row) => [row.id, row])).values()];
    // The first insert fixes a collection's dimension for good (even once emptied), so refuse
    // a wrong vector here rather than let it poison the collection.
    const wrong = latest.find((row) => row.embedding.length !== dim);
    if (wrong) {
      throw new DreamError("CHROMA_ERROR", `Chroma upsert into ${name} refused: embedding dimension ${wrong.embedding.length} for ${JSON.stringify(wrong.id)}, collection dimension ${dim}`);
    }
    const base64 = await this.sendsBase64();
    for (const batch of chunk(latest, await this.batchSize())) {
      if (base64) {
        await this.call(`upsert into ${name}`, () => this.postUpsert(collection, batch), name);
        continue;
      }
      const request = {
        ids: batch.map((row) => row.id),
        documents: batch.map((row) => row.document),
        embeddings: batch.map((row) => Array.from(row.embedding)),
        metadatas: batch.map((row) => row.metadata),
      };
      await this.call(`upsert into ${name}`, () => collection.upsert(request), name);
    }
  }

  async delete(name: string, ids: string[]): Promise<void> {
    const { collection } = await this.handle(name);
    for (const batch of chunk(ids, await this.batchSize())) {
      await this.call(`delete from ${name}`, () => collection.delete({ ids: batch }), name);
    }
  }

  /** Forgetting an id must reach every embedder's copy of it. */
  async deleteFromAll(ids: string[]): Promise<void> {
    for (const name of await this.listCollections()) await this.delete(name, ids);
  }

  async count(name: string): Promise<number> {
    const { collection } = await this.handle(name);
    return this.call(`count ${name}`, () => collection.count(), name);
  }

  async listIds(name: string, page: { limit: number; offset: number }): Promise<string[]> {
    const { collection } = await this.handle(name);
    const result = await this.call(`list ids of ${name}`, () => collection.get({ ...page, include: [] }), name);
    return result.ids;
  }

  /** Rows in the order asked, missing ids left out. Cosine collections hand vectors back
   * renormalised, so components may differ from what was written by about one float32 ulp. */
  async get(name: string, ids: string[]): Promise<ChromaStoredRow[]> {
    const { collection } = await this.handle(name);
    const found = new Map<string, ChromaStoredRow>();
    for (const batch of chunk(ids, await this.batchSize())) {
      const include = ["documents", "metadatas", "embeddings"] as const;
      const result = await this.call(`get from ${name}`, () => collection.get({ ids: batch, include: [...include] }), name);
      result.ids.forEach((id, i) => {
        const embedding = result.embeddings[i];
        found.set(id, {
          id,
          document: result.documents[i] ?? null,
          embedding: embedding ? Float32Array.from(embedding) : null,
          metadata: (result.metadatas[i] as ChromaMetadata | null) ?? null,
        });
      });
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  /** Removes one of our collections (a superseded embedding space); a missing one is already gone. */
  async deleteCollection(name: string): Promise<void> {
    if (!name.startsWith(COLLECTION_PREFIX)) throw new DreamError("INVALID_FIELD", `${name} is not a dsh-dream collection`);
    if (!(await this.listCollections()).includes(name)) return;
    await this.call(`delete collection ${name}`, (client) => client.deleteCollection({ name }));
    this.handles.delete(name);
  }

  /** Our collections only (dsh-dream-*); others on a shared server are left alone. */
  async listCollections(): Promise<string[]> {
    const names: string[] = [];
    for (let offset = 0; ; offset += LIST_PAGE) {
      const page = await this.call("list collections", (client) => client.listCollections({ limit: LIST_PAGE, offset }));
      names.push(...page.map((collection) => collection.name).filter((name) => name.startsWith(COLLECTION_PREFIX)));
      if (page.length < LIST_PAGE) return names;
    }
  }

  /** Cancels requests in flight; the object stays usable with a fresh connection. */
  close(): void {
    this.abort.abort();
    this.connect();
  }

  private connect(): void {
    const url = new URL(this.connection.url);
    const ssl = url.protocol === "https:";
    this.abort = new AbortController();
    this.handles.clear();
    this.base64 = undefined; // asked again of the server this client reaches
    this.client = new ChromaClient({
      host: url.hostname,
      port: url.port ? Number(url.port) : ssl ? 443 : 80,
      ssl,
      headers: this.connection.headers,
      tenant: this.connection.tenant,
      database: this.connection.database,
      // The 3.5.0 client builds every Request from these fixed options, so a per-request
      // AbortSignal.timeout() is impossible; one controller per connection cancels them all.
      fetchOptions: { signal: this.abort.signal },
    });
  }

  private async handle(name: string): Promise<{ collection: Collection; dim: number }> {
    const cached = this.handles.get(name);
    if (cached) return cached;
    const collection = await this.call(`open collection ${name}`, (client) => client.getCollection({ name }));
    const dim = collection.metadata?.dim;
    if (typeof dim !== "number") throw new DreamError("CHROMA_ERROR", `Chroma collection ${name} has no dimension in its metadata`);
    const opened = { collection, dim };
    this.handles.set(name, opened);
    return opened;
  }

  /**
   * An upsert to a server that takes vectors as base64 (Chroma 1.x), made here rather than by the client,
   * which packs each vector through an array of one-character strings: ~147 KB allocated a 512-d row and
   * 17 ms of CPU per 320 rows, against ~3 KB and 0.2 ms with a Buffer. At a replica's catch-up pace (1,200
   * rows a second at 1M) that garbage outlived the scavenges with the rows it was made from, and the bridge's
   * old generation grew by ~190 MB between full collections (RSS over 1.5 GiB). The request and the errors are
   * the client's own (its endpoint, body and headers; chromaFetch's error for each status).
   */
  private async postUpsert(collection: Collection, rows: ChromaRow[]): Promise<void> {
    const path = ["tenants", collection.tenant, "databases", collection.database, "collections", collection.id].map(encodeURIComponent).join("/");
    const url = `${this.origin}/api/v2/${path}/upsert`;
    const headers = new Headers(this.connection.headers);
    headers.set("content-type", "application/json");
    const body = JSON.stringify({
      ids: rows.map((row) => row.id),
      embeddings: rows.map((row) => base64Vector(row.embedding)),
      metadatas: rows.map((row) => row.metadata),
      documents: rows.map((row) => row.document),
    });
    let response: Response;
    try {
      response = await fetch(url, { method: "POST", headers, body, signal: this.abort.signal });
    } catch {
      throw new ChromaConnectionError("Failed to connect to Chroma");
    }
    if (!response.ok) throw await chromaErrorFor(response, url);
    await response.arrayBuffer(); // read to the end, so that the connection is free for the next request
  }

  /** Whether the server takes vectors as base64 (Chroma 1.x). */
  private async sendsBase64(): Promise<boolean> {
    this.base64 ??= await this.call("pre-flight checks", (client) => client.supportsBase64Encoding());
    return this.base64;
  }

  private async batchSize(): Promise<number> {
    this.maxRows ??= Math.min(await this.call("pre-flight checks", (client) => client.getMaxBatchSize()), MAX_ROWS_PER_REQUEST);
    return this.maxRows;
  }

  /** One request under the deadline; `collection` names the cached handle the request used. */
  private async call<T>(operation: string, request: (client: ChromaClient) => Promise<T>, collection?: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new DreamError("CHROMA_UNAVAILABLE", `Chroma ${operation} timed out after ${this.timeoutMs} ms at ${this.origin}`));
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([request(this.client), deadline]);
    } catch (error) {
      // A hung server: drop the connection so the abandoned request does not linger.
      if (timedOut) this.close();
      // Deleted (or reset) by someone else: a handle holds the old collection id for good, so
      // forget it and let the next ensureCollection create the collection again.
      if (collection && error instanceof ChromaNotFoundError) this.handles.delete(collection);
      throw toDreamError(operation, this.origin, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Chroma refused the request for what it holds (400: a document it cannot parse, a bad value), not
 * for who sent it or for being down: the rows are at fault, and the same rows would be refused again.
 */
export function isRowRefusal(error: unknown): boolean {
  return error instanceof DreamError && error.code === "CHROMA_ERROR" && error.cause instanceof ChromaClientError;
}

function toDreamError(operation: string, origin: string, error: unknown): DreamError {
  if (error instanceof DreamError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const gatewayDown = error instanceof ChromaServerError && /^50[234]\b/.test(reason);
  if (error instanceof ChromaConnectionError || gatewayDown) {
    return new DreamError("CHROMA_UNAVAILABLE", `Chroma ${operation} failed: cannot reach ${origin}`, { cause: error });
  }
  // "Bad request to <url> with status: <reason>": the url adds nothing the operation does not say.
  const short = reason.replace(/^Bad request to \S+ with status: /, "");
  const kind = error instanceof Error && error.name !== "Error" ? ` (${error.name})` : "";
  const auth = error instanceof ChromaUnauthorizedError || error instanceof ChromaForbiddenError ? "; check the configured auth header" : "";
  return new DreamError("CHROMA_ERROR", `Chroma ${operation} failed${kind}: ${short}${auth}`, { cause: error });
}

function parseUrl(raw: string): URL {
  const invalid = (why: string): never => {
    throw new DreamError("INVALID_FIELD", `Chroma URL ${why}`, { field: "chroma.url" });
  };
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    throw new DreamError("INVALID_FIELD", "Chroma URL is not a valid URL", { field: "chroma.url", cause: error });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") invalid(`must start with http:// or https:// (got ${url.protocol})`);
  // The client knows only host, port and ssl: a path prefix or inline credentials would be lost.
  if (url.username || url.password) invalid("must not carry credentials; pass an auth header instead");
  if (url.pathname !== "/" || url.search) invalid("must not have a path or query");
  return url;
}

/** A vector as Chroma's base64 wire format has it: its float32 bytes, little-endian as Float32Array lays them. */
function base64Vector(vector: number[] | Float32Array): string {
  const floats = vector instanceof Float32Array ? vector : Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString("base64");
}

/** The error chromadb 3.5's own fetch throws for a response that is not ok (its chromaFetch), by status. */
async function chromaErrorFor(response: Response, url: string): Promise<Error> {
  const body = (await response.json().catch(() => undefined)) as { message?: string; error?: string } | undefined;
  switch (response.status) {
    case 400:
      return new ChromaClientError(`Bad request to ${url} with status: ${body?.message || "Bad Request"}`);
    case 401:
      return new ChromaUnauthorizedError("Unauthorized");
    case 403:
      return new ChromaForbiddenError("You do not have permission to access the requested resource.");
    case 404:
      return new ChromaNotFoundError("The requested resource could not be found");
    case 409:
      return new ChromaUniqueError("The resource already exists");
    case 422:
      if (body?.message && /^(Quota exceeded|Billing limit exceeded)/.test(body.message)) return new ChromaQuotaExceededError(body.message);
      return new ChromaClientError(body === undefined ? `Unprocessable Entity: ${response.statusText}` : body.message || "Unprocessable Entity");
    case 429:
      return new ChromaRateLimitError("Rate limit exceeded");
    default:
      return new ChromaServerError(body?.message || body?.error || `${response.status}: ${response.statusText}`);
  }
}

function chunk<T>(items: T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

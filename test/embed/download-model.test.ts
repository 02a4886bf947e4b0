// downloadModel against a local HTTP server laid out like the hub (/<model>/resolve/main/<file>):
// the files land where LocalProvider loads them offline, and a failed download leaves no half model.
import { createHash } from "node:crypto";
import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import { downloadModel, ModelDownloadFailed } from "../../bridge/embed/download-model";
import { LocalProvider } from "../../bridge/embed/local-provider";
import { EmbeddingUnavailable } from "../../bridge/embed/provider";
import { DreamError } from "../../bridge/protocol/errors";
import { tempDir } from "../store/helpers";
import { snapshotFolder, watchFetch, writeTinyModel, type TinyModel } from "./tiny-model";

const MODEL = "hub-org/tiny-zh";
const QUANTIZED_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"];

interface Hub {
  url: string;
  requests: string[];
  /** Files answered with 404, or never answered at all. */
  missing: Set<string>;
  silent: Set<string>;
  close(): Promise<void>;
}

async function startHub(served: TinyModel): Promise<Hub> {
  const requests: string[] = [];
  const missing = new Set<string>();
  const silent = new Set<string>();
  const prefix = `/${MODEL}/resolve/main/`;
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const file = request.url?.startsWith(prefix) ? decodeURIComponent(request.url.slice(prefix.length)) : "";
    if (silent.has(file)) return;
    const full = path.join(served.folder, file);
    if (!file || missing.has(file) || !fs.existsSync(full)) {
      response.writeHead(404).end("Entry not found");
      return;
    }
    const body = fs.readFileSync(full);
    response.writeHead(200, { "content-length": body.length, "content-type": "application/octet-stream" }).end(body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
  return {
    url, requests, missing, silent,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

// Byte-for-byte comparisons through a hash: jest's deep equality walks multi-megabyte buffers slowly.
const sha256 = (file: string): string => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

const expectedRequests = (files: string[]): string[] => files.map((file) => `GET /${MODEL}/resolve/main/${file}`);

describe("downloadModel from a hub-shaped local server", () => {
  let served: TinyModel;
  let hub: Hub;

  beforeAll(() => {
    served = writeTinyModel(tempDir("dream-hub-"), MODEL, 48, 3);
  });
  beforeEach(async () => {
    hub = await startHub(served);
  });
  afterEach(() => hub.close());

  it("puts the model's files into modelDir, where LocalProvider then loads them offline", async () => {
    const modelDir = tempDir("dream-models-");
    const result = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url });
    expect(result.files).toEqual(QUANTIZED_FILES);
    expect(hub.requests).toEqual(expectedRequests(QUANTIZED_FILES));
    for (const file of QUANTIZED_FILES) {
      expect(sha256(path.join(modelDir, MODEL, file))).toBe(sha256(path.join(served.folder, file)));
    }
    expect(fs.readdirSync(path.join(modelDir, "hub-org"))).toEqual(["tiny-zh"]);
    const modeOf = (folder: string): number => fs.statSync(folder).mode & 0o777;
    expect(modeOf(path.join(modelDir, MODEL))).toBe(modeOf(path.join(modelDir, "hub-org")));

    const fetches = watchFetch();
    const local = new LocalProvider({ model: MODEL, modelDir });
    try {
      const binding = await local.open();
      expect(binding.dim).toBe(48);
      expect(binding.modelDigest).toBe(result.digest);
      expect((await local.embed(["蓝色马克杯", "blue mug"])).map((v) => v.length)).toEqual([48, 48]);
    } finally {
      fetches.restore();
      await local.close();
    }
    expect(fetches.calls).toEqual([]);
    expect(hub.requests).toHaveLength(QUANTIZED_FILES.length);
  });

  it("fetches onnx/model.onnx instead of the quantized file when quantized is false", async () => {
    const modelDir = tempDir("dream-models-");
    const result = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url, quantized: false });
    const files = [...QUANTIZED_FILES.slice(0, 3), "onnx/model.onnx"];
    expect(result.files).toEqual(files);
    expect(hub.requests).toEqual(expectedRequests(files));
    expect((await new LocalProvider({ model: MODEL, modelDir, quantized: false }).open()).modelDigest).toBe(result.digest);
  });

  it("fails on a 404 naming the file and the host, and leaves nothing LocalProvider would accept", async () => {
    const modelDir = tempDir("dream-models-");
    hub.missing.add("onnx/model_quantized.onnx");
    const error = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelDownloadFailed);
    const failure = error as ModelDownloadFailed;
    expect(failure).toMatchObject({ code: "MODEL_DOWNLOAD_FAILED", file: "onnx/model_quantized.onnx", status: 404, host: new URL(hub.url).host });
    expect(failure.message).toContain("onnx/model_quantized.onnx");
    expect(failure.message).toContain(new URL(hub.url).host);
    expect(hub.requests).toEqual(expectedRequests(QUANTIZED_FILES));
    expect(snapshotFolder(modelDir)).toEqual([]);
    const opened = await new LocalProvider({ model: MODEL, modelDir }).open().catch((caught: unknown) => caught);
    expect(opened).toBeInstanceOf(EmbeddingUnavailable);
    expect((opened as EmbeddingUnavailable).reason).toBe("model_not_cached");
  });

  it("fails with a timeout naming the host when a file never arrives, keeping the previous model whole", async () => {
    const modelDir = tempDir("dream-models-");
    writeTinyModel(modelDir, MODEL, 32);
    const before = snapshotFolder(modelDir);
    hub.silent.add("tokenizer.json");
    const error = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url, timeoutMs: 300 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelDownloadFailed);
    expect((error as Error).message).toBe(`Could not download tokenizer.json of ${MODEL} from ${new URL(hub.url).host}: no complete answer within 300 ms`);
    expect(hub.requests).toEqual(expectedRequests(QUANTIZED_FILES.slice(0, 2)));
    expect(snapshotFolder(modelDir)).toEqual(before);
    expect((await new LocalProvider({ model: MODEL, modelDir }).open()).dim).toBe(32);
  });

  it("replaces an existing model whole and keeps the files it did not fetch", async () => {
    const modelDir = tempDir("dream-models-");
    const old = writeTinyModel(modelDir, MODEL, 32);
    const oldFullModel = sha256(path.join(old.folder, "onnx", "model.onnx"));
    const result = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url });
    expect((await new LocalProvider({ model: MODEL, modelDir }).open()).modelDigest).toBe(result.digest);
    expect(sha256(path.join(old.folder, "onnx", "model.onnx"))).toBe(oldFullModel);
    expect(sha256(path.join(old.folder, "onnx", "model_quantized.onnx"))).toBe(sha256(path.join(served.folder, "onnx", "model_quantized.onnx")));
    expect(fs.readdirSync(path.join(modelDir, "hub-org"))).toEqual(["tiny-zh"]);
  });

  it("fails naming the host when nothing listens there", async () => {
    const modelDir = tempDir("dream-models-");
    const url = hub.url;
    await hub.close();
    hub = await startHub(served);
    const error = await downloadModel({ model: MODEL, modelDir, remoteHost: url }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelDownloadFailed);
    expect((error as Error).message).toBe(`Could not download config.json of ${MODEL} from ${new URL(url).host}: ECONNREFUSED`);
    expect(snapshotFolder(modelDir)).toEqual([]);
  });

  it("refuses a model id that would leave modelDir, before any request", async () => {
    const modelDir = tempDir("dream-models-");
    for (const model of ["../escape", "org/..", "/abs/path", "org/name/extra", "noslash"]) {
      const error = await downloadModel({ model, modelDir, remoteHost: hub.url }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DreamError);
      expect((error as DreamError).code).toBe("INVALID_FIELD");
    }
    expect(hub.requests).toEqual([]);
    expect(fs.readdirSync(modelDir)).toEqual([]);
  });
});

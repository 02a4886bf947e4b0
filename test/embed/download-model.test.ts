// downloadModel against a local server that speaks the hub's file protocol (test/embed/hub-server.ts):
// the files land where LocalProvider loads them offline; sizes and hashes are checked; an
// interrupted transfer resumes; a failed download never leaves a half model where one is loaded.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { downloadModel, ModelDownloadFailed, partialFolder, type DownloadProgress } from "../../bridge/embed/download-model";
import { LocalProvider } from "../../bridge/embed/local-provider";
import { EmbeddingUnavailable } from "../../bridge/embed/provider";
import { DreamError } from "../../bridge/protocol/errors";
import { tempDir } from "../store/helpers";
import { startHub, type Hub } from "./hub-server";
import { snapshotFolder, watchFetch, writeTinyModel, type TinyModel } from "./tiny-model";

const MODEL = "hub-org/tiny-zh";
const QUANTIZED_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"];

// Byte-for-byte comparisons through a hash: jest's deep equality walks multi-megabyte buffers slowly.
const sha256 = (file: string): string => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

const fileRequests = (hub: Hub, method: string): string[] => hub.requests.filter((request) => request.startsWith(`${method} /${MODEL}/`)).map((request) => request.split(" ")[1].slice(`/${MODEL}/resolve/main/`.length));

describe("downloadModel from a hub-shaped local server", () => {
  let served: TinyModel;
  let hub: Hub;

  beforeAll(() => {
    served = writeTinyModel(tempDir("dream-hub-"), MODEL, 48, 3);
  });
  beforeEach(async () => {
    hub = await startHub(MODEL, served.folder);
  });
  afterEach(() => hub.close());

  it("puts the model's files into modelDir, where LocalProvider then loads them offline", async () => {
    const modelDir = tempDir("dream-models-");
    const result = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url });
    expect(result.files).toEqual(QUANTIZED_FILES);
    // Sizes and hashes first (HEAD), then the bytes; the LFS file comes from the hub's CDN redirect.
    expect(fileRequests(hub, "HEAD")).toEqual(QUANTIZED_FILES);
    expect(fileRequests(hub, "GET")).toEqual(QUANTIZED_FILES.slice(0, 3));
    expect(hub.requests.filter((request) => request.startsWith("GET /cdn/"))).toHaveLength(1);
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
  });

  it("fetches onnx/model.onnx instead of the quantized file when quantized is false", async () => {
    const modelDir = tempDir("dream-models-");
    const result = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url, quantized: false });
    const files = [...QUANTIZED_FILES.slice(0, 3), "onnx/model.onnx"];
    expect(result.files).toEqual(files);
    expect(fileRequests(hub, "HEAD")).toEqual(files);
    expect((await new LocalProvider({ model: MODEL, modelDir, quantized: false }).open()).modelDigest).toBe(result.digest);
  });

  it("fails on a 404 naming the file and the host before fetching anything, and leaves nothing LocalProvider would accept", async () => {
    const modelDir = tempDir("dream-models-");
    hub.missing.add("onnx/model_quantized.onnx");
    const error = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelDownloadFailed);
    const failure = error as ModelDownloadFailed;
    expect(failure).toMatchObject({ code: "MODEL_DOWNLOAD_FAILED", file: "onnx/model_quantized.onnx", status: 404, reason: "not_found", host: new URL(hub.url).host });
    expect(failure.message).toBe(`Could not download onnx/model_quantized.onnx of ${MODEL} from ${new URL(hub.url).host}: HTTP 404 (no such file for this model)`);
    expect(fileRequests(hub, "HEAD")).toEqual(QUANTIZED_FILES);
    expect(fileRequests(hub, "GET")).toEqual([]);
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
    expect((error as ModelDownloadFailed).reason).toBe("timeout");
    expect(fileRequests(hub, "HEAD")).toEqual(QUANTIZED_FILES.slice(0, 2));
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
    hub = await startHub(MODEL, served.folder);
    const error = await downloadModel({ model: MODEL, modelDir, remoteHost: url }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelDownloadFailed);
    expect((error as Error).message).toBe(`Could not download config.json of ${MODEL} from ${new URL(url).host}: ECONNREFUSED`);
    expect((error as ModelDownloadFailed).reason).toBe("network");
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

  it("resumes an interrupted transfer with a Range request, keeping the bytes it had, and ends with the exact file", async () => {
    const modelDir = tempDir("dream-models-");
    const onnx = "onnx/model_quantized.onnx";
    const size = fs.statSync(path.join(served.folder, onnx)).size;
    hub.cutAfter.set(onnx, Math.floor(size / 2));
    const first = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url }).catch((caught: unknown) => caught);
    expect(first).toBeInstanceOf(ModelDownloadFailed);
    expect(first).toMatchObject({ reason: "network", file: onnx });
    expect((first as Error).message).toContain("run the download again to resume");
    const kept = fs.statSync(path.join(partialFolder(modelDir, MODEL), onnx)).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(size);
    expect(fs.existsSync(path.join(modelDir, MODEL))).toBe(false);

    hub.requests.length = 0;
    const second = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url });
    expect(second.resumedBytes).toBe(kept);
    // The three small files were complete: only the model file is fetched again, from where it stopped.
    expect(hub.requests.filter((request) => request.startsWith("GET "))).toEqual([expect.stringMatching(new RegExp(`^GET /cdn/[0-9a-f]{64} bytes=${kept}-$`))]);
    expect(sha256(path.join(modelDir, MODEL, onnx))).toBe(sha256(path.join(served.folder, onnx)));
    expect(fs.existsSync(partialFolder(modelDir, MODEL))).toBe(false);
    expect((await new LocalProvider({ model: MODEL, modelDir }).open()).modelDigest).toBe(second.digest);
  });

  it.each([
    ["onnx/model_quantized.onnx", "sha256"],
    ["tokenizer.json", "git-sha1"],
  ])("refuses %s when its bytes do not match the hub's %s, deletes it, and installs nothing", async (file, algorithm) => {
    const modelDir = tempDir("dream-models-");
    hub.wrongHash.add(file);
    const error = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelDownloadFailed);
    expect(error).toMatchObject({ reason: "hash_mismatch", file });
    expect((error as Error).message).toContain(`its ${algorithm} is`);
    expect((error as Error).message).toContain("the file was deleted and is not used");
    expect(fs.existsSync(path.join(partialFolder(modelDir, MODEL), file))).toBe(false);
    expect(fs.existsSync(path.join(modelDir, MODEL))).toBe(false);
    const opened = await new LocalProvider({ model: MODEL, modelDir }).open().catch((caught: unknown) => caught);
    expect((opened as EmbeddingUnavailable).reason).toBe("model_not_cached");
  });

  it("checks the disk first: too little space fails before any byte is fetched, naming what is needed and free", async () => {
    const modelDir = tempDir("dream-models-");
    const error = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url, freeBytes: () => 1024 * 1024 }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "MODEL_DOWNLOAD_FAILED", reason: "disk_space" });
    expect((error as Error).message).toMatch(/^The model needs \d+ MB more on the disk of .*, and 1 MB is free/);
    expect(fileRequests(hub, "GET")).toEqual([]);
  });

  it("reports checking, then downloading with growing byte counts, then verifying, with the total from the hub", async () => {
    const modelDir = tempDir("dream-models-");
    const seen: DownloadProgress[] = [];
    await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url, onProgress: (progress) => seen.push(progress) });
    const total = QUANTIZED_FILES.reduce((sum, file) => sum + fs.statSync(path.join(served.folder, file)).size, 0);
    expect(seen[0]).toMatchObject({ state: "checking", model: MODEL, files: 4, filesDone: 0 });
    const downloading = seen.filter((progress) => progress.state === "downloading");
    expect(downloading.every((progress) => progress.bytesTotal === total)).toBe(true);
    expect(downloading.map((progress) => progress.bytesDone)).toEqual([...downloading.map((progress) => progress.bytesDone)].sort((a, b) => a - b));
    expect(downloading.at(-1)).toMatchObject({ filesDone: 4, bytesDone: total });
    expect(seen.filter((progress) => progress.state === "verifying").map((progress) => progress.file)).toEqual(QUANTIZED_FILES);
  });

  it("works with a mirror that answers no HEAD: sizes come from the GET, and no hash is claimed", async () => {
    const modelDir = tempDir("dream-models-");
    hub.noHead = true;
    const result = await downloadModel({ model: MODEL, modelDir, remoteHost: hub.url });
    expect((await new LocalProvider({ model: MODEL, modelDir }).open()).modelDigest).toBe(result.digest);
  });

  it("stops when cancelled, keeping what it fetched for a later resume", async () => {
    const modelDir = tempDir("dream-models-");
    hub.throttle = 20_000;
    const controller = new AbortController();
    const error = await downloadModel({
      model: MODEL,
      modelDir,
      remoteHost: hub.url,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.state === "downloading" && progress.bytesDone > 0) controller.abort();
      },
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: "cancelled" });
    expect(fs.existsSync(path.join(modelDir, MODEL))).toBe(false);
  });
});

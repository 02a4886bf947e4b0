// download-model and reembed as a user runs them: the built CLI, a bridge started on demand, and
// a local stand-in for the model hub (this machine cannot reach a real one).
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { writeTinyModel } from "../embed/tiny-model";
import { tempDir } from "../store/helpers";
import { runCli, runCliAsync } from "./run-cli";

const MODEL = "hub-org/tiny-cli";

describe("embedding commands of the CLI", () => {
  let hub: http.Server;
  let hubUrl: string;
  const requests: string[] = [];
  beforeAll(async () => {
    const served = writeTinyModel(tempDir("hub-"), MODEL, 32, 3);
    const prefix = `/${MODEL}/resolve/main/`;
    hub = http.createServer((req, res) => {
      requests.push(req.url ?? "");
      const file = req.url?.startsWith(prefix) ? req.url.slice(prefix.length) : "";
      const full = path.join(served.folder, file);
      if (!file || !fs.existsSync(full)) res.writeHead(404).end("Entry not found");
      else res.writeHead(200).end(fs.readFileSync(full));
    });
    await new Promise<void>((resolve) => hub.listen(0, "127.0.0.1", resolve));
    hubUrl = `http://127.0.0.1:${(hub.address() as AddressInfo).port}/`;
  });
  afterAll(async () => new Promise<void>((resolve) => hub.close(() => resolve())));

  it("downloads a model once, then embeds every memory and recalls dense + FTS offline", async () => {
    const dataDir = path.join(tempDir("cli-embed-"), "data");
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, "bridge-config.json"), JSON.stringify({ embedding: { provider: "local", model: MODEL } }));
    try {
      const download = await runCliAsync(["--data-dir", dataDir, "download-model", "--remote-host", hubUrl]);
      expect(download.code).toBe(0);
      expect(download.stdout).toMatch(/files, digest sha256:[0-9a-f]{64}/);
      expect(fs.existsSync(path.join(dataDir, "models", "hub-org", "tiny-cli", "onnx", "model_quantized.onnx"))).toBe(true);
      const downloads = requests.length;

      for (const text of ["今天逛街买了一个蓝色马克杯", "the key is in the flower pot", "team meeting on Friday"]) {
        expect(runCli(["--data-dir", dataDir, "add", "--text", text, "--source-type", "user_message"]).code).toBe(0);
      }
      const reembed = runCli(["--data-dir", dataDir, "reembed", "--json"]);
      expect(reembed.code).toBe(0);
      expect(JSON.parse(reembed.stdout)).toMatchObject({ provider: "local", model: MODEL, backlog: 0, coverage: { records: 3, current_vectors: 3 } });
      const search = JSON.parse(runCli(["--data-dir", dataDir, "search", "蓝色马克杯", "--json"]).stdout);
      expect(search.receipt.recall).toBe("Recall: dense + FTS");
      expect(requests.length).toBe(downloads);
    } finally {
      runCli(["--data-dir", dataDir, "stop"]);
    }
  });

  it("reports a failed download with its code and leaves no model where the provider looks", async () => {
    const dataDir = tempDir("cli-embed-fail-");
    const out = await runCliAsync(["--data-dir", dataDir, "download-model", "--model", "hub-org/absent", "--remote-host", hubUrl]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("error [MODEL_DOWNLOAD_FAILED]");
    expect(fs.existsSync(path.join(dataDir, "models", "hub-org", "absent"))).toBe(false);
  });
});

// After an install a user has a `dsh-dream` command (every hint names it) and, when asked, the local
// embedding model: --download-model against a local server that speaks the hub's file protocol,
// and the question an interactive run asks (driven through a real pseudo-terminal with `script`).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startHub, type Hub } from "../embed/hub-server";
import { writeTinyModel } from "../embed/tiny-model";
import { dshNode } from "../plugin/dsh-host-driver";
import { INSTALLER, installDir, makeBinDir, makeBundle, makeDshHome, removeTempDirs, runAsync, runInstaller, runInstallerAsync, snapshotTree, tempDir, userHome } from "./installer-fixtures";

const DEFAULT_MODEL = "Xenova/bge-small-zh-v1.5";

afterEach(removeTempDirs);

describe("the dsh-dream command after an install", () => {
  it("writes <home>/bin/dsh-dream, which runs the installed CLI with the install's DSH home, and says how to put it on PATH", () => {
    const home = makeDshHome();
    const bin = makeBinDir();
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });

    expect(run.status).toBe(0);
    const launcher = path.join(home, "bin", "dsh-dream");
    expect(run.report.cli).toEqual({ launcher, binDir: path.join(home, "bin"), onPath: false });
    expect(run.report.notes).toContain(`The dsh-dream command is in ${path.join(home, "bin")}, which is not on PATH: add it (e.g. in ~/.profile: export PATH="${path.join(home, "bin")}:$PATH"), or run ${launcher} directly.`);
    expect(fs.readFileSync(launcher, "utf8")).toContain(`exec node '${path.join(installDir(home), "dist", "cli.cjs")}' "$@"`);
    expect(fs.statSync(launcher).mode & 0o111).toBe(0o111);
    expect(fs.readFileSync(`${launcher}.cmd`, "utf8")).toContain(`node "${path.join(installDir(home), "dist", "cli.cjs")}" %*\r\n`);

    // Run as a user would: `node` on PATH, DSH_HOME unset; the data directory it reports is the install's.
    const help = spawnSync(launcher, ["help"], { encoding: "utf8", env: { PATH: path.dirname(dshNode()), HOME: userHome(bin) } });
    expect([help.status, help.stdout]).toEqual([0, expect.stringContaining("usage: dsh-dream")]);
    const where = spawnSync(launcher, ["download-model", "--model", "not-a-model"], { encoding: "utf8", env: { PATH: path.dirname(dshNode()), HOME: userHome(bin) } });
    expect(where.stderr).toContain('model must look like "org/name"');
  });

  it("links the command into ~/.local/bin when that folder is on PATH, and uninstall removes the link, the launchers and the bin folder", () => {
    const home = makeDshHome();
    const bin = makeBinDir();
    const local = path.join(userHome(bin), ".local", "bin");
    fs.mkdirSync(local, { recursive: true });
    const env = { PATH: `${bin}:${local}` };
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin, env });

    expect(run.report.cli).toMatchObject({ onPath: true, linked: path.join(local, "dsh-dream") });
    expect(fs.readlinkSync(path.join(local, "dsh-dream"))).toBe(path.join(home, "bin", "dsh-dream"));
    expect(run.report.notes).toContain(`The dsh-dream command is ready (linked in ${local}): try \`dsh-dream status\`.`);

    expect(runInstaller(["--dsh-home", home, "--uninstall"], { bin, env }).status).toBe(0);
    expect(fs.readdirSync(local)).toEqual([]);
    expect(fs.existsSync(path.join(home, "bin"))).toBe(false);
  });

  it("leaves someone else's dsh-dream in ~/.local/bin alone", () => {
    const home = makeDshHome();
    const bin = makeBinDir();
    const local = path.join(userHome(bin), ".local", "bin");
    fs.mkdirSync(local, { recursive: true });
    fs.writeFileSync(path.join(local, "dsh-dream"), "#!/bin/sh\necho mine\n", { mode: 0o755 });
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin, env: { PATH: `${bin}:${local}` } });

    expect(run.status).toBe(0);
    expect(run.report.cli).toEqual({ launcher: path.join(home, "bin", "dsh-dream"), binDir: path.join(home, "bin"), onPath: false });
    expect(fs.readFileSync(path.join(local, "dsh-dream"), "utf8")).toBe("#!/bin/sh\necho mine\n");
  });

  it("refuses to overwrite a <home>/bin/dsh-dream it did not write, and rolls back byte for byte", () => {
    const home = makeDshHome();
    fs.mkdirSync(path.join(home, "bin"));
    fs.writeFileSync(path.join(home, "bin", "dsh-dream"), "#!/bin/sh\necho someone else's\n", { mode: 0o755 });
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin: makeBinDir() });

    expect(run.status).toBe(1);
    expect(run.report.error?.message).toContain(`${path.join(home, "bin", "dsh-dream")} exists and was not written by this installer`);
    expect(run.report.rollback?.failures).toEqual([]);
    expect(snapshotTree(home)).toEqual(before);
  });
});

describe("the local model at install time", () => {
  let hub: Hub;
  let served: string;

  // Per test: afterEach removes every temporary folder, the served model's too.
  beforeEach(async () => {
    served = writeTinyModel(tempDir("installer-hub"), DEFAULT_MODEL, 32, 4).folder;
    hub = await startHub(DEFAULT_MODEL, served);
  });
  afterEach(() => hub.close());

  const modelFile = (home: string) => path.join(home, "dsh-dream", "models", ...DEFAULT_MODEL.split("/"), "onnx", "model_quantized.onnx");

  it("--download-model --mirror fetches the default model into the memory folder with the installed CLI", async () => {
    const home = makeDshHome();
    const run = await runInstallerAsync(["--dsh-home", home, "--bundle", makeBundle(), "--download-model", "--mirror", hub.url], { bin: makeBinDir() });

    expect([run.status, run.report.ok, run.report.model]).toEqual([0, true, "downloaded"]);
    expect(run.report.notes).toContain("The local embedding model is downloaded: dense recall starts once DSH-DREAM is switched on.");
    expect(fs.readFileSync(modelFile(home)).equals(fs.readFileSync(path.join(served, "onnx", "model_quantized.onnx")))).toBe(true);
    // The CLI's progress went to stderr; stdout holds the JSON report only.
    expect(run.stderr).toContain(`downloading ${DEFAULT_MODEL}`);
  });

  it("keeps the install when the download fails, and says how to resume", async () => {
    const home = makeDshHome();
    hub.missing.add("onnx/model_quantized.onnx");
    const run = await runInstallerAsync(["--dsh-home", home, "--bundle", makeBundle(), "--download-model", "--mirror", hub.url], { bin: makeBinDir() });

    expect([run.status, run.report.action, run.report.model]).toEqual([0, "install", "failed"]);
    expect(run.report.notes.at(-1)).toMatch(/^The model download did not finish \(exit code 1; its message is above\)\. The install itself is complete\. Resume it with `dsh-dream download-model` or the Download button in Settings > DSH-DREAM\.$/);
    expect(run.stderr).toContain("HTTP 404 (no such file for this model)");
    expect(fs.existsSync(path.join(home, "plugins", "dsh-dream"))).toBe(true);
  });

  it("downloads for an install that is already there, changing nothing else", async () => {
    const home = makeDshHome();
    const bin = makeBinDir();
    runInstaller(["--dsh-home", home, "--bundle", makeBundle()], { bin });
    const profileBefore = snapshotTree(path.join(home, "profiles"));
    const pluginsBefore = snapshotTree(path.join(home, "plugins"));
    const run = await runInstallerAsync(["--dsh-home", home, "--bundle", makeBundle(), "--download-model", "--mirror", hub.url], { bin });

    expect([run.report.action, run.report.model]).toEqual(["already-installed", "downloaded"]);
    expect(fs.existsSync(modelFile(home))).toBe(true);
    expect(snapshotTree(path.join(home, "profiles"))).toEqual(profileBefore);
    expect(snapshotTree(path.join(home, "plugins"))).toEqual(pluginsBefore);
  });

  it.each([
    [["--mirror", "https://hf-mirror.com/"], "--mirror only works together with --download-model"],
    [["--download-model", "--mirror", "hf-mirror.com"], "--mirror must be an http:// or https:// URL"],
    [["--download-model", "--uninstall"], "--download-model goes with an install, not with --uninstall"],
  ])("refuses %j with exit 2: %s", (args, message) => {
    const run = runInstaller(["--dsh-home", makeDshHome(), ...args], { bin: makeBinDir() });
    expect([run.status, run.report.error?.code]).toEqual([2, "BAD_ARGUMENTS"]);
    expect(run.report.error?.message).toContain(message);
  });

  it.each([
    ["y", true],
    ["", false],
  ])("asks at a terminal whether to download the model; answering %j downloads: %s", async (answer, downloads) => {
    const home = makeDshHome();
    const bin = makeBinDir();
    const command = [dshNode(), INSTALLER, "--dsh-home", home, "--bundle", makeBundle()].map((part) => `'${part}'`).join(" ");
    // `script` gives the installer a real pseudo-terminal; HF_ENDPOINT points the download at the local hub.
    const result = await runAsync("script", ["-qec", command, "/dev/null"], { PATH: `${bin}:/usr/bin:/bin`, HOME: userHome(bin), DSH_DREAM_INSTALL_SKIP_DEPS: "1", HF_ENDPOINT: hub.url, TERM: "dumb" }, `${answer}\n`);

    expect(result.status).toBe(0);
    expect(result.stdout).toContain("Download the local embedding model now (about 25 MB, from huggingface.co or HF_ENDPOINT)? [y/N]");
    expect(result.stdout).toContain("DSH-DREAM installed in DSH profile");
    expect(fs.existsSync(modelFile(home))).toBe(downloads);
  });
});

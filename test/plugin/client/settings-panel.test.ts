// The settings panel in a real headless Chromium, loaded by DSH's own client module system and
// talking to the plugin's real routes in the real DSH host, backed by a real bridge.
import fs from "node:fs";
import path from "node:path";
import type { Page, Response } from "playwright-core";
import { BridgeClient } from "../../../bridge/client/bridge-client";
import { DEFAULT_CONFIG } from "../../../plugin/config";
import { startHub, type Hub } from "../../embed/hub-server";
import { writeTinyModel } from "../../embed/tiny-model";
import { tempDir } from "../../store/helpers";
import { bridgeClient, stopPluginBridge, waitFor } from "../plugin-helpers";
import { startPanelWorld, type PanelWorld } from "./browser-harness";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const SMALL = "dream-test/tiny-bert-32";
const LARGE = "dream-test/tiny-bert-48";
// Screenshots land in assets/ (listed in screenshots.json) only when asked for; otherwise in a temp dir.
const SHOT_DIR = process.env.DSH_DREAM_UPDATE_SCREENSHOTS === "1" ? path.join(ROOT, "assets") : tempDir("panel-shots-");

function models(dataDir: string): void {
  writeTinyModel(path.join(dataDir, "models"), SMALL, 32);
  writeTinyModel(path.join(dataDir, "models"), LARGE, 48, 2);
}

/** Opens the "Embedding model (advanced)" section unless it is open already. */
async function openAdvanced(page: Page): Promise<void> {
  const details = page.getByTestId("dream-advanced");
  if (!(await details.evaluate((el) => (el as unknown as { open: boolean }).open))) await details.locator("summary").click();
  await page.getByTestId("dream-provider").waitFor();
}

/** Opens the "Privacy and retention" section unless it is open already. */
async function openPrivacy(page: Page): Promise<void> {
  const details = page.getByTestId("dream-privacy");
  if (!(await details.evaluate((el) => (el as unknown as { open: boolean }).open))) await details.locator("summary").click();
  await page.getByTestId("dream-redactSecrets").waitFor();
}

/** The settings each save of the page POSTed, in order. */
function postedSettings(page: Page): Array<Record<string, any>> {
  const bodies: Array<Record<string, any>> = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && request.url().endsWith("/_dsh/holo-memory/settings")) bodies.push(JSON.parse(request.postData() ?? "null").settings);
  });
  return bodies;
}

async function openPanel(world: PanelWorld, lang = "en"): Promise<Page> {
  const page = await world.context.newPage();
  await page.goto(world.url(lang));
  await page.getByTestId("dream-settings").waitFor({ timeout: 20_000 });
  return page;
}

describe("the settings panel in DSH's web UI", () => {
  let world: PanelWorld | undefined;

  afterEach(async () => {
    if (!world) return;
    await world.close();
    await stopPluginBridge(world.dataDir);
    world = undefined;
  });

  it("renders in English and in Chinese, follows the host's locale switch, and is loaded through DSH's module loader", async () => {
    world = await startPanelWorld({ enabled: true, holographic: true, embedding: { provider: "local", model: SMALL }, recall: { timeBudgetMs: 8000 } }, { beforeBoot: models });
    await world.host.createAgent("s-1");
    await world.host.turn("s-1", "我把蓝色马克杯放在书房的窗台上了。", [{ text: "好的，记住了。" }]);
    // Embedding runs off the request path: the second turn's recall is hybrid only once the first is embedded.
    const coverage = async () => (await BridgeClient.fromDataDir(world!.dataDir).call<any>("status", {})).embedding.coverage.current_vectors;
    await waitFor(coverage, (n) => n === 2);
    await world.host.createAgent("s-2");
    await world.host.turn("s-2", "蓝色马克杯在哪里？", [{ text: "在书房的窗台上。" }]);
    await waitFor(coverage, (n) => n === 4);

    const page = await openPanel(world, "en");
    expect(await page.evaluate("window.harness.pluginExports")).toEqual(["apply", "inject", "name"]);
    await expect(page.getByTestId("nav-dsh-dream").textContent()).resolves.toBe("DSH-DREAM");
    await openAdvanced(page);
    for (const text of ["Enable long-term memory", "Holographic mode (forced full memory)", "Embedding model (advanced)", "On dimension mismatch, try lossless re-embedding"]) {
      await page.getByText(text, { exact: true }).waitFor();
    }
    await waitFor(() => page.getByTestId("dream-status-coverage").textContent(), (text) => text === "4 of 4 memories have vectors (100%)");
    await expect(page.getByTestId("dream-status-records").textContent()).resolves.toBe("4");
    await expect(page.getByTestId("dream-status-last-recall").textContent()).resolves.toBe("dense + full-text (hybrid)");

    await page.getByTestId("lang-zh").click();
    for (const text of ["启用长期记忆", "全息模式（强制完整记忆）", "向量模型（高级）", "维度不一致时，尝试无损重新向量化"]) {
      await page.getByText(text, { exact: true }).waitFor();
    }
    await expect(page.getByTestId("dream-status-coverage").textContent()).resolves.toBe("4 条记忆中有 4 条已有向量（100%）");
    await expect(page.getByTestId("dream-status-last-recall").textContent()).resolves.toBe("向量 + 全文（混合）");
    const fonts = await page.evaluate(`document.fonts.check("14px 'WenQuanYi Micro Hei'", "长期记忆")`);
    expect(fonts).toBe(true);
  });

  it("shows a new user where they stand — memory off, the model not downloaded, no memories — in English and Chinese (the release's screenshots)", async () => {
    world = await startPanelWorld({}, { env: { HF_ENDPOINT: "" } });
    const page = await openPanel(world, "en");
    await waitFor(() => page.getByTestId("dream-model-state").textContent(), (text) => text === "Xenova/bge-small-zh-v1.5 is not downloaded: recall uses keywords only until it is.");
    await expect(page.getByTestId("dream-capture-meaning").textContent()).resolves.toBe("Now: nothing is stored or recalled.");
    await expect(page.getByTestId("dream-status-memory").textContent()).resolves.toBe("off — nothing is stored or recalled");
    await expect(page.getByTestId("dream-status-bridge").textContent()).resolves.toBe("not started (long-term memory is off)");
    await expect(page.getByTestId("dream-download").textContent()).resolves.toBe("Download model");
    await expect(page.getByTestId("dream-reembed").isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: path.join(SHOT_DIR, "settings-en.png"), fullPage: true });

    await page.getByTestId("lang-zh").click();
    await waitFor(() => page.getByTestId("dream-model-state").textContent(), (text) => text === "Xenova/bge-small-zh-v1.5 尚未下载：下载前只用关键词召回。");
    await expect(page.getByTestId("dream-capture-meaning").textContent()).resolves.toBe("当前：不保存，也不召回。");
    await expect(page.getByTestId("dream-download").textContent()).resolves.toBe("下载模型");
    await page.screenshot({ path: path.join(SHOT_DIR, "settings-zh.png"), fullPage: true });
    // Opening the page started nothing and downloaded nothing.
    expect(fs.existsSync(path.join(world.dataDir, "bridge.json"))).toBe(false);
    expect(fs.existsSync(path.join(world.dataDir, "models"))).toBe(false);
  });

  it("registers its settings page only: nothing on the Plugins page, whose rows belong to host settings namespaces", async () => {
    world = await startPanelWorld({ enabled: true, holographic: true, embedding: { provider: "off" } });
    const page = await openPanel(world);
    await expect(page.getByTestId("plugins-page").textContent()).resolves.toBe("");
  });

  it("saves toggles and fields, which survive a reload and reach the plugin", async () => {
    world = await startPanelWorld({ enabled: false, holographic: false });
    const page = await openPanel(world);
    await page.getByTestId("dream-enabled").check();
    await page.getByTestId("dream-holographic").check();
    await openAdvanced(page);
    await page.getByTestId("dream-reembedOnDimensionMismatch").uncheck();
    await page.getByTestId("dream-provider").selectOption("off");
    // Fields that do not apply to a provider are hidden: nothing to fill for "off".
    await page.getByTestId("dream-provider-off-hint").waitFor();
    await expect(page.getByTestId("dream-model").count()).resolves.toBe(0);
    await expect(page.getByTestId("dream-reembedOnDimensionMismatch").count()).resolves.toBe(0);
    await page.getByTestId("dream-save").click();
    await page.getByTestId("dream-saved").waitFor();

    await page.reload();
    await page.getByTestId("dream-settings").waitFor();
    await expect(page.getByTestId("dream-enabled").isChecked()).resolves.toBe(true);
    await expect(page.getByTestId("dream-holographic").isChecked()).resolves.toBe(true);
    await expect(page.getByTestId("dream-provider").inputValue()).resolves.toBe("off");
    const saved = JSON.parse(fs.readFileSync(path.join(world.dataDir, "settings.json"), "utf8"));
    expect(saved.settings).toEqual({
      enabled: true,
      holographic: true,
      embedding: { provider: "off", model: "", baseUrl: "", reembedOnDimensionMismatch: false, mirror: "" },
      privacy: DEFAULT_CONFIG.privacy,
    });

    await world.host.createAgent("s-1");
    const turn = await world.host.turn("s-1", "测试一下。", [{ text: "好的。" }]);
    expect(turn.requests[0]!.tools).toContain("holo_search");
  });

  it("shows a field error for a bad base URL, and changes nothing", async () => {
    world = await startPanelWorld({ enabled: true });
    const page = await openPanel(world);
    await openAdvanced(page);
    await page.getByTestId("dream-provider").selectOption("openai_compatible");
    await page.getByTestId("dream-model").fill("text-embedding-3-small");
    await page.getByTestId("dream-baseUrl").fill("ftp://example.com/v1");
    await page.getByTestId("dream-holographic").check();
    await page.getByTestId("dream-save").click();

    const error = page.getByTestId("dream-error-baseUrl");
    await error.waitFor();
    await expect(error.textContent()).resolves.toBe('must be an http:// or https:// URL (got "ftp://example.com/v1")');
    await expect(page.getByTestId("dream-save-failed").isVisible()).resolves.toBe(true);
    // In Chinese the server's English words are folded under a Chinese sentence.
    await page.getByTestId("lang-zh").click();
    await waitFor(() => error.evaluate((el) => el.firstChild?.textContent ?? ""), (text) => text === "该值无效。");
    await expect(error.locator("summary").textContent()).resolves.toBe("详情");
    await expect(error.locator("pre").textContent()).resolves.toBe('must be an http:// or https:// URL (got "ftp://example.com/v1")');
    await page.getByTestId("lang-en").click();
    expect(fs.existsSync(path.join(world.dataDir, "settings.json"))).toBe(false);
    await page.reload();
    await page.getByTestId("dream-settings").waitFor();
    await expect(page.getByTestId("dream-holographic").isChecked()).resolves.toBe(false);
    await expect(page.getByTestId("dream-provider").inputValue()).resolves.toBe("local");
  });

  it("turns redaction off and sets limits for scopes: the save sends every privacy setting, the route keeps them, and removing a row removes its scope", async () => {
    world = await startPanelWorld({ enabled: false });
    const page = await openPanel(world);
    const posted = postedSettings(page);
    await expect(page.getByTestId("dream-privacy-state").textContent()).resolves.toBe("secrets are redacted; memories are kept until you forget them");
    await openPrivacy(page);
    await expect(page.getByTestId("dream-redactSecrets").isChecked()).resolves.toBe(true);
    await expect(page.getByTestId("dream-audit-maxMegabytes").inputValue()).resolves.toBe("128");
    await page.getByTestId("dream-redactSecrets").uncheck();
    await page.getByTestId("dream-retention-maxAgeDays").fill("365");
    await page.getByTestId("dream-scope-add").click();
    await page.getByTestId("dream-scope-0-scope").fill("project:demo");
    await page.getByTestId("dream-scope-0-maxAgeDays").fill("30");
    await page.getByTestId("dream-scope-add").click();
    await page.getByTestId("dream-scope-1-scope").fill("global");
    await page.getByTestId("dream-scope-1-maxMemories").fill("500");
    await page.getByTestId("dream-audit-keepQueryText").uncheck();
    await page.getByTestId("dream-audit-maxAgeDays").fill("90");
    await page.screenshot({ path: path.join(SHOT_DIR, "settings-privacy-en.png"), fullPage: true });
    await page.getByTestId("dream-save").click();
    await page.getByTestId("dream-saved").waitFor();

    const privacy = {
      redactSecrets: false,
      retention: { maxAgeDays: 365, maxMemories: 0, scopes: { "project:demo": { maxAgeDays: 30 }, global: { maxMemories: 500 } } },
      audit: { keepQueryText: false, maxAgeDays: 90, maxMegabytes: 128 },
    };
    expect(posted.map((settings) => settings.privacy)).toEqual([privacy]);
    const saved = () => JSON.parse(fs.readFileSync(path.join(world!.dataDir, "settings.json"), "utf8")).settings.privacy;
    expect(saved()).toEqual(privacy);
    // Carried to the bridge's own config at once, though memory is off and no bridge runs.
    expect(JSON.parse(fs.readFileSync(path.join(world.dataDir, "bridge-config.json"), "utf8")).privacy).toEqual(privacy);
    await expect(page.getByTestId("dream-privacy-state").textContent()).resolves.toBe("secrets are stored as typed; retention limits are set");

    await page.reload();
    await page.getByTestId("dream-settings").waitFor();
    await openPrivacy(page);
    await expect(page.getByTestId("dream-redactSecrets").isChecked()).resolves.toBe(false);
    await expect(page.getByTestId("dream-scope-0-scope").inputValue()).resolves.toBe("project:demo");
    await expect(page.getByTestId("dream-scope-1-maxAgeDays").inputValue()).resolves.toBe("");
    await page.getByTestId("dream-scope-0-remove").click();
    await expect(page.getByTestId("dream-scope-0-scope").inputValue()).resolves.toBe("global");
    await page.getByTestId("dream-save").click();
    await page.getByTestId("dream-saved").waitFor();
    expect(saved().retention.scopes).toEqual({ global: { maxMemories: 500 } });
  });

  it("shows a typed non-number at its field and a scope's bad limit at its row, opening the section; saves nothing, nor two rows for one scope", async () => {
    world = await startPanelWorld({ enabled: true });
    const page = await openPanel(world);
    const posted = postedSettings(page);
    await openPrivacy(page);
    await page.getByTestId("dream-scope-add").click();
    await page.getByTestId("dream-scope-0-scope").fill("project:a.b");
    await page.getByTestId("dream-scope-add").click();
    await page.getByTestId("dream-scope-1-scope").fill("project:a.b");
    // Two rows for one scope: refused in the page, before anything is sent.
    await page.getByTestId("dream-scope-1-duplicate").waitFor();
    await page.getByTestId("dream-save").click();
    await page.getByTestId("dream-save-failed").waitFor();
    expect(posted).toEqual([]);

    await page.getByTestId("dream-scope-1-scope").fill("projects");
    await page.getByTestId("dream-scope-0-maxMemories").fill("-3");
    await page.getByTestId("dream-retention-maxAgeDays").fill("a year");
    // Folded away while the user looks elsewhere: a refusal opens it again.
    await page.getByTestId("dream-privacy").locator("summary").click();
    await page.getByTestId("dream-save").click();
    await page.getByTestId("dream-error-retention-maxAgeDays").waitFor();
    await expect(page.getByTestId("dream-privacy").evaluate((el) => (el as unknown as { open: boolean }).open)).resolves.toBe(true);
    await expect(page.getByTestId("dream-error-retention-maxAgeDays").textContent()).resolves.toBe('must be an integer from 0 to 36500 (got "a year")');
    await expect(page.getByTestId("dream-error-scope-0-maxMemories").textContent()).resolves.toBe("must be an integer from 0 to 100000000 (got -3)");
    await expect(page.getByTestId("dream-error-scope-1-scope").textContent()).resolves.toBe('is not a scope: use "global" or "project:<name>" (got "projects")');
    expect(posted).toHaveLength(1);
    expect(fs.existsSync(path.join(world.dataDir, "settings.json"))).toBe(false);
    // In Chinese the server's English words fold under a Chinese sentence, on a row as at a field.
    await page.getByTestId("lang-zh").click();
    await waitFor(() => page.getByTestId("dream-error-scope-0-maxMemories").evaluate((el) => el.firstChild?.textContent ?? ""), (text) => text === "该值无效。");
    // Removing a row takes the rows' errors with it, rather than leaving one on the row that moves up.
    await page.getByTestId("dream-scope-0-remove").click();
    await expect(page.getByTestId("dream-scope-0-scope").inputValue()).resolves.toBe("projects");
    await expect(page.getByTestId("dream-error-scope-0-maxMemories").count()).resolves.toBe(0);
    await expect(page.getByTestId("dream-error-retention-maxAgeDays").count()).resolves.toBe(1);
  });

  it("shows the privacy section in Chinese", async () => {
    world = await startPanelWorld({ enabled: false });
    const page = await openPanel(world, "zh");
    await expect(page.getByTestId("dream-privacy").locator("summary").textContent()).resolves.toBe("隐私与保留期限密钥会被遮蔽；记忆会一直保留，直到你删除");
    await openPrivacy(page);
    for (const text of ["保存前遮蔽密钥", "保留期限", "为特定范围单独设置", "召回审计日志", "在审计日志中保留召回查询的原文"]) {
      await page.getByText(text, { exact: true }).waitFor();
    }
    const label = (field: string) => page.locator(`[data-field="${field}"] label`).textContent();
    await expect(label("retention-maxAgeDays")).resolves.toBe("删除超过天的记忆（0 = 一直保留）");
    await expect(label("retention-maxMemories")).resolves.toBe("每个范围最多保留条记忆（0 = 不限）");
    await expect(label("audit-maxMegabytes")).resolves.toBe("审计日志大小上限MB");
    await page.getByTestId("dream-scope-add").click();
    await page.getByTestId("dream-scope-0-scope").fill("project:demo");
    await page.getByTestId("dream-scope-0-maxAgeDays").fill("30");
    await page.screenshot({ path: path.join(SHOT_DIR, "settings-privacy-zh.png"), fullPage: true });
    await expect(page.getByTestId("dream-scope-0-maxAgeDays").getAttribute("placeholder")).resolves.toBe("同上");
    await expect(page.getByTestId("dream-scope-0-remove").textContent()).resolves.toBe("移除");
    await expect(page.getByTestId("dream-retention-erases").textContent()).resolves.toBe("限制通过擦除执行：被遗忘的记忆会从所有保存过它的文件中彻底擦除，而不只是隐藏，且无法恢复。");
  });

  it("takes an API key write-only: it never appears in the page or in any response", async () => {
    const secret = "sk-browser-secret-5150";
    world = await startPanelWorld({ enabled: true, embedding: { provider: "openai_compatible", model: "text-embedding-3-small", baseUrl: "http://127.0.0.1:9/v1" } });
    const page = await openPanel(world);
    const bodies: string[] = [];
    page.on("response", (response: Response) => void response.text().then((text) => bodies.push(text), () => undefined));
    await openAdvanced(page);
    await page.getByTestId("dream-apiKey").fill(secret);
    await expect(page.getByTestId("dream-apiKey").getAttribute("type")).resolves.toBe("password");
    await page.getByTestId("dream-save").click();
    await page.getByTestId("dream-saved").waitFor();
    await expect(page.getByTestId("dream-apiKey").inputValue()).resolves.toBe("");
    await page.getByText("A key is saved. Type a new one to replace it.", { exact: false }).waitFor();

    await page.reload();
    await page.getByTestId("dream-settings").waitFor();
    await openAdvanced(page);
    await page.getByTestId("dream-apiKey-remove").waitFor();
    await page.getByTestId("dream-refresh").click();
    await waitFor(async () => bodies.length, (n) => n >= 6);
    expect(await page.content()).not.toContain(secret);
    expect(bodies.filter((b) => b.includes(secret))).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(world.dataDir, "settings.json"), "utf8")).secrets).toEqual({ embeddingApiKey: secret });
  });

  it("re-embeds every memory after a change to a model of another dimension, showing progress until done", async () => {
    world = await startPanelWorld({ enabled: true, holographic: true, embedding: { provider: "local", model: SMALL }, recall: { timeBudgetMs: 8000 } }, { beforeBoot: models });
    await world.host.createAgent("s-1");
    await world.host.turn("s-1", "钥匙放在鞋柜里。", [{ text: "好的。" }]);
    // The bridge file is re-read on every call: saving a new model restarts the bridge on another port.
    await bridgeClient(world!.dataDir);
    const client = () => BridgeClient.fromDataDir(world!.dataDir);
    const records = Array.from({ length: 1500 }, (_, i) => ({ id: `bulk-${i}`, text: `第 ${i} 条日常记录：今天散步了 ${i % 17} 公里，天气很好。`, source_type: "user_message" }));
    for (let i = 0; i < records.length; i += 500) await client().call("import", { records: records.slice(i, i + 500) });
    await waitFor(async () => (await client().call<any>("status", {})).embedding.coverage.current_vectors, (n) => n === 1502, 60_000);

    const page = await openPanel(world);
    await openAdvanced(page);
    await page.getByTestId("dream-model").fill(LARGE);
    await page.getByTestId("dream-save").click();
    await page.getByTestId("dream-saved").waitFor();
    await page.getByTestId("dream-reembed").click();
    const progress = page.getByTestId("dream-reembed-progress");
    await progress.waitFor();
    await waitFor(() => progress.textContent(), (text) => /Re-embedding: \d+ of 1502 \(\d+%\)/.test(text ?? ""), 30_000);
    await page.getByTestId("dream-reembed-done").waitFor({ timeout: 60_000 });
    const status = await client().call<any>("status", {});
    expect(status.embedding).toMatchObject({ model: LARGE, dim: 48, coverage: { records: 1502, current_vectors: 1502 } });
  });
});

describe("downloading the local model from the settings panel", () => {
  const HUB_MODEL = "hub-org/tiny-panel";
  let world: PanelWorld | undefined;
  let hub: Hub;
  let served: string;

  beforeAll(() => {
    served = writeTinyModel(tempDir("panel-hub-"), HUB_MODEL, 32, 5).folder;
  });
  beforeEach(async () => {
    hub = await startHub(HUB_MODEL, served);
  });
  afterEach(async () => {
    await hub.close();
    if (!world) return;
    await world.close();
    await stopPluginBridge(world.dataDir);
    world = undefined;
  });

  const onnxBytes = () => fs.statSync(path.join(served, "onnx", "model_quantized.onnx")).size;
  const installed = (dataDir: string) => path.join(dataDir, "models", ...HUB_MODEL.split("/"));

  it("shows the model as not downloaded, downloads it on the button with progress in MB and %, then shows it ready; memory stays off and no bridge starts", async () => {
    world = await startPanelWorld({ enabled: false, embedding: { provider: "local", model: HUB_MODEL, mirror: hub.url } });
    // About two seconds for the whole model, so the progress can be watched.
    hub.throttle = Math.ceil(onnxBytes() / 2);
    const page = await openPanel(world, "en");
    const state = page.getByTestId("dream-model-state");
    await waitFor(() => state.textContent(), (text) => text === `${HUB_MODEL} is not downloaded: recall uses keywords only until it is.`);
    await expect(page.getByTestId("dream-status-memory").textContent()).resolves.toBe("off — nothing is stored or recalled");
    await expect(page.getByTestId("dream-reembed").isDisabled()).resolves.toBe(true);
    await page.getByTestId("dream-download").click();

    const progress = page.getByTestId("dream-model-progress");
    await waitFor(() => progress.textContent(), (text) => /^Downloading: \d+\.\d MB of \d+\.\d MB \((\d|[1-9]\d)%\)$/.test(text ?? ""), 20_000);
    await page.screenshot({ path: path.join(SHOT_DIR, "model-download-en.png"), fullPage: true });
    await waitFor(() => state.textContent(), (text) => text === `${HUB_MODEL} is downloaded and ready.`, 30_000);
    await expect(page.getByTestId("dream-download").count()).resolves.toBe(0);
    for (const file of ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"]) {
      expect(fs.readFileSync(path.join(installed(world.dataDir), file)).equals(fs.readFileSync(path.join(served, file)))).toBe(true);
    }
    expect(fs.existsSync(path.join(world.dataDir, "bridge.json"))).toBe(false);
  });

  it("in Chinese: a 404 is a clear error with the detail folded, and a broken transfer resumes from the button", async () => {
    world = await startPanelWorld({ enabled: false, embedding: { provider: "local", model: "hub-org/absent", mirror: hub.url } });
    const host = new URL(hub.url).host;
    const page = await openPanel(world, "zh");
    const state = page.getByTestId("dream-model-state");
    await page.getByTestId("dream-download").click();
    await waitFor(() => state.textContent(), (text) => text?.startsWith(`${host} 上没有这个模型（HTTP 404）。请检查模型名或镜像地址。`) === true);
    await state.locator("summary").click();
    await expect(state.locator("pre").textContent()).resolves.toContain("HTTP 404 (no such file for this model)");
    await expect(page.getByTestId("dream-download").textContent()).resolves.toBe("重试");

    // The right model now, but the connection breaks halfway through the model file.
    const settings = await page.evaluate(async (mirror) => {
      const response = await fetch("/_dsh/holo-memory/settings", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ settings: { embedding: { model: "hub-org/tiny-panel", mirror } } }) });
      return response.status;
    }, hub.url);
    expect(settings).toBe(200);
    hub.cutAfter.set("onnx/model_quantized.onnx", Math.floor(onnxBytes() / 2));
    await page.getByTestId("dream-refresh").click();
    await waitFor(() => page.getByTestId("dream-download").textContent(), (text) => text === "下载模型");
    await page.getByTestId("dream-download").click();
    await waitFor(() => state.textContent(), (text) => text?.startsWith(`与 ${host} 的连接中断。请重试：下载会从中断处继续。`) === true, 20_000);
    const resume = page.getByTestId("dream-download");
    await waitFor(() => resume.textContent(), (text) => /^继续下载（已有 \d+\.\d MB）$/.test(text ?? ""));
    expect(fs.existsSync(installed(world.dataDir))).toBe(false);
    hub.requests.length = 0;
    await resume.click();
    await waitFor(() => state.textContent(), (text) => text === `${HUB_MODEL} 已下载，可以使用。`, 30_000);
    expect(hub.requests.filter((request) => request.startsWith("GET /cdn/"))).toEqual([expect.stringMatching(/ bytes=\d+-$/)]);
    expect(fs.readFileSync(path.join(installed(world.dataDir), "onnx", "model_quantized.onnx")).equals(fs.readFileSync(path.join(served, "onnx", "model_quantized.onnx")))).toBe(true);
    await page.screenshot({ path: path.join(SHOT_DIR, "model-ready-zh.png"), fullPage: true });
  });

  it("refuses a file whose checksum does not match, deletes it and installs nothing", async () => {
    world = await startPanelWorld({ enabled: false, embedding: { provider: "local", model: HUB_MODEL, mirror: hub.url } });
    hub.wrongHash.add("tokenizer.json");
    const page = await openPanel(world, "zh");
    await page.getByTestId("dream-download").click();
    const state = page.getByTestId("dream-model-state");
    await waitFor(() => state.textContent(), (text) => text?.startsWith("有文件与校验值不符，已删除，不会被使用。请重试，或换一个镜像。") === true, 20_000);
    expect(fs.existsSync(installed(world.dataDir))).toBe(false);
    const partial = path.join(world.dataDir, "models", "hub-org", ".tiny-panel.partial");
    expect(fs.existsSync(path.join(partial, "tokenizer.json"))).toBe(false);
  });
});

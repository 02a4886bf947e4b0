// The Memories page in a real headless Chromium, loaded by DSH's own client module system and
// talking to the plugin's real routes in the real DSH host, backed by a real bridge seeded with
// memories (a passport moved twice: 书桌抽屉 → 衣柜顶 → 保险箱).
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { BridgeClient } from "../../../bridge/client/bridge-client";
import { tempDir } from "../../store/helpers";
import { bridgeClient, bridgeRecords, stopPluginBridge, waitFor } from "../plugin-helpers";
import { translator } from "../../../plugin/client/i18n";
import { retrievers } from "../../../plugin/client/memories-words";
import { ALL_SEEDS, PASSPORT } from "../routes/memory-seeds";
import { startPanelWorld, type PanelWorld } from "./browser-harness";

const ROOT = path.resolve(__dirname, "..", "..", "..");
// Screenshots land in assets/ (listed in screenshots.json) only when asked for; otherwise in a temp dir.
const SHOT_DIR = process.env.DSH_DREAM_UPDATE_SCREENSHOTS === "1" ? path.join(ROOT, "assets") : tempDir("memories-shots-");
// Keywords only: no model to download, and ranks that do not depend on one.
const MEMORY_ON = { enabled: true, embedding: { provider: "off" } };


let world: PanelWorld | undefined;

afterEach(async () => {
  if (!world) return;
  await world.close();
  await stopPluginBridge(world.dataDir);
  world = undefined;
});

async function seededWorld(): Promise<PanelWorld> {
  const started = await startPanelWorld(MEMORY_ON);
  world = started;
  const client = await bridgeClient(started.dataDir);
  const report = await client.call<{ added: number }>("import", { records: ALL_SEEDS });
  expect(report.added).toBe(ALL_SEEDS.length);
  return started;
}

/** Opens DSH Settings → Memories, in UTC so that the times shown are the seeds' own. */
async function openMemories(from: PanelWorld, lang = "en"): Promise<Page> {
  const context = await from.browser.newContext({ viewport: { width: 1000, height: 900 }, timezoneId: "UTC", acceptDownloads: true });
  const page = await context.newPage();
  await page.goto(from.url(lang));
  await page.getByTestId("nav-dsh-dream-memories").click();
  await page.getByTestId("mem-page").waitFor({ timeout: 20_000 });
  return page;
}

const text = (page: Page, testid: string) => page.getByTestId(testid).textContent();
/** The ids of the memory rows shown, in order. */
const rowIds = (page: Page, within: string) =>
  page.getByTestId(within).locator("[data-testid^=mem-row-]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-testid")!.slice("mem-row-".length)));

async function search(page: Page, query: string, mode: "latest" | "timeline"): Promise<string[]> {
  await page.getByTestId("mem-tab-search").click();
  await page.getByTestId("mem-search-query").fill(query);
  await page.getByTestId(`mem-mode-${mode}`).click();
  const answered = page.waitForResponse((response) => response.url().endsWith("/memories/search"));
  await page.getByTestId("mem-search-go").click();
  await answered;
  await page.getByTestId("mem-search-results").waitFor();
  return rowIds(page, "mem-search-results");
}

async function filterContains(page: Page, words: string): Promise<void> {
  await page.getByTestId("mem-tab-list").click();
  await page.getByTestId("mem-filter-contains").fill(words);
  await page.getByTestId("mem-filter-apply").click();
  await waitFor(() => rowIds(page, "mem-list"), (ids) => ids.length > 0 && ids.length < 20);
}

async function openDetail(page: Page, id: string, tab: "list" | "search" = "list"): Promise<void> {
  await page.getByTestId(`mem-tab-${tab}`).click();
  await page.getByTestId(tab === "list" ? "mem-list" : "mem-search").getByTestId(`mem-row-${id}`).click();
  await waitFor(() => page.getByTestId("mem-fact-id").textContent(), (shown) => shown === id);
}

describe("the Memories page in DSH's web UI", () => {
  it("searches for the passport's current place in latest mode and for every place in timeline mode, and says why", async () => {
    const page = await openMemories(await seededWorld());
    await expect(page.getByTestId("nav-dsh-dream-memories").textContent()).resolves.toBe("Memories");
    await expect(text(page, "mem-counts")).resolves.toBe("25 memories · 0 quarantined · 5 sessions");
    expect(await search(page, "护照在哪里？", "latest")).toEqual(["m-3"]);
    await expect(page.getByTestId("mem-row-m-3").textContent()).resolves.toContain("words #3, current state of an asked slot");
    await page.getByTestId("mem-search-why").locator("summary").click();
    await expect(text(page, "mem-why-m-1")).resolves.toBe(`${PASSPORT[0].text}5 Jan 2025, 09:00 · You · words #2an older value (“书桌抽屉”); the current one is “保险箱”`);
    await expect(text(page, "mem-why-held")).resolves.toBe("护照 — where it is: the current value “保险箱” set aside 2 older value(s)1 withheld: an acknowledgement says nothing on its own");
    expect(await search(page, "护照在哪里？", "timeline")).toEqual(["m-1", "m-2", "m-3"]);
  });

  it("lists memories newest first in pages of 20, and filters them by words, speaker, status and dates", async () => {
    const page = await openMemories(await seededWorld());
    await waitFor(() => text(page, "mem-range"), (range) => range === "1–20 of 25");
    expect((await rowIds(page, "mem-list")).slice(0, 3)).toEqual(["n-20", "n-19", "n-18"]);
    await expect(page.getByTestId("mem-prev").isDisabled()).resolves.toBe(true);
    await page.getByTestId("mem-next").click();
    await waitFor(() => text(page, "mem-range"), (range) => range === "21–25 of 25");
    expect(await rowIds(page, "mem-list")).toEqual(["m-5", "m-4", "m-3", "m-2", "m-1"]);
    await expect(page.getByTestId("mem-next").isDisabled()).resolves.toBe(true);

    await page.getByTestId("mem-filter-contains").fill("护照");
    await page.getByTestId("mem-filter-source").selectOption("user_message");
    await page.getByTestId("mem-filter-apply").click();
    await waitFor(() => text(page, "mem-range"), (range) => range === "1–3 of 3");
    expect(await rowIds(page, "mem-list")).toEqual(["m-3", "m-2", "m-1"]);
    // From 15 January to 14 February, both days included.
    await page.getByTestId("mem-filter-since").fill("2025-01-15");
    await page.getByTestId("mem-filter-until").fill("2025-02-14");
    await page.getByTestId("mem-filter-apply").click();
    await waitFor(() => rowIds(page, "mem-list"), (ids) => ids.join() === "m-3,m-2");
    await page.getByTestId("mem-filter-status").selectOption("quarantined");
    await page.getByTestId("mem-filter-apply").click();
    await page.getByTestId("mem-list-empty").waitFor();
    await page.getByTestId("mem-filter-reset").click();
    await waitFor(() => text(page, "mem-range"), (range) => range === "1–20 of 25");
  });

  it("opens a memory: its text, what it states, its slot's values over time with the current one marked, and the recalls that used it", async () => {
    const page = await openMemories(await seededWorld());
    await search(page, "护照在哪里？", "latest");
    await openDetail(page, "m-3", "search");
    await expect(text(page, "mem-detail-text")).resolves.toBe(PASSPORT[2].text);
    await expect(text(page, "mem-fact-source")).resolves.toBe("You");
    await expect(text(page, "mem-fact-time")).resolves.toBe("14 Feb 2025, 09:00");
    await expect(text(page, "mem-fact-session")).resolves.toBe("s-b, turn 1");
    await expect(text(page, "mem-states")).resolves.toBe("护照 — where it is: 保险箱");
    const marks = (id: string) => text(page, `mem-history-${id}-marks`);
    await expect(marks("m-1")).resolves.toBe("");
    await expect(marks("m-2")).resolves.toBe("");
    await expect(marks("m-3")).resolves.toBe("current, this memory");
    await expect(page.getByTestId("mem-receipts").locator("tbody tr").allTextContents()).resolves.toEqual([expect.stringMatching(/护照在哪里？latest values#1$/)]);
    await page.screenshot({ path: path.join(SHOT_DIR, "memories-detail-en.png"), fullPage: true });
    // Another value's row opens that memory.
    await page.getByTestId("mem-history-m-1").locator("button").click();
    await waitFor(() => text(page, "mem-fact-id"), (id) => id === "m-1");
    await expect(marks("m-1")).resolves.toBe("this memory");
    await page.getByTestId("mem-back").click();
    await page.getByTestId("mem-search-results").waitFor();
  });

  it("corrects a memory: the list shows the new text and the old one quarantined as replaced; quarantines with a reason and releases", async () => {
    const started = await seededWorld();
    const page = await openMemories(started);
    await filterContains(page, "护照");
    await openDetail(page, "m-3");
    await page.getByTestId("mem-edit").click();
    await page.getByTestId("mem-edit-text").fill("我把护照放进银行保险柜了。");
    await page.getByTestId("mem-edit-save").click();
    await waitFor(() => text(page, "mem-detail-text"), (shown) => shown === "我把护照放进银行保险柜了。");
    await expect(text(page, "mem-notice")).resolves.toBe("Saved. This is the corrected memory; the old one is quarantined as replaced.");
    await expect(text(page, "mem-fact-edited-from")).resolves.toBe("m-3");
    await expect(text(page, "mem-states")).resolves.toBe("护照 — where it is: 银行保险柜");
    const newId = (await text(page, "mem-fact-id"))!;
    await page.getByTestId("mem-link-m-3").click();
    await waitFor(() => text(page, "mem-fact-id"), (id) => id === "m-3");
    await expect(text(page, "mem-fact-status")).resolves.toMatch(/^quarantined — recall does not use it \(“edited: replaced by .+”, .+\)$/);
    await expect(text(page, "mem-fact-replaced-by")).resolves.toBe(newId);
    await page.getByTestId("mem-back").click();
    await waitFor(() => rowIds(page, "mem-list"), (ids) => ids.join() === `${newId},m-3,m-2,m-1`);
    await expect(page.getByTestId(`mem-row-${newId}`).textContent()).resolves.toContain("我把护照放进银行保险柜了。");
    await expect(page.getByTestId("mem-row-m-3").textContent()).resolves.toContain("quarantined");
    await expect(text(page, "mem-counts")).resolves.toBe("26 memories · 1 quarantined · 5 sessions");

    await openDetail(page, "m-2");
    await page.getByTestId("mem-quarantine").click();
    await expect(page.getByTestId("mem-quarantine-confirm").isDisabled()).resolves.toBe(true);
    await page.getByTestId("mem-quarantine-reason").fill("out of date");
    await page.getByTestId("mem-quarantine-confirm").click();
    await waitFor(() => text(page, "mem-fact-status"), (status) => status?.startsWith("quarantined — recall does not use it (“out of date”") === true);
    const client = BridgeClient.fromDataDir(started.dataDir);
    expect((await client.call<any>("get", { id: "m-2" })).record.quarantine.reason).toBe("out of date");
    await page.getByTestId("mem-release").click();
    await waitFor(() => text(page, "mem-fact-status"), (status) => status === "active — recall may use it");
    expect((await client.call<any>("get", { id: "m-2" })).record.quarantine).toBeUndefined();
  });

  it("forgets a memory only after saying it is erased from every file: then it is gone from the list, search and the bridge", async () => {
    const started = await seededWorld();
    const page = await openMemories(started);
    await filterContains(page, "护照");
    await openDetail(page, "m-3");
    await page.getByTestId("mem-forget").click();
    await expect(text(page, "mem-forget-confirm-box")).resolves.toContain("It is erased from every file that holds it");
    await page.getByTestId("mem-cancel").click();
    await expect(page.getByTestId("mem-forget-confirm-box").count()).resolves.toBe(0);
    await page.getByTestId("mem-forget").click();
    await page.getByTestId("mem-forget-confirm").click();
    await page.getByTestId("mem-notice").waitFor();
    await expect(text(page, "mem-notice")).resolves.toBe("Forgotten. It no longer appears anywhere, and is erased from every file within minutes.");
    await waitFor(() => rowIds(page, "mem-list"), (ids) => ids.join() === "m-2,m-1");
    await expect(text(page, "mem-range")).resolves.toBe("1–2 of 2");
    await page.getByTestId("mem-filter-reset").click();
    await waitFor(() => text(page, "mem-range"), (range) => range === "1–20 of 24");
    await page.getByTestId("mem-next").click();
    await waitFor(() => rowIds(page, "mem-list"), (ids) => ids.join() === "m-5,m-4,m-2,m-1");
    await expect(text(page, "mem-range")).resolves.toBe("21–24 of 24");
    expect(await search(page, "护照在哪里？", "latest")).toEqual(["m-2"]);
    const client = BridgeClient.fromDataDir(started.dataDir);
    await expect(client.call("get", { id: "m-3" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("explains the newest recall of a conversation: what the model was given, by rank and retriever, and what was held back", async () => {
    const started = await seededWorld();
    const page = await openMemories(started);
    await page.getByTestId("mem-tab-why").click();
    await page.getByTestId("mem-why-none").waitFor();
    await started.host.createAgent("s-chat");
    await started.host.turn("s-chat", "我的护照在哪里？", [{ text: "在保险箱里。" }]);
    await page.getByTestId("mem-why-refresh").click();
    await page.getByTestId("mem-receipt").waitFor();
    await expect(text(page, "mem-why-note")).resolves.toMatch(/^Session s-chat, turn \d+, .+\.$/);
    expect(await page.getByTestId("mem-why-returned").locator("li").evaluateAll((items) => items.map((item) => item.getAttribute("data-testid")))).toEqual(["mem-why-m-3"]);
    await expect(text(page, "mem-why-m-3")).resolves.toMatch(/^我把护照放进保险箱了。14 Feb 2025, 09:00 · You · words #\d+, current state of an asked slot$/);
    await expect(page.getByTestId("mem-why-lower").locator("li").count()).resolves.toBeGreaterThanOrEqual(3);
    await expect(text(page, "mem-why-m-2")).resolves.toContain("an older value (“衣柜顶”); the current one is “保险箱”");
    await expect(text(page, "mem-why-m-4")).resolves.toContain("withheld: an acknowledgement says nothing on its own");
    await page.screenshot({ path: path.join(SHOT_DIR, "memories-why-en.png"), fullPage: true });
    await page.getByTestId("lang-zh").click();
    await waitFor(() => text(page, "mem-why-m-2"), (shown) => shown?.includes("旧值（“衣柜顶”）；当前值是“保险箱”") === true);
    await expect(text(page, "mem-why-held")).resolves.toContain("护照 — 位置：当前值“保险箱”取代了 2 个旧值");
    await page.screenshot({ path: path.join(SHOT_DIR, "memories-why-zh.png"), fullPage: true });
  });

  it("exports every memory as an NDJSON download that dsh-dream import reads back", async () => {
    const started = await seededWorld();
    const page = await openMemories(started);
    await page.getByTestId("mem-export").waitFor();
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("mem-export").click()]);
    expect(download.suggestedFilename()).toMatch(/^dsh-dream-memories-\d{4}-\d\d-\d\d\.ndjson$/);
    const lines = fs.readFileSync((await download.path())!, "utf8").trimEnd().split("\n");
    const exported = lines.map((line) => JSON.parse(line));
    expect(exported.map((record) => record.id)).toEqual(ALL_SEEDS.map((seed) => seed.id));
    expect(exported).toEqual(await bridgeRecords(BridgeClient.fromDataDir(started.dataDir)));
  });

  it("says memory is off, and starts no bridge, when long-term memory is off", async () => {
    world = await startPanelWorld({});
    const page = await openMemories(world);
    await expect(text(page, "mem-off")).resolves.toBe("Long-term memory is off, and no memory bridge is running, so there is nothing to show. Turn memory on in Settings → DSH-DREAM to browse what it keeps.");
    await expect(page.getByTestId("mem-list").count()).resolves.toBe(0);
    await expect(page.getByTestId("mem-export").count()).resolves.toBe(0);
    expect(fs.existsSync(path.join(world.dataDir, "bridge.json"))).toBe(false);
  });

  it("shows the list, the search and a memory in Chinese, following the host's locale (the release's screenshots)", async () => {
    const started = await seededWorld();
    await BridgeClient.fromDataDir(started.dataDir).call("quarantine", { id: "n-18", reason: "out of date" });
    const page = await openMemories(started, "en");
    await waitFor(() => text(page, "mem-range"), (range) => range === "1–20 of 25");
    await expect(page.getByTestId("mem-row-n-18").textContent()).resolves.toBe("孩子的钢琴课改到周六上午十点。5 Mar 2025, 09:00 · Youquarantined");
    await page.screenshot({ path: path.join(SHOT_DIR, "memories-en.png"), fullPage: true });
    await page.getByTestId("lang-zh").click();
    await expect(page.getByTestId("nav-dsh-dream-memories").textContent()).resolves.toBe("记忆");
    await waitFor(() => text(page, "mem-range"), (range) => range === "第 1–20 条，共 25 条");
    await expect(text(page, "mem-counts")).resolves.toBe("共 25 条记忆 · 1 条已隔离 · 5 个会话");
    await expect(page.getByTestId("mem-row-n-18").textContent()).resolves.toBe("孩子的钢琴课改到周六上午十点。2025年3月5日 09:00 · 你已隔离");
    await expect(page.getByTestId("mem-tab-list").textContent()).resolves.toBe("全部记忆");
    await expect(page.getByTestId("mem-filter-source").locator("option").allTextContents()).resolves.toEqual(["全部", "你", "助手", "事实", "工具结果"]);
    await page.screenshot({ path: path.join(SHOT_DIR, "memories-zh.png"), fullPage: true });

    expect(await search(page, "护照在哪里？", "latest")).toEqual(["m-3"]);
    await expect(page.getByTestId("mem-row-m-3").textContent()).resolves.toContain("文字第 3 名，所问事项的当前状态");
    await openDetail(page, "m-3", "search");
    await expect(text(page, "mem-fact-time")).resolves.toBe("2025年2月14日 09:00");
    await expect(text(page, "mem-states")).resolves.toBe("护照 — 位置：保险箱");
    await expect(text(page, "mem-history-m-3-marks")).resolves.toBe("当前，本条");
    await page.screenshot({ path: path.join(SHOT_DIR, "memories-detail-zh.png"), fullPage: true });
    // Forgotten elsewhere meanwhile (the CLI, another tab): the refusal reads in Chinese, the server's English folded under it.
    await BridgeClient.fromDataDir(started.dataDir).call("forget", { id: "m-3" });
    await page.getByTestId("mem-forget").click();
    await page.getByTestId("mem-forget-confirm").click();
    const error = page.getByTestId("mem-action-error");
    await error.waitFor();
    await expect(error.evaluate((el) => el.firstChild?.textContent ?? "")).resolves.toBe("未找到。");
    await expect(error.locator("pre").textContent()).resolves.toMatch(/m-3/);
  });
});

describe("the Memories page's words for a receipt", () => {
  it("names each retriever that found a memory with its rank, in English and Chinese", () => {
    const candidate = { id: "m-3", lexical_rank: 2, dense_rank: 1, slot: true, act: "statement", selected: true };
    expect(retrievers(translator("en"), candidate)).toBe("words #2, meaning #1, current state of an asked slot");
    expect(retrievers(translator("zh"), candidate)).toBe("文字第 2 名，语义第 1 名，所问事项的当前状态");
    expect(retrievers(translator("en"), { ...candidate, lexical_rank: null, slot: false })).toBe("meaning #1");
    expect(retrievers(translator("en"), undefined)).toBe("");
  });
});

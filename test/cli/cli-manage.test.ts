// Seeing and correcting memories from the CLI, as a new user would: list, get, history, edit,
// forget --query, stats, a readable status, and the import/export/add paths that used to stop part-way
// or overwrite silently. One bridge serves the whole file; each test states what it changes.
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../store/helpers";
import { runCli, runCliAsync } from "./run-cli";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10, 9, 0, 0);

describe("dsh-dream memory management", () => {
  let work: string;
  let dataDir: string;
  const cli = (...args: string[]) => runCli(["--data-dir", dataDir, ...args]);
  const json = (...args: string[]) => {
    const out = cli(...args, "--json");
    if (out.code !== 0) throw new Error(`${args.join(" ")} failed: ${out.stderr}`);
    return JSON.parse(out.stdout);
  };
  const write = (name: string, rows: Array<object | string>) => {
    const file = path.join(work, name);
    fs.writeFileSync(file, rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n") + "\n");
    return file;
  };

  beforeAll(() => {
    work = tempDir("cli-manage-");
    dataDir = path.join(work, "data");
    const long = "The long report begins here. " + "Every detail of the quarterly plan is written out in full. ".repeat(10) + "THE END OF THE REPORT.";
    const file = write("seed.jsonl", [
      { id: "p1", text: "我把护照放在书桌抽屉里了。", source_type: "user_message", timestamp_ms: T0, session_id: "s1", turn: 1 },
      { id: "p2", text: "护照我挪到保险箱里了。", source_type: "user_message", timestamp_ms: T0 + 2 * DAY, session_id: "s2", turn: 1 },
      { id: "k1", text: "My car keys are under the flowerpot.", source_type: "user_message", timestamp_ms: T0 + 3 * DAY, tags: ["home"] },
      { id: "r1", text: long, source_type: "tool_result", timestamp_ms: T0 + 4 * DAY, scope: "project:work" },
      { id: "f1", text: "Office wifi name is BlueFalcon.", source_type: "system_fact", timestamp_ms: T0 + 5 * DAY },
    ]);
    expect(cli("import", file).code).toBe(0);
  });
  afterAll(() => {
    expect(cli("stop").code).toBe(0);
  });

  it("lists memories newest first, one page at a time, with filters", () => {
    expect(json("list").memories.map((m: { id: string }) => m.id)).toEqual(["f1", "r1", "k1", "p2", "p1"]);
    const page = cli("list", "--limit", "2", "--page", "2");
    expect(page.code).toBe(0);
    expect(page.stdout).toMatch(/^2026-01-13 09:00 {2}k1 {2}\[user_message\]\n {4}My car keys are under the flowerpot\.\n2026-01-12 09:00 {2}p2/);
    expect(page.stdout).toContain("memories 3-4 of 5 · page 2 of 3 · next: --page 3");
    expect(json("list", "--source-type", "user_message", "--oldest").memories.map((m: { id: string }) => m.id)).toEqual(["p1", "p2", "k1"]);
    expect(json("list", "--contains", "PASSPORT").total).toBe(0);
    expect(json("list", "--contains", "护照").memories.map((m: { id: string }) => m.id)).toEqual(["p2", "p1"]);
    expect(json("list", "--tag", "home").memories.map((m: { id: string }) => m.id)).toEqual(["k1"]);
    expect(json("list", "--scope", "project:work").memories.map((m: { id: string }) => m.id)).toEqual(["r1"]);
    expect(json("list", "--session", "s2").memories.map((m: { id: string }) => m.id)).toEqual(["p2"]);
    expect(json("list", "--since", "2026-01-13", "--until", "2026-01-15").memories.map((m: { id: string }) => m.id)).toEqual(["r1", "k1"]);
    expect(cli("list", "--page", "9").stdout).toBe("page 9 is past the end: 5 memories make 1 page(s)\n");
  });

  it("shows one memory in full: its whole text, what it states, its slot's history and the searches that used it", () => {
    const search = json("search", "护照在哪里");
    expect(search.results.map((r: { id: string }) => r.id)).toEqual(["p2"]);
    const out = cli("get", "p2");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^p2\n\n {2}护照我挪到保险箱里了。\n\nsource {6}user_message\ntime {8}2026-01-12T09:00:00\.000Z\nscope {7}global\nsession {5}s2, turn 1\n/);
    expect(out.stdout).toContain("states:\n  护照 (location) = 保险箱\n");
    expect(out.stdout).toMatch(/护照 \(location\): 2 values over time\n {2}2026-01-10 09:00 {2}书桌抽屉\n {6}p1: 我把护照放在书桌抽屉里了。\n {2}2026-01-12 09:00 {2}保险箱 {2}← current, this memory\n/);
    expect(out.stdout).toContain(`#1 for "护照在哪里" (latest)  ${search.receipt.receipt_id}`);
    // A long text is never cut by get, while a listing cuts it to a line and says where the rest is.
    const report = cli("get", "r1").stdout;
    expect(report).toContain("THE END OF THE REPORT.");
    const listed = cli("list", "--scope", "project:work").stdout;
    expect(listed).not.toContain("THE END OF THE REPORT.");
    expect(listed).toContain("full text: dsh-dream get ID");
    const missing = cli("get", "nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error [NOT_FOUND]: no memory with id "nope"');
  });

  it("shows a thing's values over time, and says so when nothing about it was recorded", () => {
    const history = json("history", "护照");
    expect(history.slots.map((s: { values: Array<{ id: string; value: string; current: boolean }> }) => s.values.map((v) => [v.id, v.value, v.current]))).toEqual([
      [
        ["p1", "书桌抽屉", false],
        ["p2", "保险箱", true],
      ],
    ]);
    expect(json("history", "my", "car", "keys").slots[0].values.map((v: { id: string }) => v.id)).toEqual(["k1"]);
    const none = cli("history", "umbrella");
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('no state of "umbrella" is recorded (nothing said where it is, what it is, or how it changed);\ntry: dsh-dream search "umbrella" --timeline\n');
  });

  it("edits a memory: the correction replaces it in recall, the old one stays in the history, nothing else changes", () => {
    const before = json("stats");
    const out = cli("edit", "k1", "--text", "My car keys are in the kitchen drawer.");
    expect(out.code).toBe(0);
    const newId = /^(\S+) replaces k1, which recall no longer uses/.exec(out.stdout)![1];
    const after = json("stats");
    expect([after.memories, after.quarantined]).toEqual([before.memories + 1, before.quarantined + 1]);
    expect(json("search", "where are my car keys").results.map((r: { id: string }) => r.id)).toEqual([newId]);
    const old = json("get", "k1");
    expect(old.record.quarantine.reason).toBe(`edited: replaced by ${newId}`);
    expect(old.replaced_by).toBe(newId);
    const fresh = json("get", newId);
    expect([fresh.record.text, fresh.record.tags, fresh.edited_from]).toEqual(["My car keys are in the kitchen drawer.", ["home"], "k1"]);
    expect(json("history", "car keys").slots[0].values.map((v: { id: string; quarantined: boolean; current: boolean }) => [v.id, v.quarantined, v.current])).toEqual([
      ["k1", true, false],
      [newId, false, true],
    ]);
    const same = cli("edit", newId, "--text", "My car keys are in the kitchen drawer.");
    expect(same.code).toBe(1);
    expect(same.stderr).toContain("error [INVALID_FIELD]: text is the memory's text already; nothing was changed");
  });

  it("forgets what a search finds only after a preview, and exactly what the preview showed", () => {
    const preview = cli("forget", "--query", "office wifi", "--top-k", "1");
    expect(preview.code).toBe(0);
    expect(preview.stdout).toMatch(/^ {2}f1 {2}2026-01-15T09:00:00\.000Z {2}Office wifi name is BlueFalcon\.\n1 memory would be forgotten; nothing was changed: run again with --yes/);
    expect(json("get", "f1").record.id).toBe("f1");
    expect(json("forget", "--query", "office wifi", "--top-k", "1", "--yes")).toEqual(expect.objectContaining({ applied: true, count: 1 }));
    expect(cli("get", "f1").code).toBe(1);
    expect(json("list").memories.map((m: { id: string }) => m.id)).not.toContain("f1");
  });

  it("counts memories by source, scope and month, and shows the bridge's status for people", () => {
    const stats = cli("stats");
    expect(stats.stdout).toMatch(/^memories {4}\d+/);
    expect(stats.stdout).toContain("by source:\n  user_message");
    expect(stats.stdout).toContain("  project:work         1");
    expect(stats.stdout).toMatch(/by month:\n {2}2026-01 +\d+ +#+/);
    const status = cli("status");
    expect(status.stdout).toMatch(new RegExp(`^memories {4}\\d+ \\(\\d+ quarantined\\) in ${dataDir.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")}\n`));
    expect(status.stdout).toMatch(/\nbridge {6}running, pid \d+/);
    expect(status.stdout).toMatch(/\nreplica {5}Chroma \(embedded\) /);
    expect(status.stdout).toContain("embeddings  local Xenova/bge-small-zh-v1.5: unavailable (model not cached)");
    expect(status.stdout).toMatch(/\nlast recall \S+: "/);
    expect(status.stdout).not.toMatch(/^\w+: \{/m);
  });

  it("imports every good line of a file with bad and oversized lines and large legal records, and a second import adds nothing", () => {
    const big = "x".repeat(190_000);
    const rows: Array<object | string> = [];
    for (let i = 0; i < 120; i++) rows.push({ text: `legal long record ${i} ${big}`, source_type: "tool_result", timestamp_ms: T0 + i });
    rows.push("{not json");
    rows.push(JSON.stringify({ text: "y".repeat(5 * 1024 * 1024), source_type: "user_message" }));
    rows.push({ text: "a note without an id or a time", source_type: "user_message" });
    const file = write("big.jsonl", rows);
    const before = json("stats").memories;
    const first = cli("import", file);
    expect(first.code).toBe(1);
    expect(first.stdout).toBe("imported 121, unchanged 0, rejected 2 (123 lines read)\n");
    expect(first.stderr).toContain("line 121: [BAD_JSON]");
    expect(first.stderr).toMatch(/line 122: \[INPUT_TOO_LARGE\] the line is 5\.0 MiB; a record's line is at most 4\.0 MiB/);
    const again = cli("import", file);
    expect(again.stdout).toBe("imported 0, unchanged 121, rejected 2 (123 lines read)\n");
    expect(json("stats").memories).toBe(before + 121);
    expect(json("forget", "--matching", "legal long record", "--yes").count).toBe(120);
    expect(json("list", "--contains", "a note without").memories[0].id).toMatch(/^imp_[0-9a-f]{32}$/);
  });

  it("exports to stdout with -, refuses to overwrite a file without --force, and names a missing folder without a stack", () => {
    const lines = cli("export", "-").stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.map((r) => r.id)).toEqual(expect.arrayContaining(["p1", "p2", "k1", "r1"]));
    const file = path.join(work, "out.jsonl");
    fs.writeFileSync(file, "keep me\n");
    const refused = cli("export", file);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`error [BAD_ARGUMENTS]: ${file} already exists; add --force to replace it`);
    expect(fs.readFileSync(file, "utf8")).toBe("keep me\n");
    expect(cli("export", file, "--force").code).toBe(0);
    expect(fs.readFileSync(file, "utf8").trim().split("\n")).toHaveLength(lines.length);
    const missing = cli("export", path.join(work, "no", "such", "dir", "x.jsonl"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("error [IO_ERROR]: cannot write");
    expect(missing.stderr).toContain("its folder does not exist (ENOENT)");
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });

  it("adds from words, a file or stdin, as a user message by default, at a time given in words", async () => {
    const fromWords = json("add", "I", "parked", "on", "level", "B2", "--at", "yesterday");
    const midnight = new Date();
    midnight.setHours(0, 0, 0, 0);
    expect([fromWords.record.text, fromWords.record.source_type, fromWords.record.timestamp_ms]).toEqual(["I parked on level B2", "user_message", midnight.getTime() - DAY]);
    const textFile = path.join(work, "note.txt");
    fs.writeFileSync(textFile, "\uFEFFline one\r\nline two\r\n");
    expect(json("add", "--text-file", textFile, "--at", "2026-01-01T08:30Z").record).toEqual(expect.objectContaining({ text: "line one\r\nline two", timestamp_ms: Date.UTC(2026, 0, 1, 8, 30) }));
    const piped = await runCliAsync(["--data-dir", dataDir, "add", "--json"], { input: "piped from another program\n" });
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout).record.text).toBe("piped from another program");
    const dashed = await runCliAsync(["--data-dir", dataDir, "add", "--text-file", "-", "--json"], { input: "dash means stdin" });
    expect(JSON.parse(dashed.stdout).record.text).toBe("dash means stdin");
  });
});

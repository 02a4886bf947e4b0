// `dsh-dream chat` as a user meets it: the built CLI reading a pipe, a real bridge started on demand,
// and (for --llm) a local server speaking the chat-completions protocol in place of DeepSeek.
import fs from "node:fs";
import path from "node:path";
import { ChatCompletionsServer, isRewriteRequest } from "../fixtures/chat-completions-server";
import { tempDir } from "../store/helpers";
import { runCli, runCliAsync } from "./run-cli";

const KEY = "sk-test-Zq8Lw3Xv9Rk2Mn7Pd4Hy";

/** Runs the CLI with `input` on stdin, without blocking this process (the test's server must keep answering). */
function chat(args: string[], input: string, env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliAsync(args, { env: { DEEPSEEK_API_KEY: undefined, ...env }, input });
}

let exports = 0;
/** Every stored memory, through `dsh-dream export` to a new file each time (export does not replace a file). */
function exported(dataDir: string, work: string): Array<Record<string, unknown>> {
  const file = path.join(work, `export-${++exports}.jsonl`);
  expect(runCli(["--data-dir", dataDir, "export", file]).code).toBe(0);
  return fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

describe("dsh-dream chat", () => {
  let work: string;
  let dataDir: string;
  beforeEach(() => {
    work = tempDir("chat-");
    dataDir = path.join(work, "data");
  });
  afterEach(() => {
    if (fs.existsSync(dataDir)) expect(runCli(["--data-dir", dataDir, "stop"]).code).toBe(0);
  });

  const FALLBACK = "· Recall: FTS fallback (model not cached: Download in Settings > DSH-DREAM, or `dsh-dream download-model`)";
  const RECALL_LINE = /^· recall: \d+ memor(?:y|ies)(?:, timeline)? · FTS only · \/why for details$/;

  it("offline: acknowledges a statement and stores it, recalls it for a question, and a second run continues at turn 3", async () => {
    const first = await chat(["--data-dir", dataDir, "chat", "--session", "s1"], "My blue mug is on the kitchen shelf.\nWhere is my blue mug?\n");
    expect(first.code).toBe(0);
    const lines = first.stdout.trimEnd().split("\n");
    expect(lines).toEqual([
      "Got it, I'll remember: your blue mug is on the kitchen shelf.",
      "· recall: 0 memories · FTS only · /why for details",
      FALLBACK,
      "I remember: your blue mug is on the kitchen shelf.",
      expect.stringMatching(RECALL_LINE),
    ]);
    expect(exported(dataDir, work).map((r) => [r.id, r.source_type, r.session_id, r.turn, r.text])).toEqual([
      ["chat:s1:1:user", "user_message", "s1", 1, "My blue mug is on the kitchen shelf."],
      ["chat:s1:1:assistant", "assistant_message", "s1", 1, "Got it, I'll remember: your blue mug is on the kitchen shelf."],
      ["chat:s1:2:user", "user_message", "s1", 2, "Where is my blue mug?"],
      ["chat:s1:2:assistant", "assistant_message", "s1", 2, "I remember: your blue mug is on the kitchen shelf."],
    ]);

    const second = await chat(["--data-dir", dataDir, "chat", "--session", "s1"], "我把护照放在书桌抽屉里了。\n我的护照在哪？\n/quit\nnot read\n");
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("chat session s1, turn 3");
    const replies = second.stdout.split("\n").filter((line) => !line.startsWith("·"));
    expect(replies).toEqual(["好的，我记住了：你把护照放在书桌抽屉里了。", "我记得：你把护照放在书桌抽屉里了。", ""]);
    const ids = exported(dataDir, work).map((r) => r.id);
    expect(ids.slice(4)).toEqual(["chat:s1:3:user", "chat:s1:3:assistant", "chat:s1:4:user", "chat:s1:4:assistant"]);
  });

  it("answers thanks and small talk briefly instead of reporting a failed recall", async () => {
    const out = await chat(["--data-dir", dataDir, "chat"], "ok\n谢谢\nthanks!\n");
    expect(out.code).toBe(0);
    expect(out.stdout.split("\n").filter((line) => !line.startsWith("·"))).toEqual(["OK.", "不客气。", "You're welcome.", ""]);
  });

  it("prints one short recall line per turn, the fallback's reason once, and no receipt id", async () => {
    const out = await chat(["--data-dir", dataDir, "chat"], "My passport is in the desk drawer.\nok\nWhere is my passport?\nWhat happened with my passport over time?\n");
    expect(out.code).toBe(0);
    const lines = out.stdout.trimEnd().split("\n");
    expect(lines.filter((line) => RECALL_LINE.test(line))).toHaveLength(4);
    expect(lines.filter((line) => line.includes("FTS fallback"))).toEqual([FALLBACK]);
    expect(lines).toHaveLength(4 * 2 + 1);
    expect(lines[8]).toMatch(/^· recall: \d+ memor(?:y|ies), timeline · /);
    expect(out.stdout).not.toContain("rcpt_");
  });

  it("answers slash commands without storing them: /help lists them, an unknown one is refused, a path or a lone slash is a message", async () => {
    const out = await chat(["--data-dir", dataDir, "chat", "--session", "c"], "/help\n/xyz\n/why\n/usr/bin is where my tools live\n/ not a command\n/HELP\n/forget\n/exit\nnot read\n");
    expect(out.code).toBe(0);
    const help = out.stdout.split("\n").filter((line) => line.startsWith("/"));
    expect(help.map((line) => line.split(" ")[0])).toEqual(["/help", "/why", "/forget", "/quit,", "/help", "/why", "/forget", "/quit,"]);
    expect(out.stdout).toContain("no reply yet in this chat");
    expect(out.stderr).toContain("unknown command /xyz; /help lists them\n");
    expect(out.stderr).toContain("/forget takes one memory id");
    const records = exported(dataDir, work);
    expect(records.map((r) => r.id)).toEqual(["chat:c:1:user", "chat:c:1:assistant", "chat:c:2:user", "chat:c:2:assistant"]);
    expect(records.filter((r) => r.source_type === "user_message").map((r) => r.text)).toEqual(["/usr/bin is where my tools live", "/ not a command"]);
    for (const command of ["/help", "/HELP", "/xyz", "/why", "/forget", "/exit", "not read"]) expect(records.filter((r) => String(r.text).includes(command))).toEqual([]);
  });

  it("/why shows the last reply's receipt: each returned memory's rank and retrievers as the receipt records them, and what was withheld", async () => {
    const out = await chat(["--data-dir", dataDir, "chat", "--session", "w"], "My passport is in the desk drawer.\nok\nWhere is my passport?\n/why\n");
    expect(out.code).toBe(0);
    const receiptId = /^receipt (rcpt_\S+) · \S+\nquery {3}"Where is my passport\?" · latest · top 5\nrecall {2}FTS fallback \(model not cached/m.exec(out.stdout)?.[1];
    expect(receiptId).toBeDefined();
    const { receipt } = JSON.parse(runCli(["--data-dir", dataDir, "receipt", "--id", receiptId!, "--json"]).stdout);
    expect(receipt.retrieved_chunk_ids).toContain("chat:w:1:user");
    const ranked = out.stdout.split("\n").filter((line) => /^ *\d+\. chat:/.test(line));
    expect(ranked.map((line) => /^ *(\d+)\. (\S+) {2}\(words #(\d+)/.exec(line)!.slice(1))).toEqual(
      receipt.retrieved_chunk_ids.map((id: string, i: number) => [String(i + 1), id, String(receipt.candidates.find((c: { id: string }) => c.id === id).lexical_rank)]),
    );
    expect(out.stdout).toMatch(/\. chat:w:1:user {2}\(words #\d+[^)]*\)\n {4}My passport is in the desk drawer\.\n/);
    expect(out.stdout).toContain("  withheld chat:w:2:user (acknowledgement only)\n");
  });

  it("refuses --llm without DEEPSEEK_API_KEY with exit 2, naming the variable, and writes nothing", async () => {
    const out = await chat(["--data-dir", dataDir, "chat", "--llm"], "hello\n");
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("error [BAD_ARGUMENTS]: --llm needs an API key in the environment variable DEEPSEEK_API_KEY");
    expect(out.stdout).toBe("");
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  describe("--llm against a local chat-completions server", () => {
    let server: ChatCompletionsServer;
    beforeEach(async () => {
      server = await ChatCompletionsServer.start(KEY);
    });
    afterEach(() => server.close());
    const llm = (input: string, key = KEY) => chat(["--data-dir", dataDir, "chat", "--llm", "--base-url", server.baseUrl, "--model", "test-chat", "--session", "s"], input, { DEEPSEEK_API_KEY: key });

    it("rewrites the query into timeline mode, sends the memory as untrusted evidence, retries a 429, and never shows the key", async () => {
      await chat(["--data-dir", dataDir, "chat", "--session", "s"], "I bought a blue mug at the market.\n");
      server.answer = (body) => (isRewriteRequest(body) ? '{"query":"blue mug","intent":"timeline"}' : "You bought it at the market.");
      server.failNext(1, 429, 0);
      const out = await llm("how did things go with the mug?\n/why\n");
      expect(out.code).toBe(0);
      const [reply, status] = out.stdout.split("\n");
      expect(reply).toBe("You bought it at the market.");
      expect(status).toMatch(/^· recall: 2 memories, timeline · FTS only · \/why for details$/);
      expect(server.requests.map((r) => isRewriteRequest(r.body))).toEqual([true, true, false]);
      expect(server.requests[1]!.raw).toMatch(/JSON/);

      const receiptId = /^receipt (rcpt_\S+) · \S+\nquery {3}"blue mug" · timeline/m.exec(out.stdout)![1]!;
      const { receipt } = JSON.parse(runCli(["--data-dir", dataDir, "receipt", "--id", receiptId, "--json"]).stdout);
      expect([receipt.mode, receipt.query]).toEqual(["timeline", "blue mug"]);

      const evidence = server.requests[2]!.body.messages.find((m) => m.content.includes("untrusted background evidence"))!.content;
      const nonce = /<retrieved-memories-([0-9a-f]{12})/.exec(evidence)![1];
      expect(evidence).toMatch(new RegExp(`<memory-${nonce} [^>]*>\\nI bought a blue mug at the market\\.\\n</memory-${nonce}>`));
      for (const text of [...server.requests.map((r) => r.raw), out.stdout, out.stderr, ...["bridge.log", "audit.jsonl", "journal.jsonl"].map((f) => fs.readFileSync(path.join(dataDir, f), "utf8"))]) {
        expect(text).not.toContain(KEY.slice(0, 12));
      }
      expect(exported(dataDir, work).map((r) => r.id)).toEqual(["chat:s:1:user", "chat:s:1:assistant", "chat:s:2:user", "chat:s:2:assistant"]);
    });

    it("ends with a clear error on 401, says the rewrite fell back, and stores nothing of that turn", async () => {
      const wrong = "sk-wrong-Bb7Tt5Kk3Jj1";
      const out = await llm("hello there\n", wrong);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain("note: query rewrite failed: authentication failed (HTTP 401)");
      expect(out.stderr).toMatch(/error \[LLM_UNAVAILABLE\]: authentication failed \(HTTP 401\) at 127\.0\.0\.1:\d+\nhint: Check DEEPSEEK_API_KEY/);
      expect(out.stdout + out.stderr).not.toContain(wrong.slice(-4));
      expect(exported(dataDir, work)).toEqual([]);
    });
  });
});

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

function exported(dataDir: string, work: string): Array<Record<string, unknown>> {
  const file = path.join(work, "export.jsonl");
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

  it("offline: recalls the first turn in the second, stores both turns in full, and a second run continues at turn 3", async () => {
    const first = await chat(["--data-dir", dataDir, "chat", "--session", "s1"], "My blue mug is on the kitchen shelf.\nWhere is my blue mug?\n");
    expect(first.code).toBe(0);
    const lines = first.stdout.split("\n");
    expect(lines[0]).toBe("I don't have a memory about that yet.");
    expect(lines[1]).toMatch(/^Recall: FTS fallback \(model not cached.*\) · intent latest \(heuristic\) · turn 1 · receipt rcpt_/);
    expect(lines[2]).toBe("I remember: My blue mug is on the kitchen shelf.");
    expect(lines[3]).toMatch(/· turn 2 · receipt rcpt_/);
    expect(exported(dataDir, work).map((r) => [r.id, r.source_type, r.session_id, r.turn, r.text])).toEqual([
      ["chat:s1:1:user", "user_message", "s1", 1, "My blue mug is on the kitchen shelf."],
      ["chat:s1:1:assistant", "assistant_message", "s1", 1, "I don't have a memory about that yet."],
      ["chat:s1:2:user", "user_message", "s1", 2, "Where is my blue mug?"],
      ["chat:s1:2:assistant", "assistant_message", "s1", 2, "I remember: My blue mug is on the kitchen shelf."],
    ]);

    const second = await chat(["--data-dir", dataDir, "chat", "--session", "s1"], "蓝色马克杯的完整历史\n/quit\nnot read\n");
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("chat session s1, turn 3");
    expect(second.stdout).toMatch(/intent timeline \(heuristic\) · turn 3 ·/);
    const ids = exported(dataDir, work).map((r) => r.id);
    expect(ids.slice(4)).toEqual(["chat:s1:3:user", "chat:s1:3:assistant"]);
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
      const out = await llm("how did things go with the mug?\n");
      expect(out.code).toBe(0);
      const [reply, status] = out.stdout.split("\n");
      expect(reply).toBe("You bought it at the market.");
      expect(status).toMatch(/· intent timeline \(llm\) · turn 2 · receipt rcpt_/);
      expect(server.requests.map((r) => isRewriteRequest(r.body))).toEqual([true, true, false]);
      expect(server.requests[1]!.raw).toMatch(/JSON/);

      const receiptId = /receipt (rcpt_\S+)/.exec(status!)![1]!;
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

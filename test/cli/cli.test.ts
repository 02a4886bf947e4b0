import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../store/helpers";
import { runCli } from "./run-cli";

function writeJsonl(dir: string, name: string, rows: Array<object | string>): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\r\n") + "\r\n");
  return file;
}

describe("dsh-dream CLI", () => {
  let work: string;
  let dataDir: string;
  beforeEach(() => {
    work = tempDir("cli-");
    dataDir = path.join(work, "data");
  });
  // Memory commands start a bridge on demand; stop it so that no process outlives its test.
  afterEach(() => {
    expect(runCli(["--data-dir", dataDir, "stop"]).code).toBe(0);
  });

  it("imports a JSONL file, reporting bad lines by number and skipping only them", () => {
    const file = writeJsonl(work, "in.jsonl", [
      { id: "r1", text: "the cat sleeps on the sofa", source_type: "user_message", timestamp_ms: 1000 },
      { id: "r2", text: "ignore me", source_type: "model_hint" },
      "{not json",
      { id: "r3", text: "猫在沙发上睡觉", source_type: "assistant_message", timestamp_ms: 2000 },
    ]);
    const result = runCli(["--data-dir", dataDir, "import", file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("imported 2, unchanged 0, rejected 2 (4 lines read)\n");
    expect(result.stderr).toContain('line 2: [INVALID_SOURCE_TYPE] source_type "model_hint" is not allowed');
    expect(result.stderr).toContain("line 3: [BAD_JSON]");
    const status = JSON.parse(runCli(["--data-dir", dataDir, "status", "--json"]).stdout);
    expect(status.records).toBe(2);
  });

  it("adds a memory and finds it with search --json in the documented shape", () => {
    expect(runCli(["--data-dir", dataDir, "add", "--text", "车停在B2车库", "--source-type", "user_message", "--timestamp-ms", "42", "--id", "car"]).stdout).toBe(
      "remembered car (1970-01-01T00:00:00.042Z)\n",
    );
    const out = runCli(["--data-dir", dataDir, "search", "车停在哪", "--top-k", "3", "--json"]);
    expect(out.code).toBe(0);
    const parsed = JSON.parse(out.stdout);
    expect(parsed.results).toEqual([{ id: "car", text: "车停在B2车库", source_type: "user_message", timestamp_ms: 42, score: expect.any(Number) }]);
    // The default embedder is the local model, which nobody has downloaded here: an honest lexical fallback.
    expect(parsed.receipt).toEqual(expect.objectContaining({ retrieved_chunk_ids: ["car"], fallback_reason: "model_not_cached", top_k: 3 }));
  });

  it("rejects model_hint on add with the code, the allowed set and a hint, and stores nothing", () => {
    const out = runCli(["--data-dir", dataDir, "add", "--text", "x", "--source-type", "model_hint"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      'error [INVALID_SOURCE_TYPE]: source_type "model_hint" is not allowed; allowed: user_message, assistant_message, system_fact, tool_result\nhint: Use one of the allowed source types.\n',
    );
    expect(JSON.parse(runCli(["--data-dir", dataDir, "status", "--json"]).stdout).records).toBe(0);
  });

  it("answers a batch file with one JSON line per query, in the order of the file", () => {
    const records = writeJsonl(work, "r.jsonl", [
      { id: "a", text: "alpha project kickoff", source_type: "user_message", timestamp_ms: 1 },
      { id: "b", text: "beta project kickoff", source_type: "user_message", timestamp_ms: 2 },
    ]);
    runCli(["--data-dir", dataDir, "import", records]);
    const queries = writeJsonl(work, "q.jsonl", [{ query: "alpha" }, { query: "kickoff", top_k: 1 }, { query: "beta kickoff", timeline: true }]);
    const out = runCli(["--data-dir", dataDir, "search", "--batch", queries, "--json"]);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.results.map((r: { id: string }) => r.id))).toEqual([["a"], ["a"], ["a", "b"]]);
    expect(lines[2].receipt.mode).toBe("timeline");
  });

  it("answers every good line of a batch and reports each bad one in its place, by line number", () => {
    runCli(["--data-dir", dataDir, "add", "--text", "alpha project kickoff", "--id", "a"]);
    const queries = writeJsonl(work, "q.jsonl", [{ query: "alpha" }, { query: "x", top_k: 0 }, "{oops", { query: "kickoff" }]);
    const out = runCli(["--data-dir", dataDir, "search", "--batch", queries, "--json"]);
    expect(out.code).toBe(1);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => (l.results ? l.results.map((r: { id: string }) => r.id) : [l.line, l.error.code, l.error.field ?? null]))).toEqual([["a"], [2, "INVALID_FIELD", "top_k"], [3, "BAD_JSON", null], ["a"]]);
    expect(out.stderr).toContain("q.jsonl line 2: error [INVALID_FIELD]: top_k must be");
    expect(out.stderr).toContain("q.jsonl line 3: error [BAD_JSON]");
  });

  it("ranks stored vectors with search-vector and refuses an unknown embedding model", () => {
    const embedding = (vector: number[]) => ({ provider: "test", model: "m3", vector });
    const records = writeJsonl(work, "v.jsonl", [
      { id: "x", text: "east", source_type: "user_message", embedding: embedding([1, 0, 0]) },
      { id: "y", text: "north", source_type: "user_message", embedding: embedding([0, 1, 0]) },
      { id: "z", text: "north-east", source_type: "user_message", embedding: embedding([1, 1, 0]) },
    ]);
    runCli(["--data-dir", dataDir, "import", records]);
    const query = path.join(work, "q.json");
    fs.writeFileSync(query, JSON.stringify(embedding([1, 0.1, 0])));
    const out = runCli(["--data-dir", dataDir, "search-vector", "--query-embedding", query, "--json"]);
    expect(JSON.parse(out.stdout).results.map((r: { id: string }) => r.id)).toEqual(["x", "z", "y"]);
    fs.writeFileSync(query, JSON.stringify({ provider: "test", model: "other", vector: [1, 0, 0] }));
    const refused = runCli(["--data-dir", dataDir, "search-vector", "--query-embedding", query]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("error [VECTOR_MISMATCH]: no stored vectors for test/other with 3 dimensions");
  });

  it("forgets a memory so that later searches no longer return it", () => {
    runCli(["--data-dir", dataDir, "add", "--text", "secret plan", "--source-type", "user_message", "--id", "s1"]);
    expect(runCli(["--data-dir", dataDir, "forget", "s1", "--json"]).stdout).toContain('"forgotten"');
    expect(JSON.parse(runCli(["--data-dir", dataDir, "search", "secret plan", "--json"]).stdout).results).toEqual([]);
  });

  it("prints the last search's receipt, or one by --id, and NOT_FOUND for an unknown id", () => {
    runCli(["--data-dir", dataDir, "add", "--text", "the blue mug is on the desk", "--source-type", "user_message", "--id", "mug"]);
    const first = JSON.parse(runCli(["--data-dir", dataDir, "search", "blue mug", "--json"]).stdout).receipt;
    const second = JSON.parse(runCli(["--data-dir", dataDir, "search", "desk", "--json"]).stdout).receipt;
    const readable = runCli(["--data-dir", dataDir, "receipt"]).stdout;
    expect(readable).toContain(`receipt ${second.receipt_id}`);
    expect(readable).toContain('query   "desk" · latest · top 5');
    expect(readable).toMatch(/returned, in the order the model gets them:\n 1\. mug {2}\(words #1\)\n {4}the blue mug is on the desk\n/);
    expect(JSON.parse(runCli(["--data-dir", dataDir, "receipt", "--json"]).stdout)).toEqual({ receipt: second });
    expect(JSON.parse(runCli(["--data-dir", dataDir, "receipt", "--id", first.receipt_id, "--json"]).stdout)).toEqual({ receipt: first });
    const unknown = runCli(["--data-dir", dataDir, "receipt", "--id", "rcpt_nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error [NOT_FOUND]: no receipt with id "rcpt_nope" among the 2 most recent searches');
  });

  it("uses $DSH_HOME/dsh-dream as the default data directory", () => {
    const home = path.join(work, "dsh-home");
    runCli(["add", "--text", "hello", "--source-type", "user_message"], { env: { DSH_HOME: home } });
    expect(fs.existsSync(path.join(home, "dsh-dream", "journal.jsonl"))).toBe(true);
    expect(runCli(["stop"], { env: { DSH_HOME: home } }).stdout).toContain("stopped the bridge");
  });

  it("says in a search's output what was redacted, by kind, never the value", () => {
    expect(runCli(["--data-dir", dataDir, "add", "--text", "the office wifi password is Tr0ub4dor&3", "--source-type", "user_message"]).code).toBe(0);
    const out = runCli(["--data-dir", dataDir, "search", "office wifi password is Tr0ub4dor&3"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("redacted from the query before it was searched or logged: 1 password");
    expect(out.stdout).toContain("redacted at capture in these memories: 1 password");
    expect(out.stdout).not.toContain("Tr0ub4dor");
  });

  it("exits 2 with usage on an unknown option", () => {
    const out = runCli(["--data-dir", dataDir, "search", "x", "--topk", "3"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("unknown option --topk");
  });

  it("runs the offline demo — capture through the plugin, recall, collapse, timeline, the model's context — and cleans up", () => {
    const out = runCli(["demo"]);
    expect(out.code).toBe(0);
    const dir = /data directory (\S+)/.exec(out.stdout)![1];
    expect(out.stdout).toContain("Recall: FTS fallback");
    expect(out.stdout).toContain("9 turns written in full (18 memories: every user message and every reply), 0 waiting");
    expect(out.stdout).toMatch(/> 钥匙在哪里？\n.*\n 1\. \[user_message\] \S+  turn:demo-day-6:1:user\n/);
    expect(out.stdout).toContain("collapsed 钥匙 (location): 1 older value superseded by turn:demo-day-6:1:user (花盆)");
    expect(out.stdout).toContain("withheld turn:demo-day-1:1:assistant (acknowledgement only)");
    expect(out.stdout).toMatch(/<anchors version="anchors:[0-9a-f]{16}">[\s\S]*1\. 回答要简短，用中文。/);
    expect(out.stdout).toMatch(/<retrieved-memories-([0-9a-f]{12}) mode="timeline"[\s\S]*又买了一个新的蓝色马克杯作为替代。[\s\S]*<\/retrieved-memories-\1>/);
    expect(out.stdout).toMatch(/audit snapshot \(receipt, not sent to the model\): rcpt_[0-9a-f-]{36} · intent timeline/);
    expect(fs.existsSync(dir)).toBe(false);
  });
});

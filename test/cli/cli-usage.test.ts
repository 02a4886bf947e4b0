// The command line as a new user meets it: help for each command, --version, typos answered with the
// nearest command or option, extra words refused, exit code 2 for bad usage. None of these start a
// bridge or create the data directory.
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../store/helpers";
import { runCli } from "./run-cli";

describe("dsh-dream usage", () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = path.join(tempDir("cli-usage-"), "data");
  });
  afterEach(() => {
    // Nothing here may reach a bridge: the data directory is never even created.
    expect(fs.existsSync(dataDir)).toBe(false);
  });
  const cli = (...args: string[]) => runCli(["--data-dir", dataDir, ...args]);

  it.each([
    [["search", "--help"]],
    [["search", "-h"]],
    [["help", "search"]],
  ])("prints search's own help with its defaults and examples for %j", (args) => {
    const out = cli(...args);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^usage: dsh-dream search QUERY…\n/);
    expect(out.stdout).toContain("--top-k N               how many memories (default 5, at most 200)");
    expect(out.stdout).toContain('examples:\n  dsh-dream search "where is my passport?"');
    expect(out.stderr).toBe("");
  });

  it("gives each command its own help page, different from the overview", () => {
    const add = cli("add", "--help").stdout;
    expect(add).toMatch(/^usage: dsh-dream add TEXT…/);
    expect(add).toContain("--source-type TYPE");
    expect(add).toContain("user_message (default)");
    expect(cli("add", "-h").stdout).toBe(add);
    expect(cli("list", "--help").stdout).toContain("--page N");
    expect(cli("forget", "--help").stdout).toContain('dsh-dream forget --query "old wifi password"');
  });

  it("prints the overview for -h and --help, and as a usage error with no command", () => {
    for (const flag of ["-h", "--help"]) {
      const out = cli(flag);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain("usage: dsh-dream [--data-dir DIR] COMMAND [options]");
      expect(out.stdout).toContain("  history         a thing's values over time");
    }
    const bare = cli();
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("usage: dsh-dream [--data-dir DIR] COMMAND [options]");
  });

  it("prints the version", () => {
    const out = runCli(["--version"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^dsh-dream \d+\.\d+\.\d+/);
  });

  it.each([
    [["serch", "keys"], 'unknown command "serch"; did you mean search?'],
    [["lsit"], 'unknown command "lsit"; did you mean list?'],
    [["search", "keys", "--topk", "3"], "unknown option --topk for search; did you mean --top-k?"],
    [["search", "keys", "-x"], 'unknown option -x for search; a value that starts with "-" goes after --'],
    [["add", "hello", "--sourcetype", "user_message"], "unknown option --sourcetype for add; did you mean --source-type?"],
    [["status", "extra"], 'status takes no arguments (got "extra")'],
    [["get", "a", "b"], 'get takes at most 1 ID (got an extra "b")'],
    [["search"], 'search needs a query: dsh-dream search "where is my passport?"'],
    [["add"], 'add needs the text: dsh-dream add "TEXT", --text-file FILE, or pipe it in'],
    [["import"], "import needs FILE.jsonl: usage: dsh-dream import FILE.jsonl"],
    [["search", "x", "--top-k", "many"], '--top-k must be a whole number (got "many")'],
    [["search", "x", "--top-k", "0"], "--top-k must be from 1 to 200 (got 0)"],
    [["add", "x", "--at", "yesterday-ish"], '--at "yesterday-ish" is not a time I can read'],
    [["add", "x", "--at", "2026-13-01"], '--at "2026-13-01" is not a time I can read'],
    [["list", "--since", "last tuesday"], '--since "last tuesday" is not a time I can read'],
    [["list", "--active", "--quarantined"], "--quarantined and --active exclude each other"],
    [["add", "x", "--at", "now", "--timestamp-ms", "5"], "give the time once: --at or --timestamp-ms, not both"],
    [["add", "x", "--timestamp-ms", "yesterday"], '--timestamp-ms takes milliseconds since 1970 (got "yesterday"); for a time in words or an ISO date use --at "yesterday"'],
    [["export", "a.jsonl", "b.jsonl"], 'export takes at most 1 FILE.jsonl (got an extra "b.jsonl")'],
  ])("refuses %j with exit code 2, the reason, and the command's help as the hint", (args, message) => {
    const out = cli(...args);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`error [BAD_ARGUMENTS]: ${message}`);
    expect(out.stderr).toMatch(/\nhint: run `dsh-dream [a-z-]+ --help` for its options and examples\.\n$|\nhint: Run `dsh-dream help` for usage\.\n$/);
    expect(out.stdout).toBe("");
  });

  it("says the error as JSON on stdout too with --json", () => {
    const out = cli("search", "--json");
    expect(out.code).toBe(2);
    expect(JSON.parse(out.stdout)).toEqual({ error: expect.objectContaining({ code: "BAD_ARGUMENTS", message: expect.stringContaining("search needs a query") }) });
  });
});

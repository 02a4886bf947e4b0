import fs from "node:fs";
import path from "node:path";
import { Journal, encodeLine, readEntriesFrom, type JournalEntry } from "../../bridge/store/journal";
import { tempDir } from "./helpers";

function tempFile(): string {
  return path.join(tempDir("journal-"), "journal.jsonl");
}

function replayAll(file: string): { entries: JournalEntry[]; tornTailBytes: number; journal: Journal } {
  const entries: JournalEntry[] = [];
  const { journal, report } = Journal.open(file, (e) => entries.push(e));
  return { entries, tornTailBytes: report.tornTailBytes, journal };
}

describe("Journal", () => {
  it("replays appended entries in order after reopening", () => {
    const file = tempFile();
    const first = replayAll(file);
    first.journal.append([{ op: "add", n: 1 }, { op: "add", n: 2 }]);
    first.journal.append([{ op: "forget", n: 3 }]);
    first.journal.close();
    const again = replayAll(file);
    expect(again.entries).toEqual([{ op: "add", n: 1 }, { op: "add", n: 2 }, { op: "forget", n: 3 }]);
    again.journal.close();
  });

  it("cuts off a torn last line, reports its size, and appends cleanly after it", () => {
    const file = tempFile();
    const first = replayAll(file);
    first.journal.append([{ op: "add", n: 1 }]);
    first.journal.close();
    const torn = encodeLine({ op: "add", n: 2 }).subarray(0, 17);
    fs.appendFileSync(file, torn);
    const second = replayAll(file);
    expect(second.entries).toEqual([{ op: "add", n: 1 }]);
    expect(second.tornTailBytes).toBe(17);
    second.journal.append([{ op: "add", n: 3 }]);
    second.journal.close();
    expect(replayAll(file).entries).toEqual([{ op: "add", n: 1 }, { op: "add", n: 3 }]);
  });

  it("treats a complete last line with a bad checksum as torn", () => {
    const file = tempFile();
    const first = replayAll(file);
    first.journal.append([{ op: "add", n: 1 }]);
    first.journal.close();
    const line = encodeLine({ op: "add", n: 2 });
    line[line.length - 3] ^= 0x01;
    fs.appendFileSync(file, line);
    const second = replayAll(file);
    expect(second.entries).toEqual([{ op: "add", n: 1 }]);
    expect(second.tornTailBytes).toBe(line.length);
    second.journal.close();
  });

  it("refuses to open when a damaged line is followed by intact ones, and leaves the file unchanged", () => {
    const file = tempFile();
    const first = replayAll(file);
    first.journal.append([{ op: "add", n: 1 }, { op: "add", n: 2 }, { op: "add", n: 3 }]);
    first.journal.close();
    const bytes = fs.readFileSync(file);
    const text = bytes.toString("utf8").replace('"n":2', '"n":9');
    fs.writeFileSync(file, text);
    expect(() => replayAll(file)).toThrow(expect.objectContaining({ code: "JOURNAL_CORRUPT", message: expect.stringContaining("line 3") }));
    expect(fs.readFileSync(file, "utf8")).toBe(text);
  });

  it("refuses a file that is not a journal at all and leaves it unchanged", () => {
    const file = tempFile();
    fs.writeFileSync(file, "name,age\nalice,30\n");
    expect(() => replayAll(file)).toThrow(expect.objectContaining({ code: "JOURNAL_CORRUPT" }));
    expect(fs.readFileSync(file, "utf8")).toBe("name,age\nalice,30\n");
  });

  it("reads a journal whose lines gained CRLF endings", () => {
    const file = tempFile();
    const first = replayAll(file);
    first.journal.append([{ op: "add", n: 1 }]);
    first.journal.close();
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/\n/g, "\r\n"));
    const again = replayAll(file);
    expect(again.entries).toEqual([{ op: "add", n: 1 }]);
    again.journal.close();
  });

  it("refuses a journal from an unknown format version", () => {
    const file = tempFile();
    fs.writeFileSync(file, encodeLine({ op: "header", format: "dsh-dream-journal", version: 99 }));
    expect(() => replayAll(file)).toThrow(expect.objectContaining({ code: "JOURNAL_VERSION" }));
  });

  it("starts afresh when a crash left the new file empty", () => {
    const file = tempFile();
    fs.writeFileSync(file, "");
    const opened = replayAll(file);
    opened.journal.append([{ op: "add", n: 1 }]);
    opened.journal.close();
    expect(replayAll(file).entries).toEqual([{ op: "add", n: 1 }]);
  });
});

describe("Journal offsets", () => {
  it("replays only the entries from a given line boundary, and reports the end offset", () => {
    const file = tempFile();
    const first = replayAll(file);
    first.journal.append([{ op: "add", n: 1 }]);
    const middle = first.journal.endOffset;
    first.journal.append([{ op: "add", n: 2 }, { op: "add", n: 3 }]);
    const end = first.journal.endOffset;
    first.journal.close();
    expect(fs.statSync(file).size).toBe(end);
    const seen: JournalEntry[] = [];
    const { journal } = Journal.open(file, (e) => seen.push(e), { fromOffset: middle });
    expect(seen).toEqual([{ op: "add", n: 2 }, { op: "add", n: 3 }]);
    expect(journal.endOffset).toBe(end);
    journal.close();
  });

  it("keeps every byte when a replay starts at the end of the journal", () => {
    const file = tempFile();
    const first = replayAll(file);
    first.journal.append([{ op: "add", n: 1 }, { op: "add", n: 2 }]);
    const end = first.journal.endOffset;
    first.journal.close();
    const seen: JournalEntry[] = [];
    const { journal, report } = Journal.open(file, (e) => seen.push(e), { fromOffset: end });
    journal.close();
    expect(seen).toEqual([]);
    expect(report).toEqual({ entries: 0, tornTailBytes: 0 });
    expect(fs.statSync(file).size).toBe(end);
    expect(replayAll(file).entries).toEqual([{ op: "add", n: 1 }, { op: "add", n: 2 }]);
  });

  it("cuts only a torn line right after the replay offset, never the lines before it", () => {
    const file = tempFile();
    const first = replayAll(file);
    first.journal.append([{ op: "add", n: 1 }]);
    const end = first.journal.endOffset;
    first.journal.close();
    fs.appendFileSync(file, '0badf00d {"op":"add","n"');
    const { journal, report } = Journal.open(file, () => undefined, { fromOffset: end });
    journal.close();
    expect(report.tornTailBytes).toBe(24);
    expect(fs.statSync(file).size).toBe(end);
    expect(replayAll(file).entries).toEqual([{ op: "add", n: 1 }]);
  });

  it("refuses a replay offset that is not a line boundary", () => {
    const file = tempFile();
    const first = replayAll(file);
    first.journal.append([{ op: "add", n: 1 }, { op: "add", n: 2 }]);
    first.journal.close();
    expect(() => Journal.open(file, () => undefined, { fromOffset: fs.statSync(file).size - 3 })).toThrow(
      expect.objectContaining({ code: "JOURNAL_CORRUPT", message: expect.stringContaining("not the end of a journal line") }),
    );
  });

  it("lets a follower read intact entries from an offset in bounded steps", () => {
    const file = tempFile();
    const first = replayAll(file);
    const start = first.journal.endOffset;
    first.journal.append([{ op: "add", n: 1 }, { op: "add", n: 2 }, { op: "add", n: 3 }]);
    first.journal.close();
    const step1 = readEntriesFrom(file, start, 1);
    expect(step1.entries).toEqual([{ op: "add", n: 1 }]);
    const step2 = readEntriesFrom(file, step1.endOffset, 1 << 20);
    expect(step2.entries).toEqual([{ op: "add", n: 2 }, { op: "add", n: 3 }]);
    expect(step2.endOffset).toBe(fs.statSync(file).size);
  });

  it("reads an entry longer than its read, in steps smaller than it, whole", () => {
    // A step reads about what it was asked for; a line longer than that is put together across reads.
    const file = tempFile();
    const first = replayAll(file);
    const start = first.journal.endOffset;
    const long = "长".repeat(300_000); // 900 KB of UTF-8, past a small step's 64 KiB of slack
    first.journal.append([{ op: "add", n: 1 }, { op: "add", text: long }, { op: "add", n: 3 }]);
    first.journal.close();
    const step1 = readEntriesFrom(file, start, 1);
    expect(step1.entries).toEqual([{ op: "add", n: 1 }]);
    const step2 = readEntriesFrom(file, step1.endOffset, 1);
    expect(step2.entries).toEqual([{ op: "add", text: long }]);
    const step3 = readEntriesFrom(file, step2.endOffset, 1);
    expect(step3).toEqual({ entries: [{ op: "add", n: 3 }], endOffset: fs.statSync(file).size });
  });
});

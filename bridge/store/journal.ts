// The durable record: an append-only, fsync'd journal of checksummed JSON lines. Every index is
// rebuilt from it. A torn tail (crash mid-append) is detected and cut off; damage anywhere else
// stops the open with JOURNAL_CORRUPT so that nothing is silently dropped.
import fs from "node:fs";
import path from "node:path";
import { crc32 } from "node:zlib";
import { DreamError } from "../protocol/errors";

export const JOURNAL_FORMAT = "dsh-dream-journal";
export const JOURNAL_VERSION = 1;
const READ_CHUNK_BYTES = 8 * 1024 * 1024;
// readEntriesFrom reads this much past what it was asked for, so that the line crossing the limit is usually in the same read.
const LINE_SLACK_BYTES = 64 * 1024;

export type JournalEntry = Record<string, unknown> & { op: string };

export interface ReplayReport {
  entries: number;
  tornTailBytes: number;
  /** Where the cut-off tail was kept (never just deleted), when there was one. */
  tornTailKeptAt?: string;
  /**
   * The cut line was complete but failed its checksum: damage (a bit flip), not a crash mid-append,
   * which leaves a line without its newline.
   */
  tornTailDamaged?: boolean;
}

export interface ReplayOptions {
  /** Skip entries before this byte offset (a line boundary another component has already applied). */
  fromOffset?: number;
}

/** Encodes one entry as `<crc32 hex> <json>\n`; the checksum covers the JSON bytes. */
export function encodeLine(entry: JournalEntry): Buffer {
  const json = Buffer.from(JSON.stringify(entry), "utf8");
  const prefix = Buffer.from(crc32(json).toString(16).padStart(8, "0") + " ", "ascii");
  return Buffer.concat([prefix, json, Buffer.from("\n")]);
}

function decodeLine(line: Buffer): JournalEntry | undefined {
  // Tolerate CRLF: a journal copied through a Windows tool may have gained carriage returns.
  const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
  if (end < 10 || line[8] !== 0x20) return undefined;
  const json = line.subarray(9, end);
  if (crc32(json).toString(16).padStart(8, "0") !== line.subarray(0, 8).toString("ascii")) return undefined;
  try {
    const entry = JSON.parse(json.toString("utf8"));
    return typeof entry === "object" && entry !== null && typeof entry.op === "string" ? entry : undefined;
  } catch {
    return undefined;
  }
}

export class Journal {
  private dirtyTail = false;

  private constructor(
    readonly filePath: string,
    private fd: number,
    private size: number,
  ) {}

  /** Bytes of intact journal on disk: every acknowledged entry lies before this offset. */
  get endOffset(): number {
    return this.size;
  }

  /**
   * Opens (creating if needed) the journal and replays every intact entry through `apply`.
   * A bad final line is truncated away before appending resumes.
   */
  static open(filePath: string, apply: (entry: JournalEntry) => void, options: ReplayOptions = {}): { journal: Journal; report: ReplayReport } {
    const created = !fs.existsSync(filePath);
    const report = created ? { entries: 0, tornTailBytes: 0 } : replay(filePath, apply, options.fromOffset ?? 0);
    const fd = fs.openSync(filePath, "a");
    const journal = new Journal(filePath, fd, fs.fstatSync(fd).size);
    // A crash while creating the file can leave it empty or with a torn header: start it afresh.
    if (created || fs.fstatSync(fd).size === 0) {
      journal.append([{ op: "header", format: JOURNAL_FORMAT, version: JOURNAL_VERSION }]);
      if (created) syncDirectory(path.dirname(filePath));
    }
    return { journal, report };
  }

  /** Appends entries and returns only after they are on disk: this is the acknowledgement. */
  append(entries: JournalEntry[]): void {
    if (entries.length === 0) return;
    const buffer = Buffer.concat(entries.map(encodeLine));
    // A fragment a failed append could not cut off is cut before anything new goes after it.
    if (this.dirtyTail) this.rollBack();
    try {
      let written = 0;
      while (written < buffer.length) written += fs.writeSync(this.fd, buffer, written);
      fs.fsyncSync(this.fd);
      this.size += buffer.length;
    } catch (cause) {
      // Not acknowledged, so not kept: the file goes back to its last acknowledged byte. Left there, a
      // partial line would glue itself to the next write and make the journal unopenable.
      this.dirtyTail = true;
      try {
        this.rollBack();
      } catch {
        // Still dirty: the next append tries again before it writes, and refuses if it cannot.
      }
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === "ENOSPC" || code === "EDQUOT") {
        throw new DreamError("DISK_FULL", `the disk holding ${this.filePath} is full (${code}); the write was not kept`, { cause });
      }
      throw new DreamError("IO_ERROR", `could not write the journal ${this.filePath}: ${(cause as Error).message}`, { cause });
    }
  }

  /** Cuts the file back to the last acknowledged byte; throws IO_ERROR when it cannot. */
  private rollBack(): void {
    try {
      fs.ftruncateSync(this.fd, this.size);
      fs.fsyncSync(this.fd);
      this.dirtyTail = false;
    } catch (cause) {
      throw new DreamError("IO_ERROR", `could not cut a failed write off the journal ${this.filePath}: ${(cause as Error).message}`, { cause });
    }
  }

  close(): void {
    if (this.fd < 0) return;
    fs.closeSync(this.fd);
    this.fd = -1;
  }
}

function replay(filePath: string, apply: (entry: JournalEntry) => void, fromOffset: number): ReplayReport {
  const fd = fs.openSync(filePath, "r");
  let lineNo = 0;
  let entries = 0;
  let goodEnd = 0;
  // Only the very last line may be damaged: that is what a crash mid-append leaves behind.
  let bad: { lineNo: number; offset: number; complete: boolean } | undefined;
  try {
    const header = readLines(fd, 0).next();
    const headerEnd = header.done ? 0 : header.value.line.length + 1;
    const start = Math.max(fromOffset, headerEnd);
    if (start > headerEnd && !endsLine(fd, start)) {
      throw new DreamError("JOURNAL_CORRUPT", `${filePath}: offset ${start} is not the end of a journal line`);
    }
    const lines = start > headerEnd ? prepend(header.value!, readLines(fd, start)) : readLines(fd, 0);
    for (const { line, offset, complete } of lines) {
      lineNo++;
      const entry = complete ? decodeLine(line) : undefined;
      if (bad) {
        const where = start > headerEnd ? `the line at byte ${bad.offset}` : `line ${bad.lineNo}`;
        throw new DreamError("JOURNAL_CORRUPT", `${filePath} ${where} is damaged but more lines follow; refusing to open`);
      }
      if (!entry) {
        bad = { lineNo, offset, complete };
        continue;
      }
      if (lineNo === 1) checkHeader(entry, filePath);
      else {
        apply(entry);
        entries++;
      }
      // The header stands in for every skipped line before `start`: they are intact, so the torn-tail cut below
      // must never reach them (without this, a replay with nothing after `start` truncated the journal to its header).
      goodEnd = lineNo === 1 ? Math.max(start, offset + line.length + 1) : offset + line.length + 1;
    }
  } finally {
    fs.closeSync(fd);
  }
  const size = fs.statSync(filePath).size;
  if (size <= goodEnd) return { entries, tornTailBytes: 0 };
  // Kept aside before the cut, so that even a damaged last entry can still be looked at or repaired.
  const keptAt = keepTail(filePath, goodEnd, size);
  fs.truncateSync(filePath, goodEnd);
  syncFile(filePath);
  return { entries, tornTailBytes: size - goodEnd, tornTailKeptAt: keptAt, tornTailDamaged: bad?.complete === true };
}

function keepTail(filePath: string, from: number, to: number): string {
  const keptAt = `${filePath}.tail-${Date.now()}.bad`;
  const bytes = Buffer.alloc(to - from);
  const fd = fs.openSync(filePath, "r");
  try {
    fs.readSync(fd, bytes, 0, bytes.length, from);
  } finally {
    fs.closeSync(fd);
  }
  fs.writeFileSync(keptAt, bytes, { flag: "wx" });
  syncFile(keptAt);
  return keptAt;
}

function checkHeader(entry: JournalEntry, filePath: string): void {
  if (entry.op !== "header" || entry.format !== JOURNAL_FORMAT) {
    throw new DreamError("JOURNAL_CORRUPT", `${filePath} is not a dsh-dream journal (bad header)`);
  }
  if (entry.version !== JOURNAL_VERSION) {
    throw new DreamError("JOURNAL_VERSION", `${filePath} has journal version ${String(entry.version)}; this build reads ${JOURNAL_VERSION}`);
  }
}

/**
 * Reads the intact entries that start at `fromOffset` (a line boundary), up to about `maxBytes`.
 * For components that follow the journal on their own (the Chroma sync); stops at a damaged line.
 */
export function readEntriesFrom(filePath: string, fromOffset: number, maxBytes: number): { entries: JournalEntry[]; endOffset: number } {
  const fd = fs.openSync(filePath, "r");
  const entries: JournalEntry[] = [];
  let endOffset = fromOffset;
  try {
    // Chunks the size of what is asked (and a line's worth more): the replica asks for 1 MiB at a time,
    // and 8 MiB chunks had it read and copy eight times what it used.
    for (const { line, offset, complete } of readLines(fd, fromOffset, Math.min(READ_CHUNK_BYTES, maxBytes + LINE_SLACK_BYTES))) {
      const entry = complete ? decodeLine(line) : undefined;
      if (!entry) break;
      if (entry.op !== "header") entries.push(entry);
      endOffset = offset + line.length + 1;
      if (endOffset - fromOffset >= maxBytes) break;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { entries, endOffset };
}

/** Whether `offset` is where a journal line starts (0, or just after a newline, and within the file). */
export function isLineStart(filePath: string, offset: number): boolean {
  if (offset === 0) return true;
  let fd: number;
  try {
    fd = fs.openSync(filePath, "r");
  } catch {
    return false;
  }
  try {
    return offset <= fs.fstatSync(fd).size && endsLine(fd, offset);
  } finally {
    fs.closeSync(fd);
  }
}

function endsLine(fd: number, offset: number): boolean {
  const byte = Buffer.alloc(1);
  return fs.readSync(fd, byte, 0, 1, offset - 1) === 1 && byte[0] === 0x0a;
}

function* prepend<T>(first: T, rest: Iterable<T>): Generator<T> {
  yield first;
  yield* rest;
}

/** Yields newline-separated lines without loading the whole file (journals reach hundreds of MB). */
function* readLines(fd: number, fromOffset: number, chunkBytes = READ_CHUNK_BYTES): Generator<{ line: Buffer; offset: number; complete: boolean }> {
  let carry = Buffer.alloc(0);
  let carryOffset = fromOffset;
  let position = fromOffset;
  const chunk = Buffer.allocUnsafe(chunkBytes);
  for (;;) {
    const read = fs.readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) break;
    position += read;
    const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, read)]) : Buffer.from(chunk.subarray(0, read));
    let start = 0;
    for (let nl = data.indexOf(0x0a, start); nl !== -1; nl = data.indexOf(0x0a, start)) {
      yield { line: data.subarray(start, nl), offset: carryOffset + start, complete: true };
      start = nl + 1;
    }
    carry = data.subarray(start);
    carryOffset += start;
  }
  if (carry.length > 0) yield { line: carry, offset: carryOffset, complete: false };
}

function syncFile(filePath: string): void {
  const fd = fs.openSync(filePath, "r+");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Makes a new file's directory entry durable; Windows cannot open directories, and NTFS does not need it. */
export function syncDirectory(dir: string): void {
  if (process.platform === "win32") return;
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

// The lines of a JSONL file a person gives the CLI, read in chunks so that a file of any size costs a
// chunk of memory: a line longer than the limit is skipped (its bytes are never held), not fatal.
// The whole file is checked to be text first, as readTextFile does: a file in a legacy code page is
// refused by name before anything from it is used. UTF-16 files (with their BOM) are decoded whole.
import fs from "node:fs";
import { DreamError } from "../protocol/errors";
import { badEncoding, firstInvalidUtf8, readTextFile } from "../protocol/text-files";

const CHUNK_BYTES = 1 << 20;

export interface FileLine {
  lineNo: number;
  /** Undefined when the line is longer than the limit: then `bytes` says how long it was. */
  text: string | undefined;
  bytes: number;
}

export function* jsonlLines(file: string, what: string, maxLineBytes: number): Generator<FileLine> {
  const fd = openForReading(file, what);
  try {
    const head = Buffer.alloc(3);
    const got = fs.readSync(fd, head, 0, 3, 0);
    if (got >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) {
      const lines = readTextFile(file, what).split("\n");
      for (let i = 0; i < lines.length; i++) {
        const text = lines[i].replace(/\r$/, "");
        yield Buffer.byteLength(text) > maxLineBytes ? { lineNo: i + 1, text: undefined, bytes: Buffer.byteLength(text) } : { lineNo: i + 1, text, bytes: Buffer.byteLength(text) };
      }
      return;
    }
    const start = got === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    checkUtf8(fd, start, what);
    yield* splitLines(fd, start, maxLineBytes);
  } finally {
    fs.closeSync(fd);
  }
}

function openForReading(file: string, what: string): number {
  try {
    const fd = fs.openSync(file, "r");
    if (fs.fstatSync(fd).isDirectory()) {
      fs.closeSync(fd);
      throw new DreamError("IO_ERROR", `cannot read ${what}: it is a folder, not a file`);
    }
    return fd;
  } catch (cause) {
    if (cause instanceof DreamError) throw cause;
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : code === "EACCES" || code === "EPERM" ? "permission denied" : (cause as Error).message;
    throw new DreamError("IO_ERROR", `cannot read ${what}: ${reason}${code ? ` (${code})` : ""}`, { cause });
  }
}

function checkUtf8(fd: number, start: number, what: string): void {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let position = start;
  // The last bytes of the previous chunk, from the start of the last character that may be unfinished.
  let carry = Buffer.alloc(0);
  for (;;) {
    const read = fs.readSync(fd, chunk, 0, CHUNK_BYTES, position);
    const bytes = chunk.subarray(0, read);
    try {
      decoder.decode(bytes, { stream: read > 0 });
    } catch {
      const window = Buffer.concat([carry, bytes]);
      throw badEncoding(what, "utf-8", position - carry.length + (firstInvalidUtf8(window, 0) ?? window.length));
    }
    if (read === 0) return;
    let back = read;
    while (back > 0 && read - back < 3 && (bytes[back - 1] & 0xc0) === 0x80) back--;
    carry = Buffer.from(back > 0 && bytes[back - 1] >= 0xc0 ? bytes.subarray(back - 1) : bytes.subarray(read));
    position += read;
  }
}

function* splitLines(fd: number, start: number, maxLineBytes: number): Generator<FileLine> {
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let position = start;
  let parts: Buffer[] = [];
  let length = 0;
  let lineNo = 1;
  const finish = (): FileLine => {
    const tooLarge = length > maxLineBytes;
    let text = tooLarge ? undefined : Buffer.concat(parts, length).toString("utf8");
    if (text?.endsWith("\r")) text = text.slice(0, -1);
    const line = { lineNo: lineNo++, text, bytes: length };
    parts = [];
    length = 0;
    return line;
  };
  for (;;) {
    const read = fs.readSync(fd, chunk, 0, CHUNK_BYTES, position);
    if (read === 0) break;
    position += read;
    let from = 0;
    for (let nl = chunk.indexOf(0x0a, 0); nl !== -1 && nl < read; nl = chunk.indexOf(0x0a, from)) {
      take(chunk.subarray(from, nl));
      yield finish();
      from = nl + 1;
    }
    take(chunk.subarray(from, read));
  }
  if (length > 0) yield finish();

  function take(bytes: Buffer): void {
    // Past the limit the line's bytes are only counted, never kept.
    if (length + bytes.length <= maxLineBytes) parts.push(Buffer.from(bytes));
    else parts = [];
    length += bytes.length;
  }
}

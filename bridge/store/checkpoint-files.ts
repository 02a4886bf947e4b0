// File handling for checkpoints: parts written and fsync'd with their checksum taken on the way, parts read
// back only when size and checksum match, and the fingerprint that ties a checkpoint to one journal prefix.
import fs from "node:fs";
import path from "node:path";
import { runToEnd } from "../index/run-steps";
import { CheckpointRejected, type PartHead, type PartRef, sha256Hex } from "./checkpoint-format";
import type { Flusher, FlushTicket } from "./flusher";
import { PartHasher, type PartSum, sumName } from "./part-sum";

const FINGERPRINT_WINDOW_BYTES = 64 * 1024;

// A part is hashed and written this much at a time between steps: a quarter of the ~13 ms (p50) that 4 MiB
// took in a 100k store on the benchmark VM; flushed after each (an fsync of 16 MiB took 12-57 ms there). A
// write's own fsync waits behind the flush under way: with 4 MiB flushes, adds acknowledged during a full
// checkpoint at 1M had a p95 of 5.1-5.6 ms, 3.6 ms with 1 MiB ones; on a disk kept busy, 7.0 against 1.8-2.1 ms.
const STEP_BYTES = 1024 * 1024;
const SYNC_EVERY_STEPS = 1;
/** The most of a part that one of its fsyncs has to write. */
export const FLUSH_BYTES = SYNC_EVERY_STEPS * STEP_BYTES;

/** Writes a new file (never an existing one) from `chunks`, fsyncs it, and returns its size and checksum. */
export function writePart(dir: string, file: string, chunks: Iterable<Uint8Array>): PartRef {
  return runToEnd(writePartSteps(dir, file, chunks));
}

/** What writePartSteps yields while a flush it waits for is under way on another thread: a step that did nothing. */
export const FLUSH_PENDING = "flush-pending";

/**
 * writePart in steps: yields after each STEP_BYTES written (with an fsync every SYNC_EVERY_STEPS), after each chunk
 * with `stepPerChunk`, and after the last fsync. Flushed as it goes, so that no one fsync has a large part's
 * worth of pages to write (a 377 MB snapshot written in 1 MiB chunks, each a step, once left it all to the last
 * fsync: 256 ms). With a `flusher`, the fsyncs are made on another thread: one is started when due and the
 * writing goes on; the next one, and the file's close, wait for it, yielding FLUSH_PENDING meanwhile. Stopped
 * early (return()), it closes the file and leaves it half written, for the next checkpoint's clean-up.
 */
export function* writePartSteps(dir: string, file: string, chunks: Iterable<Uint8Array>, { stepPerChunk = false, flusher }: { stepPerChunk?: boolean; flusher?: Flusher } = {}): Generator<void | typeof FLUSH_PENDING, PartRef> {
  const hash = new PartHasher();
  let bytes = 0;
  let sinceStep = 0;
  let synced = 0;
  let flush: FlushTicket | undefined;
  const fd = fs.openSync(path.join(dir, file), "wx");
  // Flushes what is written when due (or `last`: what is left, if anything), once the flush before it is
  // done: here, or started on the thread pool.
  const syncIfDue = function* (written: number, last = false): Generator<typeof FLUSH_PENDING, void> {
    if (last ? synced > 0 && written === synced : written - synced < FLUSH_BYTES) return;
    while (flush && !flush.done()) yield FLUSH_PENDING;
    if (flusher) flush = flusher.start(fd);
    else fs.fsyncSync(fd);
    synced = written;
  };
  try {
    for (const chunk of chunks) {
      for (let at = 0; at < chunk.length; ) {
        const piece = chunk.subarray(at, Math.min(chunk.length, at + STEP_BYTES - sinceStep));
        for (let written = 0; written < piece.length; ) written += fs.writeSync(fd, piece, written);
        hash.update(piece);
        at += piece.length;
        sinceStep += piece.length;
        if (sinceStep >= STEP_BYTES) {
          sinceStep = 0;
          yield* syncIfDue(bytes + at);
          yield;
        }
      }
      bytes += chunk.length;
      // Chunks that are costly to make (a record part's lines, whose texts may be read back, a BM25
      // snapshot's postings) end a step each.
      if (stepPerChunk && sinceStep > 0) {
        sinceStep = 0;
        yield* syncIfDue(bytes);
        yield;
      }
    }
    yield* syncIfDue(bytes, true);
    while (flush && !flush.done()) yield FLUSH_PENDING;
  } finally {
    fs.closeSync(fd);
  }
  yield;
  return { file, bytes, ...hash.sum() };
}

// A stale part is cut short this much a step before it is removed.
const REMOVE_STEP_BYTES = 64 * 1024 * 1024;

/**
 * Removes a stale part (or leftover directory) in steps: a large file is cut short REMOVE_STEP_BYTES at a
 * time first, since freeing its blocks is what costs (unlinking a 400 MB BM25 snapshot took 93 ms in one go
 * on ext4). Gone already is fine.
 */
export function* removeInSteps(file: string): Generator<void, void> {
  let size = 0;
  try {
    const stat = fs.lstatSync(file);
    if (stat.isFile()) size = stat.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  while (size > REMOVE_STEP_BYTES) {
    size -= REMOVE_STEP_BYTES;
    fs.truncateSync(file, size);
    yield;
  }
  fs.rmSync(file, { recursive: true, force: true });
}

/**
 * One buffer that parts are read into, one after another: a restore reads hundreds of parts of a few MB, and
 * a fresh buffer each (memory the kernel must map in and zero) costs more than reading them. A part read
 * into it is valid until the next read; whatever keeps its bytes must copy them.
 */
export class PartBuffer {
  private bytes = Buffer.allocUnsafe(0);

  take(size: number): Buffer {
    if (size > this.bytes.length) this.bytes = Buffer.allocUnsafe(Math.max(size, Math.min(2 * this.bytes.length, size + PART_BUFFER_SLACK)));
    return this.bytes.subarray(0, size);
  }
}

// A part a little larger than the last does not make the buffer double past what is needed.
const PART_BUFFER_SLACK = 16 * 1024 * 1024;

/**
 * The part's bytes, if its size and checksum are what the manifest recorded: a buffer of its own, or (with
 * `into`) one valid until the next read into that PartBuffer.
 */
export function readPart(dir: string, part: PartRef, name: string, into?: PartBuffer): Buffer {
  return withPart(dir, part, name, (fd) => readHashed(fd, part, `the ${name} part`, into));
}

/**
 * The part's bytes, if its size is what the manifest recorded, without hashing them: for a part whose checksum
 * is checked elsewhere before what is decoded from it is used (checkpoint-reader's worker).
 */
export function readPartUnhashed(dir: string, part: PartRef, name: string, into: PartBuffer): Buffer {
  return withPart(dir, part, name, (fd) => {
    const bytes = into.take(part.bytes);
    readFully(fd, bytes, 0, `the ${name} part`);
    return bytes;
  });
}

/** `use` given the part's file, open, once it is there and of the size the manifest recorded. */
function withPart<T>(dir: string, part: PartRef, name: string, use: (fd: number) => T): T {
  const file = path.join(dir, part.file);
  if (!fs.existsSync(file)) throw new CheckpointRejected(`the ${name} part ${part.file} is missing`);
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    if (size !== part.bytes) throw new CheckpointRejected(`the ${name} part is ${size} bytes; the manifest says ${part.bytes}`);
    return use(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The first `expected.bytes` bytes of the file, if they match `expected`'s checksum. */
function readHashed(fd: number, expected: { bytes: number } & PartSum, what: string, into?: PartBuffer): Buffer {
  const bytes = into ? into.take(expected.bytes) : Buffer.allocUnsafe(expected.bytes);
  readFully(fd, bytes, 0, what);
  const hash = new PartHasher(expected);
  hash.update(bytes);
  if (!hash.matches(expected)) throw new CheckpointRejected(`${what} does not match its ${sumName(expected)} (damaged)`);
  return bytes;
}

function readFully(fd: number, into: Uint8Array, position: number, what: string): void {
  for (let done = 0; done < into.length; ) {
    const got = fs.readSync(fd, into, done, into.length - done, position + done);
    if (got === 0) throw new CheckpointRejected(`${what} ends before byte ${position + into.length}`);
    done += got;
  }
}

export interface PartSource {
  size: number;
  read(into: Uint8Array): void;
}

/**
 * `decode` run over the part's bytes as it reads them, straight into what it builds (no copy of the whole
 * part in memory), and its result if the part's size and checksum are what the manifest recorded. Damage is
 * reported as such even when it made `decode` throw first: the rest of the part is hashed then. `unhashed`:
 * the checksum is checked elsewhere before the result is used (checkpoint-reader's hashed parts), and here
 * only when `decode` throws (the whole part then, read again).
 */
export function readPartStreaming<T>(dir: string, part: PartRef, name: string, decode: (source: PartSource) => T, { unhashed = false } = {}): T {
  return withPart(dir, part, name, (fd) => {
    const size = part.bytes;
    let hash: PartHasher | undefined = unhashed ? undefined : new PartHasher(part);
    let at = 0;
    const read = (into: Uint8Array): void => {
      if (at + into.length > size) throw new CheckpointRejected(`the ${name} part ends before byte ${at + into.length}`);
      readFully(fd, into, at, `the ${name} part`);
      hash?.update(into);
      at += into.length;
    };
    const damaged = () => new CheckpointRejected(`the ${name} part does not match its ${sumName(part)} (damaged)`);
    let value: T;
    try {
      value = decode({ size, read });
    } catch (error) {
      // The rest of the part (all of it, if it was read unhashed), so that a damaged one says so rather than
      // what the damage broke.
      if (!hash) [hash, at] = [new PartHasher(part), 0];
      const rest = Buffer.allocUnsafe(Math.min(STEP_BYTES, size));
      while (at < size) read(rest.subarray(0, Math.min(rest.length, size - at)));
      if (!hash.matches(part)) throw damaged();
      throw error;
    }
    if (at !== size) throw new CheckpointRejected(`the ${name} part has ${size - at} bytes its decoder did not read`);
    if (hash && !hash.matches(part)) throw damaged();
    return value;
  });
}

/**
 * The first `head.bytes` bytes of a part whose whole size is what the manifest recorded, if they match the
 * head's checksum: what an open reads of a vector part whose rows stay in the file (checked row by row later).
 */
export function readPartHead(dir: string, part: PartRef, head: PartHead, name: string, into?: PartBuffer): Buffer {
  // The manifest's parser keeps a head within its part.
  return withPart(dir, part, name, (fd) => readHashed(fd, head, `the ${name} part's head`, into));
}

/**
 * Reads a part, or only its head when `head` is given, to find it whole: throws as readPart or readPartHead
 * does. Read STEP_BYTES at a time into `into`: a BM25 snapshot read whole would take ~400 MB of fresh memory.
 */
export function hashPart(dir: string, { part, head, name }: { part: PartRef; head?: PartHead; name: string }, into: PartBuffer): void {
  const expected = head ?? part;
  const what = head ? `the ${name} part's head` : `the ${name} part`;
  withPart(dir, part, name, (fd) => {
    const hash = new PartHasher(expected);
    for (let at = 0; at < expected.bytes; at += STEP_BYTES) {
      const bytes = into.take(Math.min(STEP_BYTES, expected.bytes - at));
      readFully(fd, bytes, at, what);
      hash.update(bytes);
    }
    if (!hash.matches(expected)) throw new CheckpointRejected(`${what} does not match its ${sumName(expected)} (damaged)`);
  });
}

/** readPartHead without hashing the head: for a head whose hash is checked elsewhere before what is decoded from it is used. */
export function readPartHeadUnhashed(dir: string, part: PartRef, head: PartHead, name: string, into: PartBuffer): Buffer {
  return withPart(dir, part, name, (fd) => {
    const bytes = into.take(head.bytes);
    readFully(fd, bytes, 0, `the ${name} part's head`);
    return bytes;
  });
}

export interface JournalFingerprint {
  /** Where the last line before the covered offset starts. */
  lineOffset: number;
  sha256: string;
}

/**
 * Fingerprint of the journal line that ends at `offset` (newline included). Undefined when `offset` is past the
 * end of the file or not the end of a line: then the journal is not the one the checkpoint was taken from.
 */
export function fingerprintJournal(journalPath: string, offset: number): JournalFingerprint | undefined {
  if (offset < 1 || fs.statSync(journalPath).size < offset) return undefined;
  const fd = fs.openSync(journalPath, "r");
  try {
    // Read backwards in growing windows: lines with long texts and large vectors can exceed one window.
    for (let window = FINGERPRINT_WINDOW_BYTES; ; window *= 2) {
      const start = Math.max(0, offset - window);
      const bytes = Buffer.alloc(offset - start);
      fs.readSync(fd, bytes, 0, bytes.length, start);
      if (bytes[bytes.length - 1] !== 0x0a) return undefined;
      // A negative start would make lastIndexOf count from the end, so a one-byte window is handled apart.
      const previousNewline = bytes.length > 1 ? bytes.lastIndexOf(0x0a, bytes.length - 2) : -1;
      if (previousNewline !== -1 || start === 0) {
        const from = previousNewline + 1;
        return { lineOffset: start + from, sha256: sha256Hex(bytes.subarray(from)) };
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

// A checkpoint part is written in steps and flushed as it goes (writePartSteps): no one fsync may have more
// than FLUSH_BYTES (1 MiB) of the part to write, whether the part comes as a few large chunks or many small
// ones made a step each (a BM25 snapshot's 1 MiB chunks once left the whole 377 MB to the last fsync: 256 ms
// at 1M).
import fs from "node:fs";
import path from "node:path";
import { FLUSH_BYTES, FLUSH_PENDING, writePartSteps } from "../../bridge/store/checkpoint-files";
import type { Flusher } from "../../bridge/store/flusher";
import { crc32Hex, tempDir } from "./helpers";

const MIB = 1024 * 1024;

function writeCounting(chunks: Uint8Array[], stepPerChunk: boolean): { steps: number; unsynced: number[]; file: string; crc32?: string } {
  const dir = tempDir("write-part-");
  const sizes: number[] = [];
  const fsync = jest.spyOn(fs, "fsyncSync").mockImplementation(((fd: number) => {
    sizes.push(fs.fstatSync(fd).size);
  }) as typeof fs.fsyncSync);
  try {
    const steps = writePartSteps(dir, "part.bin", chunks, { stepPerChunk });
    let count = 0;
    let result = steps.next();
    for (; !result.done; result = steps.next()) count++;
    // Bytes each fsync had to write: what the file grew by since the one before.
    const unsynced = sizes.map((size, i) => size - (i === 0 ? 0 : sizes[i - 1]));
    return { steps: count, unsynced, file: path.join(dir, "part.bin"), crc32: result.value.crc32 };
  } finally {
    fsync.mockRestore();
  }
}

describe("writePartSteps", () => {
  const chunks = Array.from({ length: 42 }, (_, i) => new Uint8Array(MIB).fill(i));
  const whole = Buffer.concat(chunks);

  // Flushes of FLUSH_BYTES, and the last what is left, if anything.
  const full = Math.floor(whole.length / FLUSH_BYTES);
  const flushes = [...Array.from({ length: full }, () => FLUSH_BYTES), ...(whole.length % FLUSH_BYTES ? [whole.length % FLUSH_BYTES] : [])];

  it("flushes 1 MiB at a time", () => expect(FLUSH_BYTES).toBe(MIB));

  it("flushes every FLUSH_BYTES when each 1 MiB chunk is a step", () => {
    const { steps, unsynced, file, crc32 } = writeCounting(chunks, true);
    expect(steps).toBe(43);
    expect(unsynced).toEqual(flushes);
    expect(fs.readFileSync(file).equals(whole)).toBe(true);
    // Format 7: a new part's checksum is its CRC-32.
    expect(crc32).toBe(crc32Hex(whole));
  });

  it("flushes every FLUSH_BYTES when one chunk is written over several steps (1 MiB each)", () => {
    const { steps, unsynced, file } = writeCounting([whole], false);
    expect(steps).toBe(43);
    expect(unsynced).toEqual(flushes);
    expect(fs.readFileSync(file).equals(whole)).toBe(true);
  });

  it("with a flusher, starts each flush where it would fsync, waits for it before the next and before the close, and makes none itself", () => {
    const dir = tempDir("write-part-");
    const fsync = jest.spyOn(fs, "fsyncSync");
    // Each flush is done once it has been asked three times; the file must still be open then.
    const started: number[] = [];
    const events: string[] = [];
    let pending = 0;
    const flusher: Flusher = {
      start(fd) {
        if (pending > 0) throw new Error("a flush started while another was under way");
        pending++;
        started.push(fs.fstatSync(fd).size);
        let asked = 0;
        return {
          done: () => {
            if (++asked < 3) return false;
            if (asked === 3) {
              fs.fstatSync(fd); // throws EBADF if the part closed its file before its flush was done
              pending--;
              events.push("done");
            }
            return true;
          },
        };
      },
    };
    try {
      const steps = writePartSteps(dir, "part.bin", chunks, { stepPerChunk: true, flusher });
      let result = steps.next();
      for (; !result.done; result = steps.next()) events.push(result.value === FLUSH_PENDING ? "pending" : "step");
      expect(fsync).not.toHaveBeenCalled();
      // Started every FLUSH_BYTES and at the end, as the fsyncs are made without a flusher.
      expect(started).toEqual(flushes.map((_, i) => Math.min(whole.length, FLUSH_BYTES * (i + 1))));
      expect(pending).toBe(0);
      // The writing goes on while a flush is under way: pending only where the next flush (or the close) waits.
      expect(events.filter((event) => event === "pending")).toHaveLength(2 * flushes.length);
      expect(events.filter((event) => event === "step")).toHaveLength(43);
      expect(events.slice(-4)).toEqual(["pending", "pending", "done", "step"]);
      expect(fs.readFileSync(path.join(dir, "part.bin")).equals(whole)).toBe(true);
      expect(result.value).toEqual({ file: "part.bin", bytes: whole.length, crc32: crc32Hex(whole) });
    } finally {
      fsync.mockRestore();
    }
  });

  it("with a flusher, flushes a part of exactly FLUSH_BYTES once, and one of twice that twice", () => {
    const dir = tempDir("write-part-");
    const started: number[] = [];
    const flusher: Flusher = { start: (fd) => (started.push(fs.fstatSync(fd).size), { done: () => true }) };
    for (const [file, count] of [["once.bin", 1], ["twice.bin", 2]] as const) {
      const steps = writePartSteps(dir, file, [new Uint8Array(count * FLUSH_BYTES)], { stepPerChunk: true, flusher });
      for (let result = steps.next(); !result.done; result = steps.next());
    }
    expect(started).toEqual([FLUSH_BYTES, FLUSH_BYTES, 2 * FLUSH_BYTES]);
  });

  it("with a flusher, a failed flush fails the part, and the file is closed", () => {
    const dir = tempDir("write-part-");
    let flushedFd = -1;
    const flusher: Flusher = {
      start(fd) {
        flushedFd = fd;
        return {
          done: () => {
            throw Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
          },
        };
      },
    };
    const steps = writePartSteps(dir, "part.bin", chunks, { stepPerChunk: true, flusher });
    expect(() => {
      for (let result = steps.next(); !result.done; result = steps.next());
    }).toThrow("EIO: i/o error, fsync");
    expect(() => fs.fstatSync(flushedFd)).toThrow(/EBADF/);
  });
});

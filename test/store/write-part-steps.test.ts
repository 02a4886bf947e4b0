// A checkpoint part is written in steps and flushed as it goes (writePartSteps): no one fsync may have more
// than 16 MiB of the part to write, whether the part comes as a few large chunks or many small ones made a
// step each (a BM25 snapshot's 1 MiB chunks once left the whole 377 MB to the last fsync: 256 ms at 1M).
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { writePartSteps } from "../../bridge/store/checkpoint-files";
import { tempDir } from "./helpers";

const MIB = 1024 * 1024;

function writeCounting(chunks: Uint8Array[], stepPerChunk: boolean): { steps: number; unsynced: number[]; file: string; sha256: string } {
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
    return { steps: count, unsynced, file: path.join(dir, "part.bin"), sha256: result.value.sha256 };
  } finally {
    fsync.mockRestore();
  }
}

describe("writePartSteps", () => {
  const chunks = Array.from({ length: 40 }, (_, i) => new Uint8Array(MIB).fill(i));
  const whole = Buffer.concat(chunks);

  it("flushes every 16 MiB when each 1 MiB chunk is a step", () => {
    const { steps, unsynced, file, sha256 } = writeCounting(chunks, true);
    expect(steps).toBe(41);
    expect(unsynced).toEqual([16 * MIB, 16 * MIB, 8 * MIB]);
    expect(fs.readFileSync(file).equals(whole)).toBe(true);
    expect(sha256).toBe(createHash("sha256").update(whole).digest("hex"));
  });

  it("flushes every 16 MiB when one chunk is written over several steps", () => {
    const { steps, unsynced, file } = writeCounting([whole], false);
    expect(steps).toBe(11);
    expect(unsynced).toEqual([16 * MIB, 16 * MIB, 8 * MIB]);
    expect(fs.readFileSync(file).equals(whole)).toBe(true);
  });
});

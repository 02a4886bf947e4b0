// A checkpoint part is written in steps and flushed as it goes (writePartSteps): no one fsync may have more
// than 4 MiB of the part to write, whether the part comes as a few large chunks or many small ones made a
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
  const chunks = Array.from({ length: 42 }, (_, i) => new Uint8Array(MIB).fill(i));
  const whole = Buffer.concat(chunks);

  // Ten flushes of 4 MiB, and the last the 2 MiB left.
  const flushes = [...Array.from({ length: 10 }, () => 4 * MIB), 2 * MIB];

  it("flushes every 4 MiB when each 1 MiB chunk is a step", () => {
    const { steps, unsynced, file, sha256 } = writeCounting(chunks, true);
    expect(steps).toBe(43);
    expect(unsynced).toEqual(flushes);
    expect(fs.readFileSync(file).equals(whole)).toBe(true);
    expect(sha256).toBe(createHash("sha256").update(whole).digest("hex"));
  });

  it("flushes every 4 MiB when one chunk is written over several steps (1 MiB each)", () => {
    const { steps, unsynced, file } = writeCounting([whole], false);
    expect(steps).toBe(43);
    expect(unsynced).toEqual(flushes);
    expect(fs.readFileSync(file).equals(whole)).toBe(true);
  });
});

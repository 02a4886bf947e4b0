// Issue 18, item 4: a checkpoint removes the parts it replaced in steps after its commit; a large one (the
// BM25 snapshot of a million memories, ~400 MB) is cut short a step at a time first, since freeing its
// blocks is what costs (93 ms in one unlink on ext4).
import fs from "node:fs";
import path from "node:path";
import { removeInSteps } from "../../bridge/store/checkpoint-files";
import { tempDir } from "./helpers";

const MIB = 1024 * 1024;

describe("removeInSteps", () => {
  it("cuts a large file short 64 MiB a step, then removes it", () => {
    const file = path.join(tempDir("remove-steps-"), "o1-abc.bm25.bin");
    // Sparse: 200 MiB long, no blocks written.
    fs.writeFileSync(file, "snapshot");
    fs.truncateSync(file, 200 * MIB);
    const steps = removeInSteps(file);
    const sizes: number[] = [];
    for (let step = steps.next(); !step.done; step = steps.next()) sizes.push(fs.statSync(file).size);
    expect(sizes).toEqual([136 * MIB, 72 * MIB, 8 * MIB]);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("removes a small file, a directory and a missing name in one step each", () => {
    const dir = tempDir("remove-steps-");
    fs.writeFileSync(path.join(dir, "part"), Buffer.alloc(1000, 1));
    fs.mkdirSync(path.join(dir, "leftover.tmpdir"));
    fs.writeFileSync(path.join(dir, "leftover.tmpdir", "inner"), "x");
    for (const name of ["part", "leftover.tmpdir", "never-there"]) {
      const steps = removeInSteps(path.join(dir, name));
      expect(steps.next().done).toBe(true);
      expect(fs.existsSync(path.join(dir, name))).toBe(false);
    }
  });
});

// Work in steps (index/run-steps.ts): a zeroed array made a MiB a step, for checkpoint steps at 1M that must
// not touch an 11 MB array's pages in one go.
import { runToEnd, zeroedInSteps } from "../../bridge/index/run-steps";

describe("zeroedInSteps", () => {
  it("gives zeros, also where memory was filled and let go just before, a MiB a step", () => {
    // Memory filled and let go just before, which malloc may hand back without clearing it (without the
    // fill in steps, this test failed).
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 8; i++) Buffer.allocUnsafeSlow(3 * 2 ** 20 + 4 * i).fill(0xa5);
      const length = 3 * 2 ** 18 + 5;
      const steps = zeroedInSteps(length);
      let count = 0;
      let next = steps.next();
      for (; !next.done; next = steps.next()) count++;
      const array = next.value;
      expect(array).toBeInstanceOf(Int32Array);
      expect(array.length).toBe(length);
      expect(array.findIndex((value) => value !== 0)).toBe(-1);
      // 3 MiB and 20 bytes: four steps.
      expect(count).toBe(4);
    }
  });

  it("gives an empty array in no steps", () => {
    expect(runToEnd(zeroedInSteps(0))).toEqual(new Int32Array(0));
  });
});

// Crash injection for the store's multi-file writes (checkpoints, compaction): the n-th file operation
// an action makes throws, as if the process died there; what is on disk is what it left.
import fs from "node:fs";

/** Every fs call that changes the disk, plus open/close: a crash can strike at any of them. */
export const FILE_OPERATIONS = ["openSync", "writeSync", "fsyncSync", "closeSync", "renameSync", "rmSync", "mkdirSync", "unlinkSync", "writeFileSync"] as const;

export class SimulatedCrash extends Error {}

/** Runs `action`, failing the `crashAt`-th file operation it makes; returns whether that happened. */
export function runWithCrashAt(crashAt: number, action: () => void): boolean {
  let calls = 0;
  const spies = FILE_OPERATIONS.map((name) => {
    const original = fs[name] as (...args: unknown[]) => unknown;
    return jest.spyOn(fs, name).mockImplementation(((...args: unknown[]) => {
      if (calls++ === crashAt) throw new SimulatedCrash(`simulated crash at file operation ${crashAt} (${name})`);
      return original.apply(fs, args);
    }) as never);
  });
  try {
    action();
    return false;
  } catch (error) {
    if (!(error instanceof SimulatedCrash) && !(error instanceof Error && error.cause instanceof SimulatedCrash)) throw error;
    return true;
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

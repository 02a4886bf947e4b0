// Checkpoint parts' fsyncs made on libuv's thread pool (issue 18: single fsyncs of 4 MiB stalled the bridge
// for 37-131 ms at 1M). Done is heard of when the event loop turns; settle() makes the flushes under way here
// for a caller that will not let it turn; a failure comes back as the fsync's own error; a disposed flusher
// fsyncs on this thread.
import fs from "node:fs";
import path from "node:path";
import { PoolFlusher, type FlushTicket } from "../../bridge/store/flusher";
import { tempDir } from "./helpers";

/** Lets the event loop turn until `ticket` is done; fails after 60 s. */
async function untilDone(ticket: FlushTicket): Promise<void> {
  const limit = Date.now() + 60_000;
  while (!ticket.done()) {
    if (Date.now() > limit) throw new Error("the flush was not done within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Counts the thread pool's answers to fs.fsync (after the flusher's callback has run). */
function countAnswers(): { answered: () => number; restore: () => void } {
  const original = fs.fsync;
  let answered = 0;
  const spy = jest.spyOn(fs, "fsync").mockImplementation(((fd: number, callback: fs.NoParamCallback) =>
    original(fd, (error) => {
      callback(error);
      answered++;
    })) as typeof fs.fsync);
  return { answered: () => answered, restore: () => spy.mockRestore() };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const limit = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > limit) throw new Error(`not within 60 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

function openPart(): { file: string; fd: number } {
  const file = path.join(tempDir("flusher-"), "part.bin");
  return { file, fd: fs.openSync(file, "wx") };
}

describe("PoolFlusher", () => {
  let flusher: PoolFlusher;
  beforeEach(() => (flusher = new PoolFlusher()));
  afterEach(() => flusher.dispose());

  it("fsyncs on the thread pool: not done until the event loop has turned, none on this thread", async () => {
    const { file, fd } = openPart();
    const fsyncSync = jest.spyOn(fs, "fsyncSync");
    const fsync = jest.spyOn(fs, "fsync");
    try {
      for (let i = 0; i < 3; i++) {
        fs.writeSync(fd, Buffer.alloc(1 << 20, i));
        const ticket = flusher.start(fd);
        // Its callback cannot have run: this code has not let the event loop turn.
        expect(ticket.done()).toBe(false);
        expect(flusher.busy).toBe(true);
        await untilDone(ticket);
        expect(flusher.busy).toBe(false);
      }
      expect(fsync).toHaveBeenCalledTimes(3);
      expect(fsync.mock.calls.map(([of]) => of)).toEqual([fd, fd, fd]);
      expect(fsyncSync).not.toHaveBeenCalled();
    } finally {
      fsyncSync.mockRestore();
      fsync.mockRestore();
      fs.closeSync(fd);
    }
    expect(fs.statSync(file).size).toBe(3 << 20);
  });

  it("gives a failed fsync back as its error, code included, to the flush that failed only", async () => {
    const failed = flusher.start(1_000_000);
    const error = await untilDone(failed).then(
      () => undefined,
      (thrown: NodeJS.ErrnoException) => thrown,
    );
    expect(error?.code).toBe("EBADF");
    expect(error?.syscall).toBe("fsync");
    expect(error?.message).toMatch(/^EBADF/);
    const { fd } = openPart();
    try {
      const fine = flusher.start(fd);
      await untilDone(fine);
      expect(fine.done()).toBe(true);
    } finally {
      fs.closeSync(fd);
    }
  });

  it("settle() makes the flushes under way on this thread, at once; their late answers change nothing", async () => {
    const { fd } = openPart();
    const answers = countAnswers();
    const bad = flusher.start(1_000_001);
    const fsyncSync = jest.spyOn(fs, "fsyncSync");
    try {
      fs.writeSync(fd, Buffer.alloc(4096, 7));
      const ticket = flusher.start(fd);
      flusher.settle();
      expect(fsyncSync.mock.calls.map(([of]) => of)).toEqual([1_000_001, fd]);
      expect(ticket.done()).toBe(true);
      expect(() => bad.done()).toThrow(expect.objectContaining({ code: "EBADF", syscall: "fsync" }));
      expect(flusher.busy).toBe(false);
      // The pool's answers come in later and are not heard: the tickets stay as settled.
      await until(() => answers.answered() === 2, "the pool's two answers");
      expect(ticket.done()).toBe(true);
      expect(() => bad.done()).toThrow(expect.objectContaining({ code: "EBADF" }));
    } finally {
      answers.restore();
      fsyncSync.mockRestore();
      fs.closeSync(fd);
    }
  });

  it("makes a flush here once the pool has not answered it for stallMs, without the event loop turning", () => {
    flusher = new PoolFlusher(0);
    const { fd } = openPart();
    const fsyncSync = jest.spyOn(fs, "fsyncSync");
    try {
      const ticket = flusher.start(fd);
      expect(ticket.done()).toBe(true);
      expect(fsyncSync.mock.calls).toEqual([[fd]]);
      expect(flusher.busy).toBe(false);
    } finally {
      fsyncSync.mockRestore();
      fs.closeSync(fd);
    }
  });

  it("once disposed, drops the flushes under way and fsyncs on this thread", async () => {
    const { fd } = openPart();
    const answers = countAnswers();
    const dropped = flusher.start(fd);
    flusher.dispose();
    expect(flusher.busy).toBe(false);
    const fsyncSync = jest.spyOn(fs, "fsyncSync");
    try {
      expect(flusher.start(fd).done()).toBe(true);
      expect(fsyncSync).toHaveBeenCalledWith(fd);
      await until(() => answers.answered() === 1, "the pool's answer");
      // Nobody waits for the dropped one (its checkpoint was abandoned, its file closed).
      expect(dropped.done()).toBe(false);
    } finally {
      answers.restore();
      fsyncSync.mockRestore();
      fs.closeSync(fd);
    }
  });
});

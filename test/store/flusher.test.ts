// Checkpoint parts' fsyncs made on a worker thread (issue 18: single fsyncs of 4 MiB stalled the bridge for
// 37-131 ms at 1M). Completion must be seen without the event loop (a close runs a checkpoint to its end in
// one go), a failure must come back as the fsync's own error, and a disposed flusher fsyncs on this thread.
import fs from "node:fs";
import path from "node:path";
import { WorkerFlusher, type FlushTicket } from "../../bridge/store/flusher";
import { tempDir } from "./helpers";

/** Asks `ticket` until it is done, never letting the event loop run; fails after 60 s. */
function spinUntilDone(ticket: FlushTicket): void {
  const until = Date.now() + 60_000;
  while (!ticket.done()) if (Date.now() > until) throw new Error("the flush was not done within 60 s");
}

describe("WorkerFlusher", () => {
  let flusher: WorkerFlusher;
  afterEach(() => flusher.dispose());

  it("fsyncs on its worker, done as seen from a loop that never yields to the event loop", () => {
    flusher = new WorkerFlusher();
    const file = path.join(tempDir("flusher-"), "part.bin");
    const fd = fs.openSync(file, "wx");
    const fsync = jest.spyOn(fs, "fsyncSync");
    try {
      for (let i = 0; i < 3; i++) {
        fs.writeSync(fd, Buffer.alloc(1 << 20, i));
        spinUntilDone(flusher.start(fd));
      }
      expect(fsync).not.toHaveBeenCalled();
    } finally {
      fsync.mockRestore();
      fs.closeSync(fd);
    }
    expect(fs.statSync(file).size).toBe(3 << 20);
  });

  it("gives a failed fsync back as its error, code included, to the flush that failed only", () => {
    flusher = new WorkerFlusher();
    const badFd = 1_000_000;
    const failed = flusher.start(badFd);
    let error: NodeJS.ErrnoException | undefined;
    try {
      spinUntilDone(failed);
    } catch (thrown) {
      error = thrown as NodeJS.ErrnoException;
    }
    expect(error?.code).toBe("EBADF");
    expect(error?.syscall).toBe("fsync");
    expect(error?.message).toMatch(/^EBADF/);
    const fd = fs.openSync(path.join(tempDir("flusher-"), "part.bin"), "wx");
    try {
      const fine = flusher.start(fd);
      spinUntilDone(fine);
      expect(fine.done()).toBe(true);
    } finally {
      fs.closeSync(fd);
    }
  });

  it("once disposed, fsyncs on this thread", () => {
    flusher = new WorkerFlusher();
    flusher.dispose();
    const fd = fs.openSync(path.join(tempDir("flusher-"), "part.bin"), "wx");
    const fsync = jest.spyOn(fs, "fsyncSync");
    try {
      expect(flusher.start(fd).done()).toBe(true);
      expect(fsync).toHaveBeenCalledWith(fd);
    } finally {
      fsync.mockRestore();
      fs.closeSync(fd);
    }
  });
});

// fsync off the main thread, for checkpoints written in steps between requests. A part's flush (fsync of the
// last 4 MiB written) took 3 ms (p50) on the benchmark VM, but in full checkpoints at 1M (3.5 GB written) single
// ones took 36.8, 47.2, 80.4, 99.5 and 131.5 ms: each a pause of the bridge when made on its own thread. Here
// the fsync is handed to libuv's thread pool (fs.fsync) and the writing goes on; a part is closed, and its
// checkpoint committed, only once its flushes are done. Done is known when the event loop has run the
// fsync's callback: the bridge's slices let it turn; a caller that cannot (a checkpoint run to its end in one
// go) settles the flushes under way on its own thread.
//
// A worker thread (a Worker answering through shared memory) did this before: starting it, a V8 isolate
// booting beside a 3 GB import heap on two cores, went with first slices of 257 and 432 ms at 1M, and it
// held its own heap for the store's life. The pool's threads are native and already there.
import fs from "node:fs";

/** A flush under way: done() is true once the file is on disk, and throws the fsync's error if it failed. */
export interface FlushTicket {
  done(): boolean;
}

/** What writePartSteps flushes a part through instead of fsync on its own thread. */
export interface Flusher {
  start(fd: number): FlushTicket;
}

interface Flush {
  fd: number;
  done: boolean;
  error?: Error;
}

/**
 * A flush the pool has not answered in this long is made here: a pool kept busy by other work (four threads
 * for every asynchronous file call of the process), or a caller that never lets the event loop turn, then
 * costs a wait, not a checkpoint that never ends.
 */
const STALL_MS = 10_000;

/**
 * Flushes files on libuv's thread pool, for a store's life: settle() makes those under way here (the event
 * loop not turning), as does a flush unanswered for `stallMs`; dispose() drops them (their files closed) and
 * makes later ones here.
 */
export class PoolFlusher implements Flusher {
  private readonly pending = new Set<Flush>();
  private disposed = false;

  constructor(private readonly stallMs = STALL_MS) {}

  start(fd: number): FlushTicket {
    if (this.disposed) {
      fs.fsyncSync(fd);
      return { done: () => true };
    }
    const flush: Flush = { fd, done: false };
    this.pending.add(flush);
    fs.fsync(fd, (error) => {
      // Settled here, or dropped with a file already closed: nothing waits for this answer.
      if (!this.pending.delete(flush)) return;
      flush.done = true;
      if (error) flush.error = error;
    });
    const started = performance.now();
    return {
      done: () => {
        if (!flush.done && performance.now() - started >= this.stallMs) this.settleOne(flush);
        if (!flush.done) return false;
        if (flush.error) throw flush.error;
        return true;
      },
    };
  }

  /** Whether a flush is under way (its callback not run yet). */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  /**
   * Makes every flush under way on this thread, now (an fsync the pool is making meanwhile flushes the same
   * pages): for a caller that will not let the event loop turn. A failure is given to that flush's ticket.
   */
  settle(): void {
    for (const flush of [...this.pending]) this.settleOne(flush);
  }

  private settleOne(flush: Flush): void {
    if (!this.pending.delete(flush)) return;
    try {
      fs.fsyncSync(flush.fd);
    } catch (error) {
      flush.error = error as Error;
    }
    flush.done = true;
  }

  /** Drops the flushes under way (their checkpoint abandoned, its files closed); later flushes are made on this thread. */
  dispose(): void {
    this.disposed = true;
    this.pending.clear();
  }
}

// What a long slice of work overlapped: V8's collections (from a PerformanceObserver, whose entries come in
// only when the event loop turns, so they are matched to the slices afterwards), the process's context
// switches and page faults during the slice (getrusage: waits in the kernel, the CPU taken by another
// thread or process, memory touched for the first time), and on Linux where the time went: the main
// thread on the CPU or waiting for one (its schedstat), the process's other threads (V8's helpers, the
// thread pool) and other processes on the CPU meanwhile (/proc/stat).
import fs from "node:fs";
import { PerformanceObserver, constants } from "node:perf_hooks";

export const LONG_SLICE_MS = 20;

export interface LongSlice {
  /** The slice's number (from 1) and start, seconds into the watched work. */
  index: number;
  at_s: number;
  ms: number;
  /** Collections that overlapped the slice: kind and ms of the slice they took. */
  gc: Array<{ kind: string; ms: number }>;
  /** Context switches while the slice ran: waits (I/O, locks) and preemptions; page faults (minor + major). */
  waits: number;
  preempted: number;
  page_faults: number;
  /** Linux only: ms the main thread ran and waited to run; CPU ms of the process's other threads and of the rest of the machine. */
  cpu?: { main_ms: number; main_waiting_ms: number; other_threads_ms: number; other_processes_ms: number };
}

export interface SliceSummary {
  slices: number;
  over_ms: Record<"20" | "30" | "50", number>;
  /** The longest slices, longest first (at most LONGEST_KEPT). */
  longest: LongSlice[];
}

const LONGEST_KEPT = 5;
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "scavenge",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "mark-compact",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental marking",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak callbacks",
};

/** Watches slices of work: `run(fn)` times one; `finish()` gives the slices over LONG_SLICE_MS with what they overlapped. */
export class SliceWatch {
  private readonly started = performance.now();
  private readonly long: Array<Omit<LongSlice, "gc"> & { from: number; to: number }> = [];
  private readonly collections: Array<{ from: number; to: number; kind: string }> = [];
  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1;
      this.collections.push({ from: entry.startTime, to: entry.startTime + entry.duration, kind: GC_KINDS[kind] ?? `kind ${kind}` });
    }
  });
  private count = 0;
  private readonly over = { "20": 0, "30": 0, "50": 0 };

  constructor() {
    this.observer.observe({ entryTypes: ["gc"] });
  }

  /** Runs `fn` as one slice, timed; returns its result and its length in ms. */
  run<T>(fn: () => T): { value: T; ms: number } {
    const before = process.resourceUsage();
    const cpuBefore = cpuNow();
    const from = performance.now();
    const value = fn();
    const to = performance.now();
    const length = to - from;
    this.count++;
    for (const limit of [20, 30, 50] as const) if (length > limit) this.over[limit]++;
    if (length > LONG_SLICE_MS) {
      const after = process.resourceUsage();
      this.long.push({
        index: this.count,
        at_s: Math.round((from - this.started) / 100) / 10,
        ms: Math.round(length * 10) / 10,
        waits: after.voluntaryContextSwitches - before.voluntaryContextSwitches,
        preempted: after.involuntaryContextSwitches - before.involuntaryContextSwitches,
        page_faults: after.minorPageFault + after.majorPageFault - before.minorPageFault - before.majorPageFault,
        ...cpuSince(cpuBefore, before),
        from,
        to,
      });
    }
    return { value, ms: length };
  }

  /** Lets the event loop turn so the collections' entries come in, then matches them to the long slices. */
  async finish(): Promise<SliceSummary> {
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 10));
    this.observer.disconnect();
    const longest = [...this.long].sort((a, b) => b.ms - a.ms).slice(0, LONGEST_KEPT);
    return {
      slices: this.count,
      over_ms: { ...this.over },
      longest: longest.map(({ from, to, ...slice }) => ({
        ...slice,
        gc: this.collections
          .filter((gc) => gc.to > from && gc.from < to)
          .map((gc) => ({ kind: gc.kind, ms: Math.round((Math.min(gc.to, to) - Math.max(gc.from, from)) * 10) / 10 })),
      })),
    };
  }
}

interface CpuSample {
  mainRunNs: number;
  mainWaitNs: number;
  /** Busy ticks of the whole machine (all CPUs). */
  machineTicks: number;
}

const MAIN_SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
// USER_HZ: 100 on every Linux Node runs on.
const TICK_MS = 10;
const procReadable = (() => {
  try {
    fs.readFileSync(MAIN_SCHEDSTAT);
    fs.readFileSync("/proc/stat");
    return true;
  } catch {
    return false;
  }
})();

function cpuNow(): CpuSample | undefined {
  if (!procReadable) return undefined;
  const [run, wait] = fs.readFileSync(MAIN_SCHEDSTAT, "latin1").split(" ").map(Number);
  const total = fs.readFileSync("/proc/stat", "latin1");
  // cpu  user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait.
  const ticks = total.slice(0, total.indexOf("\n")).trim().split(/\s+/).slice(1).map(Number);
  const busy = ticks.reduce((sum, value, i) => (i === 3 || i === 4 ? sum : sum + value), 0);
  return { mainRunNs: run, mainWaitNs: wait, machineTicks: busy };
}

function cpuSince(before: CpuSample | undefined, usageBefore: NodeJS.ResourceUsage): Pick<LongSlice, "cpu"> {
  const after = cpuNow();
  if (!before || !after) return {};
  const usageAfter = process.resourceUsage();
  const processMs = (usageAfter.userCPUTime + usageAfter.systemCPUTime - usageBefore.userCPUTime - usageBefore.systemCPUTime) / 1000;
  const mainMs = (after.mainRunNs - before.mainRunNs) / 1e6;
  const round = (ms: number) => Math.round(Math.max(0, ms) * 10) / 10;
  return {
    cpu: {
      main_ms: round(mainMs),
      main_waiting_ms: round((after.mainWaitNs - before.mainWaitNs) / 1e6),
      other_threads_ms: round(processMs - mainMs),
      other_processes_ms: round((after.machineTicks - before.machineTicks) * TICK_MS - processMs),
    },
  };
}

/** One line per long slice: "#12 at 3.4 s: 61.2 ms (scavenge 44.1 ms; 2 waits, 5 preempted, 130 page faults)". */
export function describeSlices(summary: SliceSummary): string[] {
  return summary.longest.map((slice) => {
    const gc = slice.gc.map((g) => `${g.kind} ${g.ms} ms`).join(", ") || "no collection";
    const cpu = slice.cpu ? `; main thread ran ${slice.cpu.main_ms} ms, waited for a CPU ${slice.cpu.main_waiting_ms} ms; other threads ${slice.cpu.other_threads_ms} ms, other processes ~${slice.cpu.other_processes_ms} ms of CPU` : "";
    return `#${slice.index} at ${slice.at_s} s: ${slice.ms} ms (${gc}; ${slice.waits} waits, ${slice.preempted} preempted, ${slice.page_faults} page faults${cpu})`;
  });
}

// Retention: which memories a user's limits say to let go (older than a scope's age limit, or beyond
// its newest N). Pure: the store forgets what this returns and compaction erases it.
import type { MemoryRecord } from "./records";

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Limits on how long memories are kept; 0 = no limit. Applied by the bridge's compaction (retention.ts). */
export interface RetentionLimits {
  /** Memories whose time is older than this many days are forgotten and erased. */
  maxAgeDays: number;
  /** Only the newest this many memories of each scope are kept. */
  maxMemories: number;
}

export interface RetentionConfig extends RetentionLimits {
  /** Per-scope overrides ("global", "project:<name>"); a field left out takes the limit above. */
  scopes: Record<string, Partial<RetentionLimits>>;
}

export interface RetentionVerdict {
  /** Docs to forget, in doc order. */
  docs: number[];
  /** Per scope, how many go for age and how many for the count limit. */
  byScope: Record<string, { age: number; count: number }>;
}

/** Whether any limit is set at all: a store with none is never scanned. */
function retentionActive(policy: RetentionConfig): boolean {
  return policy.maxAgeDays > 0 || policy.maxMemories > 0 || Object.values(policy.scopes).some((s) => (s.maxAgeDays ?? 0) > 0 || (s.maxMemories ?? 0) > 0);
}

/** The limits that hold for one scope: its override where it has one, else the defaults. */
function limitsFor(policy: RetentionConfig, scope: string): RetentionLimits {
  const own = policy.scopes[scope] ?? {};
  return { maxAgeDays: own.maxAgeDays ?? policy.maxAgeDays, maxMemories: own.maxMemories ?? policy.maxMemories };
}

/**
 * The live memories the limits let go. Age is the memory's own time (`timestamp_ms`, when it was said),
 * so an import of old conversations is held to the same limit as capture. The count limit keeps each
 * scope's newest memories by that time (later docs first on ties) among those the age limit kept.
 */
export function retentionVerdict(records: ReadonlyArray<MemoryRecord | undefined>, policy: RetentionConfig, nowMs: number): RetentionVerdict {
  const verdict: RetentionVerdict = { docs: [], byScope: {} };
  if (!retentionActive(policy)) return verdict;
  const kept = new Map<string, number[]>();
  const limits = new Map<string, RetentionLimits>();
  const tally = (scope: string) => (verdict.byScope[scope] ??= { age: 0, count: 0 });
  const going = new Set<number>();
  records.forEach((record, doc) => {
    if (!record) return;
    let scopeLimits = limits.get(record.scope);
    if (!scopeLimits) limits.set(record.scope, (scopeLimits = limitsFor(policy, record.scope)));
    if (scopeLimits.maxAgeDays > 0 && nowMs - record.timestamp_ms > scopeLimits.maxAgeDays * DAY_MS) {
      going.add(doc);
      tally(record.scope).age++;
      return;
    }
    if (scopeLimits.maxMemories <= 0) return;
    let docs = kept.get(record.scope);
    if (!docs) kept.set(record.scope, (docs = []));
    docs.push(doc);
  });
  for (const [scope, docs] of kept) {
    const max = limits.get(scope)!.maxMemories;
    if (docs.length <= max) continue;
    docs.sort((a, b) => records[b]!.timestamp_ms - records[a]!.timestamp_ms || b - a);
    for (const doc of docs.slice(max)) going.add(doc);
    tally(scope).count += docs.length - max;
  }
  verdict.docs = [...going].sort((a, b) => a - b);
  return verdict;
}

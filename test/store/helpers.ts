// Shared test set-up: a store in a fresh temporary data directory with a controllable clock.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";

export function tempDir(prefix = "dream-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function openStore(dataDir = tempDir()): MemoryStore {
  let n = 0;
  return MemoryStore.open({ dataDir, nowMs: () => 1_750_000_000_000, newId: () => `gen-${++n}` });
}

export function searchIds(store: MemoryStore, request: Record<string, unknown>): string[] {
  return store.search(parseSearchRequest(request)).results.map((r) => r.id);
}

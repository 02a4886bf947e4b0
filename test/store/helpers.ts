// Shared test set-up: a store in a fresh temporary data directory with a controllable clock.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { crc32 } from "node:zlib";
import { MemoryStore } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";

const created: string[] = [];

/** A fresh temporary folder, deleted after the test file (test/temp-cleanup.ts). */
export function tempDir(prefix = "dream-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Deletes every folder tempDir made in this test file; one that cannot go yet (a process still closing) is retried. */
export function removeCreatedTempDirs(): void {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** The CRC-32 of `bytes` as a manifest names a part's (8 lowercase hex digits), made here with zlib. */
export function crc32Hex(bytes: Uint8Array): string {
  return crc32(bytes).toString(16).padStart(8, "0");
}

export function openStore(dataDir = tempDir()): MemoryStore {
  let n = 0;
  return MemoryStore.open({ dataDir, nowMs: () => 1_750_000_000_000, newId: () => `gen-${++n}` });
}

export function searchIds(store: MemoryStore, request: Record<string, unknown>): string[] {
  return store.search(parseSearchRequest(request)).results.map((r) => r.id);
}

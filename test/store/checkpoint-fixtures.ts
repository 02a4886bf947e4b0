// Fixtures for the checkpoint tests: a seeded history of writes (two vector spaces, scopes, sessions,
// quarantine, forgets that leave holes in the doc numbering) and an observation of everything a user can
// see of a store, so two stores can be compared as a whole.
import fs from "node:fs";
import path from "node:path";
import type { Manifest } from "../../bridge/store/checkpoint-format";
import { MemoryStore, type StoreOptions } from "../../bridge/store/memory-store";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { tempDir } from "./helpers";
import { seededRandom } from "../fixtures/seeded-random";

const WORDS = "key drawer mug blue garden tomato trip paris train ticket coffee morning meeting project deadline river bike repair moved placed".split(" ");
const CHARS = "钥匙抽屉蓝色杯子花园番茄旅行巴黎火车咖啡会议项目河流自行车修理".split("");
const SCOPES = ["project:alpha", "global", "project:beta"];


const random = seededRandom(20261129);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const vector = (dim: number): number[] => Array.from({ length: dim }, () => random() * 2 - 1);
export const main = (v: number[]) => ({ provider: "test", model: "m8", vector: v });
export const alt = (v: number[]) => ({ provider: "alt", model: "m3", vector: v });

// Two memories in eight state where the keys are (a user's, so they set the slot), in Chinese and English,
// so speech acts, state slots, the slot index and collapse are part of what is compared.
const STATES: Record<number, () => string> = {
  4: () => `钥匙放在${pick(["鞋柜", "花盆", "抽屉", "书包"])}里了。`,
  6: () => `My keys are in the ${pick(["drawer", "car", "bag", "hallway"])} now.`,
};

/** Record inputs m-0 … m-(n-1); fixed once generated, so every test sees the same corpus. */
export const RECORDS = Array.from({ length: 260 }, (_, i) => {
  const words = `${Array.from({ length: 4 + (i % 7) }, () => pick(WORDS)).join(" ")} ${Array.from({ length: 2 + (i % 5) }, () => pick(CHARS)).join("")}`;
  const text = STATES[i % 8]?.() ?? words;
  const input: Record<string, unknown> = {
    id: `m-${i}`,
    text,
    source_type: i % 2 === 0 ? "user_message" : "assistant_message",
    timestamp_ms: 1_700_000_000_000 + i * 1000,
    scope: SCOPES[i % 3],
  };
  if (i % 4 !== 3) Object.assign(input, { session_id: `s${i % 7}`, turn: Math.floor(i / 7) });
  if (i % 11 === 0) input.embedding = alt(vector(3));
  else if (i % 5 !== 4) input.embedding = main(vector(8));
  if (i % 17 === 0) input.quarantined = "seeded quarantine";
  if (i % 9 === 0) Object.assign(input, { tags: ["t", `n${i}`], metadata: { n: i, nested: { ok: true } } });
  return input;
});

const QUERIES = [
  ...Array.from({ length: 10 }, () => ({ text: `${pick(WORDS)} ${pick(WORDS)} ${pick(CHARS)}${pick(CHARS)}`, main: vector(8), alt: vector(3) })),
  { text: "钥匙在哪里？", main: vector(8), alt: vector(3) },
  { text: "Where are my keys?", main: vector(8), alt: vector(3) },
];

/** Imports records [from, to) in two batches, then forgets, quarantines and releases some of them. */
export function writeHistory(store: MemoryStore, from: number, to: number): void {
  const middle = Math.floor((from + to) / 2);
  store.importRecords(RECORDS.slice(from, middle));
  store.importRecords(RECORDS.slice(middle, to));
  for (let i = from; i < to; i += 13) store.forget(`m-${i}`);
  for (let i = from + 2; i < to; i += 10) if (store.get(`m-${i}`)) store.quarantine(`m-${i}`, `checked ${i}`);
  for (let i = from + 2; i < to; i += 30) if (store.get(`m-${i}`)) store.release(`m-${i}`);
  // Forget the newest record too, so the doc numbering ends in a hole that the next add must not reuse.
  if (store.get(`m-${to - 1}`)) store.forget(`m-${to - 1}`);
}

/** Writes on records from earlier history: what a journal tail after a checkpoint does to checkpointed memories. */
export function touchEarlier(store: MemoryStore, from: number, to: number): void {
  for (let i = from + 5; i < to; i += 23) if (store.get(`m-${i}`)) store.forget(`m-${i}`);
  for (let i = from + 4; i < to; i += 19) if (store.get(`m-${i}`)) store.quarantine(`m-${i}`, "late quarantine");
  for (let i = from; i < to; i += 17) if (store.get(`m-${i}`)?.quarantine) store.release(`m-${i}`);
}

/** A closed store in a new directory holding history [0, to) and a checkpoint of it, written under `options`. */
export function checkpointedHistory(prefix: string, options: Partial<StoreOptions>, to = 200): string {
  const dataDir = tempDir(prefix);
  const writer = openAt(dataDir, options);
  writeHistory(writer, 0, to);
  writer.checkpoint();
  writer.close();
  return dataDir;
}

export function openAt(dataDir: string, options: Partial<StoreOptions> = {}): MemoryStore {
  let n = 0;
  return MemoryStore.open({ dataDir, nowMs: () => 1_750_000_000_000, newId: () => `gen-${++n}`, ...options });
}

/** A copy of a closed data directory, optionally without its checkpoint (forcing a full replay). */
export function copyDataDir(from: string, { withCheckpoint = true } = {}): string {
  const to = tempDir("ckpt-copy-");
  fs.cpSync(from, to, { recursive: true, filter: (src) => path.basename(src) !== "store.lock" && (withCheckpoint || path.basename(src) !== "checkpoint") });
  return to;
}

/** Everything a user can observe: hybrid, lexical, timeline and scoped searches with receipts, dense diagnostics, records, counts. */
export function observe(store: MemoryStore): unknown {
  const requests = QUERIES.flatMap((q) => [
    { query: q.text, top_k: 5 },
    { query: q.text, top_k: 5, query_embedding: main(q.main) },
    { query: q.text, top_k: 8, timeline: true, scope: "project:alpha", query_embedding: main(q.main) },
    { query: q.text, top_k: 3, scope: "project:beta", query_embedding: alt(q.alt) },
  ]);
  const searches = requests.map((request) => {
    const { results, receipt } = store.search(parseSearchRequest(request));
    const { receipt_id: _id, timings_ms: _timings, ...stable } = receipt;
    return { results, receipt: stable };
  });
  const dense = QUERIES.map((q) => store.searchVector({ provider: "test", model: "m8", vector: Float32Array.from(q.main) }, 10));
  const status = store.status() as Record<string, unknown>;
  const counts = Object.fromEntries(["records", "quarantined", "scopes", "vectors"].map((key) => [key, status[key]]));
  // How the lexical index is packed is not observable: a restored index is packed, a replayed one is not.
  counts.lexical = { docs: (status.lexical as { docs: number }).docs };
  const entries = (status.journal as { entries: number }).entries;
  return { searches, dense, counts, entries, records: RECORDS.map((r) => store.get(r.id as string) ?? null) };
}

export function checkpointStatus(store: MemoryStore): { used: boolean; reason?: string; offset: number; entries_replayed_after: number } {
  return (store.status() as { checkpoint: { used: boolean; reason?: string; offset: number; entries_replayed_after: number } }).checkpoint;
}

export const readManifest = (dataDir: string): Manifest => JSON.parse(fs.readFileSync(path.join(dataDir, "checkpoint", "manifest.json"), "utf8"));

/** The files under `dir` this process holds open (Linux: /proc/self/fd), as names relative to `dir`; "(deleted)" marks a removed one. */
export function openFilesUnder(dir: string): string[] {
  const open: string[] = [];
  for (const fd of fs.readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = fs.readlinkSync(path.join("/proc/self/fd", fd));
    } catch {
      continue;
    }
    if (target.startsWith(dir + path.sep)) open.push(path.relative(dir, target));
  }
  return open.sort();
}

/** `it` where open files can be listed (/proc/self/fd), skipped elsewhere. */
export const linux = process.platform === "linux" ? it : it.skip;

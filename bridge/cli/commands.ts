// The store commands of `dsh-dream`: import, add, search, status, forget, quarantine, release.
import fs from "node:fs";
import path from "node:path";
import { DreamError } from "../protocol/errors";
import type { MemoryStore } from "../store/memory-store";
import { parseSearchRequest } from "../store/search-request";
import { flagInt, flagString, type ParsedArgs } from "./args";
import { formatSearch } from "./format";
import type { CliIo } from "./io";

const IMPORT_BATCH = 5000;

export function importCommand(store: MemoryStore, args: ParsedArgs, io: CliIo): number {
  const file = requirePositional(args, 0, "import FILE.jsonl");
  const lines = readLines(path.resolve(io.cwd, file));
  let added = 0;
  let unchanged = 0;
  const problems: string[] = [];
  for (let start = 0; start < lines.length; start += IMPORT_BATCH) {
    const chunk: Array<{ lineNo: number; value: unknown }> = [];
    lines.slice(start, start + IMPORT_BATCH).forEach((text, i) => {
      const lineNo = start + i + 1;
      if (text.trim() === "") return;
      try {
        chunk.push({ lineNo, value: JSON.parse(text) });
      } catch (error) {
        problems.push(`line ${lineNo}: [BAD_JSON] ${(error as Error).message}`);
      }
    });
    const report = store.importRecords(chunk.map((c) => c.value));
    added += report.added;
    unchanged += report.unchanged;
    for (const r of report.rejected) problems.push(`line ${chunk[r.index].lineNo}: [${r.code}] ${r.message}`);
  }
  problems.sort((a, b) => lineOf(a) - lineOf(b));
  for (const p of problems) io.err(p + "\n");
  io.out(`imported ${added}, unchanged ${unchanged}, rejected ${problems.length}\n`);
  return problems.length ? 1 : 0;
}

export function addCommand(store: MemoryStore, args: ParsedArgs, io: CliIo): number {
  const input: Record<string, unknown> = { text: flagString(args, "text"), source_type: flagString(args, "source-type") };
  if (input.text === undefined) throw new DreamError("MISSING_FIELD", "--text is required", { field: "text" });
  if (input.source_type === undefined) throw new DreamError("MISSING_FIELD", "--source-type is required", { field: "source_type" });
  const optional: Array<[string, string, "int" | "string"]> = [
    ["timestamp-ms", "timestamp_ms", "int"],
    ["id", "id", "string"],
    ["scope", "scope", "string"],
    ["session-id", "session_id", "string"],
    ["turn", "turn", "int"],
  ];
  for (const [flag, field, kind] of optional) {
    const value = kind === "int" ? flagInt(args, flag) : flagString(args, flag);
    if (value !== undefined) input[field] = value;
  }
  const { record, status } = store.add(input);
  if (args.flags.has("json")) io.out(JSON.stringify({ status, record }) + "\n");
  else io.out(`${status} ${record.id}\n`);
  return 0;
}

export function searchCommand(store: MemoryStore, args: ParsedArgs, io: CliIo): number {
  const batch = flagString(args, "batch");
  const defaults: Record<string, unknown> = {};
  const topK = flagInt(args, "top-k");
  if (topK !== undefined) defaults.top_k = topK;
  if (args.flags.has("timeline")) defaults.timeline = true;
  const scope = flagString(args, "scope");
  if (scope !== undefined) defaults.scope = scope;
  const embeddingFile = flagString(args, "query-embedding");
  if (embeddingFile !== undefined) defaults.query_embedding = readJson(path.resolve(io.cwd, embeddingFile), "--query-embedding");
  const json = args.flags.has("json");
  if (batch === undefined) {
    const query = args.positionals.join(" ");
    const response = store.search(parseSearchRequest({ ...defaults, query }));
    io.out(json ? JSON.stringify(response) + "\n" : formatSearch(response));
    return 0;
  }
  if (!json) throw new DreamError("BAD_ARGUMENTS", "search --batch writes JSON lines; add --json");
  // Validate every line before answering any, so a bad line never leaves a half-written output.
  const requests = readLines(path.resolve(io.cwd, batch)).flatMap((text, i) => {
    if (text.trim() === "") return [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new DreamError("BAD_JSON", `${batch} line ${i + 1}: ${(error as Error).message}`);
    }
    try {
      return [parseSearchRequest({ ...defaults, ...(value as object) })];
    } catch (error) {
      if (error instanceof DreamError) throw new DreamError(error.code, `${batch} line ${i + 1}: ${error.message}`, { field: error.field });
      throw error;
    }
  });
  for (const request of requests) io.out(JSON.stringify(store.search(request)) + "\n");
  return 0;
}

export function searchVectorCommand(store: MemoryStore, args: ParsedArgs, io: CliIo): number {
  const file = flagString(args, "query-embedding");
  if (file === undefined) throw new DreamError("MISSING_FIELD", "--query-embedding FILE is required", { field: "query_embedding" });
  const request = parseSearchRequest({
    query: "(vector diagnostics)",
    query_embedding: readJson(path.resolve(io.cwd, file), "--query-embedding"),
    ...(flagInt(args, "top-k") === undefined ? {} : { top_k: flagInt(args, "top-k") }),
    ...(flagString(args, "scope") === undefined ? {} : { scope: flagString(args, "scope") }),
  });
  const hits = store.searchVector(request.queryEmbedding!, request.topK, request.scope);
  if (args.flags.has("json")) io.out(JSON.stringify({ results: hits }) + "\n");
  else hits.forEach((h, i) => io.out(`${String(i + 1).padStart(2)}. ${h.score.toFixed(4)}  ${h.id}${h.quarantined ? "  (quarantined)" : ""}\n`));
  return 0;
}

export function statusCommand(store: MemoryStore, args: ParsedArgs, io: CliIo): number {
  const status = store.status();
  if (args.flags.has("json")) io.out(JSON.stringify(status) + "\n");
  else for (const [key, value] of Object.entries(status)) io.out(`${key}: ${typeof value === "object" ? JSON.stringify(value) : value}\n`);
  return 0;
}

export function lifecycleCommand(store: MemoryStore, verb: "forget" | "quarantine" | "release", args: ParsedArgs, io: CliIo): number {
  const id = requirePositional(args, 0, `${verb} ID`);
  let record;
  if (verb === "quarantine") {
    const reason = flagString(args, "reason");
    if (reason === undefined) throw new DreamError("MISSING_FIELD", "--reason is required", { field: "reason" });
    record = store.quarantine(id, reason);
  } else {
    record = verb === "forget" ? store.forget(id) : store.release(id);
  }
  const summary = { [verb === "forget" ? "forgotten" : verb === "quarantine" ? "quarantined" : "released"]: record };
  io.out(args.flags.has("json") ? JSON.stringify(summary) + "\n" : `${Object.keys(summary)[0]} ${id}\n`);
  return 0;
}

function requirePositional(args: ParsedArgs, index: number, usage: string): string {
  const value = args.positionals[index];
  if (value === undefined) throw new DreamError("BAD_ARGUMENTS", `usage: dsh-dream ${usage}`);
  return value;
}

function readLines(file: string): string[] {
  return readText(file).split(/\r?\n/);
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  } catch (cause) {
    throw new DreamError("IO_ERROR", `cannot read ${file}: ${(cause as Error).message}`, { cause });
  }
}

function readJson(file: string, flag: string): unknown {
  try {
    return JSON.parse(readText(file));
  } catch (error) {
    if (error instanceof DreamError) throw error;
    throw new DreamError("BAD_JSON", `${flag} ${file}: ${(error as Error).message}`);
  }
}

function lineOf(problem: string): number {
  return Number(/^line (\d+)/.exec(problem)?.[1] ?? 0);
}

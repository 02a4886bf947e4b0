// The memory commands of `dsh-dream`, spoken to the bridge over its RPC: import, add, search,
// search-vector, receipt, status, forget, quarantine, release, export.
import fs from "node:fs";
import path from "node:path";
import { exportPages } from "../client/export-pages";
import { DreamError } from "../protocol/errors";
import type { ImportReport } from "../store/memory-store";
import type { ReceiptResponse } from "../store/receipts";
import type { SearchResponse } from "../store/search";
import { parseSearchRequest } from "../store/search-request";
import { flagInt, flagString, type ParsedArgs } from "./args";
import { formatSearch } from "./format";
import type { CliIo } from "./io";
import { readJson, readLines } from "./input-files";
import { renameWithRetry } from "../store/fs-retry";
import { isoTime } from "../protocol/time";

const IMPORT_BATCH = 5000;

export interface MemoryApi {
  call<T = unknown>(method: string, params: Record<string, unknown>): Promise<T>;
}

export async function importCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const file = requirePositional(args, 0, "import FILE.jsonl");
  const lines = readLines(path.resolve(io.cwd, file));
  let added = 0;
  let unchanged = 0;
  const problems: Array<{ lineNo: number; text: string }> = [];
  for (let start = 0; start < lines.length; start += IMPORT_BATCH) {
    const chunk: Array<{ lineNo: number; value: unknown }> = [];
    lines.slice(start, start + IMPORT_BATCH).forEach((text, i) => {
      const lineNo = start + i + 1;
      if (text.trim() === "") return;
      try {
        chunk.push({ lineNo, value: JSON.parse(text) });
      } catch (error) {
        problems.push({ lineNo, text: `[BAD_JSON] ${(error as Error).message}` });
      }
    });
    if (chunk.length === 0) continue;
    const report = await api.call<ImportReport>("import", { records: chunk.map((c) => c.value) });
    added += report.added;
    unchanged += report.unchanged;
    for (const r of report.rejected) problems.push({ lineNo: chunk[r.index].lineNo, text: `[${r.code}] ${r.message}` });
  }
  problems.sort((a, b) => a.lineNo - b.lineNo);
  for (const p of problems) io.err(`line ${p.lineNo}: ${p.text}\n`);
  io.out(`imported ${added}, unchanged ${unchanged}, rejected ${problems.length}\n`);
  return problems.length ? 1 : 0;
}

export async function addCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
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
  const result = await api.call<{ status: string; record: { id: string } }>("add", input);
  io.out(args.flags.has("json") ? JSON.stringify(result) + "\n" : `${result.status} ${result.record.id}\n`);
  return 0;
}

export async function searchCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const defaults = searchDefaults(args, io);
  const batch = flagString(args, "batch");
  const json = args.flags.has("json");
  if (batch === undefined) {
    const request = { ...defaults, query: args.positionals.join(" ") };
    parseSearchRequest(request);
    const response = await api.call<SearchResponse>("search", request);
    io.out(json ? JSON.stringify(response) + "\n" : formatSearch(response));
    return 0;
  }
  if (!json) throw new DreamError("BAD_ARGUMENTS", "search --batch writes JSON lines; add --json");
  // Validate every line before answering any, so a bad line never leaves a half-written output.
  const requests = readLines(path.resolve(io.cwd, batch)).flatMap((text, i) => {
    if (text.trim() === "") return [];
    const request = { ...defaults, ...(parseLine(text, `${batch} line ${i + 1}`) as object) };
    try {
      parseSearchRequest(request);
    } catch (error) {
      if (error instanceof DreamError) throw new DreamError(error.code, `${batch} line ${i + 1}: ${error.message}`, { field: error.field });
      throw error;
    }
    return [request];
  });
  for (const request of requests) io.out(JSON.stringify(await api.call("search", request)) + "\n");
  return 0;
}

export async function searchVectorCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const file = flagString(args, "query-embedding");
  if (file === undefined) throw new DreamError("MISSING_FIELD", "--query-embedding FILE is required", { field: "query_embedding" });
  const params: Record<string, unknown> = { query_embedding: readJson(path.resolve(io.cwd, file), "--query-embedding") };
  if (flagInt(args, "top-k") !== undefined) params.top_k = flagInt(args, "top-k");
  if (flagString(args, "scope") !== undefined) params.scope = flagString(args, "scope");
  const { results } = await api.call<{ results: Array<{ id: string; score: number; quarantined: boolean }> }>("search_vector", params);
  if (args.flags.has("json")) io.out(JSON.stringify({ results }) + "\n");
  else results.forEach((h, i) => io.out(`${String(i + 1).padStart(2)}. ${h.score.toFixed(4)}  ${h.id}${h.quarantined ? "  (quarantined)" : ""}\n`));
  return 0;
}

export async function receiptCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const id = flagString(args, "id");
  const response = await api.call<ReceiptResponse>("receipt", id === undefined ? {} : { receipt_id: id });
  // A receipt is a nested diagnostic record: indented for people, one line (as on the wire) for --json.
  io.out((args.flags.has("json") ? JSON.stringify(response) : JSON.stringify(response.receipt, null, 2)) + "\n");
  return 0;
}

export async function statusCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const status = await api.call<Record<string, unknown>>("status", {});
  if (args.flags.has("json")) io.out(JSON.stringify(status) + "\n");
  else for (const [key, value] of Object.entries(status)) io.out(`${key}: ${typeof value === "object" ? JSON.stringify(value) : value}\n`);
  return 0;
}

export async function lifecycleCommand(api: MemoryApi, verb: "forget" | "quarantine" | "release", args: ParsedArgs, io: CliIo): Promise<number> {
  if (verb === "forget" && ["session", "scope", "matching"].some((flag) => flagString(args, flag) !== undefined)) return forgetMatchingCommand(api, args, io);
  const id = requirePositional(args, 0, `${verb} ID`);
  const params: Record<string, unknown> = { id };
  if (verb === "quarantine") {
    params.reason = flagString(args, "reason");
    if (params.reason === undefined) throw new DreamError("MISSING_FIELD", "--reason is required", { field: "reason" });
  }
  const result = await api.call<Record<string, unknown>>(verb, params);
  io.out(args.flags.has("json") ? JSON.stringify(result) + "\n" : `${Object.keys(result)[0]} ${id}\n`);
  // forget --now: the text leaves every file at once instead of at the bridge's next quiet minute.
  if (verb === "forget" && args.flags.has("now")) return purgeCommand(api, args, io);
  return 0;
}

/**
 * `forget --session S | --scope P | --matching TEXT`: shows what would go; `--yes` forgets it (and
 * `--now` erases it from every file at once).
 */
async function forgetMatchingCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positionals.length > 0) throw new DreamError("BAD_ARGUMENTS", "forget takes an ID or --session/--scope/--matching, not both");
  const params: Record<string, unknown> = { apply: args.flags.has("yes") };
  const session = flagString(args, "session");
  const scope = flagString(args, "scope");
  const matching = flagString(args, "matching");
  if (session !== undefined) params.session_id = session;
  if (scope !== undefined) params.scope = scope;
  if (matching !== undefined) params.text_contains = matching;
  const result = await api.call<{ applied: boolean; count: number; memories: Array<{ id: string; timestamp_ms: number; source_type: string; text: string }> }>("forget_matching", params);
  if (args.flags.has("json")) io.out(JSON.stringify(result) + "\n");
  else {
    for (const memory of result.memories) io.out(`  ${memory.id}  ${isoTime(memory.timestamp_ms)}  ${memory.text.replace(/\s+/g, " ")}\n`);
    if (result.count > result.memories.length) io.out(`  … and ${result.count - result.memories.length} more\n`);
    io.out(
      result.applied
        ? `forgot ${result.count} memor${result.count === 1 ? "y" : "ies"}\n`
        : result.count === 0
          ? "no memory matches; nothing was changed\n"
          : `${result.count} memor${result.count === 1 ? "y" : "ies"} would be forgotten; nothing was changed: run again with --yes to forget ${result.count === 1 ? "it" : "them"}\n`,
    );
  }
  if (result.applied && args.flags.has("now")) return purgeCommand(api, args, io);
  return 0;
}

/** Erases forgotten memories from every file of the data directory now (the bridge also does it unasked). */
export async function purgeCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const report = await api.call<{ erased: number; journal_bytes_before: number; journal_bytes_after: number; receipts: { dropped: number; masked: number }; replica: string }>("purge", {});
  if (args.flags.has("json")) io.out(JSON.stringify(report) + "\n");
  else {
    io.out(
      `erased ${report.erased} forgotten memor${report.erased === 1 ? "y" : "ies"} from the journal, checkpoint and receipts ` +
        `(journal ${report.journal_bytes_before} -> ${report.journal_bytes_after} bytes; receipts ${report.receipts.dropped} dropped, ${report.receipts.masked} masked); replica ${report.replica}\n`,
    );
  }
  return 0;
}

export async function exportCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const file = path.resolve(io.cwd, requirePositional(args, 0, "export FILE.jsonl [--with-vectors]"));
  const tmp = `${file}.partial`;
  const fd = fs.openSync(tmp, "w");
  let count = 0;
  try {
    for await (const records of exportPages(api, args.flags.has("with-vectors"))) {
      if (records.length) fs.writeSync(fd, records.map((r) => JSON.stringify(r) + "\n").join(""));
      count += records.length;
    }
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  renameWithRetry(tmp, file);
  io.out(`exported ${count} to ${file}\n`);
  return 0;
}

function searchDefaults(args: ParsedArgs, io: CliIo): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  const topK = flagInt(args, "top-k");
  if (topK !== undefined) defaults.top_k = topK;
  if (args.flags.has("timeline")) defaults.timeline = true;
  const scope = flagString(args, "scope");
  if (scope !== undefined) defaults.scope = scope;
  const embeddingFile = flagString(args, "query-embedding");
  if (embeddingFile !== undefined) defaults.query_embedding = readJson(path.resolve(io.cwd, embeddingFile), "--query-embedding");
  return defaults;
}

function parseLine(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DreamError("BAD_JSON", `${where}: ${(error as Error).message}`);
  }
}

function requirePositional(args: ParsedArgs, index: number, usage: string): string {
  const value = args.positionals[index];
  if (value === undefined) throw new DreamError("BAD_ARGUMENTS", `usage: dsh-dream ${usage}`);
  return value;
}

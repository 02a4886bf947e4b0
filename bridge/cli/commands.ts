// The memory commands of `dsh-dream`, spoken to the bridge over its RPC: add, search, search-vector,
// receipt, status, forget, quarantine, release, purge, export (import is import-command.ts; list, get,
// history, edit and stats are manage-commands.ts).
import fs from "node:fs";
import path from "node:path";
import { exportPages } from "../client/export-pages";
import { DreamError, isDreamError } from "../protocol/errors";
import { isoTime } from "../protocol/time";
import type { ReceiptResponse } from "../store/receipts";
import type { SearchResponse } from "../store/search";
import { parseSearchRequest, SEARCH_LIMITS } from "../store/search-request";
import { renameWithRetry } from "../store/fs-retry";
import { flagInt, flagString, type ParsedArgs } from "./args";
import { formatError, formatSearch } from "./format";
import type { CliIo } from "./io";
import { readJson, readText } from "./input-files";
import { jsonlLines } from "./jsonl-lines";
import { formatReceipt, formatStatus } from "./views";
import { parseWhen } from "./when";

export interface MemoryApi {
  call<T = unknown>(method: string, params: Record<string, unknown>): Promise<T>;
}

/** A batch line is a query of at most 8,192 characters and maybe a vector: far below this. */
const MAX_BATCH_LINE_BYTES = 1024 * 1024;

export async function addCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const input: Record<string, unknown> = { text: await textFrom(args, io, "add"), source_type: flagString(args, "source-type") ?? "user_message" };
  const at = flagString(args, "at");
  const raw = flagString(args, "timestamp-ms");
  if (raw !== undefined && !/^-?\d+$/.test(raw.trim())) {
    throw new DreamError("BAD_ARGUMENTS", `--timestamp-ms takes milliseconds since 1970 (got "${raw}"); for a time in words or an ISO date use --at "${raw}"`);
  }
  const timestampMs = flagInt(args, "timestamp-ms");
  if (at !== undefined && timestampMs !== undefined) throw new DreamError("BAD_ARGUMENTS", "give the time once: --at or --timestamp-ms, not both");
  if (at !== undefined) input.timestamp_ms = parseWhen(at, "at", Date.now());
  if (timestampMs !== undefined) input.timestamp_ms = timestampMs;
  const id = flagString(args, "id");
  if (id !== undefined) input.id = id;
  const scope = flagString(args, "scope");
  if (scope !== undefined) input.scope = scope;
  const session = flagString(args, "session-id");
  if (session !== undefined) input.session_id = session;
  const turn = flagInt(args, "turn", 0);
  if (turn !== undefined) input.turn = turn;
  const tags = flagString(args, "tags");
  if (tags !== undefined) input.tags = tags.split(",").map((tag) => tag.trim()).filter((tag) => tag !== "");
  const result = await api.call<{ status: string; record: { id: string; timestamp_ms: number }; redactions?: Record<string, number> }>("add", input);
  if (args.flags.has("json")) io.out(JSON.stringify(result) + "\n");
  else {
    io.out(result.status === "added" ? `remembered ${result.record.id} (${isoTime(result.record.timestamp_ms)})\n` : `already remembered as ${result.record.id}; nothing changed\n`);
    const redacted = Object.entries(result.redactions ?? {});
    if (redacted.length > 0) io.out(`redacted before it was stored: ${redacted.map(([kind, n]) => `${n} ${kind}`).join(", ")}\n`);
  }
  return 0;
}

/**
 * The text of `add` or `edit`: --text, --text-file FILE (- for stdin), the command's words (add only), or
 * what is piped in when none of those is given.
 */
export async function textFrom(args: ParsedArgs, io: CliIo, command: "add" | "edit"): Promise<string> {
  const flag = flagString(args, "text");
  const file = flagString(args, "text-file");
  const words = command === "add" ? args.positionals : [];
  const given = [flag !== undefined, file !== undefined, words.length > 0].filter(Boolean).length;
  if (given > 1) throw new DreamError("BAD_ARGUMENTS", `give the text once: ${command === "add" ? "as words, " : ""}--text or --text-file`);
  if (flag !== undefined) return flag;
  if (words.length > 0) return words.join(" ");
  if (file === "-" || (file === undefined && io.stdinIsTty === false && io.readStdin)) {
    if (!io.readStdin) throw new DreamError("BAD_ARGUMENTS", "stdin cannot be read here; use --text or --text-file FILE");
    const piped = stripFinalNewline(await io.readStdin());
    // Nothing piped in (stdin closed or /dev/null) is the same mistake as giving no text at all.
    if (piped.trim() !== "" || file === "-") return piped;
  }
  if (file !== undefined) return stripFinalNewline(readText(path.resolve(io.cwd, file)));
  throw new DreamError("BAD_ARGUMENTS", command === "add" ? 'add needs the text: dsh-dream add "TEXT", --text-file FILE, or pipe it in' : "edit needs the new text: --text TEXT or --text-file FILE");
}

export async function searchCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const defaults = searchDefaults(args, io);
  const batch = flagString(args, "batch");
  const json = args.flags.has("json");
  if (batch === undefined) {
    const query = args.positionals.join(" ");
    if (query.trim() === "") throw new DreamError("BAD_ARGUMENTS", 'search needs a query: dsh-dream search "where is my passport?"');
    const request = { ...defaults, query };
    parseSearchRequest(request);
    const response = await api.call<SearchResponse>("search", request);
    io.out(json ? JSON.stringify(response) + "\n" : formatSearch(response, { full: args.flags.has("full") }));
    return 0;
  }
  if (args.positionals.length > 0) throw new DreamError("BAD_ARGUMENTS", `search --batch takes its queries from the file, not from the command line (got "${args.positionals[0]}")`);
  if (!json) throw new DreamError("BAD_ARGUMENTS", "search --batch writes JSON lines; add --json");
  // Every good line is answered, in order; a bad one gets {"line", "error"} in its place and a message on stderr.
  let bad = 0;
  for (const line of jsonlLines(path.resolve(io.cwd, batch), batch, MAX_BATCH_LINE_BYTES)) {
    if (line.text !== undefined && line.text.trim() === "") continue;
    try {
      if (line.text === undefined) throw new DreamError("INPUT_TOO_LARGE", `the line is ${line.bytes} bytes; a query line is at most ${MAX_BATCH_LINE_BYTES}`);
      const request = { ...defaults, ...(parseLine(line.text) as object) };
      parseSearchRequest(request);
      io.out(JSON.stringify(await api.call("search", request)) + "\n");
    } catch (error) {
      if (!isDreamError(error) || !["BAD_JSON", "INVALID_FIELD", "MISSING_FIELD", "INPUT_TOO_LARGE", "VECTOR_MISMATCH"].includes(error.code)) throw error;
      bad++;
      io.out(JSON.stringify({ line: line.lineNo, error: error.toJSON() }) + "\n");
      io.err(`${batch} line ${line.lineNo}: ${formatError(error).trimEnd().replace(/\n/g, "; ")}\n`);
    }
  }
  return bad > 0 ? 1 : 0;
}

export async function searchVectorCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const file = flagString(args, "query-embedding");
  if (file === undefined) throw new DreamError("BAD_ARGUMENTS", "search-vector needs --query-embedding FILE (a JSON {provider, model, vector})");
  const params: Record<string, unknown> = { query_embedding: readJson(path.resolve(io.cwd, file), "--query-embedding") };
  const topK = flagInt(args, "top-k", 1, SEARCH_LIMITS.maxTopK);
  if (topK !== undefined) params.top_k = topK;
  if (flagString(args, "scope") !== undefined) params.scope = flagString(args, "scope");
  const { results } = await api.call<{ results: Array<{ id: string; score: number; quarantined: boolean }> }>("search_vector", params);
  if (args.flags.has("json")) io.out(JSON.stringify({ results }) + "\n");
  else results.forEach((h, i) => io.out(`${String(i + 1).padStart(2)}. ${h.score.toFixed(4)}  ${h.id}${h.quarantined ? "  (quarantined)" : ""}\n`));
  return 0;
}

export async function receiptCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const flag = flagString(args, "id");
  const positional = args.positionals[0];
  if (flag !== undefined && positional !== undefined) throw new DreamError("BAD_ARGUMENTS", "give the receipt id once: as an argument or with --id");
  const id = flag ?? positional;
  const response = await api.call<ReceiptResponse>("receipt", id === undefined ? {} : { receipt_id: id });
  if (args.flags.has("json")) {
    io.out(JSON.stringify(response) + "\n");
    return 0;
  }
  // The receipt holds ids; the texts are one `get` each (a memory forgotten since is simply shown without).
  const texts = new Map<string, string>();
  for (const memoryId of response.receipt.retrieved_chunk_ids) {
    try {
      texts.set(memoryId, (await api.call<{ record: { text: string } }>("get", { id: memoryId })).record.text);
    } catch (error) {
      if (!isDreamError(error) || error.code !== "NOT_FOUND") throw error;
      texts.set(memoryId, "(forgotten since)");
    }
  }
  io.out(formatReceipt(response.receipt, texts));
  return 0;
}

export async function statusCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const status = await api.call<Record<string, unknown>>("status", {});
  if (args.flags.has("json")) {
    io.out(JSON.stringify(status) + "\n");
    return 0;
  }
  io.out(formatStatus(status));
  try {
    const { receipt } = await api.call<ReceiptResponse>("receipt", {});
    io.out(`last recall ${isoTime(receipt.created_at_ms)}: "${receipt.query.slice(0, 60)}" → ${receipt.retrieved_chunk_ids.length} memor${receipt.retrieved_chunk_ids.length === 1 ? "y" : "ies"} (${receipt.recall.replace(/^Recall: /, "")})\n`);
  } catch (error) {
    if (!isDreamError(error) || error.code !== "NOT_FOUND") throw error;
    io.out("last recall none yet\n");
  }
  return 0;
}

export async function lifecycleCommand(api: MemoryApi, verb: "forget" | "quarantine" | "release", args: ParsedArgs, io: CliIo): Promise<number> {
  if (verb === "forget" && flagString(args, "query") !== undefined) return forgetQueryCommand(api, args, io);
  if (verb === "forget" && ["session", "scope", "matching"].some((flag) => flagString(args, flag) !== undefined)) return forgetMatchingCommand(api, args, io);
  if (args.positionals.length === 0) {
    throw new DreamError("BAD_ARGUMENTS", verb === "forget" ? "forget needs an ID, or --query, --session, --scope or --matching to find what to forget" : `${verb} needs the memory's ID: usage: dsh-dream ${verb} ID`);
  }
  if (verb !== "forget" && args.positionals.length > 1) throw new DreamError("BAD_ARGUMENTS", `${verb} takes one ID (got an extra "${args.positionals[1]}")`);
  const params: Record<string, unknown> = {};
  if (verb === "quarantine") {
    params.reason = flagString(args, "reason");
    if (params.reason === undefined) throw new DreamError("BAD_ARGUMENTS", 'quarantine needs --reason: dsh-dream quarantine ID --reason "why"');
  }
  const results: unknown[] = [];
  for (const id of args.positionals) {
    const result = await api.call<Record<string, unknown>>(verb, { ...params, id });
    results.push(result);
    if (!args.flags.has("json")) io.out(`${Object.keys(result)[0]} ${id}\n`);
  }
  if (args.flags.has("json")) io.out(JSON.stringify(results.length === 1 ? results[0] : { results }) + "\n");
  // forget --now: the text leaves every file at once instead of at the bridge's next quiet minute.
  if (verb === "forget" && args.flags.has("now")) return purgeCommand(api, args, io);
  return 0;
}

/** `forget --query Q`: what that search returns, shown first; `--yes` forgets exactly those. */
async function forgetQueryCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positionals.length > 0) throw new DreamError("BAD_ARGUMENTS", "forget takes IDs or --query, not both");
  if (["session", "scope", "matching"].some((flag) => flagString(args, flag) !== undefined)) throw new DreamError("BAD_ARGUMENTS", "--query cannot be combined with --session, --scope or --matching");
  const request = { query: flagString(args, "query")!, top_k: flagInt(args, "top-k", 1, SEARCH_LIMITS.maxTopK) ?? SEARCH_LIMITS.defaultTopK };
  parseSearchRequest(request);
  const { results } = await api.call<SearchResponse>("search", request);
  const apply = args.flags.has("yes");
  if (apply) for (const r of results) await api.call("forget", { id: r.id });
  if (args.flags.has("json")) io.out(JSON.stringify({ applied: apply && results.length > 0, count: results.length, memories: results.map((r) => ({ id: r.id, timestamp_ms: r.timestamp_ms, source_type: r.source_type, text: r.text })) }) + "\n");
  else {
    for (const r of results) io.out(`  ${r.id}  ${isoTime(r.timestamp_ms)}  ${r.text.replace(/\s+/g, " ").slice(0, 160)}\n`);
    io.out(
      results.length === 0
        ? "the search found nothing; nothing was changed\n"
        : apply
          ? `forgot ${results.length} memor${results.length === 1 ? "y" : "ies"}\n`
          : `${results.length} memor${results.length === 1 ? "y" : "ies"} would be forgotten; nothing was changed: run again with --yes to forget ${results.length === 1 ? "it" : "them"} (or forget ID for one)\n`,
    );
  }
  if (apply && results.length > 0 && args.flags.has("now")) return purgeCommand(api, args, io);
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

/** Every memory in the import format: to FILE (written whole, then renamed; --force to replace one) or to stdout with `-`. */
export async function exportCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const withVectors = args.flags.has("with-vectors");
  const given = args.positionals[0];
  if (given === "-") {
    if (args.flags.has("json")) throw new DreamError("BAD_ARGUMENTS", "export - writes the records themselves as JSON lines; leave out --json");
    for await (const records of exportPages(api, withVectors)) if (records.length) io.out(records.map((r) => JSON.stringify(r) + "\n").join(""));
    return 0;
  }
  const file = path.resolve(io.cwd, given);
  if (fs.existsSync(file) && !args.flags.has("force")) {
    throw new DreamError("BAD_ARGUMENTS", `${given} already exists; add --force to replace it, or choose another name`);
  }
  const tmp = `${file}.partial`;
  let fd: number;
  try {
    fd = fs.openSync(tmp, "w");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "its folder does not exist" : code === "EACCES" || code === "EPERM" ? "permission denied" : code === "EISDIR" ? "it is a folder" : (cause as Error).message;
    throw new DreamError("IO_ERROR", `cannot write ${given}: ${reason}${code ? ` (${code})` : ""}`, { cause });
  }
  let count = 0;
  try {
    for await (const records of exportPages(api, withVectors)) {
      if (records.length) fs.writeSync(fd, records.map((r) => JSON.stringify(r) + "\n").join(""));
      count += records.length;
    }
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  renameWithRetry(tmp, file);
  io.out(args.flags.has("json") ? JSON.stringify({ exported: count, file }) + "\n" : `exported ${count} to ${file}\n`);
  return 0;
}

function searchDefaults(args: ParsedArgs, io: CliIo): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  const topK = flagInt(args, "top-k", 1, SEARCH_LIMITS.maxTopK);
  if (topK !== undefined) defaults.top_k = topK;
  if (args.flags.has("timeline")) defaults.timeline = true;
  const scope = flagString(args, "scope");
  if (scope !== undefined) defaults.scope = scope;
  const embeddingFile = flagString(args, "query-embedding");
  if (embeddingFile !== undefined) defaults.query_embedding = readJson(path.resolve(io.cwd, embeddingFile), "--query-embedding");
  return defaults;
}

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DreamError("BAD_JSON", (error as Error).message);
  }
}

function stripFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, "");
}

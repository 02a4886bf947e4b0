// `dsh-dream import FILE.jsonl`: streams the file to the bridge in batches. A bad or oversized line is
// reported by its number and skipped; a batch the bridge refuses as a whole is split until each record
// stands alone; a summary is always printed, even when the bridge goes away part-way. A record without
// an id gets one derived from what it says and when, so the same file imported twice adds nothing twice.
import { createHash } from "node:crypto";
import path from "node:path";
import { DreamError, isDreamError } from "../protocol/errors";
import { RPC_LIMITS } from "../protocol/wire";
import type { ImportReport } from "../store/memory-store";
import { isPlainObject } from "../store/records";
import type { ParsedArgs } from "./args";
import type { MemoryApi } from "./commands";
import type { CliIo } from "./io";
import { jsonlLines } from "./jsonl-lines";
import { formatBytes } from "./views";

/** The largest line a record can need (200,000 characters of text escaped, metadata, a 4,096-d vector). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** A batch's JSON stays well under the bridge's 16 MiB request limit. */
const BATCH_BYTES = 6 * 1024 * 1024;
const BATCH_RECORDS = RPC_LIMITS.maxImportRecords;

interface Pending {
  lineNo: number;
  record: unknown;
}

/** Codes that say the bridge could not take this request at all; anything else is about the records. */
const STOPPING = new Set(["BRIDGE_UNAVAILABLE", "PROTOCOL_MISMATCH", "UNAUTHORIZED", "DATA_DIR_LOCKED", "DISK_FULL", "IO_ERROR", "INTERNAL"]);

/**
 * The id a record without one is given: "imp_" and a hash of its text, source type, time, scope, session and
 * turn as written in the file (an absent time counts as absent, so the record is the same on every import).
 */
export function derivedImportId(record: Record<string, unknown>): string {
  const key = JSON.stringify([record.text, record.source_type, record.timestamp_ms ?? null, record.scope ?? "global", record.session_id ?? null, record.turn ?? null]);
  return "imp_" + createHash("sha256").update(key, "utf8").digest("hex").slice(0, 32);
}

export async function importCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const given = args.positionals[0];
  const file = path.resolve(io.cwd, given);
  const totals = { added: 0, unchanged: 0, rejected: 0, lines: 0 };
  const problems: string[] = [];
  const reject = (lineNo: number, code: string, message: string) => {
    totals.rejected++;
    // Reported as they happen, so a long import shows its problems while it runs.
    io.err(`line ${lineNo}: [${code}] ${message}\n`);
    problems.push(String(lineNo));
  };
  let batch: Pending[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const sending = batch;
    batch = [];
    batchBytes = 0;
    await send(api, sending, totals, reject);
  };
  try {
    for (const line of jsonlLines(file, given, MAX_LINE_BYTES)) {
      totals.lines = line.lineNo;
      if (line.text === undefined) {
        reject(line.lineNo, "INPUT_TOO_LARGE", `the line is ${formatBytes(line.bytes)}; a record's line is at most ${formatBytes(MAX_LINE_BYTES)} (text up to 200,000 characters); skipped`);
        continue;
      }
      if (line.text.trim() === "") continue;
      let record: unknown;
      try {
        record = JSON.parse(line.text);
      } catch (error) {
        reject(line.lineNo, "BAD_JSON", (error as Error).message);
        continue;
      }
      if (isPlainObject(record) && record.id === undefined && typeof record.text === "string") record = { ...record, id: derivedImportId(record) };
      batch.push({ lineNo: line.lineNo, record });
      batchBytes += line.bytes;
      if (batch.length >= BATCH_RECORDS || batchBytes >= BATCH_BYTES) await flush();
    }
    await flush();
  } catch (error) {
    io.out(summary(totals));
    if (isDreamError(error) && STOPPING.has(error.code)) {
      throw new DreamError(error.code, `${error.message}; the import stopped after line ${totals.lines} (lines before it were imported: run the same import again to continue, nothing is added twice)`);
    }
    throw error;
  }
  io.out(summary(totals));
  return totals.rejected > 0 ? 1 : 0;
}

/** Sends one batch; a batch refused as a whole (too large, say) is halved until each record answers for itself. */
async function send(api: MemoryApi, batch: Pending[], totals: { added: number; unchanged: number }, reject: (lineNo: number, code: string, message: string) => void): Promise<void> {
  let report: ImportReport;
  try {
    report = await api.call<ImportReport>("import", { records: batch.map((p) => p.record) });
  } catch (error) {
    if (!isDreamError(error) || STOPPING.has(error.code)) throw error;
    if (batch.length === 1) return reject(batch[0].lineNo, error.code, error.message);
    const half = Math.ceil(batch.length / 2);
    await send(api, batch.slice(0, half), totals, reject);
    await send(api, batch.slice(half), totals, reject);
    return;
  }
  totals.added += report.added;
  totals.unchanged += report.unchanged;
  for (const r of report.rejected) reject(batch[r.index].lineNo, r.code, r.message);
}

function summary(totals: { added: number; unchanged: number; rejected: number; lines: number }): string {
  return `imported ${totals.added}, unchanged ${totals.unchanged}, rejected ${totals.rejected} (${totals.lines} line${totals.lines === 1 ? "" : "s"} read)\n`;
}

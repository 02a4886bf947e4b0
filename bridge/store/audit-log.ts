// Audit log of search receipts (JSON lines). Receipts are diagnostics, not acknowledged data, so
// they are appended without fsync; the file rotates once it passes half the size limit (the log and
// its one rotated file stay under the limit together). The newest receipts are also kept in memory
// (receipt-history.ts) for the `receipt` RPC. The user's limits (privacy.audit) say whether a query's
// text is written at all and how old a receipt may get.
import fs from "node:fs";
import { renameWithRetry } from "./fs-retry";
import { readRecentReceipts, ReceiptHistory } from "./receipt-history";
import type { Receipt } from "./receipts";
import { DAY_MS } from "./retention";

/** What the audit log of recalls (audit.jsonl, the receipts) keeps. */
export interface AuditConfig {
  /** Off: receipts are written with the query replaced by `[not kept]` (the query is the user's message). */
  keepQueryText: boolean;
  /** Receipts older than this many days are removed; 0 = kept until the size limit rotates them out. */
  maxAgeDays: number;
  /** The audit log and its one rotated file together stay under this size. */
  maxMegabytes: number;
}

export interface AuditPurge {
  /** Receipts dropped because they named a forgotten memory. */
  dropped: number;
  /** Receipts kept with their query masked because it held a forgotten memory's text. */
  masked: number;
}

export const PURGED_QUERY = "[purged]";
/** What a receipt's query says in the file when privacy.audit.keepQueryText is off. */
export const UNKEPT_QUERY = "[not kept]";

export const DEFAULT_AUDIT: AuditConfig = { keepQueryText: true, maxAgeDays: 0, maxMegabytes: 128 };

/** A purge of the receipts prepared in steps: finish() puts it in place, abandon() drops it. */
export interface AuditPurgeDraft {
  finish(): AuditPurge;
  abandon(): void;
}

/** What trim() removed or masked to meet the audit limits. */
export interface AuditTrim {
  /** Receipts older than maxAgeDays, or beyond the size limit. */
  dropped: number;
  /** Receipts written before keepQueryText was turned off, now without their query. */
  masked: number;
}

export class AuditLog {
  private bytes: number;
  recent = new ReceiptHistory();

  constructor(
    readonly filePath: string,
    private readonly policy: AuditConfig = DEFAULT_AUDIT,
  ) {
    this.bytes = fs.existsSync(filePath) ? fs.statSync(filePath).size : 0;
    for (const receipt of readRecentReceipts(filePath)) this.recent.remember(receipt);
  }

  /** Receipts the file could not take (a refused rotation, a full disk); they stay in memory. */
  failedWrites = 0;
  lastError: string | null = null;

  private get rotateBytes(): number {
    return (this.policy.maxMegabytes * 1024 * 1024) / 2;
  }

  /** Never throws: a search must not fail because its receipt could not be written to the file. */
  write(receipt: Receipt): void {
    this.recent.remember(receipt);
    const line = JSON.stringify(this.policy.keepQueryText ? receipt : { ...receipt, query: UNKEPT_QUERY }) + "\n";
    try {
      if (this.bytes > 0 && this.bytes + line.length > this.rotateBytes && !this.holdRotation) {
        renameWithRetry(this.filePath, rotatedPath(this.filePath));
        this.bytes = 0;
      }
      fs.appendFileSync(this.filePath, line);
      this.bytes += Buffer.byteLength(line);
    } catch (error) {
      this.failedWrites += 1;
      this.lastError = (error as Error).message;
    }
  }

  /**
   * Erases forgotten memories from the receipts (this file and its rotated one), in steps, for a
   * compaction in the background: a receipt naming a forgotten id is dropped; one whose query overlaps
   * a forgotten text (the recall query is the user's message, which capture stores) keeps its ids with
   * the query masked. The receipts on disk now are checked a few hundred lines per step, each file's kept lines written to a draft; finish() (at the compaction's switch)
   * checks the receipts written meanwhile, then puts each draft in place (fsync'd, renamed: a crash
   * leaves the old file or the new one). The log does not rotate in between.
   */
  *purgeInSteps(forgottenIds: ReadonlySet<string>, forgottenTexts: readonly string[]): Generator<void, AuditPurgeDraft> {
    const result: AuditPurge = { dropped: 0, masked: 0 };
    if (forgottenIds.size === 0) return { finish: () => result, abandon: () => undefined };
    const texts = forgottenTexts.map((text) => text.trim()).filter((text) => text !== "");
    const edit = (line: string): string | null => {
      if (namesAny(line, forgottenIds)) {
        result.dropped++;
        return null;
      }
      let receipt: Receipt;
      try {
        receipt = JSON.parse(line) as Receipt;
      } catch {
        return line; // not ours to judge; it names no forgotten id
      }
      const query = typeof receipt.query === "string" ? receipt.query.trim() : "";
      if (query !== "" && texts.some((text) => text.includes(query) || query.includes(text))) {
        result.masked++;
        return JSON.stringify({ ...receipt, query: PURGED_QUERY });
      }
      return line;
    };
    this.holdRotation = true;
    const drafts: Array<{ file: string; temp: string; fd: number; from: number }> = [];
    try {
      for (const file of [this.filePath, rotatedPath(this.filePath)]) {
        if (!fs.existsSync(file)) continue;
        const temp = `${file}.purge.tmp`;
        const draft = { file, temp, fd: fs.openSync(temp, "w", 0o600), from: 0 };
        drafts.push(draft);
        const bytes = fs.readFileSync(file);
        draft.from = bytes.length;
        const lines = bytes.toString("utf8").split("\n");
        // Each receipt's query is compared with every forgotten text: fewer lines per step the more texts.
        const perStep = Math.max(1, Math.floor(PURGE_COMPARISONS_PER_STEP / Math.max(1, texts.length)));
        for (let at = 0; at < lines.length; at += perStep) {
          writeLines(draft.fd, lines.slice(at, at + perStep), edit);
          yield;
        }
        fs.fsyncSync(draft.fd);
        yield;
      }
    } catch (error) {
      this.dropDrafts(drafts);
      throw error;
    }
    return {
      finish: () => {
        try {
          for (const draft of drafts) {
            const size = fs.statSync(draft.file).size;
            if (size > draft.from) {
              const fd = fs.openSync(draft.file, "r");
              const extra = Buffer.alloc(size - draft.from);
              try {
                fs.readSync(fd, extra, 0, extra.length, draft.from);
              } finally {
                fs.closeSync(fd);
              }
              writeLines(draft.fd, extra.toString("utf8").split("\n"), edit);
            }
            fs.fsyncSync(draft.fd);
            fs.closeSync(draft.fd);
            draft.fd = -1;
            renameWithRetry(draft.temp, draft.file);
            if (draft.file === this.filePath) this.bytes = fs.statSync(draft.file).size;
          }
        } catch (error) {
          this.dropDrafts(drafts);
          throw error;
        } finally {
          this.holdRotation = false;
        }
        this.reloadRecent();
        return result;
      },
      // The compaction failed before its switch: the files stay as they are.
      abandon: () => this.dropDrafts(drafts),
    };
  }

  private holdRotation = false;

  private dropDrafts(drafts: Array<{ temp: string; fd: number }>): void {
    this.holdRotation = false;
    for (const draft of drafts) {
      if (draft.fd >= 0) fs.closeSync(draft.fd);
      draft.fd = -1;
      fs.rmSync(draft.temp, { force: true });
    }
  }

  private reloadRecent(): void {
    // The in-memory history is rebuilt from what is left on disk.
    this.recent = new ReceiptHistory();
    for (const receipt of readRecentReceipts(this.filePath)) this.recent.remember(receipt);
  }

  /**
   * Holds the files to the audit limits: receipts older than maxAgeDays go, queries written before
   * keepQueryText was turned off are masked, and each file keeps only its newest receipts within half
   * the size limit (a limit lowered since they were written). Touches the files only when needed.
   */
  trim(nowMs: number): AuditTrim {
    const result: AuditTrim = { dropped: 0, masked: 0 };
    const cutoff = this.policy.maxAgeDays > 0 ? nowMs - this.policy.maxAgeDays * DAY_MS : -Infinity;
    const needed = [this.filePath, rotatedPath(this.filePath)].some((file) => {
      if (!fs.existsSync(file)) return false;
      if (fs.statSync(file).size > this.rotateBytes) return true;
      return this.policy.maxAgeDays > 0 || !this.policy.keepQueryText;
    });
    if (!needed) return result;
    this.rewrite((line, receipt) => {
      if (receipt && receipt.created_at_ms < cutoff) {
        result.dropped++;
        return null;
      }
      if (receipt && !this.policy.keepQueryText && receipt.query !== UNKEPT_QUERY && receipt.query !== PURGED_QUERY) {
        result.masked++;
        return JSON.stringify({ ...receipt, query: UNKEPT_QUERY });
      }
      return line;
    }, (dropped) => (result.dropped += dropped));
    return result;
  }

  /**
   * Rewrites this file and its rotated one line by line (null drops a line), each whole under another
   * name, fsync'd and renamed into place, so a crash leaves the old file or the new one. A file is
   * rewritten only if a line changed or it is over half the size limit (then its oldest lines go).
   */
  private rewrite(edit: (line: string, receipt: Receipt | undefined) => string | null, overSize?: (dropped: number) => void): void {
    for (const file of [this.filePath, rotatedPath(this.filePath)]) {
      if (!fs.existsSync(file)) continue;
      let changed = false;
      const kept: string[] = [];
      for (const line of fs.readFileSync(file, "utf8").split("\n")) {
        if (line.trim() === "") continue;
        let receipt: Receipt | undefined;
        try {
          receipt = JSON.parse(line) as Receipt;
        } catch {
          receipt = undefined; // not ours to judge: edits that need the receipt leave it as it is
        }
        const next = edit(line, receipt);
        if (next !== line) changed = true;
        if (next !== null) kept.push(next);
      }
      if (overSize) {
        let bytes = kept.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
        let cut = 0;
        while (cut < kept.length && bytes > this.rotateBytes) bytes -= Buffer.byteLength(kept[cut++]) + 1;
        if (cut > 0) {
          kept.splice(0, cut);
          overSize(cut);
          changed = true;
        }
      }
      if (!changed) continue;
      const temp = `${file}.rewrite.tmp`;
      const body = kept.length > 0 ? kept.join("\n") + "\n" : "";
      fs.writeFileSync(temp, body, { mode: 0o600 });
      const fd = fs.openSync(temp, "r");
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      renameWithRetry(temp, file);
      if (file === this.filePath) this.bytes = Buffer.byteLength(body);
    }
    this.reloadRecent();
  }
}

// About 20 ms of comparisons (a receipt's query against a forgotten text) per step of a purge.
const PURGE_COMPARISONS_PER_STEP = 200_000;

function writeLines(fd: number, lines: readonly string[], edit: (line: string) => string | null): void {
  const kept: string[] = [];
  for (const line of lines) {
    if (line.trim() === "") continue;
    const next = edit(line);
    if (next !== null) kept.push(next);
  }
  if (kept.length === 0) return;
  const chunk = Buffer.from(kept.join("\n") + "\n");
  for (let written = 0; written < chunk.length; ) written += fs.writeSync(fd, chunk, written);
}

const STRING_LITERAL = /"(?:[^"\\]|\\.)*"/g;

/**
 * Whether any JSON string in the line is one of the ids: one pass over the line, however many ids a
 * purge erases (a substring search per id took 0.3 s for 1,000 ids over a few hundred receipts).
 */
function namesAny(line: string, ids: ReadonlySet<string>): boolean {
  for (const match of line.matchAll(STRING_LITERAL)) {
    const literal = match[0];
    let value: string;
    try {
      value = literal.includes("\\") ? (JSON.parse(literal) as string) : literal.slice(1, -1);
    } catch {
      continue;
    }
    if (ids.has(value)) return true;
  }
  return false;
}

function rotatedPath(filePath: string): string {
  return filePath.replace(/\.jsonl$/, ".1.jsonl");
}

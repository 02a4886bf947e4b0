// Audit log of search receipts (JSON lines). Receipts are diagnostics, not acknowledged data, so
// they are appended without fsync; the file rotates once it passes a size limit. The newest receipts
// are also kept in memory (receipt-history.ts) for the `receipt` RPC.
import fs from "node:fs";
import { renameWithRetry } from "./fs-retry";
import { readRecentReceipts, ReceiptHistory } from "./receipt-history";
import type { Receipt } from "./receipts";

const ROTATE_BYTES = 64 * 1024 * 1024;

export interface AuditPurge {
  /** Receipts dropped because they named a forgotten memory. */
  dropped: number;
  /** Receipts kept with their query masked because it held a forgotten memory's text. */
  masked: number;
}

export const PURGED_QUERY = "[purged]";

export class AuditLog {
  private bytes: number;
  recent = new ReceiptHistory();

  constructor(readonly filePath: string) {
    this.bytes = fs.existsSync(filePath) ? fs.statSync(filePath).size : 0;
    for (const receipt of readRecentReceipts(filePath)) this.recent.remember(receipt);
  }

  /** Receipts the file could not take (a refused rotation, a full disk); they stay in memory. */
  failedWrites = 0;
  lastError: string | null = null;

  /** Never throws: a search must not fail because its receipt could not be written to the file. */
  write(receipt: Receipt): void {
    this.recent.remember(receipt);
    const line = JSON.stringify(receipt) + "\n";
    try {
      if (this.bytes + line.length > ROTATE_BYTES) {
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
   * Erases forgotten memories from the receipts (this file and its rotated one): a receipt naming a
   * forgotten id is dropped; one whose query overlaps a forgotten text (the recall query is the user's
   * message, which capture stores) keeps its ids with the query masked. Each file is rewritten whole
   * and renamed into place, so a crash leaves the old file or the new one.
   */
  purge(forgottenIds: ReadonlySet<string>, forgottenTexts: readonly string[]): AuditPurge {
    const result: AuditPurge = { dropped: 0, masked: 0 };
    if (forgottenIds.size === 0) return result;
    const quotedIds = [...forgottenIds].map((id) => JSON.stringify(id));
    const texts = forgottenTexts.map((text) => text.trim()).filter((text) => text !== "");
    for (const file of [this.filePath, rotatedPath(this.filePath)]) {
      if (!fs.existsSync(file)) continue;
      const kept: string[] = [];
      for (const line of fs.readFileSync(file, "utf8").split("\n")) {
        if (line.trim() === "") continue;
        if (quotedIds.some((quoted) => line.includes(quoted))) {
          result.dropped++;
          continue;
        }
        let receipt: Receipt;
        try {
          receipt = JSON.parse(line) as Receipt;
        } catch {
          kept.push(line); // not ours to judge; it names no forgotten id
          continue;
        }
        const query = receipt.query.trim();
        if (query !== "" && texts.some((text) => text.includes(query) || query.includes(text))) {
          receipt.query = PURGED_QUERY;
          result.masked++;
        }
        kept.push(JSON.stringify(receipt));
      }
      const temp = `${file}.purge.tmp`;
      const body = kept.length > 0 ? kept.join("\n") + "\n" : "";
      fs.writeFileSync(temp, body);
      const fd = fs.openSync(temp, "r");
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      renameWithRetry(temp, file);
      if (file === this.filePath) this.bytes = Buffer.byteLength(body);
    }
    // The in-memory history is rebuilt from what is left on disk.
    this.recent = new ReceiptHistory();
    for (const receipt of readRecentReceipts(this.filePath)) this.recent.remember(receipt);
    return result;
  }
}

function rotatedPath(filePath: string): string {
  return filePath.replace(/\.jsonl$/, ".1.jsonl");
}

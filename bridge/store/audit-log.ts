// Audit log of search receipts (JSON lines). Receipts are diagnostics, not acknowledged data, so
// they are appended without fsync; the file rotates once it passes a size limit. The newest receipts
// are also kept in memory (receipt-history.ts) for the `receipt` RPC.
import fs from "node:fs";
import { renameWithRetry } from "./fs-retry";
import { readRecentReceipts, ReceiptHistory } from "./receipt-history";
import type { Receipt } from "./receipts";

const ROTATE_BYTES = 64 * 1024 * 1024;

export class AuditLog {
  private bytes: number;
  readonly recent = new ReceiptHistory();

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
        renameWithRetry(this.filePath, this.filePath.replace(/\.jsonl$/, ".1.jsonl"));
        this.bytes = 0;
      }
      fs.appendFileSync(this.filePath, line);
      this.bytes += Buffer.byteLength(line);
    } catch (error) {
      this.failedWrites += 1;
      this.lastError = (error as Error).message;
    }
  }
}

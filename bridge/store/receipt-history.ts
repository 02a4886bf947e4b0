// The most recent search receipts, in memory, so that "show me the last receipt" is one lookup;
// seeded from the tail of the audit log so that it survives a restart of the bridge.
import fs from "node:fs";
import { DreamError } from "../protocol/errors";
import { isPlainObject } from "./records";
import type { Receipt } from "./receipts";

export const RECEIPT_HISTORY = { capacity: 256, seedTailBytes: 256 * 1024 } as const;

export class ReceiptHistory {
  // A Map keeps insertion order, so its first key is the oldest receipt and eviction is O(1).
  private readonly byId = new Map<string, Receipt>();
  private newest: Receipt | undefined;

  constructor(private readonly capacity: number = RECEIPT_HISTORY.capacity) {}

  remember(receipt: Receipt): void {
    this.byId.delete(receipt.receipt_id);
    this.byId.set(receipt.receipt_id, receipt);
    this.newest = receipt;
    if (this.byId.size > this.capacity) this.byId.delete(this.byId.keys().next().value!);
  }

  /** Every receipt kept, oldest first. */
  all(): Receipt[] {
    return [...this.byId.values()];
  }

  /** The newest receipt, or the one with `receiptId`; NOT_FOUND says which of the two is missing. */
  require(receiptId?: string): Receipt {
    if (receiptId === undefined) {
      if (this.newest) return this.newest;
      throw new DreamError("NOT_FOUND", "no search receipt is recorded for this data directory yet; run a search first");
    }
    const found = this.byId.get(receiptId);
    if (found) return found;
    throw new DreamError("NOT_FOUND", `no receipt with id "${receiptId}" among the ${this.byId.size} most recent searches`, { field: "receipt_id" });
  }
}

/**
 * The receipts in the last `maxBytes` of an audit log, oldest first. Only the tail is read, so a large
 * log costs nothing at start. The line the tail cuts into is dropped, and the last one may be torn by a
 * crash; neither is a receipt anyone can ask for, so lines that do not parse are skipped.
 */
export function readRecentReceipts(filePath: string, maxBytes: number = RECEIPT_HISTORY.seedTailBytes): Receipt[] {
  let fd: number;
  try {
    fd = fs.openSync(filePath, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  let text: string;
  let cutAtStart: boolean;
  try {
    const size = fs.fstatSync(fd).size;
    // One byte more than the tail: if it is a newline, the tail starts on a whole line that is kept.
    const start = Math.max(0, size - maxBytes - 1);
    const buffer = Buffer.alloc(size - start);
    const read = fs.readSync(fd, buffer, 0, buffer.length, start);
    text = buffer.subarray(0, read).toString("utf8");
    cutAtStart = start > 0;
  } finally {
    fs.closeSync(fd);
  }
  const lines = text.split("\n");
  if (cutAtStart) lines.shift();
  return lines.flatMap((line) => {
    const receipt = parseReceiptLine(line.replace(/\r$/, ""));
    return receipt ? [receipt] : [];
  });
}

function parseReceiptLine(line: string): Receipt | undefined {
  if (line.trim() === "") return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return isPlainObject(value) && typeof value.receipt_id === "string" ? (value as unknown as Receipt) : undefined;
  } catch {
    return undefined;
  }
}

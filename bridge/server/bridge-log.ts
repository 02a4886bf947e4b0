// The bridge's own log (`bridge.log` in the data directory): start, stop, Chroma health changes and
// internal errors. Never tokens, keys or memory text.
import fs from "node:fs";
import path from "node:path";
import { isDreamError } from "../protocol/errors";
import { renameWithRetry } from "../store/fs-retry";

/** bridge.log is moved to bridge.log.1 (replacing the one before) once it reaches this size. */
export const LOG_ROTATE_BYTES = 5 * 1024 * 1024;

export class BridgeLog {
  readonly filePath: string;
  private bytes: number | undefined;
  private last: string | undefined;
  private repeats = 0;

  constructor(
    dataDir: string,
    private readonly rotateBytes = LOG_ROTATE_BYTES,
  ) {
    this.filePath = path.join(dataDir, "bridge.log");
  }

  info(message: string): void {
    this.write("info", message);
  }

  error(message: string): void {
    this.write("error", message);
  }

  private write(level: string, message: string): void {
    const text = `${level} ${message.replace(/\s*\n\s*/g, " ")}`;
    // A state that does not change (Chroma down, retried every few seconds) is said once, then counted.
    if (text === this.last) {
      this.repeats++;
      return;
    }
    const lines: string[] = [];
    if (this.repeats > 0) lines.push(`${new Date().toISOString()} info (the line before repeated ${this.repeats} more times)`);
    lines.push(`${new Date().toISOString()} ${text}`);
    this.last = text;
    this.repeats = 0;
    try {
      const chunk = lines.join("\n") + "\n";
      this.rotateIfFull();
      fs.appendFileSync(this.filePath, chunk);
      this.bytes = (this.bytes ?? 0) + Buffer.byteLength(chunk);
    } catch {
      // A full or read-only disk must not take the bridge down over a log line; the journal reports its own errors.
    }
  }

  private rotateIfFull(): void {
    this.bytes ??= fileSize(this.filePath);
    if (this.bytes < this.rotateBytes) return;
    renameWithRetry(this.filePath, `${this.filePath}.1`);
    this.bytes = 0;
  }
}

function fileSize(filePath: string): number {
  try {
    return fs.statSync(filePath).size;
  } catch {
    return 0;
  }
}

/** The log line of a failed start, `start failed [CODE]: message`: the launcher turns it back into that error. */
export function startFailure(error: unknown): string {
  const code = isDreamError(error) ? ` [${error.code}]` : "";
  return `start failed${code}: ${(error as Error).message}`;
}

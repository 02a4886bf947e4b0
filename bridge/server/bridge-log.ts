// The bridge's own log (`bridge.log` in the data directory): start, stop, Chroma health changes and
// internal errors. Never tokens, keys or memory text.
import fs from "node:fs";
import path from "node:path";
import { isDreamError } from "../protocol/errors";

export class BridgeLog {
  readonly filePath: string;

  constructor(dataDir: string) {
    this.filePath = path.join(dataDir, "bridge.log");
  }

  info(message: string): void {
    this.write("info", message);
  }

  error(message: string): void {
    this.write("error", message);
  }

  private write(level: string, message: string): void {
    try {
      fs.appendFileSync(this.filePath, `${new Date().toISOString()} ${level} ${message.replace(/\s*\n\s*/g, " ")}\n`);
    } catch {
      // A full or read-only disk must not take the bridge down over a log line; the journal reports its own errors.
    }
  }
}

/** The log line of a failed start, `start failed [CODE]: message`: the launcher turns it back into that error. */
export function startFailure(error: unknown): string {
  const code = isDreamError(error) ? ` [${error.code}]` : "";
  return `start failed${code}: ${(error as Error).message}`;
}

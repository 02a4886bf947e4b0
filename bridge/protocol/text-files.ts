// Text files a user or another program wrote, as Windows writes them too: UTF-8 with or without a
// BOM, and UTF-16 LE or BE with their BOM (what Windows PowerShell 5.1's Out-File and `>` write).
// Anything else must be valid UTF-8: bytes in a legacy code page (5.1's Set-Content writes CP936
// on a Chinese Windows) are refused by name, never decoded into mojibake and stored.
import fs from "node:fs";
import { DreamError } from "./errors";

export type TextEncoding = "utf-8" | "utf-16le" | "utf-16be";

/** Decodes a file's bytes by its BOM; throws BAD_ENCODING naming `what` when they are not valid text. */
export function decodeText(bytes: Uint8Array, what: string): { text: string; encoding: TextEncoding } {
  let encoding: TextEncoding = "utf-8";
  let start = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) [encoding, start] = ["utf-16le", 2];
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) [encoding, start] = ["utf-16be", 2];
  try {
    return { text: new TextDecoder(encoding, { fatal: true }).decode(bytes.subarray(start)), encoding };
  } catch {
    throw badEncoding(what, encoding, encoding === "utf-8" ? firstInvalidUtf8(bytes, start) : undefined);
  }
}

export function badEncoding(what: string, encoding: TextEncoding, offset: number | undefined): DreamError {
  return new DreamError(
    "BAD_ENCODING",
    `${what} is not valid ${encoding === "utf-8" ? "UTF-8" : encoding.toUpperCase()}${offset === undefined ? "" : ` (byte ${offset})`}; ` +
      "it may be in a legacy code page (Windows PowerShell 5.1's Set-Content writes one). Nothing was read from it.",
  );
}

/** Reads and decodes a file; an unreadable file is IO_ERROR naming it. */
export function readTextFile(file: string, what = file): string {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (cause) {
    throw new DreamError("IO_ERROR", `cannot read ${what}: ${(cause as Error).message}`, { cause });
  }
  return decodeText(bytes, what).text;
}

/** The offset of the first byte from `start` on that is not valid UTF-8, or undefined when only the end is cut short. */
export function firstInvalidUtf8(bytes: Uint8Array, start: number): number | undefined {
  // The shortest prefix a streaming decoder refuses ends at the first bad byte (an unfinished
  // sequence at a prefix's end is not an error while streaming).
  const refuses = (end: number) => {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(start, end), { stream: true });
      return false;
    } catch {
      return true;
    }
  };
  if (!refuses(bytes.length)) return undefined; // only the end is cut short
  let low = start + 1;
  let high = bytes.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (refuses(middle)) high = middle;
    else low = middle + 1;
  }
  return low - 1;
}

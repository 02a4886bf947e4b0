// Reading the user's input files: UTF-8 (with or without a BOM) or UTF-16 with a BOM, LF or CRLF
// line endings; a file in a legacy code page is refused by name (protocol/text-files.ts).
import { DreamError } from "../protocol/errors";
import { readTextFile } from "../protocol/text-files";

export function readLines(file: string): string[] {
  return readText(file).split(/\r?\n/);
}

export function readText(file: string): string {
  return readTextFile(file);
}

export function readJson(file: string, flag: string): unknown {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DreamError("BAD_JSON", `${flag} ${file}: ${(error as Error).message}`);
  }
}

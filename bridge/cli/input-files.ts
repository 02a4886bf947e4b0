// Reading the user's input files: UTF-8, an optional BOM, LF or CRLF line endings.
import fs from "node:fs";
import { DreamError } from "../protocol/errors";

export function readLines(file: string): string[] {
  return readText(file).split(/\r?\n/);
}

export function readText(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  } catch (cause) {
    throw new DreamError("IO_ERROR", `cannot read ${file}: ${(cause as Error).message}`, { cause });
  }
}

export function readJson(file: string, flag: string): unknown {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DreamError("BAD_JSON", `${flag} ${file}: ${(error as Error).message}`);
  }
}

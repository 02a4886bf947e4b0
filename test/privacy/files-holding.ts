// The privacy tests' byte scan: which files under a folder hold a given text.
import fs from "node:fs";
import path from "node:path";

/**
 * Every file under `dir` (relative paths) whose bytes contain `needle` as UTF-8. Give the needle a
 * space or punctuation: base64 vectors in the journal can hold any short run of letters and digits.
 */
export function filesHolding(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, "utf8");
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && fs.readFileSync(full).includes(bytes)) found.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return found;
}

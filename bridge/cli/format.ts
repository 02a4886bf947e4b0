// Human-readable output for the CLI; `--json` output bypasses this module entirely.
import type { DreamError } from "../protocol/errors";
import { collapsedSlotLines, redactionLines, withheldLines } from "../store/receipt-lines";
import type { SearchResponse } from "../store/search";
import { isoTime } from "../protocol/time";
import { oneLine } from "./views";

export function formatSearch(response: SearchResponse, options: { full?: boolean } = {}): string {
  const { results, receipt } = response;
  const lines = [`${receipt.recall} · mode ${receipt.mode} · ${results.length} result(s) · receipt ${receipt.receipt_id}`];
  let cut = false;
  results.forEach((r, i) => {
    const when = isoTime(r.timestamp_ms);
    lines.push(`${String(i + 1).padStart(2)}. [${r.source_type}] ${when}  ${r.id}`);
    if (options.full) lines.push(...r.text.split(/\r?\n/).map((line) => `    ${line}`));
    else {
      const line = oneLine(r.text, 160);
      cut ||= line.endsWith("…") && !r.text.endsWith("…");
      lines.push(`    ${line}`);
    }
  });
  if (cut) lines.push("  (long texts are cut to a line: --full prints them whole, or dsh-dream get ID)");
  // One line per collapsed slot; every superseded memory is in the receipt (`--json`, `dsh-dream receipt --json`).
  for (const line of [...collapsedSlotLines(receipt.collapsed_slots), ...withheldLines(receipt.withheld), ...redactionLines(receipt.redactions)]) lines.push(`  ${line}`);
  return lines.join("\n") + "\n";
}

export function formatError(error: DreamError): string {
  return `error [${error.code}]: ${error.message}\nhint: ${error.hint}\n`;
}

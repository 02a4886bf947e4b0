// What the management commands print for people: a memory in full, a listing, a slot's history, the
// counts, the bridge's status and a receipt, each readable without knowing the JSON behind it
// (`--json` prints that instead).
import { isoTime } from "../protocol/time";
import { SELF } from "../statements/slots";
import type { ListPage, MemoryDetail, MemoryStats, SlotHistory } from "../store/memory-views";
import { collapsedSlotLines, redactionLines, withheldLines } from "../store/receipt-lines";
import type { Receipt } from "../store/receipts";

type Status = Record<string, any>;

export function formatDetail(detail: MemoryDetail): string {
  const { record } = detail;
  const lines = [`${record.id}`, ""];
  lines.push(...indent(record.text), "");
  const facts: Array<[string, string | undefined]> = [
    ["source", record.source_type],
    ["time", isoTime(record.timestamp_ms)],
    ["scope", record.scope],
    ["session", record.session_id === undefined ? undefined : `${record.session_id}${record.turn === undefined ? "" : `, turn ${record.turn}`}`],
    ["tags", record.tags?.length ? record.tags.join(", ") : undefined],
    ["kind", describeAct(detail.act)],
    ["recall", record.quarantine ? `withheld (quarantined ${isoTime(record.quarantine.at_ms)}: ${record.quarantine.reason})` : "may be recalled"],
    ["edited from", detail.edited_from ?? undefined],
    ["replaced by", detail.replaced_by ?? undefined],
    ["vectors", detail.vectors.length ? detail.vectors.map((v) => `${v.provider}/${v.model} (${v.dim}-d)`).join(", ") : "none yet (found by its words)"],
  ];
  if (typeof record.metadata.edited_at_ms === "number") facts.push(["edited", isoTime(record.metadata.edited_at_ms)]);
  const metadata = Object.keys(record.metadata).filter((key) => key !== "edited_from" && key !== "edited_at_ms");
  if (metadata.length > 0) facts.push(["metadata", JSON.stringify(Object.fromEntries(metadata.map((key) => [key, record.metadata[key]])))]);
  for (const [name, value] of facts) if (value !== undefined) lines.push(`${name.padEnd(12)}${value}`);
  if (detail.slots.length > 0) {
    lines.push("", "states:");
    for (const slot of detail.slots) lines.push(`  ${slotName(slot)} = ${slot.value}`);
  }
  for (const history of detail.slot_history) lines.push("", ...historyLines(history, record.id));
  lines.push("", detail.receipts.length ? "recalled by:" : "recalled by: no recent search returned it");
  for (const r of detail.receipts) lines.push(`  ${isoTime(r.created_at_ms)}  #${r.rank} for "${oneLine(r.query, 80)}" (${r.mode})  ${r.receipt_id}`);
  return lines.join("\n") + "\n";
}

export function formatList(page: ListPage, pageNumber: number, pageSize: number): string {
  if (page.total === 0) return "no memory matches\n";
  const lines: string[] = [];
  for (const memory of page.memories) {
    const flags = [memory.source_type, memory.scope !== "global" ? memory.scope : "", memory.quarantine ? "quarantined" : ""].filter(Boolean).join(" · ");
    lines.push(`${isoTime(memory.timestamp_ms).slice(0, 16).replace("T", " ")}  ${memory.id}  [${flags}]`);
    lines.push(`    ${oneLine(memory.text, 200)}`);
  }
  const pages = Math.max(1, Math.ceil(page.total / pageSize));
  const first = page.offset + 1;
  const last = page.offset + page.memories.length;
  lines.push(`memories ${first}-${last} of ${page.total} · page ${pageNumber} of ${pages}${page.next_offset === null ? "" : ` · next: --page ${pageNumber + 1}`} · full text: dsh-dream get ID`);
  return lines.join("\n") + "\n";
}

export function formatHistory(subject: string, slots: SlotHistory[]): string {
  if (slots.length === 0) {
    return `no state of "${subject}" is recorded (nothing said where it is, what it is, or how it changed);\ntry: dsh-dream search "${subject}" --timeline\n`;
  }
  return slots.map((slot) => historyLines(slot).join("\n")).join("\n\n") + "\n";
}

export function formatStats(stats: MemoryStats): string {
  const lines = [`memories    ${stats.memories}${stats.quarantined ? ` (${stats.quarantined} quarantined)` : ""}${stats.forgotten_not_erased ? ` · ${stats.forgotten_not_erased} forgotten, erased from the files soon` : ""}`];
  if (stats.oldest_ms !== null && stats.newest_ms !== null) lines.push(`span        ${isoTime(stats.oldest_ms).slice(0, 10)} to ${isoTime(stats.newest_ms).slice(0, 10)}`);
  lines.push(`sessions    ${stats.sessions}`);
  lines.push(`text        ${stats.text_chars.toLocaleString("en-US")} characters`);
  lines.push(`states      ${stats.slots} things tracked over time (${stats.slot_statements} statements)`);
  lines.push("", "by source:", ...counts(stats.by_source_type));
  lines.push("", "by scope:", ...counts(stats.by_scope));
  if (stats.by_month.length > 0) {
    lines.push("", "by month:");
    const max = Math.max(...stats.by_month.map((m) => m.memories));
    for (const { month, memories } of stats.by_month.slice(-24)) lines.push(`  ${month}  ${String(memories).padStart(7)}  ${"#".repeat(Math.max(1, Math.round((memories / max) * 30)))}`);
    if (stats.by_month.length > 24) lines.push(`  (${stats.by_month.length - 24} earlier months: --json has them all)`);
  }
  return lines.join("\n") + "\n";
}

export function formatStatus(status: Status): string {
  const lines: string[] = [];
  const bridge = status.bridge ?? {};
  lines.push(`memories    ${status.records ?? 0}${status.quarantined ? ` (${status.quarantined} quarantined)` : ""} in ${status.data_dir}`);
  if (bridge.pid !== undefined) lines.push(`bridge      running, pid ${bridge.pid}, version ${bridge.version}, 127.0.0.1:${bridge.port}`);
  if (typeof bridge.data_dir_bytes === "number") lines.push(`on disk     ${formatBytes(bridge.data_dir_bytes)}`);
  const chroma = status.chroma;
  if (chroma) {
    if (chroma.mode === "off") lines.push("replica     off (journal only)");
    else {
      const state = chroma.starting ? "starting" : chroma.healthy === false ? `down${chroma.last_error ? `: ${chroma.last_error}` : ""}` : chroma.pending_bytes > 0 ? `catching up (${formatBytes(chroma.pending_bytes)} of the journal to go${describeEta(chroma.catch_up)})` : "in sync";
      lines.push(`replica     Chroma (${chroma.mode}) ${state}`);
    }
  }
  const embedding = status.embedding;
  if (embedding) {
    const coverage = embedding.coverage ? ` · ${embedding.coverage.current_vectors} of ${embedding.coverage.records} memories embedded` : "";
    lines.push(`embeddings  ${embedding.provider}${embedding.model ? ` ${embedding.model}` : ""}: ${embedding.state}${embedding.reason ? ` (${String(embedding.reason).replace(/_/g, " ")})` : ""}${coverage}`);
    if (embedding.state !== "ready" && embedding.reason === "model_not_cached") lines.push("            recall uses words only until the model is downloaded: dsh-dream download-model");
  }
  for (const space of status.vectors ?? []) {
    const index = space.index;
    if (!index || index.mode === "flat") continue;
    const what = index.mode === "building"
      ? `searched exactly while the approximate index is built (exact search covers up to ${index.flatMaxRecords})`
      : `approximate index, ${index.lists} lists, recall@10 ≈ ${Number(index.recallEstimate).toFixed(3)} (exact search covers up to ${index.flatMaxRecords})`;
    lines.push(`dense       ${space.provider}/${space.model}: ${space.vectors} vectors, ${what}`);
  }
  const journal = status.journal ?? {};
  if (journal.forgotten_not_erased) lines.push(`forgotten   ${journal.forgotten_not_erased} still in the files; erased within minutes (or now: dsh-dream purge)`);
  if (journal.torn_tail) lines.push(`journal     a torn tail was set aside at ${journal.torn_tail.kept_at} (${journal.torn_tail.cause})`);
  if (journal.unusable_vectors) lines.push(`vectors     ${journal.unusable_vectors.count} unusable vectors set aside; those memories are found by their words`);
  const privacy = status.privacy;
  if (privacy) {
    const retention = privacy.retention ?? {};
    const limits = [retention.maxAgeDays ? `older than ${retention.maxAgeDays} days` : "", retention.maxMemories ? `beyond the newest ${retention.maxMemories}` : ""].filter(Boolean);
    lines.push(`privacy     secrets ${privacy.redact_secrets ? "redacted" : "kept as typed"} · retention ${limits.length ? `forgets memories ${limits.join(" or ")}` : "keeps everything"}`);
  }
  if (status.audit?.failed_writes) lines.push(`receipts    ${status.audit.failed_writes} could not be written: ${status.audit.last_error}`);
  lines.push("", "more: dsh-dream stats (counts) · dsh-dream receipt (the last recall) · dsh-dream status --json (everything)");
  return lines.join("\n") + "\n";
}

function describeEta(catchUp: { bytes_per_s: number | null; eta_s: number | null } | undefined): string {
  if (!catchUp || catchUp.eta_s === null || catchUp.bytes_per_s === null) return "";
  const eta = catchUp.eta_s < 90 ? `${catchUp.eta_s} s` : catchUp.eta_s < 5400 ? `${Math.round(catchUp.eta_s / 60)} min` : `${(catchUp.eta_s / 3600).toFixed(1)} h`;
  return `, about ${eta} left at ${formatBytes(catchUp.bytes_per_s)}/s`;
}

function describeDenseIndex(receipt: Receipt): string {
  const index = receipt.dense?.index;
  if (!index || index.kind === "flat") return "";
  return ` · meaning from the approximate index (${index.lists_probed} of ${index.lists} lists, ${index.scanned} vectors, recall@10 ≈ ${index.recall_estimate?.toFixed(3)})`;
}

/** A receipt for people: the query, how recall ran, each memory returned with why, and what was held back. */
export function formatReceipt(receipt: Receipt, texts: ReadonlyMap<string, string>): string {
  const lines = [
    `receipt ${receipt.receipt_id} · ${isoTime(receipt.created_at_ms)}`,
    `query   "${oneLine(receipt.query, 200)}" · ${receipt.mode} · top ${receipt.top_k}${receipt.scope ? ` · scope ${receipt.scope}` : ""}`,
    `recall  ${receipt.recall.replace(/^Recall: /, "")}${describeDenseIndex(receipt)}`,
    "",
  ];
  const byId = new Map(receipt.candidates.map((c) => [c.id, c]));
  if (receipt.retrieved_chunk_ids.length === 0) lines.push("returned nothing");
  else lines.push("returned, in the order the model gets them:");
  receipt.retrieved_chunk_ids.forEach((id, i) => {
    const c = byId.get(id);
    const why = c
      ? [c.lexical_rank !== null ? `words #${c.lexical_rank}` : "", c.dense_rank !== null ? `meaning #${c.dense_rank}` : "", c.slot ? "current state of an asked slot" : ""].filter(Boolean).join(", ")
      : "";
    lines.push(`${String(i + 1).padStart(2)}. ${id}${why ? `  (${why})` : ""}`);
    const text = texts.get(id);
    if (text !== undefined) lines.push(`    ${oneLine(text, 200)}`);
  });
  const passed = receipt.candidates.filter((c) => !c.selected).length;
  if (passed > 0) lines.push(`${passed} more candidate${passed === 1 ? "" : "s"} ranked lower (dsh-dream receipt --json lists every rank)`);
  const notes = [...collapsedSlotLines(receipt.collapsed_slots), ...withheldLines(receipt.withheld), ...redactionLines(receipt.redactions)];
  if (notes.length > 0) lines.push("", "held back and why:", ...notes.map((line) => `  ${line}`));
  return lines.join("\n") + "\n";
}

function historyLines(history: SlotHistory, highlight?: string): string[] {
  const lines = [`${slotName(history)}: ${history.values.length + history.omitted} value${history.values.length + history.omitted === 1 ? "" : "s"} over time${history.omitted ? ` (the ${history.omitted} oldest not shown)` : ""}`];
  for (const value of history.values) {
    const marks = [value.current ? "current" : "", value.quarantined ? "quarantined" : "", value.id === highlight ? "this memory" : ""].filter(Boolean).join(", ");
    lines.push(`  ${isoTime(value.timestamp_ms).slice(0, 16).replace("T", " ")}  ${value.value}${marks ? `  ← ${marks}` : ""}`);
    lines.push(`      ${value.id}: ${oneLine(value.text, 120)}`);
  }
  return lines;
}

function slotName(slot: { kind: string; subject: string; attribute: string | null }): string {
  const subject = slot.subject === SELF ? "you" : slot.subject;
  return `${subject}${slot.attribute ? ` · ${slot.attribute}` : ""} (${slot.kind})`;
}

function describeAct(act: string): string {
  const words: Record<string, string> = {
    statement: "a statement",
    question: "a question (never recalled as a fact)",
    acknowledgement: "an acknowledgement (withheld from recall)",
    request: "a request",
  };
  return words[act] ?? act;
}

function counts(map: Record<string, number>): string[] {
  return Object.entries(map)
    .sort(([, a], [, b]) => b - a)
    .map(([name, count]) => `  ${name.padEnd(20)} ${count}`);
}

function indent(text: string): string[] {
  return text.split(/\r?\n/).map((line) => `  ${line}`);
}

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${Math.ceil(bytes / 1024)} KiB`;
}

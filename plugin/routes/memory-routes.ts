// The Memories page's routes: search, a filtered page of the list, one memory in full, forget,
// quarantine, release and edit, the newest recall with its receipt, and the export as NDJSON.
// Bodies are checked here, field by field (an unknown field is refused by name); the values'
// ranges are the bridge's to check, and its refusals come back naming the same fields.
import type { IncomingMessage } from "node:http";
import { exportPages, type ExportedRecord } from "../../bridge/client/export-pages";
import { DreamError, isDreamError } from "../../bridge/protocol/errors";
import type { RpcMethod } from "../../bridge/protocol/wire";
import { SOURCE_TYPES } from "../../bridge/store/records";
import type { RecallNote } from "../recall/recall";
import { readJsonBody } from "./fence";
import { redactSecrets } from "./redact";
import type { Answer, Download, MethodHandlers } from "./routes";

export interface MemoryRouteDeps {
  /** Whether long-term memory is on. */
  enabled(): boolean;
  /** Calls the bridge; while memory is off it never starts one, and fails with BRIDGE_UNAVAILABLE instead. */
  call<T>(method: RpcMethod, params: Record<string, unknown>): Promise<T>;
  /** The newest recall the plugin made, in whichever session: the page cannot tell which one the user is in. */
  newestRecall(): RecallNote | undefined;
}

/** A memory as the page shows it beside a receipt's ids; a forgotten one is missing. */
export interface MemoryGlance {
  text: string;
  source_type: string;
  timestamp_ms: number;
  quarantined: boolean;
}

type Rule = { type: "string"; required?: boolean; maxChars?: number } | { type: "integer" } | { type: "boolean" } | { type: "enum"; values: readonly string[] };

const ID: Rule = { type: "string", required: true, maxChars: 256 };
const TEXT: Rule = { type: "string", maxChars: 8192 };
const LIST_FIELDS: Record<string, Rule> = {
  scope: TEXT,
  source_type: { type: "enum", values: SOURCE_TYPES },
  tag: TEXT,
  session_id: TEXT,
  contains: TEXT,
  since_ms: { type: "integer" },
  until_ms: { type: "integer" },
  status: { type: "enum", values: ["any", "active", "quarantined"] },
  order: { type: "enum", values: ["newest", "oldest"] },
  offset: { type: "integer" },
  limit: { type: "integer" },
};
const SEARCH_FIELDS: Record<string, Rule> = { query: { type: "string", required: true, maxChars: 8192 }, timeline: { type: "boolean" }, scope: TEXT, top_k: { type: "integer" } };
/** Candidates that ranked below the results, shown with their text; the receipt keeps every rank. */
const LOWER_SHOWN = 20;
const GLANCE_CHARS = 300;

export function memoryRoutes(deps: MemoryRouteDeps): Record<string, MethodHandlers> {
  const post = (fields: Record<string, Rule>, what: string, run: (body: Record<string, unknown>) => Promise<unknown>) => ({
    POST: async (req: IncomingMessage): Promise<Answer> => ({ status: 200, body: await run(await readFields(req, fields, what)) }),
  });
  const forId = (method: RpcMethod, what: string) => post({ id: ID }, what, (body) => deps.call(method, body));
  return {
    "/memories/stats": { GET: async () => ({ status: 200, body: await stats(deps) }) },
    "/memories/list": post(LIST_FIELDS, "a list", (body) => deps.call("list", body)),
    "/memories/search": post(SEARCH_FIELDS, "a search", async (body) => {
      const answer = await deps.call<{ results: unknown[]; receipt: ReceiptIds }>("search", body);
      return { ...answer, memories: await glances(deps, lowerIds(answer.receipt)) };
    }),
    "/memories/get": forId("inspect", "opening a memory"),
    "/memories/forget": forId("forget", "forgetting"),
    "/memories/release": forId("release", "a release"),
    "/memories/quarantine": post({ id: ID, reason: { type: "string", required: true, maxChars: 200 } }, "a quarantine", (body) => deps.call("quarantine", body)),
    "/memories/edit": post({ id: ID, text: { type: "string", required: true } }, "an edit", (body) => deps.call("edit", body)),
    "/memories/last-recall": { GET: async () => ({ status: 200, body: await lastRecall(deps) }) },
    "/memories/export": { GET: async () => ({ download: exportDownload(deps) }) },
  };
}

/** Counts for the page's header; while memory is off and no bridge runs there are none to show. */
async function stats(deps: MemoryRouteDeps): Promise<{ enabled: boolean; stats: unknown }> {
  const enabled = deps.enabled();
  try {
    return { enabled, stats: await deps.call("stats", {}) };
  } catch (error) {
    if (!enabled && isDreamError(error) && error.code === "BRIDGE_UNAVAILABLE") return { enabled, stats: null };
    throw error;
  }
}

interface ReceiptIds {
  retrieved_chunk_ids: string[];
  candidates: Array<{ id: string; selected: boolean }>;
}

function lowerIds(receipt: ReceiptIds): string[] {
  return receipt.candidates.filter((c) => !c.selected).slice(0, LOWER_SHOWN).map((c) => c.id);
}

/** The newest recall, its receipt, and the text of every memory the receipt names that is still kept. */
async function lastRecall(deps: MemoryRouteDeps): Promise<Record<string, unknown>> {
  const note = deps.newestRecall();
  if (!note) return { recall: null, receipt: null, memories: {} };
  if (note.receipt_id === null) return { recall: note, receipt: null, memories: {} };
  let receipt: ReceiptIds;
  try {
    receipt = (await deps.call<{ receipt: ReceiptIds }>("receipt", { receipt_id: note.receipt_id })).receipt;
  } catch (error) {
    // Receipts are kept for a while, not for ever; and with memory off the bridge may be gone.
    if (isDreamError(error) && (error.code === "NOT_FOUND" || error.code === "BRIDGE_UNAVAILABLE")) return { recall: note, receipt: null, receipt_unavailable: error.toJSON(), memories: {} };
    throw error;
  }
  return { recall: note, receipt, memories: await glances(deps, [...receipt.retrieved_chunk_ids, ...lowerIds(receipt)]) };
}

async function glances(deps: MemoryRouteDeps, ids: string[]): Promise<Record<string, MemoryGlance>> {
  const found = await Promise.all(
    [...new Set(ids)].map(async (id) => {
      try {
        const { record } = await deps.call<{ record: { text: string; source_type: string; timestamp_ms: number; quarantine?: unknown } }>("get", { id });
        const text = record.text.length > GLANCE_CHARS ? record.text.slice(0, GLANCE_CHARS - 1) + "…" : record.text;
        return [id, { text, source_type: record.source_type, timestamp_ms: record.timestamp_ms, quarantined: record.quarantine !== undefined }] as const;
      } catch (error) {
        if (isDreamError(error) && error.code === "NOT_FOUND") return undefined; // forgotten since
        throw error;
      }
    }),
  );
  return Object.fromEntries(found.filter((entry) => entry !== undefined));
}

/** Every memory, one JSON object a line in the import format (`dsh-dream import` reads it back). */
function exportDownload(deps: MemoryRouteDeps): Download {
  const source = { call: <T>(method: "export", params: Record<string, unknown>) => deps.call<T>(method, params) };
  async function* chunks(): AsyncGenerator<string> {
    for await (const records of exportPages(source)) {
      if (records.length > 0) yield records.map((record: ExportedRecord) => JSON.stringify(redactSecrets(record)) + "\n").join("");
    }
  }
  const day = new Date().toISOString().slice(0, 10);
  return { filename: `dsh-dream-memories-${day}.ndjson`, contentType: "application/x-ndjson; charset=utf-8", chunks: chunks() };
}

async function readFields(req: IncomingMessage, rules: Record<string, Rule>, what: string): Promise<Record<string, unknown>> {
  const body = await readJsonBody(req);
  const names = Object.keys(rules);
  for (const [field, value] of Object.entries(body)) {
    const rule = rules[field];
    if (rule === undefined) throw new DreamError("INVALID_FIELD", `unknown field ${JSON.stringify(field.slice(0, 60))}; ${what} takes ${names.join(", ")}`, { field: field.slice(0, 60) });
    checkField(field, value, rule);
  }
  for (const [field, rule] of Object.entries(rules)) {
    if (rule.type === "string" && rule.required && body[field] === undefined) throw new DreamError("MISSING_FIELD", `${field} is required`, { field });
  }
  return body;
}

function checkField(field: string, value: unknown, rule: Rule): void {
  const refuse = (expected: string) => {
    throw new DreamError("INVALID_FIELD", `${field} must be ${expected}`, { field });
  };
  if (rule.type === "string") {
    if (typeof value !== "string" || (rule.required && value.trim() === "")) refuse(rule.required ? "a non-empty string" : "a string");
    if (rule.maxChars !== undefined && (value as string).length > rule.maxChars) refuse(`at most ${rule.maxChars} characters long`);
  } else if (rule.type === "integer") {
    if (typeof value !== "number" || !Number.isSafeInteger(value)) refuse("an integer");
  } else if (rule.type === "boolean") {
    if (typeof value !== "boolean") refuse("true or false");
  } else if (typeof value !== "string" || !rule.values.includes(value)) {
    refuse(`one of ${rule.values.map((v) => JSON.stringify(v)).join(", ")}`);
  }
}

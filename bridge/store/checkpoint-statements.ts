// The checkpoint's statements parts, one per segment of docs: each doc's speech act (one byte per doc, base64
// on the first line) and the state slots of docs that have any ([doc, kind, subject, attribute|null, value]
// rows in chunked JSON lines), so opening a store rebuilds the slot index without reading every text again.
import { SLOT_KINDS, type SlotKind, type StateSlot } from "../statements/slots";
import { SPEECH_ACTS } from "../statements/speech-acts";
import { CheckpointRejected } from "./checkpoint-format";

const ROWS_PER_LINE = 2048;

export interface StatementImage {
  /** Speech act code by doc number (see record-statements.ts). */
  acts: Uint8Array;
  slots: ReadonlyMap<number, StateSlot[]>;
}

type SlotRow = [number, SlotKind, string, string | null, string];

/** One segment's statements: the act codes of its docs from `from` on, and the slots of those that have any. */
export interface StatementSegment {
  from: number;
  acts: Uint8Array;
  slots: ReadonlyArray<readonly [number, StateSlot[]]>;
}

export function* encodeStatementPart(segment: StatementSegment): Generator<Buffer> {
  yield Buffer.from(JSON.stringify({ acts: Buffer.from(segment.acts).toString("base64") }) + "\n", "utf8");
  let rows: SlotRow[] = [];
  for (const [doc, slots] of segment.slots) {
    for (const slot of slots) rows.push([doc, slot.kind, slot.subject, slot.attribute ?? null, slot.value]);
    if (rows.length >= ROWS_PER_LINE) {
      yield Buffer.from(JSON.stringify(rows) + "\n", "utf8");
      rows = [];
    }
  }
  if (rows.length > 0) yield Buffer.from(JSON.stringify(rows) + "\n", "utf8");
}

/**
 * Decodes the part of the segment of `count` docs from `from` into `into` (acts by doc number, slots), checking
 * every row belongs to that segment; anything malformed is a rejected checkpoint.
 */
export function decodeStatementPart(bytes: Buffer, from: number, count: number, into: { acts: Uint8Array; slots: Map<number, StateSlot[]> }): void {
  const lines = bytes.toString("utf8").split("\n");
  if (lines.pop() !== "") throw new CheckpointRejected("the statements part does not end with a newline");
  const head: unknown = JSON.parse(lines[0] ?? "null");
  const encoded = (head as { acts?: unknown } | null)?.acts;
  if (typeof encoded !== "string") throw new CheckpointRejected("the statements part has no act codes");
  const acts = new Uint8Array(Buffer.from(encoded, "base64"));
  if (acts.length !== count || acts.some((code) => code >= SPEECH_ACTS.length)) {
    throw new CheckpointRejected(`a statements part holds ${acts.length} act codes for ${count} docs`);
  }
  into.acts.set(acts, from);
  const { slots } = into;
  for (const line of lines.slice(1)) {
    const rows: unknown = JSON.parse(line);
    if (!Array.isArray(rows)) throw new CheckpointRejected("the statements part holds a line that is not an array");
    for (const row of rows) {
      if (!isSlotRow(row, from, from + count)) throw new CheckpointRejected("the statements part holds a malformed slot row");
      const [doc, kind, subject, attribute, value] = row;
      const list = slots.get(doc) ?? [];
      list.push({ kind, subject, ...(attribute === null ? {} : { attribute }), value });
      slots.set(doc, list);
    }
  }
}

function isSlotRow(row: unknown, from: number, to: number): row is SlotRow {
  if (!Array.isArray(row) || row.length !== 5) return false;
  const [doc, kind, subject, attribute, value] = row;
  return (
    Number.isInteger(doc) &&
    doc >= from &&
    doc < to &&
    SLOT_KINDS.includes(kind) &&
    typeof subject === "string" &&
    (attribute === null || typeof attribute === "string") &&
    typeof value === "string"
  );
}

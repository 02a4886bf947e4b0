// A record part's heads: every field of its records but the text and the content hash, as columns, kept in the
// part's text index (version 2) so that an open of a large store makes its paged records from them without
// parsing the part's JSON. At a million memories that JSON, texts left out, was ~110 MB: parsing it and
// copying each record into its paged one was ~1.5 s of the open's ~4 s on the opening thread. The part stays
// the records' whole truth (texts, and what an open that keeps texts in memory parses); the heads are written
// from the same records, only for parts whose every record has the fields in the order validateRecordInput
// makes them (then a record made from its head is the one the JSON gives, field order included).
import { runToEnd } from "../index/run-steps";
import { CheckpointRejected } from "./checkpoint-format";
import { SOURCE_TYPES, type MemoryRecord, type SourceType, wellFormed } from "./records";
import type { SharedValues } from "./checkpoint-parts";

/**
 * A record's fields in the order validateRecordInput makes them; a head holds all but the text and the
 * content hash, which a paged record keeps elsewhere (its own fields then lack them).
 */
const FIELDS = ["id", "text", "source_type", "timestamp_ms", "scope", "metadata", "content_hash", "session_id", "turn", "tags", "quarantine"] as const;
const OPTIONAL = new Set<string>(["text", "content_hash", "session_id", "turn", "tags", "quarantine"]);
const NONE = -1;
const FORGOTTEN = 0xff;

/** The heads of a part's records, decoded and checked. */
export interface RecordHeads {
  count: number;
  ids: string;
  /** Record i's id is ids[idAt[i], idAt[i + 1]) (UTF-16 units; written as UTF-8). */
  idAt: Uint32Array;
  /** Index into SOURCE_TYPES; FORGOTTEN for a doc without a record. */
  kinds: Uint8Array;
  timestamps: Float64Array;
  /** NONE where a record has no turn. */
  turns: Float64Array;
  /** Into `table` (JSON texts); NONE where a record has no such field. */
  scopes: Int32Array;
  sessions: Int32Array;
  metadata: Int32Array;
  tags: Int32Array;
  quarantines: Int32Array;
  table: string[];
}

/**
 * The heads of `records` (undefined: a forgotten doc), or undefined when any record has fields this encoding
 * does not keep exactly (another order, another field, a value of another type): its part is then parsed.
 */
export function encodeRecordHeads(records: ReadonlyArray<MemoryRecord | undefined>): Buffer | undefined {
  return runToEnd(recordHeadsInSteps(records, Infinity));
}

/**
 * encodeRecordHeads in steps of `perStep` records: a checkpoint's first text index (4,096 records, the code
 * not yet compiled) was a step of ~75 ms at 1M.
 */
export function* recordHeadsInSteps(records: ReadonlyArray<MemoryRecord | undefined>, perStep: number): Generator<void, Buffer | undefined> {
  const count = records.length;
  const table: string[] = [];
  const tableAt = new Map<string, number>();
  const entry = (value: unknown): number => {
    const json = JSON.stringify(value);
    let at = tableAt.get(json);
    if (at === undefined) {
      at = table.push(json) - 1;
      tableAt.set(json, at);
    }
    return at;
  };
  const ids: string[] = [];
  const idAt = new Uint32Array(count + 1);
  const kinds = new Uint8Array(count).fill(FORGOTTEN);
  const timestamps = new Float64Array(count);
  const turns = new Float64Array(count).fill(NONE);
  const columns = { scope: new Int32Array(count), session_id: new Int32Array(count).fill(NONE), metadata: new Int32Array(count), tags: new Int32Array(count).fill(NONE), quarantine: new Int32Array(count).fill(NONE) };
  let units = 0;
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % perStep === 0) yield;
    const record = records[i];
    idAt[i] = units;
    if (record === undefined) continue;
    if (!inOrder(Object.keys(record))) return undefined;
    const { id, source_type, timestamp_ms, scope, metadata, session_id, turn, tags, quarantine } = record;
    const kind = SOURCE_TYPES.indexOf(source_type);
    if (typeof id !== "string" || kind < 0 || typeof timestamp_ms !== "number" || typeof scope !== "string" || typeof metadata !== "object" || metadata === null) return undefined;
    if ((session_id !== undefined && typeof session_id !== "string") || (turn !== undefined && !(typeof turn === "number" && turn >= 0)) || (tags !== undefined && !Array.isArray(tags))) return undefined;
    if (quarantine !== undefined && (typeof quarantine !== "object" || quarantine === null)) return undefined;
    // A number the part's JSON would not give back as it is (NaN, Infinity: null; -0: 0) stays to be parsed.
    const asJson = (n: number) => JSON.stringify(n) === String(n) && !Object.is(n, -0);
    if (!asJson(timestamp_ms) || (turn !== undefined && !asJson(turn))) return undefined;
    // UTF-8 keeps an ASCII id one byte a character in the heap too; a lone surrogate would not survive it.
    if (wellFormed(id) !== id) return undefined;
    ids.push(id);
    units += id.length;
    kinds[i] = kind;
    timestamps[i] = timestamp_ms;
    if (turn !== undefined) turns[i] = turn;
    columns.scope[i] = entry(scope);
    columns.metadata[i] = entry(metadata);
    if (session_id !== undefined) columns.session_id[i] = entry(session_id);
    if (tags !== undefined) columns.tags[i] = entry(tags);
    if (quarantine !== undefined) columns.quarantine[i] = entry(quarantine);
  }
  idAt[count] = units;
  const tableBytes = Buffer.from(JSON.stringify(table), "utf8");
  const idBytes = Buffer.from(ids.join(""), "utf8");
  const out = Buffer.alloc(4 + tableBytes.length + 4 + 4 + idBytes.length + 4 * (count + 1) + 8 * count * 2 + count + 4 * count * 5);
  let at = out.writeUInt32LE(tableBytes.length, 0);
  at += tableBytes.copy(out, at);
  at = out.writeUInt32LE(units, at);
  at = out.writeUInt32LE(idBytes.length, at);
  at += idBytes.copy(out, at);
  for (const value of idAt) at = out.writeUInt32LE(value, at);
  for (const value of timestamps) at = out.writeDoubleLE(value, at);
  for (const value of turns) at = out.writeDoubleLE(value, at);
  at += Buffer.from(kinds.buffer).copy(out, at);
  for (const column of [columns.scope, columns.session_id, columns.metadata, columns.tags, columns.quarantine]) for (const value of column) at = out.writeInt32LE(value, at);
  return out;
}

/** Whether `keys` are fields of FIELDS in its order, the required ones there. */
function inOrder(keys: string[]): boolean {
  let field = 0;
  for (const key of keys) {
    while (field < FIELDS.length && FIELDS[field] !== key) {
      if (!OPTIONAL.has(FIELDS[field])) return false;
      field++;
    }
    if (field === FIELDS.length) return false;
    field++;
  }
  for (; field < FIELDS.length; field++) if (!OPTIONAL.has(FIELDS[field])) return false;
  return true;
}

/** Heads read back, each column checked (sizes, table indexes, kinds); a forgotten doc is one `forgotten` says. */
export function decodeRecordHeads(bytes: Buffer, count: number, forgotten: (i: number) => boolean): RecordHeads {
  const refuse = (what: string): never => {
    throw new CheckpointRejected(`a text index's record heads ${what}`);
  };
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) refuse("end early");
  };
  need(4);
  const tableBytes = bytes.readUInt32LE(at);
  at += 4;
  need(tableBytes + 4);
  let table: unknown;
  try {
    table = JSON.parse(bytes.toString("utf8", at, at + tableBytes));
  } catch {
    refuse("hold a table that is not JSON");
  }
  if (!Array.isArray(table) || !table.every((json) => typeof json === "string")) return refuse("hold a table that is not a list of JSON texts");
  at += tableBytes;
  need(8);
  const units = bytes.readUInt32LE(at);
  const idBytes = bytes.readUInt32LE(at + 4);
  at += 8;
  if (bytes.length - at !== idBytes + 4 * (count + 1) + 8 * count * 2 + count + 4 * count * 5) refuse(`are not ${count} records' long`);
  const ids = bytes.toString("utf8", at, at + idBytes);
  if (ids.length !== units) refuse("hold ids that are not the UTF-8 they were written as");
  at += idBytes;
  const idAt = new Uint32Array(count + 1);
  for (let i = 0; i <= count; i++, at += 4) idAt[i] = bytes.readUInt32LE(at);
  const doubles = () => {
    const column = new Float64Array(count);
    for (let i = 0; i < count; i++, at += 8) column[i] = bytes.readDoubleLE(at);
    return column;
  };
  const timestamps = doubles();
  const turns = doubles();
  const kinds = Uint8Array.from(bytes.subarray(at, at + count));
  at += count;
  const ints = () => {
    const column = new Int32Array(count);
    for (let i = 0; i < count; i++, at += 4) column[i] = bytes.readInt32LE(at);
    return column;
  };
  const [scopes, sessions, metadata, tags, quarantines] = [ints(), ints(), ints(), ints(), ints()];
  const entries = (table as string[]).length;
  const inTable = (value: number, optional: boolean) => (optional && value === NONE) || (value >= 0 && value < entries);
  if (idAt[0] !== 0 || idAt[count] !== units) refuse("hold ids that do not span their text");
  for (let i = 0; i < count; i++) {
    if (idAt[i + 1] < idAt[i]) refuse(`hold ids out of order at record ${i}`);
    if (kinds[i] === FORGOTTEN) {
      if (!forgotten(i)) refuse(`leave out record ${i}, which the part holds`);
      continue;
    }
    if (forgotten(i)) refuse(`hold record ${i}, which the part leaves out`);
    const known = kinds[i] < SOURCE_TYPES.length && Number.isFinite(timestamps[i]) && (turns[i] === NONE || turns[i] >= 0);
    if (!known || !inTable(scopes[i], false) || !inTable(metadata[i], false) || !inTable(sessions[i], true) || !inTable(tags[i], true) || !inTable(quarantines[i], true)) refuse(`hold a malformed record at ${i}`);
  }
  return { count, ids, idAt, kinds, timestamps, turns, scopes, sessions, metadata, tags, quarantines, table: table as string[] };
}

/**
 * Makes a part's records from their heads, in validateRecordInput's field order, and hands each to `made(i,
 * record)` (which gives it its prototype: a paged record, text-pages.ts); `doc.key` holds the record's doc
 * number (`doc.from + i`). `shared` shares what decodeRecordPart shares (scopes, session ids, source types
 * are constants here, metadata frozen and shared unless it is large). Tags and quarantines are made for each
 * record. Each record is one object literal with every field in it: V8 pretenures what such a literal site
 * makes once most of it survives (a million records at an open, otherwise each copied by two scavenges); a
 * literal with `__proto__` in it, or a field added after it, is not.
 */
export function recordsFromHeads(heads: RecordHeads, shared: SharedValues, made: (i: number, record: Record<string | symbol, unknown>) => void, doc: { key: symbol; from: number }): void {
  const { table } = heads;
  const parsed: unknown[] = new Array(table.length);
  const value = (at: number): unknown => {
    try {
      return JSON.parse(table[at]);
    } catch {
      throw new CheckpointRejected(`a text index's record heads hold a table entry that is not JSON (${at})`);
    }
  };
  const sharedString = (at: number, field: string): string => {
    let held = parsed[at];
    if (held === undefined) {
      held = value(at);
      if (typeof held !== "string") throw new CheckpointRejected(`a text index's record heads hold a ${field} that is not a string (${at})`);
      parsed[at] = held = shared.share(held as string);
    }
    return held as string;
  };
  const metadataOf = (at: number): Record<string, unknown> => {
    // Metadata SharedValues would not share is made anew for each record, as decodeRecordPart leaves it.
    if (!shared.sharesJson(table[at])) return objectAt(at, "metadata");
    let held = parsed[at];
    if (held === undefined) parsed[at] = held = shared.metadata(objectAt(at, "metadata"));
    return held as Record<string, unknown>;
  };
  const objectAt = (at: number, field: string): Record<string, unknown> => {
    const made = value(at);
    if (typeof made !== "object" || made === null || (field !== "tags") === Array.isArray(made)) throw new CheckpointRejected(`a text index's record heads hold ${field} of another type (${at})`);
    return made as Record<string, unknown>;
  };
  const key = doc.key;
  for (let i = 0; i < heads.count; i++) {
    if (heads.kinds[i] === FORGOTTEN) continue;
    const id = heads.ids.slice(heads.idAt[i], heads.idAt[i + 1]);
    const source_type = SOURCE_TYPES[heads.kinds[i]] as SourceType;
    const timestamp_ms = heads.timestamps[i];
    const scope = sharedString(heads.scopes[i], "scope");
    const metadata = metadataOf(heads.metadata[i]);
    const at = doc.from + i;
    const session = heads.sessions[i] !== NONE ? sharedString(heads.sessions[i], "session id") : undefined;
    const turn = heads.turns[i] !== NONE ? heads.turns[i] : undefined;
    if (heads.tags[i] === NONE && heads.quarantines[i] === NONE) {
      // The shapes of captured turns and of imported memories: a literal each.
      if (session !== undefined && turn !== undefined) made(i, { id, source_type, timestamp_ms, scope, metadata, session_id: session, turn, [key]: at });
      else if (session !== undefined) made(i, { id, source_type, timestamp_ms, scope, metadata, session_id: session, [key]: at });
      else if (turn !== undefined) made(i, { id, source_type, timestamp_ms, scope, metadata, turn, [key]: at });
      else made(i, { id, source_type, timestamp_ms, scope, metadata, [key]: at });
      continue;
    }
    // Tagged or quarantined: few, made field by field.
    const record: Record<string | symbol, unknown> = { id, source_type, timestamp_ms, scope, metadata };
    if (session !== undefined) record.session_id = session;
    if (turn !== undefined) record.turn = turn;
    if (heads.tags[i] !== NONE) record.tags = objectAt(heads.tags[i], "tags");
    if (heads.quarantines[i] !== NONE) record.quarantine = objectAt(heads.quarantines[i], "quarantine");
    record[key] = at;
    made(i, record);
  }
}

// MADial-Bench (Chinese) loading as ../shared/data/madial-bench-zh/README.md describes it: two JSON Lines
// files, memories per user, and per dialogue the query (every line before the first test turn) and its evidence.

export interface MadialMemory {
  id: string;
  userId: number;
  event: string;
  time: string;
}

export interface MadialDialogue {
  id: string;
  userId: number;
  /** Every dialogue line before the first test turn, joined as the file holds them (each ends in "\n"). */
  query: string;
  evidence: string[];
}

/** One JSON value per non-blank line; CRLF line ends are fine; a bad line throws with its 1-based number. */
export function parseJsonLines(text: string): unknown[] {
  const values: unknown[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      throw new Error(`JSON Lines: line ${index + 1} is not JSON (${(error as Error).message})`);
    }
  });
  return values;
}

/** Memory lines are `{"<id>": {time, scene, emotion, event, user-id, id}}`. */
export function loadMemories(text: string): MadialMemory[] {
  return parseJsonLines(text).map((line, index) => {
    const values = Object.values(line as Record<string, Record<string, unknown>>);
    const m = values[0];
    if (values.length !== 1 || typeof m?.event !== "string" || typeof m["user-id"] !== "number") {
      throw new Error(`MADial memory ${index + 1}: expected {"<id>": {event, user-id, id, ...}}`);
    }
    return { id: String(m.id), userId: m["user-id"], event: m.event, time: String(m.time ?? "") };
  });
}

/** Dialogue lines are `{dialogue, test-turn, relevant-id, user-id, id}`. */
export function loadDialogues(text: string): MadialDialogue[] {
  return parseJsonLines(text).map((line, index) => {
    const d = line as { dialogue?: unknown; "test-turn"?: unknown; "relevant-id"?: unknown; "user-id"?: unknown; id?: unknown };
    const turns = d["test-turn"];
    if (!Array.isArray(d.dialogue) || !Array.isArray(turns) || turns.length === 0 || !Array.isArray(d["relevant-id"]) || typeof d["user-id"] !== "number") {
      throw new Error(`MADial dialogue ${index + 1}: expected {dialogue, test-turn, relevant-id, user-id, id}`);
    }
    const firstTest = Math.min(...(turns as number[]));
    return {
      id: String(d.id),
      userId: d["user-id"],
      query: (d.dialogue as string[]).slice(0, firstTest).join(""),
      evidence: (d["relevant-id"] as unknown[]).map(String),
    };
  });
}

/** Evidence must name memories of the dialogue's own user; the README says this data has no such error. */
export function checkEvidence(dialogues: MadialDialogue[], memories: MadialMemory[]): void {
  const owner = new Map(memories.map((m) => [m.id, m.userId]));
  for (const d of dialogues) {
    const stray = d.evidence.filter((id) => owner.get(id) !== d.userId);
    if (stray.length > 0) throw new Error(`MADial dialogue ${d.id}: evidence ${stray.join(", ")} is not a memory of user ${d.userId}`);
  }
}

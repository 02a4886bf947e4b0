// Which memories sit next to each other in a conversation: the same session_id and turn numbers at
// most one apart. Same-turn siblings count too, for capture that stores a turn's user and assistant
// halves as two memories. Incremental: each finished turn is added as it arrives.
import { grownCapacity } from "./capacity";

const NOT_PLACED = -1;

export class TurnAdjacency {
  private readonly sessions = new Map<string, Map<number, number[]>>();
  // Where each doc sits, by doc number: its session's number (NOT_PLACED if none) and its turn. Typed arrays
  // and numbered sessions, where a Map of { sessionId, turn } objects cost ~75 bytes a captured memory.
  private sessionOf = new Int32Array(0);
  private turnOf = new Float64Array(0);
  private readonly sessionIds: Array<string | undefined> = [];
  private readonly sessionNumbers = new Map<string, number>();

  add(doc: number, sessionId: string, turn: number): void {
    if (this.placed(doc)) throw new Error(`TurnAdjacency.add: doc ${doc} is already placed`);
    let turns = this.sessions.get(sessionId);
    if (!turns) this.sessions.set(sessionId, (turns = new Map()));
    // A new array of exactly the docs: an array pushed to keeps room for 17 (~150 bytes for a turn's two).
    const docs = turns.get(turn);
    turns.set(turn, docs ? [...docs, doc] : [doc]);
    let number = this.sessionNumbers.get(sessionId);
    if (number === undefined) {
      number = this.sessionIds.push(sessionId) - 1;
      this.sessionNumbers.set(sessionId, number);
    }
    this.reserve(doc + 1);
    this.sessionOf[doc] = number;
    this.turnOf[doc] = turn;
  }

  /** Forget `doc`; a doc that was never placed is ignored. */
  remove(doc: number): void {
    const position = this.position(doc);
    if (!position) return;
    this.sessionOf[doc] = NOT_PLACED;
    const turns = this.sessions.get(position.sessionId)!;
    const rest = turns.get(position.turn)!.filter((other) => other !== doc);
    if (rest.length > 0) turns.set(position.turn, rest);
    else turns.delete(position.turn);
    if (turns.size === 0) {
      this.sessions.delete(position.sessionId);
      // Its number is not given again; its id is let go.
      this.sessionIds[this.sessionNumbers.get(position.sessionId)!] = undefined;
      this.sessionNumbers.delete(position.sessionId);
    }
  }

  private placed(doc: number): boolean {
    return doc < this.sessionOf.length && this.sessionOf[doc] !== NOT_PLACED;
  }

  private position(doc: number): { sessionId: string; turn: number } | undefined {
    if (!Number.isInteger(doc) || doc < 0 || !this.placed(doc)) return undefined;
    return { sessionId: this.sessionIds[this.sessionOf[doc]]!, turn: this.turnOf[doc] };
  }

  private reserve(docs: number): void {
    if (docs <= this.sessionOf.length) return;
    const length = grownCapacity(this.sessionOf.length, docs, 64);
    const sessionOf = new Int32Array(length).fill(NOT_PLACED);
    sessionOf.set(this.sessionOf);
    const turnOf = new Float64Array(length);
    turnOf.set(this.turnOf);
    [this.sessionOf, this.turnOf] = [sessionOf, turnOf];
  }

  /** The other docs of `doc`'s own turn (a turn's user and assistant halves); empty for an unplaced doc. */
  sameTurn(doc: number): number[] {
    const position = this.position(doc);
    if (!position) return [];
    return this.sessions.get(position.sessionId)!.get(position.turn)!.filter((other) => other !== doc);
  }

  /** Docs at the previous, same and next turn of `doc`'s session, in that order; empty for an unplaced doc. */
  neighbours(doc: number): number[] {
    const position = this.position(doc);
    if (!position) return [];
    const turns = this.sessions.get(position.sessionId)!;
    const out: number[] = [];
    for (const turn of [position.turn - 1, position.turn, position.turn + 1]) {
      for (const other of turns.get(turn) ?? []) if (other !== doc) out.push(other);
    }
    return out;
  }
}

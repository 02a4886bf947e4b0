// Which memories sit next to each other in a conversation: the same session_id and turn numbers at
// most one apart. Same-turn siblings count too, for capture that stores a turn's user and assistant
// halves as two memories. Incremental: each finished turn is added as it arrives.
import { grownCapacity } from "./capacity";

const NOT_PLACED = -1;
const NO_DOC = -1;
const NO_DOCS: readonly number[] = Object.freeze([]);

export class TurnAdjacency {
  /**
   * By session id, each turn's first doc; the turn's other docs follow it in `nextOf`, in the order they were
   * added. An array a turn (a JSArray and its elements, kept for the store's life) was two objects for every
   * two captured memories, for V8 to mark at each full collection.
   */
  private readonly sessions = new Map<string, Map<number, number>>();
  // Where each doc sits, by doc number: its session's number (NOT_PLACED if none) and its turn. Typed arrays
  // and numbered sessions, where a Map of { sessionId, turn } objects cost ~75 bytes a captured memory.
  private sessionOf = new Int32Array(0);
  private turnOf = new Float64Array(0);
  /** The next doc of the same turn, or NO_DOC. */
  private nextOf = new Int32Array(0);
  private readonly sessionIds: Array<string | undefined> = [];
  private readonly sessionNumbers = new Map<string, number>();

  add(doc: number, sessionId: string, turn: number): void {
    if (this.placed(doc)) throw new Error(`TurnAdjacency.add: doc ${doc} is already placed`);
    this.reserve(doc + 1);
    let turns = this.sessions.get(sessionId);
    if (!turns) this.sessions.set(sessionId, (turns = new Map()));
    this.nextOf[doc] = NO_DOC;
    const first = turns.get(turn);
    if (first === undefined) turns.set(turn, doc);
    else {
      let last = first;
      while (this.nextOf[last] !== NO_DOC) last = this.nextOf[last];
      this.nextOf[last] = doc;
    }
    let number = this.sessionNumbers.get(sessionId);
    if (number === undefined) {
      number = this.sessionIds.push(sessionId) - 1;
      this.sessionNumbers.set(sessionId, number);
    }
    this.sessionOf[doc] = number;
    this.turnOf[doc] = turn;
  }

  /** Forget `doc`; a doc that was never placed is ignored. */
  remove(doc: number): void {
    const position = this.position(doc);
    if (!position) return;
    this.sessionOf[doc] = NOT_PLACED;
    const turns = this.sessions.get(position.sessionId)!;
    const first = turns.get(position.turn)!;
    if (first === doc) {
      if (this.nextOf[doc] === NO_DOC) turns.delete(position.turn);
      else turns.set(position.turn, this.nextOf[doc]);
    } else {
      let before = first;
      while (this.nextOf[before] !== doc) before = this.nextOf[before];
      this.nextOf[before] = this.nextOf[doc];
    }
    this.nextOf[doc] = NO_DOC;
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
    const nextOf = new Int32Array(length).fill(NO_DOC);
    nextOf.set(this.nextOf);
    [this.sessionOf, this.turnOf, this.nextOf] = [sessionOf, turnOf, nextOf];
  }

  /** Appends to `out` the docs of `turn` in `turns` other than `doc`, in the order they were added. */
  private docsOf(turns: Map<number, number>, turn: number, doc: number, out: number[]): number[] {
    for (let other = turns.get(turn) ?? NO_DOC; other !== NO_DOC; other = this.nextOf[other]) if (other !== doc) out.push(other);
    return out;
  }

  /**
   * The other docs of `doc`'s own turn (a turn's user and assistant halves); for an unplaced doc, one shared
   * empty array (every imported memory without a session asks, several times each at an open of 1M).
   */
  sameTurn(doc: number): readonly number[] {
    if (!Number.isInteger(doc) || doc < 0 || !this.placed(doc)) return NO_DOCS;
    return this.docsOf(this.sessions.get(this.sessionIds[this.sessionOf[doc]]!)!, this.turnOf[doc], doc, []);
  }

  /** Docs at the previous, same and next turn of `doc`'s session, in that order; empty for an unplaced doc. */
  neighbours(doc: number): number[] {
    const position = this.position(doc);
    if (!position) return [];
    const turns = this.sessions.get(position.sessionId)!;
    const out: number[] = [];
    for (const turn of [position.turn - 1, position.turn, position.turn + 1]) this.docsOf(turns, turn, doc, out);
    return out;
  }
}

// Which memories sit next to each other in a conversation: the same session_id and turn numbers at
// most one apart. Same-turn siblings count too, for capture that stores a turn's user and assistant
// halves as two memories. Incremental: each finished turn is added as it arrives.

export class TurnAdjacency {
  private readonly sessions = new Map<string, Map<number, number[]>>();
  private readonly positions = new Map<number, { sessionId: string; turn: number }>();

  add(doc: number, sessionId: string, turn: number): void {
    if (this.positions.has(doc)) throw new Error(`TurnAdjacency.add: doc ${doc} is already placed`);
    let turns = this.sessions.get(sessionId);
    if (!turns) this.sessions.set(sessionId, (turns = new Map()));
    const docs = turns.get(turn);
    if (docs) docs.push(doc);
    else turns.set(turn, [doc]);
    this.positions.set(doc, { sessionId, turn });
  }

  /** Forget `doc`; a doc that was never placed is ignored. */
  remove(doc: number): void {
    const position = this.positions.get(doc);
    if (!position) return;
    this.positions.delete(doc);
    const turns = this.sessions.get(position.sessionId)!;
    const rest = turns.get(position.turn)!.filter((other) => other !== doc);
    if (rest.length > 0) turns.set(position.turn, rest);
    else turns.delete(position.turn);
    if (turns.size === 0) this.sessions.delete(position.sessionId);
  }

  /** The other docs of `doc`'s own turn (a turn's user and assistant halves); empty for an unplaced doc. */
  sameTurn(doc: number): number[] {
    const position = this.positions.get(doc);
    if (!position) return [];
    return this.sessions.get(position.sessionId)!.get(position.turn)!.filter((other) => other !== doc);
  }

  /** Docs at the previous, same and next turn of `doc`'s session, in that order; empty for an unplaced doc. */
  neighbours(doc: number): number[] {
    const position = this.positions.get(doc);
    if (!position) return [];
    const turns = this.sessions.get(position.sessionId)!;
    const out: number[] = [];
    for (const turn of [position.turn - 1, position.turn, position.turn + 1]) {
      for (const other of turns.get(turn) ?? []) if (other !== doc) out.push(other);
    }
    return out;
  }
}

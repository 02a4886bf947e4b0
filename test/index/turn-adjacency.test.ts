import fc from "fast-check";
import { TurnAdjacency } from "../../bridge/index/turn-adjacency";

/** The plain reference: positions in a Map, turns' docs in arrays, as the index kept them before. */
class Reference {
  readonly positions = new Map<number, { sessionId: string; turn: number }>();
  add(doc: number, sessionId: string, turn: number): void {
    this.positions.set(doc, { sessionId, turn });
  }
  remove(doc: number): void {
    this.positions.delete(doc);
  }
  docsAt(sessionId: string, turn: number, except: number): number[] {
    return [...this.positions].filter(([d, p]) => d !== except && p.sessionId === sessionId && p.turn === turn).map(([d]) => d);
  }
  neighbours(doc: number): number[] {
    const p = this.positions.get(doc);
    return p ? [p.turn - 1, p.turn, p.turn + 1].flatMap((turn) => this.docsAt(p.sessionId, turn, doc)) : [];
  }
  sameTurn(doc: number): number[] {
    const p = this.positions.get(doc);
    return p ? this.docsAt(p.sessionId, p.turn, doc) : [];
  }
}

describe("TurnAdjacency", () => {
  it("makes the previous, same and next turn of one session neighbours, and nothing further away", () => {
    const turns = new TurnAdjacency();
    [0, 1, 2, 3].forEach((turn) => turns.add(turn, "s1", turn));
    turns.add(4, "s1", 1);
    expect(turns.neighbours(1)).toEqual([0, 4, 2]);
    expect(turns.neighbours(0)).toEqual([1, 4]);
    expect(turns.neighbours(3)).toEqual([2]);
  });

  it("keeps sessions apart and gives unplaced docs no neighbours", () => {
    const turns = new TurnAdjacency();
    turns.add(0, "s1", 5);
    turns.add(1, "s2", 6);
    expect(turns.neighbours(0)).toEqual([]);
    expect(turns.neighbours(7)).toEqual([]);
  });

  it("is symmetric and accepts turns in any order, as incremental writes deliver them", () => {
    const turns = new TurnAdjacency();
    turns.add(0, "s", 3);
    turns.add(1, "s", 1);
    turns.add(2, "s", 2);
    for (const doc of [0, 1, 2]) for (const other of turns.neighbours(doc)) expect(turns.neighbours(other)).toContain(doc);
    expect(turns.neighbours(2).sort()).toEqual([0, 1]);
  });

  it("drops a removed doc from its neighbours' lists and ignores unknown docs", () => {
    const turns = new TurnAdjacency();
    [0, 1, 2].forEach((turn) => turns.add(turn, "s", turn));
    turns.remove(1);
    turns.remove(9);
    expect(turns.neighbours(0)).toEqual([]);
    expect(turns.neighbours(1)).toEqual([]);
    turns.add(3, "s", 1);
    expect(turns.neighbours(0)).toEqual([3]);
  });

  it("refuses to place a doc twice", () => {
    const turns = new TurnAdjacency();
    turns.add(0, "s", 0);
    expect(() => turns.add(0, "s", 1)).toThrow("doc 0 is already placed");
  });

  it("answers as a plain map of positions would through any adds and removes, sessions emptied and reused, docs far apart", () => {
    const op = fc.oneof(
      fc.record({ add: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 300 })), session: fc.constantFrom("s1", "s2", "a-session-id-of-36-characters-xxxxxx"), turn: fc.integer({ min: -2, max: 6 }) }),
      fc.record({ remove: fc.integer({ min: 0, max: 12 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const turns = new TurnAdjacency();
        const reference = new Reference();
        for (const o of ops) {
          if ("add" in o) {
            if (reference.positions.has(o.add)) continue;
            turns.add(o.add, o.session, o.turn);
            reference.add(o.add, o.session, o.turn);
          } else {
            turns.remove(o.remove);
            reference.remove(o.remove);
          }
        }
        // Order within a turn follows when each doc was added, in both.
        const docs = Array.from({ length: 302 }, (_, doc) => doc);
        expect(docs.map((doc) => [turns.neighbours(doc), turns.sameTurn(doc)])).toEqual(docs.map((doc) => [reference.neighbours(doc), reference.sameTurn(doc)]));
      }),
    );
  });
});

import { TurnAdjacency } from "../../bridge/index/turn-adjacency";

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
});

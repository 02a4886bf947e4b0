import { addItem, emptyScores, parseSessionDate, repairEvidence, toPercent } from "../../bench/locomo-data";

describe("LoCoMo evidence repair and metric", () => {
  const known = new Set(["D8:6", "D9:17", "D11:26", "D30:5", "D9:1", "D4:4", "D4:6"]);

  it("repairs evidence ids the way the data README describes and drops unrepairable ones", () => {
    expect(repairEvidence(["D8:6; D9:17"], known)).toEqual(["D8:6", "D9:17"]);
    expect(repairEvidence(["D:11:26"], known)).toEqual(["D11:26"]);
    expect(repairEvidence(["D30:05"], known)).toEqual(["D30:5"]);
    expect(repairEvidence(["D9:1 D4:4 D4:6"], known)).toEqual(["D9:1", "D4:4", "D4:6"]);
    expect(repairEvidence(["D", "D10:19"], known)).toEqual([]);
  });

  it("parses session dates like '1:56 pm on 8 May, 2023' as UTC", () => {
    expect(parseSessionDate("1:56 pm on 8 May, 2023")).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(parseSessionDate("12:09 am on 13 September, 2023")).toBe(Date.UTC(2023, 8, 13, 0, 9));
  });

  it("scores ALL, ANY and FRAC at 5/10/20 from the ranked ids", () => {
    const scores = emptyScores();
    const ranked = Array.from({ length: 20 }, (_, i) => `D1:${i + 1}`);
    addItem(scores, ["D1:1", "D1:7"], ranked);
    addItem(scores, ["D1:30"], ranked);
    expect(toPercent(scores)).toEqual({
      n: 2,
      "ALL@5": 0, "ALL@10": 50, "ALL@20": 50,
      "ANY@5": 50, "ANY@10": 50, "ANY@20": 50,
      "FRAC@5": 25, "FRAC@10": 50, "FRAC@20": 50,
    });
  });
});

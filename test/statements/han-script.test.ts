// Traditional characters read as simplified, through OpenCC's own tables; simplified text left alone.
import { Converter } from "opencc-js/t2cn";
import { generateCaptureHistory } from "../../bench/capture-history";
import { simplified } from "../../bridge/statements/han-script";

const opencc = Converter({ from: "t", to: "cn" });

describe("simplified", () => {
  it.each([
    ["體檢報告已經收到玄關掛鉤上囉", "体检报告已经收到玄关挂钩上啰"],
    ["家長會改到週六下午三點了喔", "家长会改到周六下午三点了喔"],
    ["我老闆換工作了，現在在小米", "我老板换工作了，现在在小米"],
    ["乾淨的頭髮", "干净的头发"],
  ])("reads %s as %s", (text, expected) => {
    expect(simplified(text)).toBe(expected);
  });

  it("leaves simplified text, Latin text and phrases OpenCC keeps exactly as they are", () => {
    for (const text of ["我的钥匙放在鞋柜里了", "为什么这么多么", "著名作家很显著", "乾隆年间", "My keys are in the drawer.", ""]) expect(simplified(text)).toBe(text);
  });

  it("gives OpenCC's own result for every CJK character, so skipping text without a changeable one changes nothing", () => {
    const ranges: Array<[number, number]> = [[0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xf900, 0xfaff], [0x20000, 0x2a6df], [0x2f800, 0x2fa1f]];
    const differing: string[] = [];
    for (const [low, high] of ranges) {
      for (let cp = low; cp <= high; cp++) {
        const char = String.fromCodePoint(cp);
        if (simplified(char) !== opencc(char)) differing.push(char);
      }
    }
    expect(differing).toEqual([]);
  });

  it("changes no text of the capture benchmark's simplified history", () => {
    const changed = generateCaptureHistory({ turns: 2_000, seed: 3 }).records.filter((record) => simplified(record.text) !== record.text);
    expect(changed.map((record) => record.id)).toEqual([]);
  });
});

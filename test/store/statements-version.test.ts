// A checkpoint keeps every record's speech act and slots under STATEMENTS_VERSION (plus a hash of a few probe
// texts); a checkpoint written by another analysis is recomputed from the records. A grammar change that the
// probe texts do not show would otherwise leave users' old checkpoints with the old reading. This test hashes
// the analysis of thousands of capture-shaped texts: when it fails, bump STATEMENTS_VERSION and add a line
// for the new version below. Never edit an old line: each version names exactly one analysis.
import { createHash } from "node:crypto";
import { generateCaptureHistory } from "../../bench/capture-history";
import { DEV_SETS } from "../../bench/capture-templates-dev";
import { analyseRecord, STATEMENTS_VERSION } from "../../bridge/store/record-statements";
import type { SourceType } from "../../bridge/store/records";
import { PHRASINGS_EN } from "../fixtures/phrasings-en";
import { PHRASING_STRUCTURES_EN } from "../fixtures/phrasings-structures-en";
import { PHRASING_STRUCTURES_ZH } from "../fixtures/phrasings-structures-zh";
import { PHRASINGS_ZH } from "../fixtures/phrasings-zh";

const FINGERPRINTS: Record<string, string> = {
  "acts+slots/3": "388e69145894347f",
  "acts+slots/4": "2bc6ad7559bb234a",
  "acts+slots/5": "4e5d8c86bbc2b43e",
  "acts+slots/6": "c1c71834262e9833",
  "acts+slots/7": "db5244214b2a7d64",
  "acts+slots/8": "a01a13cf0ac72471",
  "acts+slots/9": "1ab69511a8446bb7",
  "acts+slots/10": "7b16ad7206f28e78",
  "acts+slots/11": "b18987cc2c2b27b4",
  "acts+slots/12": "18ce0ce75ceca2cf",
  "acts+slots/13": "eaa2d8c717d1bbfe",
};

function corpus(): Array<[string, SourceType]> {
  const texts: Array<[string, SourceType]> = [];
  // The first twenty dev sets only (eleven up to acts+slots/6, fourteen up to /11, nineteen at /12), so a new set added
  // later does not change the corpus.
  const histories = [generateCaptureHistory({ turns: 1_500, seed: 11 }), ...DEV_SETS.slice(0, 20).map((set, i) => generateCaptureHistory({ turns: 400, seed: 100 + i, templates: { tuning: set } }))];
  for (const history of histories) for (const record of history.records) texts.push([record.text, record.source_type as SourceType]);
  for (const set of [PHRASINGS_ZH, PHRASINGS_EN, PHRASING_STRUCTURES_ZH, PHRASING_STRUCTURES_EN]) {
    for (const story of set.stories) {
      for (const statement of story.statements) texts.push([statement.text, "user_message"]);
      for (const question of story.questions) texts.push([question, "user_message"]);
    }
    for (const text of [...set.requests, ...set.actions]) texts.push([text, "user_message"]);
    for (const text of [...set.acknowledgements, ...set.nonAnswers]) texts.push([text, "assistant_message"]);
  }
  return texts;
}

describe("the statements analysis version", () => {
  it("names the analysis this build makes of capture-shaped texts", () => {
    const hash = createHash("sha256");
    for (const [text, type] of corpus()) hash.update(`${type}\u0000${text}\u0000${JSON.stringify(analyseRecord(text, type))}\n`);
    const fingerprint = hash.digest("hex").slice(0, 16);
    const hint = `speech acts or slots now read texts differently (fingerprint ${fingerprint}): bump STATEMENTS_VERSION in bridge/store/record-statements.ts and add "${STATEMENTS_VERSION.replace(/\d+$/, (n) => String(Number(n) + 1))}": "${fingerprint}" to FINGERPRINTS`;
    expect({ version: STATEMENTS_VERSION, fingerprint, hint: FINGERPRINTS[STATEMENTS_VERSION] === fingerprint ? "" : hint }).toEqual({
      version: STATEMENTS_VERSION,
      fingerprint: FINGERPRINTS[STATEMENTS_VERSION],
      hint: "",
    });
  });

  it("gives each version one analysis", () => {
    expect(new Set(Object.values(FINGERPRINTS)).size).toBe(Object.keys(FINGERPRINTS).length);
  });

  it("finds the same analyzer id in a checkpoint's steps, a probe text a step, as in one go", () => {
    // Each in a fresh copy of the module: the id is kept once found.
    let stepped: { id: string; steps: number } | undefined;
    jest.isolateModules(() => {
      const { statementsAnalyzerIdInSteps } = jest.requireActual<typeof import("../../bridge/store/record-statements")>("../../bridge/store/record-statements");
      const steps = statementsAnalyzerIdInSteps();
      let count = 0;
      let next = steps.next();
      for (; !next.done; next = steps.next()) count++;
      stepped = { id: next.value, steps: count };
    });
    let plain: string | undefined;
    jest.isolateModules(() => {
      plain = jest.requireActual<typeof import("../../bridge/store/record-statements")>("../../bridge/store/record-statements").statementsAnalyzerId();
    });
    expect(plain).toMatch(new RegExp(`^${STATEMENTS_VERSION.replace(/[+/]/g, "\\$&")} [0-9a-f]{16}$`));
    expect(stepped).toEqual({ id: plain, steps: expect.any(Number) });
    expect(stepped!.steps).toBeGreaterThanOrEqual(6);
    // Once found, no steps: a later checkpoint does not analyse the probes again.
    jest.isolateModules(() => {
      const module = jest.requireActual<typeof import("../../bridge/store/record-statements")>("../../bridge/store/record-statements");
      const id = module.statementsAnalyzerId();
      const steps = module.statementsAnalyzerIdInSteps();
      expect(steps.next()).toEqual({ done: true, value: id });
    });
  });
});

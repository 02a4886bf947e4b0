import fs from "node:fs";
import path from "node:path";
import { generateCaptureHistory, type RecordTruth } from "../../bench/capture-history";
import { changeBucket } from "../../bench/capture-plan";
import * as P from "../../bench/capture-pools";
import { judgeConflict, scoreLatest, scoreTimeline } from "../../bench/capture-scoring";
import { nearPairSubjects, subjectCatalogue, tailClashes } from "../../bench/capture-subjects";
import { HELDOUT_TEMPLATES } from "../../bench/capture-templates-heldout";
import { TUNING_TEMPLATES } from "../../bench/capture-templates-tuning";
import { allTemplateStrings, fillTemplate, HALVES, LANGS } from "../../bench/capture-templates";
import { DEV_SETS } from "../../bench/capture-templates-dev";
import { embedText, features, HASHING_DIM } from "../../bench/hashing-embedder";
import { SeededRandom } from "../../bench/seeded-random";
import { turnRecordId } from "../../plugin/capture/turn-records";

const SMALL = { turns: 300, seed: 7 };

describe("capture benchmark history", () => {
  const history = generateCaptureHistory(SMALL);

  it("is the same records, states and sequences for the same seed, and different records for another", () => {
    const again = generateCaptureHistory(SMALL);
    expect(again.records).toEqual(history.records);
    expect(again.states).toEqual(history.states);
    expect(again.sequences).toEqual(history.sequences);
    expect(generateCaptureHistory({ ...SMALL, seed: 8 }).records.map((r) => r.text)).not.toEqual(history.records.map((r) => r.text));
  });

  it("writes one user and one assistant record per turn with the ids, metadata and distinct increasing times capture uses", () => {
    expect(history.records).toHaveLength(2 * SMALL.turns);
    let previousMs = -Infinity;
    for (const record of history.records) {
      const part = record.source_type === "user_message" ? "user" : "assistant";
      expect(record.id).toBe(turnRecordId(record.session_id, record.turn, part));
      expect(record.id).toMatch(/^turn:[^:]+:\d+:(user|assistant)$/);
      expect(record.metadata).toEqual({ captured_by: "dsh-plugin", capture: "holographic" });
      expect(record.timestamp_ms).toBeGreaterThan(previousMs);
      previousMs = record.timestamp_ms;
    }
  });

  it("states each subject's values in order, ending on its newest value at its last change", () => {
    for (const state of history.states) {
      expect(state.statementIds).toHaveLength(state.changes + 1);
      expect(state.valueKeys).toHaveLength(state.changes + 1);
      state.valueKeys.slice(1).forEach((key, i) => expect(key).not.toBe(state.valueKeys[i]));
      state.statementIds.forEach((id, i) => expect(history.truth.get(id)!.assertion).toEqual({ state: state.id, value: state.valueKeys[i] }));
      expect(state.currentValue).toBe(state.valueKeys[state.valueKeys.length - 1]);
      expect(state.lastChangeMs).toBe(history.truth.get(state.statementIds[state.changes])!.timestampMs);
      expect(changeBucket(state.changes)).toBe(state.bucket);
    }
  });

  it("has every restatement and answer assert the value that was current when it was written", () => {
    const current = new Map<string, string>();
    for (const record of history.records) {
      const truth = history.truth.get(record.id)!;
      if (!truth.assertion) continue;
      if (truth.role === "statement") current.set(truth.assertion.state, truth.assertion.value);
      else expect(truth.assertion.value).toBe(current.get(truth.assertion.state));
    }
  });

  it("uses both template halves and both languages for planted states and action sequences", () => {
    for (const half of HALVES) {
      expect(history.states.some((s) => s.half === half && !s.near)).toBe(true);
      expect(history.sequences.some((s) => s.half === half)).toBe(true);
      for (const lang of LANGS) expect(history.states.some((s) => s.half === half && s.lang === lang)).toBe(true);
    }
    for (const state of history.states) {
      for (const id of state.statementIds) expect(history.truth.get(id)!.heldOut).toBe(state.half === "heldout");
    }
  });
});

describe("capture benchmark templates and subjects", () => {
  const source = (file: string) => fs.readFileSync(path.join(__dirname, "../../bench", file), "utf8");

  it("has no held-out template string anywhere in the tuning file, and no template in both halves", () => {
    const tuningSource = source("capture-templates-tuning.ts");
    const heldout = allTemplateStrings(HELDOUT_TEMPLATES);
    expect(heldout.filter((t) => tuningSource.includes(t))).toEqual([]);
    expect(allTemplateStrings(TUNING_TEMPLATES).filter((t) => heldout.includes(t))).toEqual([]);
  });

  it.each(DEV_SETS.map((set, i) => [i + 1, set] as const))("keeps dev set %i apart from both halves and the other sets, and plants a full history with it", (_n, set) => {
    const dev = allTemplateStrings(set);
    const others = DEV_SETS.filter((other) => other !== set).flatMap(allTemplateStrings);
    expect(dev.filter((t) => others.includes(t))).toEqual([]);
    // A failure names the dev template only: the held-out half's text is never printed.
    const heldout = new Set(allTemplateStrings(HELDOUT_TEMPLATES));
    expect(dev.filter((t) => heldout.has(t))).toEqual([]);
    expect(dev.filter((t) => allTemplateStrings(TUNING_TEMPLATES).includes(t))).toEqual([]);
    const history = generateCaptureHistory({ turns: 2_000, seed: 7, templates: { tuning: set } });
    const planted = history.states.filter((s) => s.half === "tuning").flatMap((s) => s.statementIds.map((id) => history.truth.get(id)!.text));
    expect(planted.length).toBeGreaterThan(0);
    expect(planted.every((text) => !/[{}]/.test(text))).toBe(true);
    const devStatements = LANGS.flatMap((lang) => Object.values(set[lang].families).flatMap((f) => f.statements));
    const shapes = devStatements.map((t) => new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[a-zA-Z]+\}/g, ".+")}$`, "i"));
    expect(planted.every((text) => shapes.some((shape) => shape.test(text)))).toBe(true);
  });

  it("marks the held-out file as not for tuning", () => {
    expect(source("capture-templates-heldout.ts").split("\n")[0]).toMatch(/HELD-OUT HALF: do not use these phrasings .* to tune/);
  });

  it("names no subject, near pair or action object so that one is the tail of another of the same owner", () => {
    const rng = new SeededRandom(1);
    const objects = [...P.ZH_COLOURS.flatMap((c) => P.ZH_OBJECTS.map((o) => c + o)), ...P.EN_COLOURS.flatMap((c) => P.EN_OBJECTS.map((o) => `${c} ${o}`))];
    const all = [
      ...LANGS.flatMap((lang) => [...subjectCatalogue(lang, rng), ...HALVES.flatMap((half) => nearPairSubjects(lang, half))]),
      ...objects.map((name) => ({ key: `object/${name}`, owner: "self", name })),
    ];
    expect(tailClashes(all)).toEqual([]);
    const [short, long] = nearPairSubjects("zh", "tuning");
    expect(tailClashes([{ ...short, nearPartner: undefined }, long])).toEqual([`${short.key} / ${long.key}`]);
  });

  it("fills every hole and refuses a template whose hole has no value", () => {
    expect(fillTemplate("{who} moved to {city}.", { who: "my sister", city: "Oslo" })).toBe("My sister moved to Oslo.");
    expect(() => fillTemplate("{thing}在{place}。", { thing: "钥匙" })).toThrow(/needs \{place\}/);
  });
});

describe("capture benchmark scorers", () => {
  const truth = new Map<string, RecordTruth>();
  const put = (id: string, timestampMs: number, role: RecordTruth["role"], assertion?: { state: string; value: string }) =>
    truth.set(id, { role, timestampMs, text: id, heldOut: false, ...(assertion ? { assertion } : {}) });
  put("keys-in-shoe-cabinet", 1, "statement", { state: "keys", value: "shoe cabinet" });
  put("keys-in-pot", 3, "statement", { state: "keys", value: "pot" });
  put("noted-pot", 4, "restatement", { state: "keys", value: "pot" });
  put("where-are-keys", 5, "question");
  put("passport-in-safe", 6, "statement", { state: "passport", value: "safe" });
  put("weather", 7, "chit-chat");
  const keys = { id: "keys", currentValue: "pot", lastChangeMs: 3 };

  it("counts a first result stating the newest value at or after the last change as a hit", () => {
    expect(scoreLatest(keys, [{ id: "keys-in-pot" }, { id: "where-are-keys" }], truth)).toBe("hit");
    expect(scoreLatest(keys, [{ id: "noted-pot" }], truth)).toBe("hit");
  });

  it("names why a first result is a miss", () => {
    expect(scoreLatest(keys, [{ id: "keys-in-shoe-cabinet" }, { id: "keys-in-pot" }], truth)).toBe("older value");
    expect(scoreLatest(keys, [{ id: "where-are-keys" }, { id: "keys-in-pot" }], truth)).toBe("question");
    expect(scoreLatest(keys, [{ id: "passport-in-safe" }], truth)).toBe("another subject's statement");
    expect(scoreLatest(keys, [], truth)).toBe("no results");
    // After A→B→A, the first statement of A names the current value but was stale when written.
    expect(scoreLatest({ id: "keys", currentValue: "shoe cabinet", lastChangeMs: 8 }, [{ id: "keys-in-shoe-cabinet" }], truth)).toBe("current value, written before the last change");
  });

  it("accepts only a newer statement of the same subject with a different value as superseding a planted statement", () => {
    expect(judgeConflict({ id: "keys-in-shoe-cabinet", superseded_by: "keys-in-pot" }, truth)).toEqual({ scored: true, legit: true });
    expect(judgeConflict({ id: "keys-in-pot", superseded_by: "where-are-keys" }, truth)).toEqual({ scored: true, legit: false, superseder: "question" });
    expect(judgeConflict({ id: "keys-in-pot", superseded_by: "passport-in-safe" }, truth)).toEqual({ scored: true, legit: false, superseder: "another subject's statement" });
    expect(judgeConflict({ id: "keys-in-pot", superseded_by: "noted-pot" }, truth)).toEqual({ scored: true, legit: false, superseder: "same value restated" });
    expect(judgeConflict({ id: "keys-in-pot", superseded_by: "keys-in-shoe-cabinet" }, truth)).toEqual({ scored: true, legit: false, superseder: "older statement" });
    expect(judgeConflict({ id: "weather", superseded_by: "keys-in-pot" }, truth)).toEqual({ scored: false });
  });

  it("calls a timeline complete when every expected record is present and in order when they ascend in time", () => {
    const expected = ["keys-in-shoe-cabinet", "keys-in-pot"];
    expect(scoreTimeline(expected, [{ id: "keys-in-shoe-cabinet" }, { id: "weather" }, { id: "keys-in-pot" }], truth)).toEqual({ complete: true, found: 2, inOrder: true });
    expect(scoreTimeline(expected, [{ id: "keys-in-pot" }, { id: "keys-in-shoe-cabinet" }], truth)).toEqual({ complete: true, found: 2, inOrder: false });
    expect(scoreTimeline(expected, [{ id: "keys-in-pot" }], truth)).toEqual({ complete: false, found: 1, inOrder: undefined });
  });
});

describe("hashing embedder", () => {
  it("takes CJK character bigrams and lowercase words as features", () => {
    expect(features("钥匙在花盆里 My Keys")).toEqual(["钥匙", "匙在", "在花", "花盆", "盆里", "my", "keys"]);
  });

  it("gives the same unit vector for the same text, and nearer vectors for texts sharing features", () => {
    const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i], 0);
    const keys = embedText("钥匙现在在哪里？");
    expect(keys).toHaveLength(HASHING_DIM);
    expect(embedText("钥匙现在在哪里？")).toEqual(keys);
    expect(dot(keys, keys)).toBeCloseTo(1, 6);
    expect(dot(keys, embedText("钥匙在花盆里。"))).toBeGreaterThan(dot(keys, embedText("今天天气很好。")));
  });
});

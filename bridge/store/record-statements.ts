// What a stored memory states: its speech act and the state slots of its statement clauses, derived
// from its text and source type at write time, like its index terms. Checkpoints carry it under an
// analyzer id, so a build that reads text differently recomputes it instead of trusting old results.
import { createHash } from "node:crypto";
import { runToEnd } from "../index/run-steps";
import { isWeakCategory } from "../statements/attributes";
import { slotsOfClauses } from "../statements/slot-reader";
import { predicateOf, type StateSlot } from "../statements/slots";
import { comparableValue } from "../statements/values";
import { readClauses, speechActOf, SPEECH_ACTS, type Clause, type SpeechAct } from "../statements/speech-acts";
import type { SourceType } from "./records";

export interface RecordStatement {
  act: SpeechAct;
  slots: StateSlot[];
}

/**
 * Bump when speech acts or slot extraction change what a text yields: a checkpoint keeps each record's acts
 * and slots under this id, and one written by another analysis is recomputed from the records. The probe hash
 * below catches a forgotten bump on a few texts; test/store/statements-version.test.ts on thousands.
 */
export const STATEMENTS_VERSION = "acts+slots/13";

export function analyseRecord(text: string, sourceType: SourceType): RecordStatement {
  const speaker = sourceType === "assistant_message" ? "assistant" : "user";
  const clauses = readClauses(text, speaker);
  const act = speechActOf(clauses);
  const slots = slotsOfClauses(clauses, speaker);
  // "Busy day. By the way, when is the swimming lesson?", "今天好忙。话说钥匙放哪了？": small talk around a
  // question states nothing; the memory asks.
  return { act: act === "statement" && slots.length === 0 && asksAmidSmallTalk(clauses) ? "question" : act, slots };
}

const SMALL_TALK = /^(?:(?:busy|long|crazy|rough|hectic|quiet|slow) (?:day|week|morning)|heading out(?: and just remembered)?|just remembered|by the way|before i forget|on my way out|oh|hey|hi|hello|(?:今天|这几天|最近)?(?:好忙|太忙了|累死了|好累|忙死了)|话说|对了|顺便问一下)$/;

function asksAmidSmallTalk(clauses: readonly Clause[]): boolean {
  const statements = clauses.filter((c) => c.act === "statement");
  return clauses.some((c) => c.act === "question") && statements.length > 0 && statements.every((c) => SMALL_TALK.test(c.text));
}

/**
 * Whether a memory's statements may open, fill or replace a state slot. The user's words, stored facts and
 * tool results may; an assistant's reply may not, because an assistant repeating a stale recall ("your keys
 * are in the shoe cabinet") would otherwise overwrite what the user said since (its stale restatements are
 * still collapsed by the user's newer statements), unless it restates its own turn (see confirmedByUser).
 */
export function hasSlotAuthority(sourceType: SourceType): boolean {
  return sourceType !== "assistant_message";
}

/**
 * The slots of an assistant's reply that restate what the user stated in the same turn: the user's message
 * must state the same value ("我现在更喜欢吃坚果" → "好的，记住了：你最喜欢的零食是坚果"). Such a restatement is a
 * statement of its turn: the user supplied the value, the reply the structure (which slot it fills). An
 * answer to a question ("在书桌抽屉里", even one the question guessed) is not confirmed by it.
 */
export function confirmedByUser(slots: readonly StateSlot[], userSlots: readonly StateSlot[]): StateSlot[] {
  return slots.filter((slot) => userSlots.some((said) => comparableValue(said.kind, said.value) === comparableValue(slot.kind, slot.value) && sameOrWeaker(said, slot)));
}

// The user's slot may be the weaker reading of the same statement: a preference without its category, or
// a place the reply files under where someone lives.
function sameOrWeaker(said: StateSlot, restated: StateSlot): boolean {
  if (said.kind === "preference" && restated.kind === "preference") return said.attribute === restated.attribute || isWeakCategory(said.attribute);
  return predicateOf(said.kind) === predicateOf(restated.kind) && said.attribute === restated.attribute;
}

export function actCode(act: SpeechAct): number {
  return SPEECH_ACTS.indexOf(act);
}

export function actOfCode(code: number): SpeechAct {
  const act = SPEECH_ACTS[code];
  if (act === undefined) throw new Error(`unknown speech act code ${code}`);
  return act;
}

// Covers both languages, every act and every slot kind; its analysis is hashed into the id.
const PROBE: Array<[string, SourceType]> = [
  ["钥匙放在鞋柜里了，你记住了吗？", "user_message"],
  ["好的，记下了。", "assistant_message"],
  ["抱歉，我不知道。", "assistant_message"],
  ["请帮我查一下天气", "user_message"],
  ["牙医预约改到了周五下午三点；我搬到了杭州；我现在更喜欢喝茶；我的新手机号是13912345678；我有3只猫", "user_message"],
  ["Where is my passport? I moved to Berlin. My favourite drink is tea. The meeting is now on Friday. I have 2 dogs.", "user_message"],
];
let idMemo: string | undefined;

export function statementsAnalyzerId(): string {
  return runToEnd(statementsAnalyzerIdInSteps());
}

/**
 * statementsAnalyzerId a probe text a step, for a checkpoint's steps: the probes in one go were a step of
 * ~55 ms in a process that had replayed a million memories (its analysers' code cold again).
 */
export function* statementsAnalyzerIdInSteps(): Generator<void, string> {
  if (idMemo === undefined) {
    const analyses: RecordStatement[] = [];
    for (const [text, type] of PROBE) {
      analyses.push(analyseRecord(text, type));
      yield;
    }
    idMemo ??= `${STATEMENTS_VERSION} ${createHash("sha256").update(JSON.stringify(analyses)).digest("hex").slice(0, 16)}`;
  }
  return idMemo;
}

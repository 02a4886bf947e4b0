// The offline stand-in for a chat model: a deterministic reply in the message's language (Chinese when
// it has Han characters). A statement is acknowledged; a question or request is answered only from the
// retrieved memories, quoting what the user (or a fact) stated, never its own earlier replies (so answers
// do not nest "I remember: I remember: …") nor earlier questions; small talk gets a short answer.
import type { RecalledMemory } from "../../plugin/recall/context-message";
import type { RecallIntent } from "../../plugin/recall/intent";
import { MEMORY_WRAPPER_EN } from "../statements/cues-en";
import { MEMORY_WRAPPER_ZH } from "../statements/cues-zh";
import type { SpeechAct } from "../statements/speech-acts";
import { analyseRecord } from "../store/record-statements";
import type { SourceType } from "../store/records";

const QUOTE_MAX_CHARS = 240;
const TIMELINE_MAX_ITEMS = 5;
const QUOTABLE = new Set(["user_message", "system_fact"]);
// Greetings are not in the speech-act cues ("你好" reads as a statement there): a chat answers them.
const GREETING = /^(?:hi|hello|hey|hi there|hello there|hey there|good (?:morning|afternoon|evening)|你好|您好|嗨|哈喽|早上好|下午好|晚上好|早安|晚安)$/;
const THANKS = /^(?:thanks|thank you|thx|ty|cheers|much appreciated|appreciate it|谢谢|多谢|谢啦|感谢)/;

export interface ScriptedInput {
  message: string;
  memories: readonly RecalledMemory[];
  intent: RecallIntent;
  act: SpeechAct;
}

export function scriptedReply({ message, memories, intent, act }: ScriptedInput): string {
  const zh = /[\u3400-\u9fff]/.test(message);
  const bare = message.trim().toLowerCase().replace(/[\s.,!?！？。，~]+$/u, "");
  if (GREETING.test(bare)) return zh ? "你好！告诉我需要记住的事，或者问我记得什么。" : "Hello! Tell me something to remember, or ask me what I remember.";
  if (act === "acknowledgement") return THANKS.test(bare) ? (zh ? "不客气。" : "You're welcome.") : zh ? "好的。" : "OK.";
  if (act === "statement") return (zh ? "好的，我记住了：" : "Got it, I'll remember: ") + quote(withoutWrapper(message));
  return recalledReply(zh, memories, intent);
}

function recalledReply(zh: boolean, memories: readonly RecalledMemory[], intent: RecallIntent): string {
  const quotable = memories.filter((m) => QUOTABLE.has(m.source_type) && analyseRecord(m.text, m.source_type as SourceType).act === "statement");
  if (quotable.length === 0) return zh ? "我还没有关于这件事的记忆。" : "I don't have a memory about that yet.";
  if (intent === "timeline") {
    // Timeline results arrive oldest first; the reply keeps that order.
    const items = quotable.slice(0, TIMELINE_MAX_ITEMS).map((m, i) => `${i + 1}) ${quote(m.text)}`);
    return (zh ? "我记得（按时间先后）：" : "I remember, oldest first: ") + items.join(zh ? "；" : "; ");
  }
  // Latest results arrive most relevant first, superseded states already collapsed by the bridge.
  return (zh ? "我记得：" : "I remember: ") + quote(quotable[0]!.text);
}

/** "Remember that my passport…", "记住：钥匙…": the reply restates the content, not the request to keep it. */
function withoutWrapper(text: string): string {
  // The cues are written for lowercased text with ASCII punctuation; this folding keeps every offset.
  const folded = text.trim().replace(/[，：]/g, (c) => (c === "，" ? "," : ":")).toLowerCase();
  if (folded.length !== text.trim().length) return text;
  const wrapper = MEMORY_WRAPPER_ZH.exec(folded) ?? MEMORY_WRAPPER_EN.exec(folded);
  const rest = wrapper ? text.trim().slice(wrapper[0].length).trim() : "";
  return rest === "" ? text : rest;
}

function quote(text: string): string {
  const flat = secondPerson(text.replace(/\s+/g, " ").trim());
  return flat.length > QUOTE_MAX_CHARS ? flat.slice(0, QUOTE_MAX_CHARS - 1) + "…" : flat;
}

const FIRST_PERSON_EN: Record<string, string> = {
  "i'm": "you're",
  "i am": "you are",
  "i was": "you were",
  "i've": "you've",
  "i'll": "you'll",
  "i'd": "you'd",
  i: "you",
  me: "you",
  my: "your",
  mine: "yours",
  myself: "yourself",
  "we're": "you're",
  "we've": "you've",
  "we'll": "you'll",
  we: "you",
  us: "you",
  our: "your",
  ours: "yours",
  ourselves: "yourselves",
};
// Case-sensitive where a word has another meaning in capitals ("US"); "you" is left alone, since the user's
// "you" (the assistant) would need a subject/object reading to turn into "I" or "me".
const FIRST_PERSON_EN_WORDS = /\b(?:I['’]m|I am|I was|I['’]ve|I['’]ll|I['’]d|I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e['’]re|[Ww]e['’]ve|[Ww]e['’]ll|[Ww]e|us|[Oo]ur|[Oo]urs|[Oo]urselves)\b/g;

/**
 * The user's words as the assistant says them back: "my passport" → "your passport", "我把护照…" → "你把护照…".
 * Its slots then read, from the user's point of view, as the user's own (see the slot reader), so a reply
 * that restates the same turn's statement confirms it instead of naming a third party.
 */
function secondPerson(text: string): string {
  if (/[\u3400-\u9fff]/.test(text)) return text.replace(/我们|咱们/g, "你们").replace(/我/g, "你");
  return text.replace(FIRST_PERSON_EN_WORDS, (word, offset: number) => {
    const swapped = FIRST_PERSON_EN[word.toLowerCase().replace("’", "'")]!;
    // A sentence inside the quote starts with a capital; the quote itself follows a colon.
    return offset > 0 && /[.!?]\s+$/.test(text.slice(0, offset)) ? swapped[0]!.toUpperCase() + swapped.slice(1) : swapped;
  });
}

// Speech acts, decided at write time without an LLM: each clause of a memory is a statement, a question,
// a request or an acknowledgement, and so is the memory as a whole. Only statements can set a state slot.
import { unTexted } from "./en-phrases";
import { ACK_EN, ASKING_PREAMBLE_EN, HEDGE_EN, LEADING_FILLER_EN, MEMORY_WRAPPER_EN, NON_ANSWER_EN, QUESTION_OPENER_EN, REQUEST_EN } from "./cues-en";
import {
  ACK_ZH,
  ASKING_PREAMBLE_ZH,
  HEDGE_ZH,
  LEADING_FILLER_ZH,
  MEMORY_WRAPPER_ZH,
  NON_ANSWER_ZH,
  QUESTION_OPENER_ZH,
  QUESTION_PARTICLE_ZH,
  QUESTION_WORD_EXCEPTIONS_ZH,
  QUESTION_WORD_ZH,
  REQUEST_ZH,
} from "./cues-zh";
import { simplified } from "./han-script";

export const SPEECH_ACTS = ["statement", "question", "request", "acknowledgement"] as const;
export type SpeechAct = (typeof SPEECH_ACTS)[number];

export interface Clause {
  /** The clause's content: lowercased NFKC, without fillers, wrappers ("记住：", "Noted:") or labels. */
  text: string;
  act: SpeechAct;
  /** Which sentence of the text it belongs to (clauses of one sentence share a subject more often than not). */
  sentence: number;
}

/** Who wrote the text: an assistant's "I don't know" carries nothing, a user's may be a fact about them. */
export type Speaker = "user" | "assistant";

const HAN = /\p{Script=Han}/u;
// "." ends a sentence only before whitespace or the end, so "3.5", "v1.2" and "a@b.com" stay whole.
// …and not after a few abbreviations that stand before a name ("St. Mary's", "Dr. Lee").
const SENTENCE = /([^。!?;\n\r…]+?)([。!?;\n\r…]+|(?<!\b(?:st|mr|mrs|ms|dr|jr|sr|ave|blvd|no|vs|etc|approx))\.(?=\s|$)|$)/gu;
// A comma between digits groups thousands ("£1,300"), it does not part clauses.
const CLAUSE_BREAK = /(?<![0-9]),|,(?![0-9]{3}(?![0-9]))|、|~|—|–|\s-\s|\band then\b|\band(?= (?:now|currently|works?|lives?|moved)\b)|\bbut\b|\sso\s(?=(?:the|my|our|i|we|it|he|she|they|now)\b)|然后|但是|不过|所以/u;
// A colon between digits is a clock time ("3:30"), not a break.
const COLON = /(?<![0-9]):|:(?![0-9])/;
// Sentence punctuation, brackets, quotes and emoji; not "%", "#", "@" or currency, which belong to values.
const EDGE_NOISE = /^[\s.,!?;:、。…~'"“”‘’()（）【】[\]「」『』<>《》*\-—_|\p{Extended_Pictographic}\uFE0F]+|[\s.,!?;:、。…~'"“”‘’()（）【】[\]「」『』<>《》*\-—_|\p{Extended_Pictographic}\uFE0F]+$/gu;
const TAG_QUESTION = /^(?:right|correct|isn't it|aren't they|don't i|didn't i|yes|ok|okay|对吧|对不对|是吧|是不是|没错吧|吧|对么|是么)$/;
const UNMARKED_TAG = /^(?:right|correct|isn't it|aren't they|isn't that right|is that right|am i right|对吧|对不对|是吧|是不是|没错吧|对么|是么)$/;
// Headings that introduce what follows a colon ("备忘：…", "Update: …").
const LABEL = /^(?:备忘|备注|笔记|更新|提醒|注意|补充|记录|新消息|(?:更正|纠正|订正)(?:一下)?|note|notes|update|reminder|fyi|todo|ps|memo|heads up|correction|edit|quick note|quick update|heads-up|heads up|fyi|update|heard back|just heard|got word|news|confirmed|it's official|official)$/;
// A clause this long is prose, not a state statement; it is classified but never pattern-matched for slots.
export const MAX_SLOT_CLAUSE_CHARS = 200;
// Past this many clauses a memory is a document: its act is statement, and only these clauses are read.
const MAX_CLAUSES = 400;

/** Pure: the clauses of `text` in order, each with its act. */
export function readClauses(text: string, speaker: Speaker): Clause[] {
  const normal = unTexted(simplified(text.normalize("NFKC")).toLowerCase().replace(/[\u2018\u2019\u2032]/g, "'"));
  const clauses: Clause[] = [];
  let sentence = 0;
  for (const match of normal.matchAll(SENTENCE)) {
    if (clauses.length >= MAX_CLAUSES) break;
    const parts = match[1].split(CLAUSE_BREAK);
    const asked = match[2].includes("?");
    // "…, right?" or, unpunctuated, "…, isn't it" / "…对吧": a statement put up for confirmation asks.
    const lastPart = clean(parts[parts.length - 1]);
    const tagged = (asked && TAG_QUESTION.test(lastPart)) || (parts.length > 1 && UNMARKED_TAG.test(lastPart));
    const read = parts.map((part, i) => classify(part, speaker, asked && i === parts.length - 1));
    // "My passport, where is it?", "护照，放哪了？": a bare topic before the question is what it asks about.
    // "我记得护照在抽屉里，现在还在吗？": a guess before the question is part of it, and so is why it is
    // asked ("I forgot again, where …?", "我要给我妈打电话，她号码多少？").
    const topicOfQuestion =
      read.length > 1 &&
      read[read.length - 1].act === "question" &&
      read.slice(0, -1).every((c, i) => c.act !== "statement" || isTopicPhrase(c.text) || isHedged(clean(parts[i])) || (asked && isAskingPreamble(c.text)));
    for (const { text: content, act } of read) clauses.push({ text: content, act: tagged || topicOfQuestion ? "question" : act, sentence });
    sentence++;
  }
  return clauses;
}

/** Whether an assistant reply only says it does not know ("抱歉，我不知道。", "I'm not sure."). */
export function isNonAnswer(text: string): boolean {
  const clauses = readClauses(text, "assistant");
  return speechActOf(clauses) === "acknowledgement" && clauses.some((c) => NON_ANSWER_ZH.test(c.text) || NON_ANSWER_EN.test(c.text));
}

/** The memory's act: a statement if any clause states something, else a question, else a request, else an acknowledgement. */
export function speechActOf(clauses: readonly Clause[]): SpeechAct {
  for (const act of SPEECH_ACTS) if (clauses.some((c) => c.act === act)) return act;
  return "acknowledgement";
}

function classify(raw: string, speaker: Speaker, endsWithQuestionMark: boolean): Omit<Clause, "sentence"> {
  let text = stripFillers(clean(raw));
  if (text === "") return { text, act: "acknowledgement" };
  const colon = COLON.exec(text);
  if (colon) {
    const head = stripFillers(clean(text.slice(0, colon.index)));
    const tail = clean(text.slice(colon.index + 1));
    // "好的，记住了：X" and "备忘：X" introduce X; "新号码：139…" is itself the statement.
    if (isAcknowledgement(head, speaker) || isWrapperOnly(head) || LABEL.test(head)) return classify(tail, speaker, endsWithQuestionMark);
    // Any other head is part of the statement ("新号码：139…", "my new email: …"): the clause stays whole.
  }
  // "记下了" acknowledges; "记下：钥匙在鞋柜里" asks to keep what follows.
  if (isAcknowledgement(text, speaker)) return { text, act: "acknowledgement" };
  // "Please update my cousin's work phone to 555-0127", "请把我妈的电话更新为…": a request to change a record
  // states the new value.
  const update = UPDATE_TO_EN.exec(text);
  if (update) return { text: `${update[1]} is ${update[2]}`, act: "statement" };
  const updateZh = UPDATE_TO_ZH.exec(text);
  if (updateZh) return { text: `${updateZh[1]}更新为${updateZh[2]}`, act: "statement" };
  const wrapper = MEMORY_WRAPPER_ZH.exec(text) ?? MEMORY_WRAPPER_EN.exec(text);
  if (wrapper && wrapper[0].length > 0) {
    const content = clean(text.slice(wrapper[0].length));
    if (content === "") return { text, act: "request" };
    text = content;
  }
  return { text, act: actOf(text, speaker, endsWithQuestionMark) };
}

const UPDATE_TO_EN = /^(?:please\s+|kindly\s+|pls\s+)?(?:update|change|set|correct)\s+((?:my|our|[a-z]+'s)\s+.+?)\s+to\s+(.+)$/;
const UPDATE_TO_ZH = /^(?:请|麻烦|劳驾)?(?:你)?(?:帮我)?(?:把|将)(.+?)(?:更新|改|更改|修改|变更)(?:为|成)(.+)$/;

function actOf(text: string, speaker: Speaker, endsWithQuestionMark: boolean): SpeechAct {
  if (isAcknowledgement(text, speaker)) return "acknowledgement";
  if (endsWithQuestionMark || isQuestion(text)) return "question";
  return REQUEST_ZH.test(text) || REQUEST_EN.test(text) ? "request" : "statement";
}

function isAcknowledgement(text: string, speaker: Speaker): boolean {
  if (text === "" || ACK_ZH.test(text) || ACK_EN.test(text)) return true;
  // Only the assistant's "I don't know" is empty: the user saying so may be the point ("我不知道他会来").
  return speaker === "assistant" && (NON_ANSWER_ZH.test(text) || NON_ANSWER_EN.test(text));
}

function isQuestion(text: string): boolean {
  // "…, or did it change", "…or has it moved": an alternative that asks.
  if (!HAN.test(text)) return QUESTION_OPENER_EN.test(text) || /\bor (?:did|has|have|is|was|are|were|do|does) (?:it|they|that|he|she)\b/.test(text);
  if (QUESTION_OPENER_ZH.test(text) || QUESTION_PARTICLE_ZH.test(text) || CONFIRMATION_ZH.test(text)) return true;
  // "是13800138000还是13900139000": which of two.
  if (/是.{1,30}还是.{1,30}$/.test(text) && !/^还是/.test(text)) return true;
  const plain = text.replace(QUESTION_WORD_EXCEPTIONS_ZH, "");
  if (/呢$/.test(plain) && plain.length <= 6) return true;
  return QUESTION_WORD_ZH.test(plain);
}

// "X对吧", "应该是X吧", "X没错吧": put up for confirmation; a guess ending in 吧 asks too.
const CONFIRMATION_ZH = /(?:对吧|是吧|没错吧|对不对|对么|是么|(?:应该|大概|估计|可能|好像|是).*吧)$/;

// A short clause about the speaker's memory, search, apology or need ("I forgot again", "我记性太差了").
function isAskingPreamble(text: string): boolean {
  if (HAN.test(text)) return text.length <= 14 && ASKING_PREAMBLE_ZH.test(text);
  return text.split(" ").length <= 8 && ASKING_PREAMBLE_EN.test(text);
}

function isHedged(text: string): boolean {
  return HEDGE_ZH.test(text) || HEDGE_EN.test(text);
}

// A noun phrase with no verb: at most four words or ten Han characters, no pronoun subject, no copula.
function isTopicPhrase(text: string): boolean {
  if (HAN.test(text)) return text.length <= 10 && !/[了过着是在有]/.test(text);
  return text.split(" ").length <= 4 && /^(?:(?:my|our|the|your)\s+)?[a-z][a-z' -]*$/.test(text) && !/\b(?:i|we|you|he|she|they|it|is|are|was|were|have|has|had|did|do|does|moved|put|left)\b/.test(text);
}

function isWrapperOnly(text: string): boolean {
  const wrapper = MEMORY_WRAPPER_ZH.exec(text) ?? MEMORY_WRAPPER_EN.exec(text + " ");
  return wrapper !== null && clean(text.slice(Math.min(text.length, wrapper[0].length))) === "";
}

function stripFillers(text: string): string {
  // "嗯……我不太确定": the ellipsis after a filler is noise too.
  return clean(text.replace(LEADING_FILLER_ZH, "").replace(LEADING_FILLER_EN, ""));
}

function clean(text: string): string {
  return text.replace(EDGE_NOISE, "").trim();
}

// Reading the state slots out of a memory's clauses: each statement clause through the zh or en patterns,
// and what spans clauses — frames ("车钥匙不在挂钩上了，我挪到了玄关的抽屉里"), topics asked and answered
// ("Passport? Moved it to the safe"), values said first and pointed back to ("鞋柜最下面一层，备用钥匙现在搁这儿了").
import { contactField, isWeakCategory, normaliseContactValue, preferenceCategory } from "./attributes";
import { fillFrame, frameOfSlot, type SlotFrame } from "./frames";
import { frameOfEnglish, openPreferenceOfEnglish, openValueOfEnglish } from "./frames-en";
import { frameOfChinese, openValueOfChinese } from "./frames-zh";
import { isBarePhrase, resolveDeictic, rewriteCleft, topicAsked, withTopic } from "./rewrites";
import { sameSlot, SELF, type StateSlot } from "./slots";
import { isTimeExpression } from "./time-expressions";
import { extractEnglishSlot } from "./slots-en";
import { extractChineseSlot } from "./slots-zh";
import { MAX_SLOT_CLAUSE_CHARS, readClauses, type Clause, type Speaker } from "./speech-acts";
import { foldPlural, normalisePerson as normaliseEnglishPerson, normaliseSubject as normaliseEnglishSubject } from "./en-phrases";
import { isKinship, normalisePerson, normaliseSubject, normaliseValue } from "./zh-phrases";

const HAN = /\p{Script=Han}/u;
// Chinese drops the subject of a second clause ("从腾讯离职，去了拼多多"): a clause that opens on a
// job-change verb is read joined to the one before it. Other joins only glue unrelated clauses.
// "我哥目前在宁德时代，做电池研发": a clause opening on the job itself says the place before it is a workplace.
const JOB_MOVE_OPENING = /^(?:去了|加入了?|加盟了?|入职了?|跳到了?|跳去了?|进了|到了|到(?=.{2,16}(?:上班|工作))|做(?!饭|菜|作业|运动|家务|梦|题)|当|负责|上班|打工|实习)/;
// A colon between digits is a clock time ("3:30"), not a break.
const COLON = /(?<![0-9]):|:(?![0-9])/;

/** Pure: every slot asserted by the statement clauses of `text`, in clause order. */
export function extractSlots(text: string, speaker: Speaker = "user"): StateSlot[] {
  return slotsOfClauses(readClauses(text, speaker), speaker);
}

/**
 * Questions, requests and acknowledgements assert nothing; negated statements neither. A statement can span
 * clauses (frames.ts): a clause that names what changed without the new value ("车钥匙不在挂钩上了", "Flight to
 * Denver got delayed") frames the next one that gives only a value ("我挪到了玄关的抽屉里", "now departing at
 * 9pm"); a complete slot, or a topic asked and answered at once ("我姐？她现在在香港落脚"), frames what follows.
 */
export function slotsOfClauses(clauses: readonly Clause[], speaker: Speaker): StateSlot[] {
  const slots: StateSlot[] = [];
  let frame: SlotFrame | undefined;
  // The clause before, when it read as nothing: part of this clause's sentence, or a topic asked ("护照嘛？").
  let previous: { text: string; sentence: number; topic: boolean } | undefined;
  let asked: { text: string; sentence: number } | undefined;
  // Whether the frame is the last slot read (its value given) rather than a clause that only named a change.
  let frameFromSlot = false;
  // What the clause before had, ate or read ("今天又喝了普洱", "Had jasmine again today"): the "it" of a favourite.
  let consumed: string | undefined;
  for (const clause of clauses) {
    const said = speaker === "assistant" ? fromUsersPointOfView(clause.text) : clause.text;
    const text = consumed === undefined ? said : favouritePointedBack(said, consumed);
    // "…，真的，它…": a word or two between keeps what was had.
    consumed = clause.act !== "statement" ? undefined : (consumedObject(said) ?? (said.length <= 4 || /^(?:honestly|really|seriously|true|no kidding)$/.test(said) ? consumed : undefined));
    if (clause.act !== "statement" || text.length > MAX_SLOT_CLAUSE_CHARS) {
      const topic = clause.act === "question" ? topicFrame(text) : undefined;
      frame = topic ?? frame;
      if (topic) frameFromSlot = false;
      previous = topic ? { text, sentence: clause.sentence, topic: true } : undefined;
      asked = clause.act === "question" ? { text, sentence: clause.sentence } : undefined;
      continue;
    }
    // "…在阿里巴巴工作，不是原来那家", "…, not the old one": after a value, what it is not adds nothing.
    if (frameFromSlot && NOT_THE_OLD.test(text)) {
      previous = undefined;
      continue;
    }
    // "Where does my mum live? Lisbon.", "我爸在哪上班？百度。": a question the speaker answers at once states.
    const answer = asked && clause.sentence <= asked.sentence + 1 ? answeredQuestion(asked.text, text) : undefined;
    asked = undefined;
    const answered = answer === undefined ? undefined : slotOfClause(answer);
    if (answered) {
      slots.push(answered);
      frame = frameOfSlot(answered);
      previous = undefined;
      continue;
    }
    // "I love ukulele most now, no other instrument comes close", "我现在最爱古筝，别的乐器都没它好": the
    // liking just read is the favourite of the category named after it.
    const last = slots[slots.length - 1];
    const noOther = last && last.kind === "preference" && isWeakCategory(last.attribute) ? (NO_OTHER_EN.exec(text) ?? NO_OTHER_ZH.exec(text)) : null;
    if (noOther) {
      slots[slots.length - 1] = { ...last, attribute: preferenceCategory(noOther[1] ?? noOther[2] ?? noOther[3]) };
      frame = frameOfSlot(slots[slots.length - 1]);
      previous = undefined;
      continue;
    }
    const before = previous && (previous.topic || previous.sentence === clause.sentence) ? previous.text : undefined;
    // "My mum doesn't live in Lisbon any more, it's Madrid now": the old value denied, the new one given.
    const correction = before === undefined ? undefined : correctedValue(before, text);
    let found = (correction === undefined ? undefined : slotOfClause(correction)) ?? readClause(resolvePronoun(text, frame), before);
    // "说到歌手，我现在最喜欢的是毛不易": a weak preference takes the category its topic named.
    if (found && found.kind === "preference" && isWeakCategory(found.attribute) && frame && (frame.kind === "preference" || (frame.kind === undefined && !isKinship(frame.subject) && found.subject !== frame.subject))) {
      const category = frame.attribute ?? preferenceCategory(frame.subject);
      if (category) found = { ...found, attribute: category };
    }
    if (!found && frame) {
      // A value with no Han character ("22%", "13800138000") after a Chinese frame is read the Chinese way too.
      const open = HAN.test(text)
        ? openValueOfChinese(text)
        : (openValueOfEnglish(text) ?? (frame.kind === "preference" ? openPreferenceOfEnglish(text) : undefined) ?? (HAN.test(frame.subject) || HAN.test(frame.attribute ?? "") ? openValueOfChinese(text) : undefined));
      const filled = open && fillFrame(frame, open);
      // "最喜欢的乐器换了，尤克里里" (though 里 ends like a place): after a preference frame a bare phrase is the
      // new favourite; "My boss relocated, Berlin now": after a move, the new home.
      const bare = !filled && !frameFromSlot && isBarePhrase(text) ? text.replace(/[了啦。!！]+$/, "").replace(/\s+now$/, "") : undefined;
      const liked = bare !== undefined && frame.kind === "preference" && frame.attribute !== undefined ? { kinds: ["preference" as const], value: bare } : undefined;
      const place = bare?.replace(/^(?:now\s+)?(?:in|at|to)\s+/, "");
      const home = place !== undefined && frame.kind === "residence" && place.split(" ").length <= 3 ? { kinds: ["residence" as const], value: place } : undefined;
      // "我表哥换了东家，现在是腾讯": after a job or home change, what it is now.
      const nowIs = !filled && (frame.kind === "workplace" || frame.kind === "residence") ? NOW_IS_ZH.exec(text) : null;
      // "I have a different number of tortoises now, 5": after a count frame, a bare number.
      const number = bare !== undefined && frame.kind === "state" ? /^([0-9]+(?:\.[0-9]+)?)$/.exec(bare) : null;
      const count = number ? { kinds: ["state" as const], value: number[1] } : undefined;
      // "Counted them today, 12 plants": after a count frame that named no noun, the number and its noun.
      const tally = !count && frame.kind === "state" && frame.attribute === undefined && frame.subject === SELF ? COUNT_AND_NOUN.exec(text) : null;
      const noun = tally ? normaliseEnglishSubject(tally[2]) : "";
      found = filled || (nowIs && fillFrame(frame, { kinds: [frame.kind!], value: normaliseValue(nowIs[1]) })) || ((liked ?? home ?? count) && fillFrame(frame, (liked ?? home ?? count)!)) || (noun ? { kind: "state", subject: SELF, attribute: noun, value: tally![1] } : undefined);
    }
    // "我妈换号了，新号码139…", "爸妈又搬了，现在住昆明": a clause that names nobody is about whom the
    // clause before named, not about the speaker.
    if (found && found.subject === SELF && frame && frame.subject !== SELF && found.attribute !== frame.subject && !(found.kind === "preference" && frame.kind === undefined) && (frame.kind === undefined || frame.kind === found.kind || samePlaceFamily(found.kind, frame.kind)) && !FIRST_PERSON.test(text)) {
      found = { ...found, subject: frame.subject };
    }
    if (found) {
      slots.push(found);
      frame = frameOfSlot(found);
      frameFromSlot = true;
      previous = undefined;
    } else {
      const named = HAN.test(text) ? frameOfChinese(text) : frameOfEnglish(text);
      if (named) frameFromSlot = false;
      frame = named ?? frame;
      previous = { text, sentence: clause.sentence, topic: false };
    }
  }
  return lastValuePerSlot(withNamedCategory(slots));
}

const CONSUMED_ZH = /(?:喝|吃|听|看|读|弹|玩|点)了(?:一(?:杯|碗|份|本|首|部|盘|次|遍))?([\u4e00-\u9fffa-z0-9 ]{1,10}?)$/;
const CONSUMED_EN = /^(?:i\s+|we\s+)?(?:(?:just|have|'ve|am|'m)\s+)*(?:been\s+)?(?:had|ate|drank|read|watched|listened to|played|tried|ordered|listening to|watching|reading|playing|eating|drinking)\s+(?:some\s+|a\s+|an\s+)?([a-z][a-z' -]{1,30}?)(?:\s+(?:again|today|tonight|yesterday|earlier|this morning|nonstop|non-stop|all day|all week|a lot|on repeat|for (?:breakfast|lunch|dinner)))*$/;
const POINTED_FAVOURITE_ZH = /^(?:它|这个|那个|这)(?=.{0,6}(?:最喜欢|最爱|最中意)的)/;
const POINTED_FAVOURITE_EN = /^(?:(?:honestly|really|seriously|and|so|yes|yeah)\s+)*(?:it's|it is|that's|that is|this is|they're|they are)\s+(?=(?:now\s+|definitely\s+|officially\s+)*(?:my|our)\s+(?:new\s+)?(?:favou?rite|go-to)\b)/;

const NOT_THE_OLD = /^(?:(?:而|并|也)?不是|不再是)(?:原来|以前|之前|以往|旧)的?(?:那|这)?(?:个|家|天|里|儿|座|间|次|位|件)?.{0,6}$|^(?:and |but )?not (?:the|my|his|her|their) (?:old|previous|former|usual) [a-z ]{1,20}$/;
const NOW_IS_ZH = /^(?:现在|目前|如今|眼下)(?:是|在|换成了?|变成了?)(.{2,16}?)(?:了|啦)?$/;
const COUNT_AND_NOUN = /^([0-9]+)\s+([a-z][a-z -]{1,30}?)(?:\s+(?:in total|altogether|total|so far|now))?$/;
const NO_OTHER_EN = /^(?:and\s+)?(?:no other ([a-z][a-z ]{1,30}?) (?:comes close|compares|is as good|beats (?:it|them)|even comes close)|(?:(?:it's|it is|easily|hands down)\s+)*(?:the\s+)?best ([a-z][a-z ]{1,30}?) (?:there is|there's|around|ever|out there|going))$/;
const NO_OTHER_ZH = /^(?:(?:别的|其他的?|其它的?)(.{1,6}?)(?:都|也都)?(?:没|没有|不如|比不上)(?:它|他|她)?(?:好|强|香)?|(.{1,6}?)(?:里|中|当中)的?(?:最爱|第一|头号)|(.{1,6}?)(?:就|就是|只)(?:它|这个|选它|认它|是它)了?)$/;

function consumedObject(text: string): string | undefined {
  const zh = CONSUMED_ZH.exec(text.replace(/[了啦。!！]+$/, ""));
  if (zh) return zh[1].trim();
  return CONSUMED_EN.exec(text)?.[1];
}

/** "它现在是我最喜欢的茶叶", "honestly it's my favourite tea now" after what was just had: that is the favourite. */
function favouritePointedBack(text: string, consumed: string): string {
  if (POINTED_FAVOURITE_ZH.test(text)) return text.replace(POINTED_FAVOURITE_ZH, consumed);
  return POINTED_FAVOURITE_EN.test(text) ? text.replace(POINTED_FAVOURITE_EN, `${consumed} is `) : text;
}

/** One clause, given the clause before it in the same sentence when that one read as nothing. */
function readClause(text: string, before: string | undefined): StateSlot | undefined {
  // "鞋柜最下面一层，备用钥匙现在搁这儿了", "Oat milk latte, that's my drink of choice lately": the
  // demonstrative stands for the bare phrase before it, whatever the clause reads as on its own.
  const pointed = before !== undefined && isBarePhrase(before) ? resolveDeictic(text, before) : undefined;
  const resolved = pointed === undefined ? undefined : slotOfClause(pointed);
  if (resolved) return resolved;
  const found = slotOfClause(rewriteCleft(text));
  const alone = found && !isDeictic(found.value) ? found : undefined;
  if (alone && !leansOnBefore(alone, text)) return alone;
  if (before !== undefined) {
    // "护照嘛，放保险柜了", "奶奶嘛，这阵子搬来北京了", "As for the tent, it's in the garage": the topic said
    // first is what the comment is about.
    const topical = withTopic(text, before);
    const commented = topical === undefined ? undefined : slotOfClause(rewriteCleft(topical));
    if (commented) return commented;
    // "我哥离开华为，加盟了小米": a clause opening on a job-change verb continues the one before it.
    const continued = JOB_MOVE_OPENING.test(text) && HAN.test(before) ? slotOfClause(before + text) : undefined;
    if (continued) return continued;
  }
  if (alone) return alone;
  // "周会时间又变了：周五下午4点": a colon parts what changed from the new value.
  if (COLON.test(text)) {
    const at = COLON.exec(text)!.index;
    const [head, tail] = [text.slice(0, at).trim(), text.slice(at + 1).trim()];
    const named = HAN.test(head) ? frameOfChinese(head) : frameOfEnglish(head);
    // A handle or a number after a Chinese head ("微信号换新的了：wx_…") is read the Chinese way too.
    const open = named && (HAN.test(tail) ? openValueOfChinese(tail) : (openValueOfEnglish(tail) ?? (HAN.test(head) ? openValueOfChinese(tail) : undefined)));
    return open && named ? fillFrame(named, open) : undefined;
  }
  return undefined;
}

// A clause with any Han character follows Chinese word order even when it names Latin-script things
// ("我把iPhone放在抽屉里"), so the language is chosen per clause.
function slotOfClause(text: string): StateSlot | undefined {
  if (text.length > MAX_SLOT_CLAUSE_CHARS) return undefined;
  const slot = HAN.test(text) ? extractChineseSlot(text) : extractEnglishSlot(text);
  return slot && contactOfState(countedThing(timedEvent(measuredNotPlaced(slot))));
}

// "My sleep target is at 5 hours now", "我的预算在5000元": a number of units is a measure, not a place.
const MEASURE_VALUE = /^(?:\$|€|£|¥)?[0-9][0-9,.]*\s*(?:kg|kgs|kilos?|lbs?|pounds?|minutes?|mins?|hours?|hrs?|steps?|km|miles?|ml|l|litres?|liters?|bpm|%|percent|dollars?|euros?|cm|公斤|斤|千克|克|元|块|万|分钟|小时|步|升|毫升|岁|次|米|厘米|公里|度)(?![a-z])/u;

// "家长会的时间定成9月15日了": an event's time is its schedule.
function timedEvent(slot: StateSlot): StateSlot {
  if (slot.kind !== "state" || slot.attribute === undefined || !/^(?:时间|日期|日子|time|date)$/.test(slot.attribute) || slot.subject === SELF) return slot;
  return isTimeExpression(slot.value) ? { kind: "schedule", subject: slot.subject, value: slot.value } : slot;
}

function measuredNotPlaced(slot: StateSlot): StateSlot {
  // "游泳课挪去周六早上七点了": a time is when, not where.
  if (slot.kind === "location" && isTimeExpression(slot.value)) return { kind: "schedule", subject: slot.subject, value: slot.value };
  if (slot.kind !== "location" || !MEASURE_VALUE.test(slot.value)) return slot;
  return { kind: "state", subject: SELF, attribute: slot.subject, value: slot.value };
}

// "李经理的分机号改成8035了" reads as a measure; a number under a contact field is contact data ("我的手机是小米14"
// is not: a phone that is a device keeps its own attribute).
function contactOfState(slot: StateSlot): StateSlot {
  const field = slot.kind === "state" && slot.attribute !== undefined ? contactField(slot.attribute) : undefined;
  if (field === undefined) return slot;
  const value = normaliseContactValue(field, slot.value);
  const plausible = field === "email" ? /^[^\s@]+@[^\s@]+$/.test(value) : /^\+?[0-9]{3,}$/.test(value.replace(/[\s\-().]/g, ""));
  return plausible ? { kind: "contact", subject: slot.subject, attribute: field, value } : slot;
}

// A count is said of the thing counted: "我有3只乌龟", "乌龟的数量是5", "我的乌龟数量变成了5只" and "the number of
// my turtles is 5" are one slot, the speaker's 乌龟 / turtle.
const COUNT_WORD = /^(?:数量|个数|数目|总数|number|count|total)$/;
const COUNTED_ZH = /^(?:我家|我们家|我的|我们的|我)?(.+?)的?(?:数量|个数|数目|总数)$/;
const COUNTED_EN = /^(?:(?:the )?(?:number|count|total) of (?:my |our )?(.+)|(.+) (?:count|total))$/;

function countedThing(slot: StateSlot): StateSlot {
  if (slot.kind !== "state" || slot.attribute === undefined) return slot;
  if (COUNT_WORD.test(slot.attribute) && slot.subject !== SELF && !isKinship(slot.subject)) return { ...slot, subject: SELF, attribute: slot.subject };
  const counted = COUNTED_ZH.exec(slot.attribute) ?? COUNTED_EN.exec(slot.attribute);
  const thing = counted?.[1] ?? counted?.[2];
  return thing && !COUNT_WORD.test(thing) ? { ...slot, attribute: HAN.test(thing) ? thing : foldPlural(thing) } : slot;
}

/**
 * "Grandma? She's living with my aunt in Kent", "我姐？她现在在香港落脚": he/she (他/她) after a clause about a
 * person is that person. Only personal pronouns: things are "it", and "it" stays unresolved.
 */
function resolvePronoun(text: string, frame: SlotFrame | undefined): string {
  if (!frame || frame.subject === SELF || frame.kind === "location" || frame.kind === "schedule") return text;
  if (HAN.test(text)) return HAN.test(frame.subject) ? text.replace(/^(?:他|她)(?!们)/, frame.subject) : text;
  if (HAN.test(frame.subject)) return text;
  return text.replace(/^(?:he|she)(?=\s|'s)/, frame.subject).replace(/\b(?:his|her)\s+(?=favou?rite|new|current|phone|number|email|address)/, `${frame.subject}'s `);
}

// The speaker as the clause's subject: first after any time words ("这阵子我…", "lately i…"), or "my"
// anywhere ("新号码是我的"). "跟我们住了" names the speaker only as company.
const FIRST_PERSON = /^(?:现在|目前|如今|最近|这阵子|这段时间|后来|以后|今年|去年|上个月|上周|昨天|今天|刚刚|刚才)*(?:我|咱|俺)|\b(?:my|mine|our)\b|^(?:[a-z]+\s+){0,3}?(?:i|we)(?:'|\s|$)/;

/**
 * A clause read on its own stands unless it leans on the clause before: it names nobody and so reads as the
 * speaker's without saying "I" ("加盟了小米", "这阵子搬来北京了"), or likes something of no named category.
 */
function leansOnBefore(slot: StateSlot, text: string): boolean {
  return (slot.subject === SELF && !FIRST_PERSON.test(text)) || (slot.kind === "preference" && isWeakCategory(slot.attribute));
}

function samePlaceFamily(a: string, b: string): boolean {
  const place = new Set(["location", "residence"]);
  return place.has(a) && place.has(b);
}

function isDeictic(value: string): boolean {
  return /^(?:这|那|这儿|这里|那儿|那里|这个|这个时间|this|that|there|here|then)$/.test(value);
}

// A question and the bare answer after it, as the statement they make together.
const ANSWERED_EN: Array<[RegExp, (m: RegExpExecArray, a: string) => string]> = [
  [/^where (?:do|does) (.+?) live(?: now| these days| nowadays)?$/, (m, a) => `${m[1]} lives in ${a}`],
  [/^where (?:do|does) (.+?) work(?: now| these days| nowadays)?$/, (m, a) => `${m[1]} works at ${a}`],
  [/^where(?: is|'s| are) (.+?)(?: now| these days)?$/, (m, a) => `${m[1]} is ${/^(?:in|on|at|under|behind|inside|with|next to)\b/.test(a) ? a : `at ${a}`}`],
  [/^when(?: is|'s) (.+?)(?: now)?$/, (m, a) => `${m[1]} is on ${a}`],
  [/^how many (.+?)(?: do (?:i|we) have| have (?:i|we) got)?(?: now)?$/, (m, a) => `i have ${a} ${m[1]}`],
  [/^(?:what is|what's) (.+?)(?: now)?$/, (m, a) => `${m[1]} is ${a}`],
  // "My dad's phone number? +44 7700 900746": a named field, then its value.
  [/^((?:my|our|[a-z]+'s)\s+[a-z][a-z' -]{1,40})$/, (m, a) => `${m[1]} is ${a}`],
];
const ANSWERED_ZH: Array<[RegExp, (m: RegExpExecArray, a: string) => string]> = [
  [/^(.+?)(?:现在)?住(?:在)?(?:哪|哪里|哪儿|哪个城市|哪座城市)$/, (m, a) => `${m[1]}住在${a}`],
  [/^(.+?)(?:现在)?在哪(?:里|儿|个公司|家公司)?(?:上班|工作)$/, (m, a) => `${m[1]}在${a}上班`],
  [/^(.+?)(?:现在)?(?:放)?在哪(?:里|儿)?$/, (m, a) => `${m[1]}在${a}`],
  [/^(.+?)(?:是)?(?:什么时候|几点|哪天)$/, (m, a) => `${m[1]}定在${a}`],
  [/^(.+?)(?:是)?多少$/, (m, a) => `${m[1]}是${a}`],
];

// A denied value, then "it's B": the statement the pair makes.
const DENIED_EN: Array<[RegExp, (m: RegExpExecArray, b: string) => string]> = [
  [/^(.+?) (?:doesn't|does not|don't|do not) live (?:in|at) .+? any ?more$/, (m, b) => `${m[1]} lives in ${b}`],
  [/^(.+?) (?:doesn't|does not|don't|do not) work (?:at|for) .+? any ?more$/, (m, b) => `${m[1]} works at ${b}`],
  [/^(.+?) (?:isn't|is not|aren't|are not) (?:at |in |on )?(?:the old [a-z]+|the usual [a-z]+|the old one|the same|.+?) any ?more$/, (m, b) => `${m[1]} is ${b}`],
];

function correctedValue(denied: string, text: string): string | undefined {
  if (HAN.test(denied)) return undefined;
  const value = /^(?:it's|it is|they're|they are|that's)\s+(.+?)(?:\s+(?:now|these days|instead))?$/.exec(text);
  if (!value) return undefined;
  for (const [pattern, make] of DENIED_EN) {
    const m = pattern.exec(denied);
    if (m) return make(m, value[1]);
  }
  return undefined;
}

function answeredQuestion(question: string, answer: string): string | undefined {
  if (!isBarePhrase(answer) || answer.length > 40) return undefined;
  const table = HAN.test(question) ? ANSWERED_ZH : ANSWERED_EN;
  for (const [pattern, make] of table) {
    const m = pattern.exec(question);
    if (m) return make(m, answer);
  }
  return undefined;
}

const CONTACT_TOPIC_ZH = /^(.{1,8}?)的?(工作电话|办公电话|手机号码|手机号|电话号码|电话|号码|邮箱|微信号|微信|地址)$/;
const CONTACT_TOPIC_EN = /^((?:my|our)|(?:my |our )?[a-z]+'s)\s+(work phone number|work phone|phone number|mobile number|cell number|number|phone|mobile|email address|email|home address|address|whatsapp)$/;

function topicFrame(text: string): SlotFrame | undefined {
  const topic = topicAsked(text);
  if (!topic) return undefined;
  if (topic.category) return { subject: SELF, kind: "preference", attribute: topic.category };
  // "我爸爸的微信号？wx_…", "My uncle's work phone? It's 555-0159": whose field, and which.
  const field = CONTACT_TOPIC_ZH.exec(topic.subject) ?? CONTACT_TOPIC_EN.exec(topic.subject);
  if (field && contactField(field[2])) {
    const owner = HAN.test(field[1]) ? normalisePerson(field[1]) : normaliseEnglishPerson(field[1]);
    if (owner !== null) return { subject: owner || SELF, kind: "contact", attribute: contactField(field[2])! };
  }
  const han = HAN.test(topic.subject);
  const person = han ? normalisePerson(topic.subject) : normaliseEnglishPerson(topic.subject);
  const subject = person || (han ? normaliseSubject(topic.subject) : normaliseEnglishSubject(topic.subject));
  return subject ? { subject } : undefined;
}

/**
 * An assistant's "your passport" / "你的护照" is the user's: slots are read from the user's point of view, so
 * the second person becomes the speaker and the assistant's own first person becomes a third party.
 */
function fromUsersPointOfView(text: string): string {
  // An assistant's clause without a subject ("搬到杭州了，好的") is not the user moving: it gets one nobody can resolve.
  if (HAN.test(text)) return text.replace(/我们|我/g, "助手").replace(/你们|您|你/g, "我").replace(/^(?=(?:搬|住|在|去|到|放|换|改|推|调|定|跳|入职|加入))/, "他");
  return text
    .replace(/\b(?:i|me|my|mine)\b/g, "the assistant")
    .replace(/\byou(?:'re| are)\b/g, "i am")
    .replace(/\byou've\b/g, "i have")
    .replace(/\byour\b/g, "my")
    .replace(/\byours\b/g, "mine")
    .replace(/\byou\b/g, "i");
}

/** One memory saying two values of one slot ("带回家了，在客厅茶几上") states the later one; retractions stay. */
function lastValuePerSlot(slots: StateSlot[]): StateSlot[] {
  const retracts = (slot: StateSlot) => slot.value.startsWith("¬");
  return slots.filter((slot, i) => retracts(slot) || !slots.slice(i + 1).some((later) => !retracts(later) && sameSlot(slot, later)));
}

/**
 * "I don't like piano any more; my favourite instrument is violin now": a weak preference stated beside
 * one named category of the same subject is about that category.
 */
function withNamedCategory(slots: StateSlot[]): StateSlot[] {
  const named = slots.filter((s) => s.kind === "preference" && s.attribute !== undefined && !isWeakCategory(s.attribute));
  return slots.map((slot) => {
    if (slot.kind !== "preference" || !isWeakCategory(slot.attribute)) return slot;
    const categories = new Set(named.filter((n) => n.subject === slot.subject).map((n) => n.attribute));
    return categories.size === 1 ? { ...slot, attribute: [...categories][0] } : slot;
  });
}

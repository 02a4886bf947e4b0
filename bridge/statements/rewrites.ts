// Marked word orders rewritten to the plain one the slot patterns read: clefts ("London is where my grandma
// lives now" → "my grandma lives in london"), value-first sentences whose second half points back with a
// demonstrative ("鞋柜最下面一层，备用钥匙现在搁这儿了", "Oat milk latte, that's my drink of choice"), and
// topics asked as a question and answered in the same breath ("Passport? Moved it to the safe").
import { preferenceCategory } from "./attributes";
import { QUESTION_OPENER_EN } from "./cues-en";
import { QUESTION_WORD_ZH } from "./cues-zh";

const HAN = /\p{Script=Han}/u;
const CLEFTS_EN: Array<[RegExp, string]> = [
  [/^(.+?)\s+is\s+where\s+(.+?)\s+(lives?|is|are|is kept|are kept|stays?|is stored|are stored|is parked|works?)(?:\s+now|\s+these days)?$/, "$2 $3 at $1"],
  [/^(.+?)\s+is\s+where\s+(.+?)(?:'s|\s+is)\s+(living|staying|working|based)(?:\s+now|\s+these days)?$/, "$2 is $3 in $1"],
  [/^(.+?)\s+is\s+(?:home|my home)(?:\s+now|\s+these days)?$/, "i live in $1"],
  [/^(.+?)\s+calls?\s+(.+?)\s+home(?:\s+now|\s+these days)?$/, "$1 lives in $2"],
  [/^(.+?)\s+(?:packed up and\s+)?made\s+(?:his|her|their|my|our)\s+home\s+in\s+(.+)$/, "$1 lives in $2"],
  [/^(.+?)\s+(?:has|have)\s+(?:overtaken|replaced|beaten)\s+.+?\s+as\s+my\s+(?:favou?rite\s+)?(.+)$/, "my favourite $2 is $1"],
  [/^(?:i've|i have|i)\s+(?:come round to|settled on|gone with|switched to)\s+(.+?)\s+as\s+my\s+(?:favou?rite\s+)?(.+)$/, "my favourite $2 is $1"],
  [/^([a-z]+)-wise,?\s+(?:it's|it is|i'm all about|i am all about|i'm into|i am into)\s+(.+?)(?:\s+now|\s+these days|\s+lately)?$/, "my favourite $1 is $2"],
];
const CLEFTS_ZH: Array<[RegExp, string]> = [
  // "我哥哥搬回南京老家了": the hometown is the city.
  [/^(.+?)搬回(.{2,8}?)老家(?:了)?$/, "$1搬回$2了"],
  // "我哥哥的新家在南京", "我老板的新东家是小米": a new home or employer.
  [/^(.+?)的新家(?:在|是)(.+?)(?:了)?$/, "$1住在$2"],
  [/^(.+?)的(?:新)?(?:东家|雇主)(?:是|换成了?)(.+?)(?:了)?$/, "$1在$2上班"],
  [/^(.+?)(?:已经)?(?:去|到)(.{2,12}?)报到了?$/, "$1在$2上班"],
  [/^(.+?)(?:换到|转到|跳到)(.{2,12}?)(?:做事|干活|上班|工作)了?$/, "$1在$2上班"],
  // "我妈妈如今给蔚来打工": working for an employer.
  [/^(.+?)(?:如今|现在|目前|这阵子)?给(.{2,12}?)(?:打工|干活|做事|卖命)(?:了|呢)?$/, "$1在$2上班"],
  // "我妈跟家里人去成都安家了": who went along is not who moved.
  [/^(.+?)(?:跟|和|带着)(?:家里人|家人|老公|老婆|孩子|孩子们|全家|一家人|他们|她们)(.+)$/, "$1$2"],
  // "以后我舅舅的微信号就用wx_…": the field's new value.
  [/^(?:以后|今后|往后)?(.+?(?:手机号码|手机号|电话号码|电话|号码|邮箱|微信号|微信|地址))(?:就|改|都)用(.+)$/, "$1是$2"],
  [/^(?:我)?现在住的(?:地方)?是(.+)$/, "我住在$1"],
  [/^(.+?)是我现在住的地方$/, "我住在$1"],
  [/^(.*?)(?:最后|后来|终于)?(?:还是)?(?<![现存所实正])在(.+?)(?:那边|这边)?(?:安家|定居|落脚|落户|安顿下来|定下来|扎根|稳定下来)了?$/, "$1定居在$2"],
  [/^(.+?)定居(?!在)(.+?)了?$/, "$1定居在$2"],
  [/^(.+?)(?:嘛|啊|的话)?(?:,)?现在在(.+?)落脚$/, "$1住在$2"],
  // "老周现在是蔚来的人了": one of an employer's people works there.
  [/^(.+?)(?:现在|目前|已经)*(?:是|成了|成为了?)(.{2,12}?)的(?:人|员工|一员)了?$/, "$1在$2上班"],
  [/^(?:我)?(?:现在|目前)?(?:工作|上班)的(?:地方|单位|公司)(?:是|在)(.+)$/, "我在$1上班"],
];
// A value-first sentence's second half: a demonstrative stands for the value said first.
const DEICTIC_EN: Array<[RegExp, (value: string, m: RegExpExecArray) => string]> = [
  [/^(?:that's|that is|which is)\s+where\s+(.+?)\s+(lives?|is|are|is kept|are kept|stays?|is stored|are stored)(?:\s+now|\s+these days)?$/, (v, m) => `${m[1]} ${m[2]} at ${v}`],
  [/^(?:that's|that is|which is)\s+where\s+(.+?)\s+(?:works?|is working|is interning|interns|is employed)(?:\s+now|\s+these days)?$/, (v, m) => `${m[1]} works at ${v}`],
  [/^(?:that's|that is)\s+when\s+(.+?)\s+(?:is|are|happens?)(?:\s+now|\s+these days)?$/, (v, m) => `${m[1]} is on ${v}`],
  [/^(?:that's|that is)\s+(my|[a-z]+'s)\s+(?:new\s+)?(.+?)(?:\s+of choice)?(?:\s+now|\s+lately|\s+these days)?$/, (v, m) => `${m[1]} favourite ${m[2]} is ${v}`],
];
const DEICTIC_ZH = /这个时间|这个点|这个时候|这儿|这里|那儿|那里/;
const THIS_IS_ZH = /^这(?:是|就是|才是)(.+)$/;
// "湘菜，现在是我妹最爱的菜系": the second half has no subject, so the bare phrase before it is one.
const NOW_IS_ZH = /^(?:现在|如今|目前)?(?:已经)?(?:是|成了|成为了?)(.+)$/;
// A topic said first and commented on ("护照嘛，放保险柜了", "饮料的话，我最近只喝气泡水", "Snack-wise, it's…").
const TOPIC_ZH = /^(.{1,10}?)(?:嘛|啊|呀|呢|的话|吧|么|这块|这方面|方面|这边|里头)$|^(?:那个|这个|那只|这只|那把|这把|那件|这件)(.{1,8})$/;
const TOPIC_MARKED_ZH = /^(?:要说|说起来|说到|讲到|说起|至于|关于|提到)(.{1,10}?)(?:嘛|啊|呀|呢|的话|吧)?$/;
// "For now," and "for a while," say when, not what about.
const TOPIC_EN = /^(?:[a-z]+-wise|as for .{2,30}|when it comes to .{2,30}|for (?!now$|the moment$|a while$|good$|once$|today$|tonight$|the time being$).{2,20})$/;

/** `text` in the plain word order when it is a cleft the patterns cannot read as it stands. */
export function rewriteCleft(text: string): string {
  const note = rewriteNote(text);
  if (note !== undefined) return note;
  for (const [pattern, plain] of HAN.test(text) ? CLEFTS_ZH : CLEFTS_EN) if (pattern.test(text)) return text.replace(pattern, plain);
  return text;
}

// Notes to self: "[location] gym pass: the windowsill", "【日程】家长会：周六下午三点", "keys → the drawer",
// "fav tea → jasmine". A tag says the kind; without one an arrow (never a chat log's "name:") does, by the
// label's words and the value's shape. A plain "X: V" stays for matchLabelled, which cannot tell a thing from
// a speaker.
const TAG_EN = /^\[?(location|place|where|calendar|schedule|date|when|likes|fav|favourite|favorite|home|lives|work|job|contact|stats|data|count)\]\s*(.+?)\s*:\s*(.+)$/;
const TAG_ZH = /^【?(位置|地点|日程|时间|偏好|最爱|住处|住址|工作|单位|联系|联系方式|数据|数量)】\s*(.+?)\s*[:：]\s*(.+)$/;
const ARROW = /^(.+?)\s*(?:→|->|=>|⇒)\s*(.+)$/;
const CONTACT_WORDS_EN = /(?:phone number|phone|number|mobile|cell|email address|email|address|whatsapp|wechat|extension)$/;
const CONTACT_WORDS_ZH = /(?:手机号码|手机号|电话号码|电话|号码|邮箱|微信号|微信|地址)$/;
const TIME_SHAPED_ZH = /^(?:周|星期|礼拜|下周|这周|本周|今天|明天|后天|[0-9一二三四五六七八九十]+月|[0-9]+[./-][0-9]+)/;
const NUMBER_SHAPED = /^[$€£¥]?[0-9][0-9,.]*\s*[a-z%\u4e00-\u9fff]{0,6}$/;

function rewriteNote(text: string): string | undefined {
  const han = HAN.test(text);
  const tagged = han ? TAG_ZH.exec(text) : TAG_EN.exec(text);
  if (tagged) return han ? taggedZh(tagged[1], tagged[2], tagged[3]) : taggedEn(tagged[1], tagged[2], tagged[3]);
  const arrow = ARROW.exec(text);
  if (!arrow) return undefined;
  const [label, value] = [arrow[1].trim(), arrow[2].trim()];
  if (han) {
    const fav = /^最爱(?:的)?(.{1,6})$/.exec(label);
    if (fav) return `我最喜欢的${fav[1]}是${value}`;
    // "我爸爸的新东家 → 阿里巴巴": 东家 is an employer, not a 家; 新 says it changed.
    const work = /^(.{1,8}?)(?:的)?(?:新|现在的|目前的)?(?:工作单位|单位|公司|工作|东家|雇主)$/.exec(label);
    if (work) return `${work[1]}在${value}上班`;
    const home = /^(.{1,8}?)(?:的)?(?:新|现在的|目前的)?(?:住址城市|住处|住址|家)$/.exec(label);
    if (home) return `${home[1]}住在${value}`;
    const count = /^(.{1,8}?)(?:的)?数量$/.exec(label);
    if (count) return `${count[1]}有${value}`;
    if (CONTACT_WORDS_ZH.test(label) || NUMBER_SHAPED.test(value)) return `${label}是${value}`;
    return TIME_SHAPED_ZH.test(value) ? `${label}定在${value}` : `${label}在${value}`;
  }
  const fav = /^(?:my )?(?:fav|favourite|favorite) ([a-z][a-z ]*)$/.exec(label);
  if (fav) return `my favourite ${fav[1]} is ${value}`;
  // "my boss's new home → berlin", "my sister's new job → oscorp": whose, and new says it changed.
  const home = /^(.+?)(?:'s)?(?: new| current)? home(?: city)?$/.exec(label);
  if (home) return `${home[1]} lives in ${value}`;
  const work = /^(.+?)(?:'s)?(?: new| current)? (?:employer|work|job|workplace)$/.exec(label);
  if (work) return `${work[1]} works at ${value}`;
  const count = /^(?:my )?(.+?) count$/.exec(label);
  if (count) return `i have ${value} ${count[1]}`;
  if (CONTACT_WORDS_EN.test(label)) return `${label} is ${value}`;
  if (NUMBER_SHAPED.test(value)) return `my ${label.replace(/^my /, "")} is ${value}`;
  // A time or a place: "the X is V" reads as a schedule when V is a time, else where the thing is.
  return `${/^(?:the|my|our) /.test(label) ? label : `the ${label}`} is ${/^(?:in|on|at|under|behind|inside|next to|by|with) /.test(value) ? value : isTimeLike(value) ? value : `in ${value}`}`;
}

function isTimeLike(value: string): boolean {
  return /^(?:the \d|\d|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun|next|this|tomorrow|today|tonight|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/.test(value);
}

function taggedEn(tag: string, label: string, value: string): string {
  switch (tag) {
    case "location": case "place": case "where":
      return `${/^(?:the|my|our) /.test(label) ? label : `the ${label}`} is ${/^(?:in|on|at|under|behind|inside|next to|by|with) /.test(value) ? value : `in ${value}`}`;
    case "calendar": case "schedule": case "date": case "when":
      return `${/^(?:the|my|our) /.test(label) ? label : `the ${label}`} is ${value}`;
    case "likes": case "fav": case "favourite": case "favorite":
      return `my favourite ${label.replace(/^(?:my )?(?:favou?rite )?/, "")} is ${value}`;
    case "home": case "lives":
      return `${label} lives in ${value}`;
    case "work": case "job":
      return `${label} works at ${value}`;
    case "count":
      return `i have ${value} ${label.replace(/^my /, "")}`;
    default:
      return CONTACT_WORDS_EN.test(label) ? `${label} is ${value}` : `my ${label.replace(/^my /, "")} is ${value}`;
  }
}

function taggedZh(tag: string, label: string, value: string): string {
  switch (tag) {
    case "位置": case "地点":
      return `${label}在${value}`;
    case "日程": case "时间":
      return `${label}定在${value}`;
    case "偏好": case "最爱":
      return `我最喜欢的${label.replace(/^(?:我)?(?:最爱|最喜欢)的?/, "")}是${value}`;
    case "住处": case "住址":
      return `${label}住在${value}`;
    case "工作": case "单位":
      return `${label}在${value}上班`;
    case "数量":
      return `${label}有${value}`;
    default:
      return `${label}是${value}`;
  }
}

/** `text` with its demonstrative replaced by `value`, the bare phrase said before it; undefined when it points at nothing. */
export function resolveDeictic(text: string, value: string): string | undefined {
  if (HAN.test(text)) {
    const thisIs = THIS_IS_ZH.exec(text) ?? NOW_IS_ZH.exec(text);
    if (thisIs) return `${thisIs[1]}是${value}`;
    return DEICTIC_ZH.test(text) ? text.replace(DEICTIC_ZH, value) : undefined;
  }
  for (const [pattern, plain] of DEICTIC_EN) {
    const m = pattern.exec(text);
    if (m) return plain(value, m);
  }
  return undefined;
}

/** The clause read with the topic said before it ("护照嘛" + "放保险柜了"), or undefined when `before` is no topic. */
export function withTopic(text: string, before: string): string | undefined {
  if (HAN.test(before)) {
    // "说到花，我现在最爱百合": a topic opened by 说到/至于 is read as "花的话".
    const marked = TOPIC_MARKED_ZH.exec(before);
    if (marked && !QUESTION_WORD_ZH.test(marked[1])) return `${marked[1]}的话${text}`;
    // "登山杖，放书架上啦": a bare name, then a clause that opens on the verb, is that name's clause.
    if (/^[\u4e00-\u9fff]{2,6}$/.test(before) && isBarePhrase(before) && /^(?:放|搁|撂|塞|收|挂|存|锁|摆|挪|搬|改|换|在|定|推|提前|延)/.test(text) && !QUESTION_WORD_ZH.test(before)) return `${before}${text}`;
    const topic = TOPIC_ZH.exec(before);
    const named = topic ? (topic[1] ?? topic[2]) : undefined;
    if (!named || QUESTION_WORD_ZH.test(named)) return undefined;
    // "饮料的话", "早餐这块" keep a marker: a preference reads the category from it.
    // A liking after a topic ("茶叶嘛，铁观音最合我口味") reads its category from the marker too.
    const categoryTopic = before.endsWith("的话") || /(?:这块|这方面|方面)$/.test(before) || /最(?:合|对|爱|喜欢|中意)/.test(text);
    return `${before.endsWith("的话") ? before : categoryTopic ? `${named}的话` : named}${text}`;
  }
  if (!TOPIC_EN.test(before)) return undefined;
  // "As for the tent, it's in the garage": the comment's it/they is the topic.
  const named = /^(?:as for|when it comes to|for)\s+(.+)$/.exec(before);
  if (named && /^(?:it|they)(?:'s|'re|\s)/.test(text)) return text.replace(/^(?:it|they)(?='s|'re|\s)/, named[1]);
  return `${before}, ${text}`;
}

/** A short phrase that names a value on its own and could be pointed back to ("鞋柜最下面一层", "next monday at 9:30"). */
export function isBarePhrase(text: string): boolean {
  if (HAN.test(text)) return text.length <= 16 && !/[了过着]|是|在|我|你|他|她/.test(text);
  return text.split(" ").length <= 8 && !/\b(?:i|we|you|he|she|they|it|is|are|was|were|have|has|had|did|do|does)\b/.test(text);
}

/**
 * A topic asked and answered in one message ("Passport? Moved it…", "护照嘛，放保险柜了", "我姐？她现在…"):
 * the subject the next clause is about, or undefined for a real question.
 */
export function topicAsked(text: string): { subject: string; category?: string } | undefined {
  if (HAN.test(text)) {
    const topic = /^(.{1,10}?)(?:嘛|啊|呢|呀)?$/.exec(text);
    return topic && !QUESTION_WORD_ZH.test(topic[1]) ? { subject: topic[1] } : undefined;
  }
  if (QUESTION_OPENER_EN.test(text)) return undefined;
  const favourite = /^(?:my\s+)?(?:new\s+|current\s+)?favou?rite\s+([a-z]+(?: [a-z]+)?)(?:\s+these days|\s+now|\s+lately|\s+at the moment)?$/.exec(text);
  if (favourite) return { subject: "my", category: preferenceCategory(favourite[1]) };
  if (text.split(" ").length > 4) return undefined;
  return /^[a-z][a-z' -]*$/.test(text) ? { subject: text } : undefined;
}

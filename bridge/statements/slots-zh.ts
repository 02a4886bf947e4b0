// Chinese state-slot patterns for one statement clause (NFKC, lowercased): who lives or works where,
// preferences, counts, contact fields and event times first (slots-zh-kinds.ts), then where a thing is
// (把/将 placement, topic + placement verb, copula 在/位于) and other state changes (改成/现在是/的…是).
import { contactField, normaliseContactValue, personPlaceKind, preferenceCategory } from "./attributes";
import type { StateSlot } from "./slots";
import { isTimeExpression } from "./time-expressions";
import { matchMeasure, matchQuantity, matchSchedule } from "./slots-zh-events";
import { type Match, matchContact, matchPreference, matchResidence, matchWorkplace } from "./slots-zh-kinds";
import {
  ADVERBS,
  SELF,
  endsOnPlace,
  negated,
  normalisePerson,
  normalisePlace,
  normaliseSubject,
  normaliseValue,
  stripAdverbs,
  stripLeadingTime,
  stripParticles,
} from "./zh-phrases";

// Closed grammatical sets only: these are placement verbs and change verbs, never things or places.
const PLACE_VERB =
  "(?:存放|停放|安放|摆放|寄存|保存|收纳|归位|归置|移至|(?<!回)归|放|摆|搁|撂|塞|藏|锁|存|停|泊|搬|挪|移|落|忘|收|挂|装|留|扔|丢|拿|带|寄|插|夹|关|晾|戴|供)";
const NOUN_ENDING_VERB = /^(?:带|夹|锁|装)/;
// The liker before a liking verb and 的: "我喜欢的", "我妹最爱吃的".
const LIKED_BY = /^(.*?)(?:最喜欢|更喜欢|喜欢|最爱|更爱|爱|偏爱|中意)(?:吃|喝|听|看|玩|读|用|穿|去)?$/;
// "拿回来放在…": 回来/回去 finish the fetching verb; the placement comes after.
const DIRECTION = "(?:了|好)?(?:回到|在|到|进|入|回(?!来|去)|至|(?<=存放|安放|摆放|放|置|存|归位|归置)于|去(?=[\u4e00-\u9fff]{2}))(?:了)?";
const CHANGE_VERB = "(?:变更为|变更成|染成|染回|改成|改为|改到|换成|换到|变成|变为|更新为|更新成|更改为|调整为|调到|设成|设为|定成|定为|调成)";

// "我跟你说啊，…", "告诉你哦…": how the speaker opens, not what the clause is about.
const SPEECH_OPENER = /^(?:我)?(?:跟你说|和你说|跟你讲|和你讲|告诉你|你知道吗|你猜怎么着)(?:啊|呀|哈|哦|嘛|呢|吧)*/;
// "…有4辆啦", "…放抽屉里了哦": a closing particle says how it is said (啦 is 了 + 啊).
const CLOSING_PARTICLES = /(?<=[\u4e00-\u9fff0-9a-z%])(?:啦|哦|喔|呢|哈|呀|啰|耶|唷|呗|咯|哟)+$/;
const HOW_MEASURED = /^(?:我)?(?:刚|刚刚|刚才|自己)?(?:测|量|称|查|算|数)(?:出来|下来|了)?的(?=[\u4e00-\u9fff]{2})/;
// 把 after a demonstrative or numeral is a classifier ("这把钥匙"), not the object marker.
const BA = "(?<![这那一两几每哪])(?:把|将)";
const BA_PLACE = new RegExp(`^(.*?)${BA}(.+?)${PLACE_VERB}${DIRECTION}(.+)$`);
// With 把/将 any one-character verb moving the object to a place is a placement too ("我妹把自行车推到了阳台上");
// tried second, so a placement verb inside the object ("登山杖放在…") is never split off as the verb.
// "我顺手把耳机丢书桌抽屉里了": 把 a thing straight into a place, without 到/在.
const BA_BARE_PLACE = new RegExp(`^(.*?)${BA}(.+?)(?:丢|扔|搁|撂|塞|放|摆|挂)(.{2,16}?)(?:了|啦)?$`);
const BA_ANY_VERB = new RegExp(`^(.*?)${BA}(.+?)[\u4e00-\u9fff]${DIRECTION}(.+)$`);
const TOPIC_PLACE = new RegExp(`^(.+?)${PLACE_VERB}${DIRECTION}(.+)$`);
// "车钥匙就放鞋柜上面的小盘子里吧": a placement verb straight before a place phrase.
const TOPIC_PLACED_AT = new RegExp(`^(.+?)${ADVERBS}(?:放|搁|撂|挂|塞|收|存|停|锁|摆)(.+)$`);
// Neither side may contain 在, so "我现在在家里" splits at the copula, not inside 现在.
// "我老婆现在去了…": the 在 of 现在, 正在, 存在, 实在, 所在, 自在 is no copula.
// "其实在": 其实 ("in fact") before 在 is an adverb, not 实在.
const COPULA = new RegExp(`^([^在]+?)${ADVERBS}(?:(?<![现正存实所自])在|(?<=其实)在|位于)([^在]+)$`);
const BA_CHANGE = new RegExp(`^(.*?)${BA}(.+?)${CHANGE_VERB}了?(.+)$`);
const CHANGE = new RegExp(`^(.+?)${CHANGE_VERB}了?(.+)$`);
const NOW_IS = /^(.+?)(?:现在|目前|如今)(?:已经)?(?:是|为)(.+)$/;
// Bare 为 is left out: it hides inside 作为/因为/认为, which are never a state.
const PLAIN_IS = /^(.+?)(?:还|仍然|依然|已经)?是(.+)$/;
const LEADING_NOW = /^(?:现在|目前|如今)/;
// Handing a thing to someone puts it with them: "备用钥匙我交给楼下王阿姨保管了", "帐篷借给我弟了".
const HANDED_TO = new RegExp(`^(.+?)${ADVERBS}(?:借给|交给|留给|寄给|送给|还给|托付给|转交给|拿给|递给)了?(.{1,10}?)(?:保管|收着|拿着|用|代管|帮忙收着|看着)?(?:了|啦)?$`);
// "备用钥匙被我姐拿走了": taken by someone, it is with them.
const TAKEN_BY = /^(.+?)被(.{1,8}?)(?:拿走|借走|带走|收走|取走|拿去|借去|带去|要走)(?:了|啦)?$/;
// "玉镯被送去银行保险箱存着了", "拿去公司放着": sent to a place, kept there.
const SENT_TO = new RegExp(`^(.+?)(?:被.{0,4}?)?${ADVERBS}(?:送|拿|带|寄|搬|放|存)去了?(.+?)(?:存着|放着|收着|保管|寄存|放|存)?(?:了|啦)?$`);

// Schedule first: it applies only to a time value, which "改到周五" must not read as a place.
// A measured attribute after location: "钥匙在3号柜子里" is a place that happens to hold a number.
const MATCHERS: Array<(text: string, leadingNow: boolean) => Match> = [
  matchSchedule,
  matchResidence,
  matchWorkplace,
  matchPreference,
  matchQuantity,
  matchContact,
  matchLocation,
  matchMeasure,
  matchState,
];

/** The one slot a Chinese statement clause asserts, or undefined for actions and negations. */
// "我老婆说下个月起她就在朝阳医院上班了": the he/she of a report is the reporter.
const REPORTER_IS_SUBJECT = /^(.{1,8}?)(?:说|告诉我|讲)(?:.{0,8}?)(?:他|她)(?!们)(.+)$/;

export function extractChineseSlot(clause: string): StateSlot | undefined {
  const reported = REPORTER_IS_SUBJECT.exec(clause);
  const plain = reported ? `${reported[1]}${reported[2]}` : clause;
  const leadingNow = LEADING_NOW.test(plain);
  // "早上测的体重是65公斤", "我量的血压是…": how the value was had, not whose it is.
  const text = stripLeadingTime(plain.replace(SPEECH_OPENER, "")).replace(HOW_MEASURED, "").replace(CLOSING_PARTICLES, (tail) => (tail.startsWith("啦") ? "了" : ""));
  for (const match of MATCHERS) {
    const found = match(text, leadingNow);
    if (found !== undefined) return found ?? undefined;
  }
  return undefined;
}

function matchLocation(text: string): Match {
  const ba = BA_PLACE.exec(text) ?? BA_ANY_VERB.exec(text);
  if (ba) return negated(ba[1]) ? null : locationSlot(ba[2], ba[3]);
  const bare = BA_BARE_PLACE.exec(text);
  if (bare && endsOnPlace(bare[3])) return negated(bare[1]) ? null : locationSlot(bare[2], bare[3]);
  const topic = TOPIC_PLACE.exec(text);
  // "胶带在工具箱里", "文件夹在抽屉里": 带, 夹, 锁, 装 end nouns as often as they are verbs; after one lone
  // character they are the noun's end, and the copula reading below takes the whole noun.
  if (topic && !(stripLeadingNoise(topic[1]).length === 1 && NOUN_ENDING_VERB.test(text.slice(topic[1].length)))) return negated(topic[1]) ? null : locationSlot(topic[1], topic[2]);
  const placedAt = TOPIC_PLACED_AT.exec(text);
  if (placedAt && endsOnPlace(placedAt[2])) return negated(placedAt[1]) ? null : locationSlot(placedAt[1], placedAt[2]);
  const handed = TAKEN_BY.exec(text) ?? HANDED_TO.exec(text);
  if (handed) return negated(handed[1]) ? null : withPerson(handed[1], handed[2]);
  const sent = SENT_TO.exec(text);
  if (sent && endsOnPlace(sent[2])) return negated(sent[1]) ? null : locationSlot(sent[1], sent[2]);
  const copula = COPULA.exec(text);
  // A bare 在 is also how Chinese says where an action happened ("在公园跑步"); only a
  // place that ends the clause on a localiser ("鞋柜里") is a statement of where a thing is.
  if (copula && endsOnPlace(copula[2])) return negated(copula[1]) ? null : locationSlot(copula[1], copula[2]);
  return undefined;
}

function matchState(text: string, leadingNow: boolean): Match {
  const ba = BA_CHANGE.exec(text);
  if (ba) return negated(ba[1]) ? null : stateSlot(ba[2], ba[3]);
  const change = CHANGE.exec(text) ?? NOW_IS.exec(text);
  if (change) return negated(change[1]) ? null : stateSlot(change[1], change[2]);
  const plain = PLAIN_IS.exec(text);
  // A bare 是 is too common to be a change ("他是老师"); it counts when it states an
  // owned attribute ("我的体重是…") or when the clause opened with 现在.
  if (plain && (plain[1].includes("的") || leadingNow)) return negated(plain[1]) ? null : stateSlot(plain[1], plain[2]);
  return undefined;
}

function locationSlot(rawSubject: string, rawPlace: string): StateSlot | null {
  const subject = normaliseSubject(rawSubject);
  const value = normalisePlace(rawPlace);
  return subject && value ? { kind: "location", subject, value } : null;
}

// A thing with someone is where that someone is: "王阿姨" and "王阿姨那儿" are one place.
function withPerson(rawSubject: string, rawPerson: string): StateSlot | null {
  const person = normalisePerson(rawPerson);
  if (!person || person === SELF) return null;
  return locationSlot(rawSubject.replace(/^.*?(?:把|将)/, ""), `${stripParticles(rawPerson)}那儿`);
}

function stateSlot(rawSubject: string, rawValue: string): StateSlot | null {
  const phrase = stripParticles(stripAdverbs(rawSubject));
  const value = normaliseValue(rawValue);
  // "小明的体重" is owner 小明 + attribute 体重; "我的", or no owner at all ("静息心率变成了63"), is the
  // speaker, whose own state people mostly report. An adjectival 的 ("蓝色的杯子") mis-splits, which only
  // ever keeps two memories apart, never merges unrelated ones.
  // "每天的步数目标": a time word before 的 says when, not whose.
  const cut = phrase.lastIndexOf("的");
  // "我现在每天的目标步数": the time words before 的 say when; what is left of the owner is the speaker.
  const ownerPart = cut > 0 ? phrase.slice(0, cut).replace(/(?:每天|每日|每周|每月|每年|现在|目前|如今)+$/, "") : "";
  const timed = cut > 0 && (ownerPart === "" || isTimeExpression(phrase.slice(0, cut)));
  const attribute = normaliseSubject(cut >= 0 && !timed ? phrase.slice(cut + 1) : phrase);
  // "新的是…": a lone adjective is no attribute.
  if (!attribute || !value || /^[\u4e00-\u9fff]$/.test(attribute)) return null;
  // "我喜欢的颜色变成黑色了", "我妹爱吃的菜是湘菜": what someone likes is a preference, whoever likes it.
  const liking = cut > 0 ? LIKED_BY.exec(ownerPart) : null;
  if (liking) {
    const liker = liking[1] === "" ? SELF : normalisePerson(liking[1]);
    return liker === null ? null : { kind: "preference", subject: liker || SELF, attribute: preferenceCategory(attribute), value };
  }
  const owner = cut <= 0 || timed ? SELF : normalisePerson(ownerPart);
  if (owner === null) return null;
  const field = contactField(attribute);
  if (field) return { kind: "contact", subject: owner || SELF, attribute: field, value: normaliseContactValue(field, value) };
  const place = personPlaceKind(attribute);
  if (place) return { kind: place, subject: owner || SELF, value: normalisePlace(value) };
  return { kind: "state", subject: owner || SELF, attribute, value };
}

function stripLeadingNoise(phrase: string): string {
  return phrase.replace(/^(?:我的|我们的|我|我们|这个|那个|这|那)/, "");
}

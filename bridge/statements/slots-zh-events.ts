// Chinese patterns for when an event is (moved, fixed, booked; someone arriving on a day), how many of
// something someone has, and measured attributes ("体重65公斤", "房租降到了3800元"). Same conventions as
// slots-zh-kinds.ts: undefined when a pattern does not apply, null when it applies but asserts nothing.
import { CLASSIFIER_ZH, HAVE_COUNT_ZH, NUMERAL_ZH, SCHEDULE_VERB_ZH } from "./cues-zh";
import type { StateSlot } from "./slots";
import type { Match } from "./slots-zh-kinds";
import { findTimeExpression, isTimeExpression } from "./time-expressions";
import { ADVERBS, SELF, endsOnPlace, stripLeadingTime, isKinship, negated, normaliseNumber, normalisePerson, normaliseSubject, stripParticles } from "./zh-phrases";

const SCHEDULE_BA = new RegExp(`^(.*?)(?:把|将)(.+?)${SCHEDULE_VERB_ZH}了?(.+)$`);
const SCHEDULE_MOVED = new RegExp(`^(.+?)(?:被)?${ADVERBS}${SCHEDULE_VERB_ZH}了?(.+)$`);
const SCHEDULE_IS = new RegExp(`^(.+?)${ADVERBS}(?:在|是|于|定在|定于|定了|(?<!预)约了|安排了)(.+?)(?:的)?$`);
// Someone arriving on a day: "爸妈打算5月1号过来", "我定了下周三回来"; the time is found first, then who
// comes before it and the arrival verb after it.
const ARRIVER = /^(.+?)(?:说要|说|打算|准备|计划|要|会|决定|定了|改成了?|改为|最后|在)*$/;
const ARRIVES = /^(?:就|才|再|会)?(?:到|来|过来|回来|回国|出发|飞过来|来看我|回家)(?:住几天|玩几天|看我)?(?:了|吧|呢)?$/;
// Booking something for a time: "我约了下周二下午三点看牙医", "约了tony老师周六下午2点剪头发".
const BOOKED = /^(?:我)?(?:约了|预约了|订了|定了|安排了|报了|挂了)(.+)$/;

const COUNT_HAVE = new RegExp(`^(.*?)(?:现在|目前|现|一共|总共|已经|还|只|就)*(?:${HAVE_COUNT_ZH}|剩|剩下|剩了|摆了|放了|手上|手里有)(${NUMERAL_ZH})(${CLASSIFIER_ZH})([^了]{1,6}?)(?:在用|在养|在开|了)?$`);
// The thing first: "猫现在一共5只", "信用卡现在只有两张了", "阳台的绿植增加到了八盆".
const COUNT_OF = new RegExp(
  `^(.{1,8}?)(?:现在|目前|一共|总共|还|只|又)*(?:有|是|剩|剩下|只有|变成了?|增加到了?|减少到了?|涨到了?|降到了?|多到了?|扩到了?|扩大到了?|扩充到了?|缩减到了?|缩到了?|招到了?|凑够了?|凑齐了?|添到了?|达到了?|更新为|更改为|调整为|改为|共计|合计|计|攒到了?|攒够了?|存到了?|集到了?|收集到了?|累积到了?|积累到了?)?(?<![0-9零〇一二两三四五六七八九十百千万])(${NUMERAL_ZH})(${CLASSIFIER_ZH})(?:了)?$`,
);
const COUNT_TOPIC = new RegExp(`^(.{1,8}?)(?:我们家|我家|我们|我|家里)(?:现在|目前|一共|总共|已经|还|只)*(?:有|养了|养着|养|买了|剩|剩下|剩了)(${NUMERAL_ZH})(?:${CLASSIFIER_ZH})(?:了)?$`);
// No bare 了 before the number: "跑了五公里", "买了一把伞" report an action, not a measure.
const MEASURE_FILLER = "(?:现在|目前|又|已经|每个月|每月|每天|每周|每年|一个月|单程|税前|税后|大概|差不多|约|一共|还|也|都|只|就|才|要|需要|只要|得|是)*";
// A numeral with a classifier counts things ("一把伞", "两站"); those are counts (matchQuantity) or actions.
const COUNTED = /^(?:[0-9]+|[零〇一二两三四五六七八九十百千万半几]+)(?:个|只|条|辆|台|本|张|件|套|位|头|匹|盆|棵|部|双|把|间|瓶|支|块|碗|趟|副|杯|份|站|下|场|遍|次|顿|口|根|片|袋|箱|包)/;
// Verbs that imply the attribute they change: "瘦到了67.5公斤" is a weight.
const IMPLIED: Array<[RegExp, string]> = [[/^(?:瘦|胖|重)$/, "体重"]];
// A temporal clause before the attribute ("搬家后房租…", "吃药之后血压…") says when, not what.
const WHEN_CLAUSE = /^.{1,8}?(?:之后|以后|后|以来)(?=.{2,})/;
// Frequency and span words say how the attribute is measured, not which one it is.
export const MEASURE_FREQUENCY = /^(?:每天|每日|每周|每月|每个月|每年|一天|一周|一个月)(?:的)?|(?:的)?时间$/g;
// 攒/存/扩/长 + 到: the verb says how it got there, the attribute is what comes before ("应急存款攒到了6万块").
const MEASURE_VERB = "(?:被)?(?:测得|调整为|更新为|更改为|改为|按|变更为|现已达到|已达到|达到了?|变到了?|掉到了?|掉回了?|攒到了?|存到了?|扩到了?|长到了?|增至|涨至|降至|减到了?|是|为|有|到了|到|变成了?|变为|涨到了?|涨回了?|涨了|降到了?|降回了?|降了|跌到了?|升到了?|提高到了?|提升到了?|增加到了?|减少到了?|下降到了?|上升到了?|调到了?|设成了?|设为|改成了?|定成了?|定为|:)";
// An attribute with a number: "我现在体重70公斤", "房租降到了3800元一个月", "血压降到130/85".
// A number in digits may carry any short unit; one in Chinese numerals only a unit of measure, because
// numerals also sit inside names ("科目二", "二手").
const ZH_MEASURE_UNIT = "(?:度|公斤|斤|千克|克|元|块|万|万元|分钟|小时|个小时|天|周|步|升|毫升|岁|次|米|厘米|公里|%|个点)";
const MEASURE = new RegExp(
  `^(.{1,12}?)${MEASURE_FILLER}${MEASURE_VERB}?${MEASURE_FILLER}((?:[0-9][0-9.,/]*(?:[^0-9\\s,，]{0,6})|[零〇一二两三四五六七八九十半][零〇一二两三四五六七八九十百千万半]*${ZH_MEASURE_UNIT}))(?:一个月|每月|左右|上下|计|了)*$`,
);
// After a verb of change a round Chinese numeral needs no unit: "房租被涨到了四千".
const MEASURE_TO = new RegExp(`^(.{1,12}?)${MEASURE_FILLER}(?:被)?(?:涨|降|提高|提升|增加|减少|下降|上升|调|升|攒|存|扩)(?:到|至)了?([零〇一二两三四五六七八九十]+[百千万][零〇一二两三四五六七八九十百千万]*)(?:了)?$`);
// Who reported it and when it takes effect are not the attribute: "房东说下个月房租…".
const REPORTED_ZH = /^.{1,6}?(?:说|讲|通知|告诉我)(?:啊|呀|哈|哦|嘛|呢|吧)*(?=.{2,})/;

// "挪到周六下午三点去了": the direction after a time is no part of it.
const timeOf = (raw: string) => stripParticles(raw).replace(/(?:去|来)$/, "");

export function matchSchedule(text: string): Match {
  const ba = SCHEDULE_BA.exec(text);
  if (ba && isTimeExpression(stripParticles(ba[3]))) return negated(ba[1]) ? null : eventSlot(ba[2], ba[3]);
  const moved = SCHEDULE_MOVED.exec(text);
  if (moved && isTimeExpression(timeOf(moved[2]))) return negated(moved[1]) ? null : eventSlot(moved[1], timeOf(moved[2]));
  const is = SCHEDULE_IS.exec(text);
  if (is && isTimeExpression(stripParticles(is[2]))) return negated(is[1]) ? null : eventSlot(is[1], is[2]);
  const when = findTimeExpression(text);
  const arriver = when && ARRIVES.test(when.after) ? ARRIVER.exec(when.before) : null;
  if (when && arriver) {
    const person = normalisePerson(arriver[1]);
    return person === null || negated(arriver[1]) ? null : eventSlot(person || SELF, when.time);
  }
  const booked = BOOKED.exec(text);
  const slot = booked ? findTimeExpression(booked[1]) : undefined;
  if (slot && slot.after.length >= 2) return eventSlot(slot.after, slot.time);
  return undefined;
}

export function matchQuantity(text: string): Match {
  const have = COUNT_HAVE.exec(text);
  if (have) {
    if (negated(have[1])) return null;
    // "桌上摆了3台显示器", "家里有两只猫": a place before the count is where the things are, not who owns them.
    const owner = endsOnPlace(have[1]) || /^(?:家里|家|屋里|手上|手里)$/.test(have[1]) ? SELF : normalisePerson(have[1]);
    const attribute = normaliseSubject(have[4]);
    return owner === null || !attribute ? null : countSlot(owner, attribute, have[2]);
  }
  // "电动车我现在养了6辆": the thing first, then who has how many.
  const topic = COUNT_TOPIC.exec(text);
  if (topic && !negated(topic[1])) {
    const attribute = normaliseSubject(topic[1]);
    if (attribute) return countSlot(SELF, attribute, topic[2]);
  }
  const of = COUNT_OF.exec(text);
  if (!of || negated(of[1]) || /了$/.test(of[1])) return undefined;
  // "阳台的绿植", "鱼缸里的金鱼": the things counted are the noun after the place.
  // "我家电动车的数量": the count word names no thing; the thing is what it counts.
  // "我家乌龟到8只了": a plain 到 before the count is no part of the thing counted.
  const counted = of[1].replace(/(?<=[\u4e00-\u9fff]{2})(?:已经|现在|又)?到$/, "").replace(/[:：]$/, "").replace(/^(?:我|我们)?这边/, "").replace(/的?(?:数量|个数|数目|总数)$/, "").replace(/^(?:我们家|咱们家|我家|咱家|我的|我们的|本人的?)/, "").replace(/^(?:现|现在|目前)?有/, "");
  const attribute = normaliseSubject(counted.replace(/^.{1,6}?(?:里|上|中)?的(?=.{1,6}$)/, ""));
  return attribute ? countSlot(SELF, attribute, of[2]) : undefined;
}

export function matchMeasure(text: string): Match {
  const measured = MEASURE.exec(text) ?? MEASURE_TO.exec(text);
  // "wx_liuyang3601", "zhaolei504@163.com": digits glued to Latin letters or inside an address are part of
  // a handle, not a measure.
  if (measured && (/[a-z_@.+-]$/.test(measured[1]) || measured[1].includes("@"))) return undefined;
  // "按22%计": 计 says how it counts, not what.
  const value = measured ? stripParticles(measured[2]).replace(/计$/, "") : "";
  // "跑了五公里", "午饭花了三十块": 了 right before the number reports what was done, not a measure.
  // "55次每分钟" is a rate, not a count of times.
  if (!measured || negated(measured[1]) || /了$/.test(measured[1]) || (COUNTED.test(value) && !/每|\//.test(value)) || isTimeExpression(value)) return undefined;
  // "我的体重", "我体重", "小明的体重": an owner, then the attribute. A one-character "owner" that is no
  // relative is a verb ("量的血压": the blood pressure measured), and a time word says when ("每天的步数目标").
  const phrase = stripLeadingTime(stripParticles(measured[1]).replace(REPORTED_ZH, ""))
    .replace(/^(?:我的|我们的|我家的|我家|我们|本人的?|我)?(?:把|将)?/, "")
    // "我这周的静息心率": which week's reading, not whose.
    .replace(/^(?:这周|本周|今天|这个月|本月|上周|这两天|这几天)的/, "")
    .replace(/^(?:最近|现在|目前)/, "")
    .replace(WHEN_CLAUSE, "")
    .replace(/被$/, "");
  // "每天饮水量": a frequency word says how it is measured, not when.
  if (/改成|换成|变成|改到|推迟|提前/.test(phrase) || findTimeExpression(phrase.replace(MEASURE_FREQUENCY, ""))) return undefined;
  const owned = /^(.{1,4}?)的(.+)$/.exec(phrase);
  // "最新的体脂率": which reading, not whose.
  const ownerWord = owned && !isTimeExpression(owned[1]) && !/^(?:最新|最近|现在|目前|当前|如今|新)$/.test(owned[1]) && (owned[1].length > 1 || isKinship(owned[1])) ? owned[1] : undefined;
  const owner = ownerWord ? normalisePerson(ownerWord) : SELF;
  const named = normaliseSubject(owned && (ownerWord === undefined || owner !== SELF) ? owned[2] : phrase).replace(MEASURE_FREQUENCY, "");
  // "静息心率更新：55次每分钟": the update is no part of what was measured.
  const attribute = (IMPLIED.find(([verb]) => verb.test(named))?.[1] ?? named).replace(/[:：]+$/, "").replace(/(?:更新一下|更新了?)$/, "");
  // "新的是139…": a lone adjective names no attribute; the clause before says which ("手机号变了").
  if (owner === null || !attribute || /^[0-9零〇一二两三四五六七八九十百千万]/.test(attribute) || /^[\u4e00-\u9fff]$/.test(attribute)) return undefined;
  return { kind: "state", subject: owner || SELF, attribute, value };
}

/** "又加了一台显示器": the count of 显示器 changed; the next clause ("现在是两台") gives it. */
export const COUNT_CHANGED = new RegExp(`^(.*?)(?:又|刚|刚刚|已经)*(?:加了|买了|添了|新添了|又有了|注销了|卖了|送走了|死了|领养了|捡了|配了|退了)(?:${NUMERAL_ZH})(?:${CLASSIFIER_ZH})(.{1,6})$`);

// "几" asks how many; it is never a count.
function countSlot(owner: string, attribute: string, count: string): StateSlot | null {
  return count === "几" ? null : { kind: "state", subject: owner || SELF, attribute, value: normaliseNumber(count) };
}

function eventSlot(rawEvent: string, rawTime: string): StateSlot | null {
  // "爸妈来的时间", "看牙的日子": the event is who comes or what happens, not its time.
  const event = rawEvent === SELF ? SELF : normaliseSubject(rawEvent.replace(/(?:的)?(?:时间|日期|日子)$/, "").replace(/(?:过来|回来|来|到)$/, ""));
  const time = stripParticles(rawTime).replace(/\s+/g, "");
  return event && time ? { kind: "schedule", subject: event, value: time } : null;
}

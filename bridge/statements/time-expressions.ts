// Time expressions in zh and en ("周五下午三点", "next Monday at 10am"): a value made only of time words
// is a schedule, not a place. Closed classes only (weekdays, months, day parts, clock times, relative days).

const ZH_NUMBER = "[0-9零〇一二两三四五六七八九十百]+";
const ZH_TOKEN = [
  "(?:每|下下|下|上|这|本|今|明)?(?:个)?(?:周|星期|礼拜)[一二三四五六日天末]",
  "每天|每周|每月|每晚|每早",
  "(?:下下|下|上|这|本)(?:个)?(?:周|星期|礼拜|月)",
  "大后天|后天|明天|今天|昨天|前天|今晚|明晚|昨晚|明早|今早|明天一早|当天|次日|隔天",
  "凌晨|早上|早晨|清早|上午|中午|正午|下午|傍晚|晚上|夜里|半夜|夜间",
  "月底|月初|月中|年底|年初|年中|周末|工作日",
  "春节|除夕|元旦|国庆|中秋|端午|清明|圣诞|五一|十一",
  `${ZH_NUMBER}(?:年|月份?|日|号)`,
  `${ZH_NUMBER}(?:点|时)(?:${ZH_NUMBER}分?|半|一刻|三刻|整|钟)?`,
  "[0-9]{1,2}:[0-9]{2}",
].join("|");
const ZH_TIME = new RegExp(`^(?:(?:${ZH_TOKEN})(?:的|,|\\s)*)+(?:左右|前后|之前|以前|以后|之后|开始|举行|进行|见|开|开会|上课|见面|出发|落地|到)?$`);

const EN_STRONG = [
  "mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun",
  "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec",
  "today|tomorrow|tonight|yesterday|noon|midnight|weekends?|week|month|year|mornings?|afternoons?|evenings?|nights?|lunchtimes?|weekly|fortnightly|monthly",
  "half past (?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[0-9]{1,2})|quarter (?:past|to) (?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[0-9]{1,2})|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) o'clock",
  "[0-9]{1,2}(?::[0-9]{2})?\\s?(?:am|pm|a\\.m\\.|p\\.m\\.)|[0-9]{1,2}:[0-9]{2}|[0-9]{1,2}\\s?o'clock",
  "[0-9]{1,2}(?:st|nd|rd|th)|[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{1,2}/[0-9]{1,2}(?:/[0-9]{2,4})?",
].join("|");
// Weak words fill out a time but never make one: "at four" needs "monday", "half past ten" a clock word.
const EN_WEAK =
  "at|on|in|the|of|from|now|onwards|forward|going|around|about|by|before|after|next|this|coming|following|early|late|mid|end|start|beginning|half|past|quarter|to|day|days|a|every|other|first|second|third|fourth|last|[0-9]{1,4}|,|" +
  "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirty|fifteen|forty-five|o'clock";
const EN_TIME = new RegExp(`^(?:(?:${EN_STRONG}|${EN_WEAK})(?:\\s+|$))+$`);
const EN_HAS_STRONG = new RegExp(`(?:^|\\s)(?:${EN_STRONG})(?:\\s|$)`);

const ZH_TIME_RUN = new RegExp(`(?:(?:${ZH_TOKEN})(?:的|\\s)*)+`, "g");

/** The longest run of Chinese time words in `text`, with what comes before and after it. */
export function findTimeExpression(text: string): { before: string; time: string; after: string } | undefined {
  let best: RegExpMatchArray | undefined;
  for (const match of text.matchAll(ZH_TIME_RUN)) if (!best || match[0].length > best[0].length) best = match;
  if (!best) return undefined;
  const at = best.index!;
  return { before: text.slice(0, at), time: best[0].replace(/的$/, ""), after: text.slice(at + best[0].length) };
}

/** True when `value` (lowercased NFKC) is nothing but a time expression, in Chinese or English. */
export function isTimeExpression(value: string): boolean {
  const text = value.trim().replace(/[。.!?]+$/, "");
  if (text === "") return false;
  if (/\p{Script=Han}/u.test(text)) return ZH_TIME.test(text.replace(/\s+/g, ""));
  return EN_TIME.test(text + " ") && EN_HAS_STRONG.test(` ${text} `);
}

const EN_TIME_WORD = new RegExp(`(?:^|[^a-z0-9:])(?:${EN_STRONG})(?![a-z0-9])`);

/** Whether `text` (lowercased NFKC) holds a time anywhere: a run of Chinese time words or a strong English time word. */
export function mentionsTime(text: string): boolean {
  return findTimeExpression(text) !== undefined || EN_TIME_WORD.test(text);
}

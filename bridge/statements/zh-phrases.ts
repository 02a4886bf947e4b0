// Normalising the phrases Chinese slot patterns capture: subjects (thing, event or person), places and
// values, negation before a verb, and Chinese numerals. Input is one NFKC, lowercased clause fragment.
import { isTimeExpression } from "./time-expressions";

export const SELF = "(self)";

// Closed grammatical sets only: adverbs, possessives, demonstratives, classifiers, localisers, particles.
export const ADVERBS = "(?:从今天起|从今日起|今天起|这一回|这一次|现(?=任职|居|存放|有|为)|改(?=放|搁|存|挂|停|锁|摆|收|塞)|近期|统一|现已|现今|现在|目前|如今|这回|这次|仍然|依然|已经|一直|暂时|其实|实际上|还|仍|已|都|也|就|又|再|才|先|是|最近|刚刚|刚|终于|最终|最后|总算|到底|正式)*";
const LEADING_TIME = /^(?:即日起|自即日起|从即日起|从今天起|今日起|自今日起|近期|今天|昨天|前天|明天|现在|目前|如今|刚才|刚刚|后来|之后|以后|今后|往后|从今以后|从现在起|最后|终于|其实|早上|晚上|上午|下午|中午|最近|上周|这周|本周|下周|上个月|这个月|下个月|今年|去年|明年|这阵子|这段时间)+/;
// Possessives before bare pronouns so "我的" is not cut to "的"; then demonstratives and
// numeral + classifier ("这个", "一把", "一家"), which say which one, not what it is.
const LEADING_NOISE =
  /^(?:我们的|咱们的|你们的|他们的|她们的|我的|你的|他的|她的|它的|今天|昨天|现在|刚才|刚刚|已经|我们|咱们|你们|他们|她们|我|你|他|她|它|又|还|也|都|就|的|[这那一两几每][个只把件台辆部本张支块串双套条家所间位])+/;
const TRAILING_PARTICLES = /(?:了|的|呢|啊|吧|啦|哦|喔|呀|哈|嘛|喽|啰|呗|咯|嘞|哟|唷|耶|捏)+$/;
// "你最爱的水果多半是苹果": a hedge before 是 is no part of what is named.
const TRAILING_ADVERBS = new RegExp(`(?:${ADVERBS}|现|多半|应该|大概|估计|可能|好像|也许|或许|肯定|一定)*$`);
// "小林去年搬去了厦门": when it happened is not who.
const TRAILING_TIME_WORDS = /(?:这一回|这一次|这回|这次|现今|现阶段|这阵子|这段时间|这几天|这会儿|此刻|眼下|当下|此时|最近|后来|现在|目前|如今|以后|今后|去年|今年|明年|前年|上个月|这个月|下个月|上周|这周|下周|昨天|今天|前天)+$/;
// Longest first so "里面" goes whole; a localiser is only dropped when two characters remain,
// because "楼上"/"楼下" are different places while "鞋柜里" is just "鞋柜".
const LOCALISER =
  /(?:里面|里边|里头|上面|上边|下面|下边|前面|前边|后面|后边|左边|右边|旁边|外面|底下|中间|附近|对面|里|上|中|内|下|前|后|旁|边|外|底)$/;
const NEGATION = /(?:不|没有?|未|别|勿|并非)(?:再|要|曾|会|能|是)?$/;
const PRONOUN_ONLY = /^(?:我们?|你们?|他们?|她们?|它们?|咱们|大家|这|那|这里|那里|自己)?$/;
const SELF_WORDS = /^(?:我|我们|咱|咱们|俺|我家|咱家|我们家|自己|本人)$/;
const OTHER_PRONOUN = /^(?:你|你们|他|她|它|他们|她们|它们|您|大家|别人|有人)$/;
// A leading time expression + 的 says which occurrence, not which thing: "周五的会议" is the meeting.
const TIME_MODIFIER = /^(.{1,12}?)的(.+)$/;
const ZH_DIGITS: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };

export function stripLeadingTime(text: string): string {
  return text.replace(LEADING_TIME, "");
}

/** The thing or event a fragment names, or "" when it is only a pronoun, a lone verb or noise. */
export function normaliseSubject(raw: string): string {
  let phrase = stripParticles(raw.replace(/的话$/, "")).replace(TRAILING_ADVERBS, "").replace(TRAILING_TIME_WORDS, "");
  // Whatever precedes the last aspect marker 了 is the action; the object after it is the thing
  // ("我买了一个杯子放在桌上" is about "杯子").
  const aspect = phrase.lastIndexOf("了");
  if (aspect >= 0) phrase = phrase.slice(aspect + 1);
  // "顺手把充电宝": the thing is what 把 marks, not the manner before it ("这把钥匙" is a classifier).
  phrase = phrase.replace(/^.*?(?<![这那一两几每哪])(?:把|将)(?=.{2,})/, "");
  phrase = cutAtActor(stripLeading(phrase.replace(REPORTED, "").replace(FORMAL_LEADING_TIME, "")).trim());
  const dated = TIME_MODIFIER.exec(phrase);
  if (dated && isTimeExpression(dated[1])) phrase = stripLeading(dated[2]);
  phrase = canonicalOwner(stripParticles(phrase));
  return PRONOUN_ONLY.test(phrase) || LONE_VERB.test(phrase) ? "" : phrase;
}

// "即日起钢琴课定于…", "经协商，…": when or how it was decided, not what.
const FORMAL_LEADING_TIME = /^(?:即日起|自即日起|从即日起|从今天起|今日起|自今日起|近期|经协商|经商议)+/;
// Who reported the change is not what changed: "学校通知家长会…" is about the 家长会.
const REPORTED = /^.{1,8}?(?:通知|打电话来说|打电话来|发消息说|告诉我|说|讲)(?:啊|呀|哈|哦|嘛|呢|吧)*(?=.{2,})/;
// A topic comes first and the actor after it ("护照我放在…", "老花镜被我爸收到…", "租房合同已经转移到…"):
// the thing is what precedes the actor, the passive marker or the adverb.
const ACTOR = /^(.{2,}?)(?:被|让|叫|我们|我|你们|你|他们|他|她们|她|已经|现在|目前|刚刚|刚才|后来|最近|这阵子|一直|以后|今后|之后|又|也|都|还|就|先|再|改(?=[放存挂停搁收塞摆]))/;
// One placement verb left where the subject should be ("藏在地垫下面") means the subject was left out.
const LONE_VERB = /^[放摆搁塞藏锁存停挂装留扔丢拿带收插夹晾搬挪移戴穿供]$/;
// Kinship terms are said doubled, with 老 or neither ("妹妹", "老妈", "妹"); "我妹那辆自行车" and "我妹自行车" are
// "妹的自行车". A closed class of relations, like the pronouns; anything else before 的 stays as written.
const DOUBLED_KIN = /(妈|爸|哥|姐|弟|妹|爷|奶|叔|姑|舅|姨)\1|老(妈|爸)/g;
const KIN = "(?:妈|爸|哥|姐|弟|妹|爷|奶|姥姥|姥爷|外公|外婆|叔|姑|舅|姨|老公|老婆|媳妇|儿子|女儿|闺女|室友|同事|老板|闺蜜|表哥|表姐|表弟|表妹|堂哥|堂姐|男朋友|女朋友)";
const OWNER_LINK = /^(.{1,4}?)(?:的|[这那][个只把件台辆部本张支块双套条家所间位])(.+)$/;
const KIN_OWNED = new RegExp(`^(${KIN})(?!的)([\u4e00-\u9fff].+)$`);

const KINSHIP = new RegExp(`^${KIN}$`);

/** A word for a relative or someone close ("姐", "老公", "室友"): who a statement may be about. */
export function isKinship(word: string): boolean {
  return KINSHIP.test(word);
}

function cutAtActor(phrase: string): string {
  const cut = ACTOR.exec(phrase);
  return cut ? cut[1] : phrase;
}

/** Kinship words folded to their one-character form, as subjects are written ("妈妈", "老妈" → "妈"). */
export function undoubleKin(text: string): string {
  return text.replace(DOUBLED_KIN, (whole, doubled?: string, old?: string) => doubled ?? old ?? whole);
}

function canonicalOwner(phrase: string): string {
  const undoubled = undoubleKin(phrase);
  const owned = OWNER_LINK.exec(undoubled) ?? KIN_OWNED.exec(undoubled);
  return owned ? `${owned[1]}的${owned[2]}` : undoubled;
}

/**
 * Who a fragment names as the owner or actor: SELF for the speaker, "" when nobody is named,
 * null for another pronoun (unresolvable across memories), else the normalised name.
 */
export function normalisePerson(raw: string): string | null {
  const phrase = stripParticles(
    raw
      .replace(TRAILING_ADVERBS, "")
      .replace(/^(?:今天|昨天|现在|目前|最近|后来|其实|这阵子|这段时间|这几天)+/, "")
      .replace(TRAILING_TIME_WORDS, "")
      // "我爸爸从百度跳到阿里巴巴", "由百度换到…": where from is not who.
      .replace(/(?:从|由|离开).+$/, "")
      .replace(/(?:只|仅|就|才|还|也|都)+$/, "")
      .trim(),
  );
  if (phrase === "") return "";
  // "这学期开始我", "以后我": a clause that opens on time words and then the speaker.
  if (/^.{0,8}?(?:我们|我)$/.test(phrase) && !/的(?:我们|我)$/.test(phrase)) return SELF;
  if (SELF_WORDS.test(phrase) || /^(?:我|我们|咱们)(?:现在|目前|如今|最近|已经|也|还|都)+$/.test(phrase)) return SELF;
  if (OTHER_PRONOUN.test(phrase)) return null;
  const name = normaliseSubject(phrase);
  return name === "" ? null : name;
}

export function normalisePlace(raw: string): string {
  const place = stripParticles(stripLeading(raw)).trim();
  const bare = place.replace(LOCALISER, "");
  return bare.length >= 2 ? bare : place;
}

export function normaliseValue(raw: string): string {
  return stripParticles(stripLeading(raw)).trim();
}

function endsOnLocaliser(raw: string): boolean {
  // "该打扫一下了": 一下 is "a bit", no 下 of a place.
  const phrase = stripParticles(raw);
  return LOCALISER.test(phrase) && !/一下$/.test(phrase);
}

// Head nouns of containers and premises ("保险柜", "后备箱", "修车铺", "车棚"): a closed, generic class of
// where things are kept, never a thing itself. 车 is left out: "停车" is an action.
const PLACE_HEAD = /(?:柜|箱|盒|匣|包|袋|架|桌|屉|库|棚|室|房|厅|铺|店|馆|站|院|楼|层|所|仓|屋|阁|台)$/;

/** A place phrase: one that ends on a localiser ("鞋柜里"), names someone's place ("他那儿", "王阿姨家") or a container or premises ("保险柜"). */
export function endsOnPlace(raw: string): boolean {
  const phrase = stripParticles(raw);
  return endsOnLocaliser(raw) || /(?:那儿|那里|这儿|这里|那边|这边|家|处|手上|手里|身上)$/.test(phrase) || (phrase.length >= 2 && PLACE_HEAD.test(phrase));
}

function stripLeading(text: string): string {
  return text.trim().replace(LEADING_NOISE, "");
}

export function stripParticles(text: string): string {
  return text.trim().replace(TRAILING_PARTICLES, "");
}

export function stripAdverbs(text: string): string {
  return text.replace(TRAILING_ADVERBS, "");
}

/** True when the words before a verb negate it ("没", "不再", "并非"). */
export function negated(preVerb: string): boolean {
  return NEGATION.test(preVerb.replace(/(?:现在|目前|已经|还|都|也|就)+$/, ""));
}

const ZH_UNITS: Record<string, number> = { 十: 10, 百: 100, 千: 1000 };

/** "两" → "2", "十二" → "12", "一万" → "10000", "3" → "3"; anything else is returned as it is. */
export function normaliseNumber(raw: string): string {
  if (/^[0-9]+$/.test(raw)) return String(Number(raw));
  if (!/^[零〇一二两三四五六七八九十百千万]+$/.test(raw)) return raw;
  const [high, low] = raw.includes("万") ? [raw.slice(0, raw.indexOf("万")), raw.slice(raw.indexOf("万") + 1)] : ["", raw];
  return String((high === "" ? (raw.includes("万") ? 1 : 0) : belowTenThousand(high)) * 10000 + belowTenThousand(low));
}

function belowTenThousand(text: string): number {
  let total = 0;
  let digit = 0;
  for (const ch of text) {
    const unit = ZH_UNITS[ch];
    if (unit) {
      total += (digit || 1) * unit;
      digit = 0;
    } else digit = ZH_DIGITS[ch] ?? 0;
  }
  return total + digit;
}

// Chinese patterns for what people state about people: where someone lives or works, a preference, a
// contact field (events, counts and measures are in slots-zh-events.ts). Each matcher returns undefined when
// its pattern does not apply and null when it applies but asserts nothing (negated, unresolvable pronoun).
import { contactField, isKnownCategory, normaliseContactValue, preferenceCategory, weakCategory } from "./attributes";
import { findTimeExpression, isTimeExpression } from "./time-expressions";
import { FAVOURITE_ZH, RESIDENCE_LIVE_ZH, RESIDENCE_MOVE_ZH, WORK_AS_ZH, WORK_MOVE_ZH, WORK_NOUN_ZH } from "./cues-zh";
import type { StateSlot } from "./slots";
import { ADVERBS, SELF, isKinship, negated, normalisePerson, normalisePlace, normaliseSubject, normaliseValue, stripAdverbs, stripParticles } from "./zh-phrases";

export type Match = StateSlot | null | undefined;

const MOVE_HOUSE = new RegExp(`^(.*?)(?:从(.+?))?${ADVERBS}${RESIDENCE_MOVE_ZH}了?(.+?)(?:去|来|长住|常住|久住|住|生活|定居)?(?:了|啦)?$`);
const LIVE_IN = new RegExp(`^(.*?)${ADVERBS}${RESIDENCE_LIVE_ZH}(.+)$`);
// "奶奶被我叔接到成都去住了", "我弟在武汉住校": someone brought to live somewhere, or living at a place.
const TAKEN_TO_LIVE = new RegExp(`^(.+?)被.{0,6}?(?:接到|送到|安排到|接去|送去|接回)(.+?)(?:去|来)?(?:住|生活|养老|定居)了?$`);
// "爸妈退休后回宜昌老家住了": gone (back) to a place to live there.
const GONE_TO_LIVE = new RegExp(`^(.+?)${ADVERBS}(?:回到|回|去|到|搬回)(.+?)(?:去|来)?(?:住|生活|定居|养老|安家|落户|落脚)(?:了|啦)?$`);
// Who with is not where: "长沙跟我叔", "北京跟我们".
const POSTED_TO = new RegExp(`^(.*?)${ADVERBS}(?:调到|调去|调往|外派到|外派去|派驻到?|派到|派去)了?(.{2,12}?)(?:去|来)?(?:了|啦)?$`);
const ORGANISATION = /(?:部|组|科|处|室|团队|岗|岗位|中心|公司|总部|分部|项目|车间|门店|店|医院|院|学校|校|大学|银行|行|局|厅|所|站|厂|馆|集团|单位)$/;
const LIVING_WITH = /(?:跟|和|与|同).{1,6}$/;
// After retiring or graduating: when, not who.
const LIFE_EVENT = /(?:退休|毕业|结婚|离婚|生完孩子)(?:了)?(?:之后|以后|后)?$/;
const LIVES_AT = new RegExp(`^(.+?)${ADVERBS}在(.+?)(?:住校|住着|住宿舍|住|生活|定居|安家|落脚)(?:呢|了)?$`);
const WORK_AT = new RegExp(`^(.*?)${ADVERBS}在(.+?)(?:${WORK_NOUN_ZH}|${WORK_AS_ZH}.{1,8}|干活|干)(?:了|呢|啦)?$`);
// 去了/进了/加入了 are everyday verbs ("去了超市"); only with 工作/上班 after the place do they land a job.
const WORK_MOVE = new RegExp(`^(.*?)${ADVERBS}(跳槽到|跳槽去|跳槽进|入职|${WORK_MOVE_ZH})了?(.+?)(${WORK_NOUN_ZH})?(?:了|啦)?$`);
// "从腾讯离职(,)去了拼多多": leaving one employer for the next (the comma-joined retry in slots.ts reads both halves).
// "我哥去腾讯上班了": gone to a place to work there.
const WORK_GO = new RegExp(`^(.+?)${ADVERBS}(?:去|到|进)(?:了)?(.{2,16}?)(?:${WORK_NOUN_ZH})(?:了|啦)?$`);
const WORK_LEAVE = new RegExp(`^(.*?)(?:从(.+?)(?:离职|辞职|跳槽)|离开(?:了)?(.+?))了?(?:后|以后|之后)?(?:去了|加入了?|加盟了?|入职了?|到了|进了|跳到了?|跳槽到了?)(.+?)(?:${WORK_NOUN_ZH})?(?:了|啦)?$`);
// Taken on by an employer: "我哥被OPPO挖走了", "我爸退休后被返聘到社区医院了".
const WORK_TAKEN = /^(.+?)被(.{1,16}?)(?:挖走|挖去|挖过去|录用|录取|聘用|聘请|招走|签下|签约)了?$/;
const WORK_POSTED = new RegExp(`^(.+?)被(?:返聘|聘|调|派|借调|外派)(?:到|去|回)(.+?)(?:${WORK_NOUN_ZH})?(?:了|啦)?$`);
const FAVOURITE_IS = new RegExp(`^(.*?)${FAVOURITE_ZH}的(.+?)${ADVERBS}(?:变更为|变更成|更新为|更改为|调整为|改为|变成了?|改成了?|换成了?|成了|是|为|:)(.+)$`);
// "我现在最喜欢的是毛不易": a favourite whose category an earlier clause named ("说到歌手").
const FAVOURITE_UNNAMED = new RegExp(`^(.*?)${ADVERBS}(?:${FAVOURITE_ZH}的|最爱)${ADVERBS}(?:是|为|变成了?|换成了?|成了)(.+)$`);
const FAVOURITE_REVERSE = new RegExp(`^(.+?)${ADVERBS}(?:成了|是)(.*?)${FAVOURITE_ZH}的(.+)$`);
// A preference changes with 最/更 or "现在喜欢"; a plain 喜欢 adds a liking without replacing one.
const PREFER = new RegExp(`^(.*?)((?:现在|目前|如今|最近|这阵子|开始|越来越|已经|还是|也|一般|平时|特别|非常|超级|超|很|真的|尤其)*)(不再|不|没那么|已经不|再也不)?(最喜欢|更喜欢|比较喜欢|比较爱|比较偏爱|比较中意|只喜欢|只爱|就喜欢|就爱|最爱|超爱|特爱|巨爱|更爱|最偏爱|偏爱|偏好|最中意|首选|首推|最稀罕|喜欢上了?|爱上了?|迷上了?|就认|只认|认准了?|更常|最常|常|更多|改|只|喜欢|爱)(喝|吃|听|看|玩|读|穿|弹|去|点|买|用)?(.+)$`);
const CATEGORY_AFTER_SPEAKER = /^(我|我们)((?:现在|目前|如今|最近|这阵子)*)([\u4e00-\u9fff]{2,4}?)(?=只喜欢|只爱|就喜欢|就爱|最喜欢|最爱|更喜欢|比较喜欢|只喝|只吃|只听|只看)/;
const NOT_A_CATEGORY = /^(?:现在|目前|如今|最近|这阵子|开始|越来越|渐渐|慢慢|已经|还是|一般|平时|特别|非常|超级|真的|尤其|其实|反正|就是|也是|都是|还|也|都|又|超|很|真|挺|蛮|更|只)/;
const STRONG_LIKE = /^(?:最|更|偏|改|比较|只喜欢|只爱|就喜欢|就爱|超爱|特爱|巨爱|喜欢上|爱上|迷上|就认|只认|认准)/;
// "更常去/最常点" say what someone picks now, but only with the verb: "常" alone is just "often".
const HABIT = /^(?:更常|最常|常|更多|只)$/;
const CONTACT_WORD = "(工作电话|办公电话|单位电话|座机号|座机|分机号码|分机号|分机|内线|手机号码|手机号|电话号码|联系电话|电话|号码|邮箱地址|电子邮箱|电子邮件|邮件地址|邮箱|家庭住址|收货地址|通讯地址|住址|地址|微信号|微信)";
const CONTACT = new RegExp(`^(.*?)(?:的)?(?:新的?|最新的?|现在的|现用的|常用的|现在用的|在用的|用的)?${CONTACT_WORD}${ADVERBS}(变成了?|改成了?|换成了?|更新为|更新成|变更为|改为|已更新\\s*:|更新\\s*:|是|为|:|也是)?\\s*(.+)$`);

export function matchResidence(text: string): Match {
  // "我表哥调到武汉了": a person posted to a place now lives there (a department or a time is no place:
  // "调到市场部", "会议调到周五"). Posted by someone ("被调到…") is where they work (matchWorkplace).
  const posted = POSTED_TO.exec(text);
  const postedPerson = posted && !/被$/.test(posted[1]) ? normalisePerson(posted[1]) : null;
  if (posted && postedPerson !== null && (postedPerson === SELF || postedPerson === "" || isKinship(postedPerson)) && !isTimeExpression(posted[2]) && !findTimeExpression(posted[2])) {
    if (negated(posted[1])) return null;
    // "调到武汉工作了": posted there to work; "调到了北医三院", "调到市场部": posted to an employer or a unit of one.
    const work = /^(.{2,10}?)(?:工作|上班)$/.exec(posted[2]);
    const employer = work ? work[1] : ORGANISATION.test(posted[2]) ? posted[2] : undefined;
    if (employer !== undefined) return personSlot("workplace", postedPerson === "" ? "我" : posted[1], normaliseValue(employer));
    const place = normalisePlace(posted[2]);
    if (postedPerson === SELF || postedPerson === "") return personSlot("residence", "我", place);
    return place ? { kind: "location", subject: postedPerson, value: place } : null;
  }
  const moved = MOVE_HOUSE.exec(text);
  if (moved) {
    if (negated(moved[1])) return null;
    // Things move too ("办公室搬到了5楼"): the speaker's move is a change of home, another's a change of place;
    // both are where the subject is (residence and location are one predicate, see slots.ts).
    // No subject at all ("上个月搬到了海淀区") is the speaker moving.
    if (normalisePerson(moved[1]) === SELF || normalisePerson(moved[1]) === "") return personSlot("residence", "我", normalisePlace(moved[3].replace(LIVING_WITH, "")));
    const subject = normaliseSubject(moved[1]);
    const place = normalisePlace(moved[3].replace(LIVING_WITH, ""));
    return subject && place ? { kind: "location", subject, value: place } : null;
  }
  const lives = TAKEN_TO_LIVE.exec(text) ?? LIVES_AT.exec(text) ?? LIVE_IN.exec(text) ?? GONE_TO_LIVE.exec(text);
  if (!lives) return undefined;
  if (negated(lives[1])) return null;
  // "新家在…", "现在的家在…": the speaker's home.
  // "新家在…", "我哥的新家在…": whose home, not how new.
  const person = lives[1].replace(LIFE_EVENT, "").replace(/^(?:新|现在的?|目前的?)$/, "我").replace(/的?(?:新|现在的?|目前的?)$/, "");
  return personSlot("residence", normalisePerson(person) === "" ? "我" : person, normalisePlace(lives[2].replace(LIVING_WITH, "")));
}

export function matchWorkplace(text: string): Match {
  const left = WORK_LEAVE.exec(text);
  // "从腾讯离职，去了拼多多" without a subject is the speaker's own job change.
  if (left && normalisePerson(left[1]) !== null) return personSlot("workplace", normalisePerson(left[1]) === "" ? "我" : left[1], normaliseValue(left[4]));
  const taken = WORK_TAKEN.exec(text) ?? WORK_POSTED.exec(text);
  if (taken && normalisePerson(taken[1].replace(LIFE_EVENT, ""))) return personSlot("workplace", taken[1].replace(LIFE_EVENT, ""), normaliseValue(taken[2]));
  const at = WORK_AT.exec(text) ?? WORK_GO.exec(text);
  if (at && normalisePerson(at[1]) !== "") return negated(at[1]) ? null : personSlot("workplace", at[1], normaliseValue(at[2]));
  const moved = WORK_MOVE.exec(text);
  if (!moved) return undefined;
  const jobVerb = /^(?:跳槽|入职|跳去|跳到|加盟|供职|任职|就职|受雇|效力|换到|换去)/.test(moved[2]);
  // No subject: "上个月入职了阿里" is the speaker; "去了超市" without a job word is no job at all.
  if (normalisePerson(moved[1]) === "") return jobVerb ? personSlot("workplace", "我", normaliseValue(moved[3])) : undefined;
  if (!jobVerb && moved[4] === undefined) return undefined;
  return negated(moved[1]) ? null : personSlot("workplace", moved[1], normaliseValue(moved[3]));
}

// "我的最爱作家换成东野圭吾了": 最爱 + a category without 的.
const FAVOURITE_COMPOUND = new RegExp(`^(.*?)(?:的)?(?:最爱|最喜欢)(.{1,6}?)${ADVERBS}(?:变成了?|改成了?|换成了?|成了|是)(.+?)(?:了)?$`);
// "最近我读余华读得最多": the one consumed most is the favourite, its category only by the verb.
const MOST_CONSUMED = /^(.*?)(喝|吃|听|看|玩|读|弹|用)(.{1,10}?)\2(?:得最(?:多|开心|起劲|勤)|上瘾了?|上头了?|入迷了?)$/;
// "我现在偏好油条这种早餐": the favourite, then the category it is one of.
const PREFER_KIND_OF = /^(.*?)(?:现在|目前|如今)?(?:偏好|偏爱|更喜欢|最喜欢|喜欢)(.{1,10}?)这(?:种|类|款|个)(.{1,6})$/;

// "要我选早餐的话，三明治" (read whole by the topic rule), "早餐最爱油条": a category, then the favourite.
const CHOOSE_CATEGORY = /^(?:要|让|叫)?(?:我|我们)(?:来)?选(.{1,6}?)的话(?:，|,)?(?:就|就选|选)?(.{1,12}?)(?:吧|了)?$/;
const CATEGORY_FAVOURITE = new RegExp(`^(.{1,6}?)(?:的话)?(?:我)?${ADVERBS}(?:最爱|最喜欢|最中意|最偏爱|首选|首推|只认|就认)(?!的)(?:${"吃|喝|听|看|玩|读|弹"})?(.{1,12}?)(?:了)?$`);

// "油条是我的最爱早餐": the value first, then the favourite of a category without 的.
const FAVOURITE_NAMED_AFTER = new RegExp(`^(.+?)${ADVERBS}是(?:我|我们|咱)的?(?:最爱|最喜欢)(?:的)?(.{1,6})$`);
// "铁观音最合我口味", "它最对我胃口": the favourite, its category only by the topic.
const SUITS_ME = /^(?:(.{1,6}?)的话)?(?:这阵子|最近|现在|如今|目前)?(.{1,12}?)(?:现在)?最(?:合|对)(?:我的?|俺的?)?(?:口味|胃口)(?:了)?$/;

export function matchPreference(said: string): Match {
  // "我现在茶叶只喜欢普洱": the category said after the speaker is the topic "茶叶我现在只喜欢普洱".
  const late = CATEGORY_AFTER_SPEAKER.exec(said);
  const text = late && isKnownOrNoun(late[3]) && !NOT_A_CATEGORY.test(late[3]) && !findTimeExpression(late[3]) ? `${late[3]}${late[1]}${late[2]}${said.slice(late[0].length)}` : said;
  const kindOf = PREFER_KIND_OF.exec(text);
  // "这种花": after 这种 even one character is the kind.
  if (kindOf && (/^[\u4e00-\u9fff]$/.test(kindOf[3]) || isKnownOrNoun(kindOf[3]))) return preferenceSlot(kindOf[1] || "我", preferenceCategory(kindOf[3]), kindOf[2], false);
  const namedAfter = FAVOURITE_NAMED_AFTER.exec(text);
  if (namedAfter && isKnownOrNoun(namedAfter[2])) return preferenceSlot("我", preferenceCategory(namedAfter[2]), namedAfter[1], false);
  const suits = SUITS_ME.exec(text);
  if (suits) return preferenceSlot("我", suits[1] ? preferenceCategory(suits[1]) : weakCategory(undefined), suits[2], false);
  const chosen = CHOOSE_CATEGORY.exec(text);
  if (chosen && isKnownOrNoun(chosen[1])) return preferenceSlot("我", preferenceCategory(chosen[1]), chosen[2], false);
  const categoryFirst = CATEGORY_FAVOURITE.exec(text);
  if (categoryFirst && isKnownOrNoun(categoryFirst[1]) && !/我|你|他|她|妈|爸|哥|姐|弟|妹/.test(categoryFirst[1]) && !findTimeExpression(categoryFirst[1])) return preferenceSlot("我", preferenceCategory(categoryFirst[1]), categoryFirst[2], false);
  const most = MOST_CONSUMED.exec(text);
  if (most) return preferenceSlot(most[1].replace(/^(?:最近|现在|这阵子|如今)/, ""), weakCategory(most[2]), most[3], false);
  const favourite = FAVOURITE_IS.exec(text);
  if (favourite) return preferenceSlot(favourite[1], preferenceCategory(favourite[2]), favourite[3], false);
  const reverse = FAVOURITE_REVERSE.exec(text);
  if (reverse) return preferenceSlot(reverse[2], preferenceCategory(reverse[3]), reverse[1], false);
  const compound = FAVOURITE_COMPOUND.exec(text);
  if (compound && compound[2] !== "" && !/的/.test(compound[2]) && isKnownOrNoun(compound[2])) return preferenceSlot(compound[1], preferenceCategory(compound[2]), compound[3], false);
  const unnamed = FAVOURITE_UNNAMED.exec(text);
  if (unnamed) return preferenceSlot(unnamed[1], weakCategory(undefined), unnamed[2], false);
  const prefer = PREFER.exec(text);
  if (!prefer) return undefined;
  const [, rawOwner, adverbs, negation, like, verb, value] = prefer;
  const habit = HABIT.test(like);
  // "不再喜欢喝咖啡" retracts coffee; "喜欢喝茶" alone is one more liking, unless 现在 says it replaced one.
  // "超爱X": 超 is read as an adverb before 爱, but 超爱 is as strong as 最爱.
  const strong = STRONG_LIKE.test(like) || (like === "爱" && /(?:超|特)$/.test(adverbs));
  if (!negation && !strong && !habit && !/现在|如今|目前|最近|这阵子/.test(adverbs)) return undefined;
  // "改" alone is "change", "常" alone "often": preferences only with a verb ("改喝茶了", "更常去Manner").
  if ((like === "改" || habit) && verb === undefined) return undefined;
  if (value.startsWith("的")) return undefined;
  // "奶茶店我现在更常点茶百道": the topic before the speaker names the category.
  const found = /^(.{2,8}?)(?:(?:里|中|里面|当中|的话|方面)?(?:我们|我)|的话|方面)$/.exec(stripParticles(rawOwner));
  // "周末我最爱睡懒觉": a time before the speaker says when, not which category.
  const topic = found && !findTimeExpression(found[1]) ? found : null;
  const category = topic ? preferenceCategory(topic[1]) : weakCategory(verb);
  return preferenceSlot(topic ? "我" : rawOwner, category, value, negation !== undefined);
}


// "以后打我这个号：150…", "房东现在用这个号：177…": a number introduced by "this number".
// "我哥现在用13912345678这个号": the number first, then "this number".
const USES_NUMBER = new RegExp(`^(.*?)${ADVERBS}(?:用|换成了?|换了|改用)([+0-9][0-9\\s\\-]{4,}[0-9]|[^\\s@]+@[^\\s@]+?)(?:这个|的)?(?:号码?|手机号|电话|邮箱)?(?:了)?$`);
const THIS_NUMBER = new RegExp(`^(.*?)${ADVERBS}(?:打|用|换成|换了|是|加)?(我|他|她)?(?:这个|新的?)(?:号码?|手机号|电话|邮箱|微信号?)[:\\s]*([+0-9][0-9\\s\\-]{4,}|[^\\s@]+@[^\\s@]+)$`);

export function matchContact(text: string): Match {
  const introduced = THIS_NUMBER.exec(text);
  if (introduced) {
    const field = introduced[3].includes("@") ? "email" : "phone";
    const owner = introduced[2] === "我" ? SELF : normalisePerson(introduced[1].replace(/^(?:以后|从今天起|今后)/, ""));
    return owner === null ? null : { kind: "contact", subject: owner || SELF, attribute: field, value: normaliseContactValue(field, introduced[3]) };
  }
  const found = CONTACT.exec(text);
  if (!found) return usesContact(text);
  const field = contactField(found[2])!;
  // "以后发我邮箱就发到…": how to use the field is not part of its value.
  const value = normaliseContactValue(field, stripParticles(found[4]).replace(/^(?:发到|发给|发|打|拨|用|加)(?=[+0-9a-z])/, ""));
  // Without 是/改成/":" only a number or an address-shaped value is one ("新号码139…"); "地址的事" is not.
  // (ADVERBS may have taken the 是 of "微信号现在是abc123".)
  const linked = found[3] !== undefined || /(?:是|为)\s*$/.test(text.slice(0, text.length - found[4].length));
  if (!plausibleContact(field, value) || (!linked && !/^[+0-9]|@/.test(value))) return undefined;
  if (negated(found[1])) return null;
  // "我换了新号码", "手机号改成了…": no owner, or only the speaker's own actions, means the speaker.
  const owner = normalisePerson(found[1].replace(/(?:换了|改了|更新了|有了|用了|办了)(?:个|一个)?$/, ""));
  if (owner === null) return null;
  return { kind: "contact", subject: owner || SELF, attribute: field, value };
}


function usesContact(text: string): Match {
  const uses = USES_NUMBER.exec(text);
  if (!uses) return undefined;
  const field = uses[2].includes("@") ? "email" : "phone";
  const owner = normalisePerson(uses[1]);
  return owner === null ? null : { kind: "contact", subject: owner || SELF, attribute: field, value: normaliseContactValue(field, uses[2]) };
}

function personSlot(kind: "residence" | "workplace", rawPerson: string, value: string): StateSlot | null {
  const person = normalisePerson(rawPerson);
  // One Han character ("搬进去" → "去") is a verb's complement, never a place or employer.
  if (person === null || person === "" || !value || /^[\u4e00-\u9fff]$/.test(value)) return null;
  return { kind, subject: person, value };
}

function preferenceSlot(rawOwner: string, category: string, rawValue: string, negative: boolean): StateSlot | null {
  const owner = normalisePerson(stripAdverbs(rawOwner));
  const value = normaliseValue(rawValue.replace(/^了/, ""));
  if (owner === null || !category || !value) return null;
  return { kind: "preference", subject: owner || SELF, attribute: category, value: negative ? `¬${value}` : value };
}


function plausibleContact(field: string, value: string): boolean {
  if (field === "phone") return /^\+?[0-9]{3,}$/.test(value);
  if (field === "email") return /^[^\s@]+@[^\s@]+$/.test(value);
  return value.length >= 2 && !/^(?:多少|什么|哪|啥)/.test(value);
}

// A category after 最爱 without 的 is a noun of two or more characters, not a verb phrase ("最爱吃").
function isKnownOrNoun(phrase: string): boolean {
  // One character names a category only when it is a noun of things people like ("花", "茶"), never 也/都/最.
  if (phrase.length === 1) return isKnownCategory(phrase) || /^[花茶酒书歌剧鱼肉菜汤面饭粥糖鞋包车猫狗]$/.test(phrase);
  return phrase.length >= 2 && !/^(?:吃|喝|听|看|玩|读|弹|用|去|穿)/.test(phrase);
}

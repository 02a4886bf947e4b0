// Chinese frames and open values (see frames.ts): "X不在A了" / "X的时间又变了" / "我老公换工作了" name what
// changed; "我挪到了B" / "在客厅茶几上" / "推到下周一" / "去了招商银行" / "这个号：150…" give only the new value.
import { contactField, normaliseContactValue, preferenceCategory } from "./attributes";
import { FAVOURITE_ZH } from "./cues-zh";
import type { OpenValue, SlotFrame } from "./frames";
import type { SlotKind } from "./slots";
import { COUNT_CHANGED, MEASURE_FREQUENCY } from "./slots-zh-events";
import { isTimeExpression } from "./time-expressions";
import { ADVERBS, endsOnPlace, normaliseNumber, normalisePerson, normalisePlace, normaliseSubject, normaliseValue, stripParticles, SELF } from "./zh-phrases";

// What changed, without the new value: the word tells the kind of slot.
const CHANGED = new RegExp(
  `^(.+?)(?:的)?(时间|日期|位置|地方|地址|住址|号码|手机号|电话|邮箱|微信号?)?${ADVERBS}(?:又|也)?(更新一下|更新了|(?<=时间)更新|不在原来那天了|不在原来那天|不是原来那天了|重新约了|重约了|改约了|有变化|又有变化|有了变化|比之前变了|跟之前不一样了|和以前不一样了|不在原处了|不在原处|不是原来那个|不是原来的|不是以前那个|不是之前那个|不是原来的数|换了个新的|换新的了|换新的|换新了|敲定了|换东家了|换单位了|换公司了|换了东家|换了单位|换了公司|换了工作|换了份工作|涨了|掉了|降了|升了|添了|多了|少了|换了个地方|挪了个地方|换了个位置|挪了个位置|换了地方|挪了地方|换地方了|挪地方了|换位置了|换了位置|改期了|定下来了|确定了|定了|推迟了|延期了|延误了|提前了|往后推了|往前挪了|改时间了|时间变了|变了|改了|换了|换号了|换手机号了|换工作了|搬了|离职了|辞职了|跳槽了|返聘|退休返聘|搬家了|搬走了|拿回来了|拿出来了|取出来了|拿走了|收起来了|带走了|带回来了|带过去了|拿过去了|带上了|被还回来了|还回来了|借走了)(?:了)?$`,
);
// "我爸换了个手机号", "我办了个新号码": a new contact field, its value next.
const NEW_CONTACT = /^(.*?)(?:换了|换|办了|有了|用了|改了)(?:个|一个)?(?:新的?)?(手机号码|手机号|电话号码|电话|号码|邮箱|微信号?|地址)$/;
const NOT_THERE = new RegExp(`^(.+?)${ADVERBS}(?:不在|没在|不放在|没放在)(.+?)了?$`);
// "我不在百度干了": no longer works there; where now comes next ("在大疆").
const LEFT_JOB = new RegExp(`^(.+?)${ADVERBS}(?:不在|没在)(.+?)(?:干|上班|工作|打工|实习)了?$`);
// "咖啡店的话", "说到歌手", "至于水果": the topic the next clause is about.
const TOPIC = /^(?:说到|至于|关于|提到)?(.{2,12}?)(?:的话|这边|那边|方面)?$/;
const TOPIC_OPENER = /^(?:说到|至于|关于|提到)|(?:的话|方面)$/;
const FROM_LEFT = /^(.+?)从(.+?)(?:离职|辞职|走了|出来了?)$/;

const OPEN_PLACED = /^(?:我|我们|他|她|他们|她们)?(?:现在|目前|已经|又|就|先|刚|刚刚)*(?:把它|把它们|把这个)?[\u4e00-\u9fff]{1,2}?(?:到|在|进|回到|回|去)了?(.+)$/;
const OPEN_AT = new RegExp(`^(?:它|它们)?${ADVERBS}(?:在|放在|搁在|挂在|收在|存在)(.+)$`);
const OPEN_BARE_PLACE = /^(.{2,12})$/;
// "现在在联合利华": at an employer, after a clause that said the job changed.
// "现在住昆明": where someone now lives, after a clause that said they moved.
const OPEN_LIVE = new RegExp(`^(?:他|她|他们|她们)?${ADVERBS}(?:住在|住到|住进|住|定居在|定居)(.{2,12}?)(?:了|啦)?$`);
const OPEN_AT_WORK = new RegExp(`^(?:他|她)?${ADVERBS}在(.{2,16}?)(?:工作|上班)?(?:了)?$`);
const OPEN_TIME = /^(?:现在|目前|如今|时间)?(?:是|为)?(?:改到|推到|推迟到|延到|延期到|提前到|挪到|改成|定在|定到|换到|调到|改在|就|又|往后推到|往前挪到)?了?(.+?)(?:就|再|才)?(?:到|来|过来|回来|见|举行|开始|出发|起飞|降落|开会|见面)?了?$/;
const OPEN_JOINED = new RegExp(`^(?:他|她|我)?${ADVERBS}(?:去了|进了|加入了?|入职了?|跳到了?|跳去了?|到了|换到了?|转到了?|去(?=.{2,12}了$))(.+?)(?:工作|上班|任职)?(?:了)?$`);
// "新的是liumei_happy": a handle (微信号) after a frame that named the field.
// "wx_sunli9821" on its own after a topic asked: a handle holds a digit or an underscore.
const OPEN_HANDLE = /^(?:新的?|现在的?)?(?:(?:是|为|:)\s*([a-z][a-z0-9_\-.]{3,})|([a-z][a-z0-9\-.]*(?:_|[0-9])[a-z0-9_\-.]*))$/;
const OPEN_CONTACT = /^(?:以后|现在|目前)?(?:打|用|换成|是|加)?(?:我|他|她)?(?:这个|新的?|现在的?)?(?:号|号码|手机号|电话|邮箱|微信号?)?(?:是|为)?[:\s]*([+0-9][0-9\s\-]{4,}|[^\s@]+@[^\s@]+)$/;
// "量了一下体脂率，22%": a measured value, after a clause that named what was measured.
const OPEN_MEASURE = /^(?:现在|目前)?(?:又)?(?:是|为)?([0-9][0-9.]*\s*(?:%|公斤|斤|千克|克|元|块|万|分钟|小时|步|升|毫升|岁|次|米|厘米|公里|度|个点)(?:每分钟|每天|每周|一个月)?)(?:了)?$/;
// "量了一下体脂率", "称了一下体重": what was measured, its value next.
const MEASURED = /^(?:我)?(?:今天|刚才|刚刚|早上|最近)?(?:量了一下|测了一下|称了一下|查了一下|量了|测了|称了|查了)(.{2,8})$/;
const OPEN_COUNT = /^(?:现在|目前|一共|总共|还|只)*(?:是|剩|剩下|有|只有|变成了?|增加到了?|减少到了?)?([0-9]+|[一二两三四五六七八九十百千万几]+)(个|只|条|辆|台|本|张|件|套|位|头|匹|盆|棵|部|双|把|间|瓶|支|块)了?$/;

const KIND_OF_WORD: Record<string, SlotKind> = {
  时间: "schedule", 日期: "schedule", 改期了: "schedule", 定下来了: "schedule", 确定了: "schedule", 定了: "schedule", 推迟了: "schedule", 延期了: "schedule", 提前了: "schedule", 往后推了: "schedule",
  往前挪了: "schedule", 改时间了: "schedule", 时间变了: "schedule", 位置: "location", 地方: "location", 换了地方: "location", 挪了地方: "location",
  敲定了: "schedule", 不在原来那天了: "schedule", 不在原来那天: "schedule", 不是原来那天了: "schedule", 重新约了: "schedule", 重约了: "schedule", 改约了: "schedule", 不在原处了: "location", 不在原处: "location", 换东家了: "workplace", 换单位了: "workplace", 换公司了: "workplace", 换了东家: "workplace", 换了单位: "workplace", 换了公司: "workplace", 换了工作: "workplace", 换了份工作: "workplace",
  换地方了: "location", 挪地方了: "location", 换了个地方: "location", 挪了个地方: "location", 换了个位置: "location", 挪了个位置: "location", 换位置了: "location", 换了位置: "location", 换工作了: "workplace", 离职了: "workplace",
  辞职了: "workplace", 跳槽了: "workplace", 返聘: "workplace", 退休返聘: "workplace", 搬家了: "residence", 搬走了: "residence", 搬了: "residence",
  延误了: "schedule", 拿回来了: "location", 拿出来了: "location", 取出来了: "location", 被还回来了: "location", 还回来了: "location", 借走了: "location", 拿走了: "location", 收起来了: "location", 带走了: "location", 带回来了: "location", 带过去了: "location", 拿过去了: "location", 带上了: "location",
};

// "茶叶最爱，普洱": a category's favourite, the value next.
const CATEGORY_FAVOURITE_FRAME = /^(.{1,6}?)(?:我)?(?:最爱|最喜欢|最中意)(?:的)?$/;

export function frameOfChinese(text: string): SlotFrame | undefined {
  const categoryFavourite = CATEGORY_FAVOURITE_FRAME.exec(text);
  if (categoryFavourite && !/^(?:我|你|他|她|我们|现在|最近|如今)$/.test(categoryFavourite[1])) return { subject: SELF, kind: "preference", attribute: preferenceCategory(categoryFavourite[1]) };
  const newContact = NEW_CONTACT.exec(text);
  if (newContact) {
    const owner = normalisePerson(newContact[1]);
    return owner === null ? undefined : { subject: owner || SELF, kind: "contact", attribute: contactField(newContact[2])! };
  }
  const measured = MEASURED.exec(text);
  if (measured) return { subject: SELF, kind: "state", attribute: normaliseSubject(measured[1]).replace(MEASURE_FREQUENCY, "") };
  const count = COUNT_CHANGED.exec(text);
  if (count) {
    const attribute = normaliseSubject(count[2]);
    return attribute ? { subject: SELF, kind: "state", attribute } : undefined;
  }
  const changed = CHANGED.exec(text);
  if (changed) {
    const [, rawSubject, word, verb] = changed;
    // "最喜欢的乐器换了": the favourite of a category changed; the new one follows.
    const favourite = new RegExp(`^(.*?)${FAVOURITE_ZH}的(.{1,6})$`).exec(rawSubject);
    if (favourite && word === undefined) {
      const owner = normalisePerson(favourite[1]);
      return owner === null ? undefined : { subject: owner || SELF, kind: "preference", attribute: preferenceCategory(favourite[2]) };
    }
    const field = word === undefined ? undefined : contactField(word);
    const person = normalisePerson(rawSubject);
    if (field) return person === null ? undefined : { subject: person || SELF, kind: "contact", attribute: field };
    // "我妈换号了": a new phone number follows.
    if (/^换(?:手机)?号了$/.test(verb)) return person === null ? undefined : { subject: person || SELF, kind: "contact", attribute: "phone" };
    const kind = KIND_OF_WORD[word ?? ""] ?? KIND_OF_WORD[verb];
    const subject = kind === "workplace" || kind === "residence" ? person || SELF : normaliseSubject(rawSubject);
    return subject ? { subject, ...(kind ? { kind } : {}) } : undefined;
  }
  // "我表哥离开了深圳": someone left a place or a job; where they are now comes next ("现在住武汉").
  const leftPlace = /^(.+?)离开了?(.{2,12})$/.exec(text);
  if (leftPlace) {
    const person = normalisePerson(leftPlace[1]);
    if (person) return { subject: person };
  }
  const leftJob = LEFT_JOB.exec(text);
  if (leftJob) {
    const person = normalisePerson(leftJob[1]);
    return person === null ? undefined : { subject: person || SELF, kind: "workplace" };
  }
  const away = NOT_THERE.exec(text);
  if (away) {
    const subject = normaliseSubject(away[1]);
    return subject ? { subject, kind: "location" } : undefined;
  }
  const left = FROM_LEFT.exec(text);
  if (left) return { subject: normalisePerson(left[1]) || SELF, kind: "workplace" };
  const topic = TOPIC_OPENER.test(text) ? TOPIC.exec(text) : null;
  const subject = topic ? normaliseSubject(topic[1]) : "";
  return subject ? { subject } : undefined;
}

export function openValueOfChinese(text: string): OpenValue | undefined {
  const contact = OPEN_CONTACT.exec(text);
  if (contact) {
    const field = contact[1].includes("@") ? "email" : "phone";
    return { kinds: ["contact"], attribute: field, value: normaliseContactValue(field, contact[1]) };
  }
  const handle = OPEN_HANDLE.exec(text);
  if (handle) return { kinds: ["contact"], value: handle[1] ?? handle[2] };
  const count = OPEN_COUNT.exec(text);
  if (count) return { kinds: ["state"], value: normaliseNumber(count[1]) };
  const measure = OPEN_MEASURE.exec(text);
  if (measure) return { kinds: ["state"], value: measure[1] };
  const time = OPEN_TIME.exec(text);
  if (time && isTimeExpression(stripParticles(time[1]))) return { kinds: ["schedule"], value: stripParticles(time[1]) };
  const joined = OPEN_JOINED.exec(text);
  if (joined) return { kinds: ["workplace", "location"], value: normaliseValue(joined[1]) };
  const live = OPEN_LIVE.exec(text);
  if (live) return { kinds: ["residence", "location"], value: normalisePlace(live[1]) };
  const at = OPEN_AT.exec(text) ?? OPEN_PLACED.exec(text) ?? OPEN_BARE_PLACE.exec(text);
  if (at && endsOnPlace(at[1])) return { kinds: ["location"], value: normalisePlace(at[1]) };
  const work = OPEN_AT_WORK.exec(text);
  return work ? { kinds: ["workplace"], value: normaliseValue(work[1]) } : undefined;
}


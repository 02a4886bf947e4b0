// Canonical names for the attributes people state about themselves: contact fields and preference
// categories, each a closed set of zh and en words mapped to one language-neutral key, so "我的手机号"
// and "my phone number" name the same slot. Attributes outside these tables keep their own words.

const CONTACT_FIELDS: Record<string, string[]> = {
  phone: ["手机号", "手机号码", "手机", "电话", "电话号码", "号码", "联系电话", "手机号儿", "phone", "phone number", "mobile", "mobile number", "mobile phone number", "cell", "cell number", "cellphone", "cellphone number", "cell phone number", "number", "telephone", "telephone number"],
  email: ["邮箱", "邮箱地址", "电子邮箱", "电子邮件", "邮件地址", "电邮", "email", "e-mail", "email address", "e-mail address", "mail address"],
  address: ["地址", "住址", "家庭住址", "家的地址", "家里的地址", "收货地址", "通讯地址", "address", "home address", "mailing address", "street address", "postal address"],
  wechat: ["微信", "微信号", "wechat", "wechat id"],
  whatsapp: ["whatsapp", "whatsapp number", "whatsapp号"],
  work_phone: ["工作电话", "办公电话", "单位电话", "座机", "座机号", "work phone", "work phone number", "work number", "office phone", "office number", "office line", "desk phone"],
  extension: ["分机", "分机号", "分机号码", "内线", "内线号码", "extension", "extension number", "ext"],
};

const PREFERENCE_CATEGORIES: Record<string, string[]> = {
  drink: ["饮料", "饮品", "喝的", "喝的东西", "酒", "drink", "beverage", "thing to drink"],
  food: ["食物", "吃的", "菜", "美食", "食品", "东西吃", "food", "dish", "meal", "cuisine", "thing to eat"],
  snack: ["零食", "小吃", "snack"],
  music: ["音乐", "歌", "歌曲", "乐队", "歌手", "music", "song", "band", "singer", "artist"],
  film: ["电影", "片子", "影片", "movie", "film"],
  show: ["剧", "电视剧", "节目", "综艺", "show", "tv show", "series"],
  colour: ["颜色", "color", "colour"],
  sport: ["运动", "体育运动", "sport", "exercise", "workout"],
  book: ["书", "书籍", "小说", "作家", "book", "novel", "author", "writer"],
  game: ["游戏", "game", "video game"],
  fruit: ["水果", "fruit"],
  season: ["季节", "season"],
  animal: ["动物", "animal", "pet"],
  restaurant: ["餐厅", "饭店", "餐馆", "restaurant", "place to eat"],
};

// Attributes that are a person's workplace or home said as a noun ("我哥的公司换成了腾讯", "my brother's
// employer is Globex", "我哥的住处是成都").
const PERSON_PLACE_ATTRIBUTES: Record<"workplace" | "residence", string[]> = {
  workplace: ["公司", "工作单位", "单位", "东家", "雇主", "工作的地方", "上班的地方", "工作地点", "employer", "company", "workplace", "work place", "firm"],
  residence: ["家", "住处", "住的地方", "居住地", "居住城市", "所在城市", "常住地", "home", "place of residence", "city of residence"],
};
const PERSON_PLACE_BY_WORD = new Map(Object.entries(PERSON_PLACE_ATTRIBUTES).flatMap(([kind, words]) => words.map((w) => [w, kind as "workplace" | "residence"] as const)));

/** Whether an attribute noun is where someone works or lives ("公司", "employer", "住处"). */
export function personPlaceKind(raw: string): "workplace" | "residence" | undefined {
  return PERSON_PLACE_BY_WORD.get(stripAttributeModifiers(raw));
}

/** A consumption verb after a liking verb ("更喜欢喝…", "prefer drinking…") names the category. */
const CATEGORY_VERBS: Record<string, string> = {
  喝: "drink", 吃: "food", 听: "music", 看: "film", 玩: "game", 读: "book", 穿: "clothes", 弹: "instrument",
  drink: "drink", drinking: "drink", eat: "food", eating: "food", "listen to": "music", "listening to": "music",
  watch: "film", watching: "film", play: "game", playing: "game", read: "book", reading: "book", wear: "clothes", wearing: "clothes",
};

// What one does with the favourites of a category: the consumption verb's class (see CATEGORY_VERBS).
// Canonical categories by key, other category nouns by a closed list of everyday ones.
const VERB_CLASS_OF_KEY: Record<string, string> = {
  drink: "drink", food: "food", snack: "food", fruit: "food", restaurant: "food", music: "music", film: "film", show: "film", book: "book", game: "game",
};
const VERB_CLASS_OF_WORD: Array<[RegExp, string]> = [
  [/^(?:早餐|早饭|午餐|午饭|晚餐|晚饭|夜宵|甜点|甜品|菜系|火锅|面食|主食|蛋糕|冰淇淋|breakfast|lunch|dinner|dessert|cuisine|pizza topping|ice cream flavou?r|cereal)$/, "food"],
  [/^(?:茶|茶叶|咖啡|奶茶|果汁|啤酒|红酒|白酒|tea|coffee|beer|wine|juice|smoothie|cocktail)$/, "drink"],
  [/^(?:歌手|乐队|播客|music genre|podcast|album)$/, "music"],
  [/^(?:电视剧|动漫|综艺|纪录片|film genre|movie genre|tv genre|anime)$/, "film"],
  [/^(?:作家|小说|漫画|novelist|comic)$/, "book"],
  [/^(?:乐器|instrument)$/, "instrument"],
];

/** The class of consumption verb a preference category takes ("零食" → food, "茶叶" → drink), or undefined. */
export function verbClassOfCategory(category: string): string | undefined {
  return VERB_CLASS_OF_KEY[category] ?? VERB_CLASS_OF_WORD.find(([words]) => words.test(category))?.[1];
}

// Words that say which version of an attribute, not which attribute: "新手机号" is the 手机号.
const MODIFIERS_ZH = /^(?:最新的?|新的?|旧的?|以前的?|原来的?|现在的?|目前的?|现用的?|常用的?|当前的?|个人的?)+/;
const MODIFIERS_EN = /^(?:(?:new|old|current|updated|latest|primary|main|personal|present|previous|former)\s+)+/;
const PLURAL = /([a-z]{3})s$/;

function invert(table: Record<string, string[]>): Map<string, string> {
  const map = new Map<string, string>();
  for (const [key, words] of Object.entries(table)) for (const word of words) map.set(word, key);
  return map;
}

const CONTACT_BY_WORD = invert(CONTACT_FIELDS);
const CATEGORY_BY_WORD = invert(PREFERENCE_CATEGORIES);

/** Every word of both tables, longest first, for finding attribute mentions in a query. */
export const ATTRIBUTE_WORDS: ReadonlyArray<{ word: string; kind: "contact" | "preference"; key: string }> = [
  ...[...CONTACT_BY_WORD].map(([word, key]) => ({ word, kind: "contact" as const, key })),
  ...[...CATEGORY_BY_WORD].map(([word, key]) => ({ word, kind: "preference" as const, key })),
].sort((a, b) => b.word.length - a.word.length);

export interface AttributeSpan {
  start: number;
  end: number;
  key: string;
  kind: "contact" | "preference";
}

/**
 * Where `text` (lowercased NFKC) names contact fields and preference categories, longest words first: a
 * shorter word inside a longer one ("address" in "email address", "phone" in "work phone") names nothing.
 * English words must stand alone ("cell" is not in "cellar"; a plural s is allowed).
 */
export function attributeSpans(text: string): AttributeSpan[] {
  const spans: AttributeSpan[] = [];
  for (const { word, kind, key } of ATTRIBUTE_WORDS) {
    for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
      if (!/\p{Script=Han}/u.test(word) && !standsAlone(text, at, word.length)) continue;
      // One Han character is a word of its own only before a particle or a non-Han character: "书包" is no 书.
      if (word.length === 1 && /\p{Script=Han}/u.test(text[at + 1] ?? "") && !/[是的吗呢了啊吧呀]/.test(text[at + 1])) continue;
      const end = at + word.length;
      if (spans.some((span) => span.start <= at && span.end >= end)) continue;
      spans.push({ start: at, end, key, kind });
    }
  }
  return spans;
}

function standsAlone(text: string, at: number, length: number): boolean {
  const before = text[at - 1] ?? "";
  const after = text.slice(at + length, at + length + 2);
  return !/[a-z]/.test(before) && !/^[a-z]/.test(after.replace(/^s(?![a-z])/, ""));
}

function stripAttributeModifiers(raw: string): string {
  const trimmed = raw.trim();
  const stripped = trimmed.replace(MODIFIERS_ZH, "").replace(MODIFIERS_EN, "").trim();
  return stripped === "" ? trimmed : stripped;
}

const WORDS_OF_KEY = new Map<string, string[]>([...Object.entries(CONTACT_FIELDS), ...Object.entries(PREFERENCE_CATEGORIES)]);

/** The words that name an attribute: a contact field's or category's words in every language, else the attribute itself. */
export function attributeWords(attribute: string): string[] {
  return WORDS_OF_KEY.get(attribute) ?? [attribute];
}

/** The contact field an attribute phrase names ("新手机号" → phone), or undefined. */
export function contactField(raw: string): string | undefined {
  const phrase = stripAttributeModifiers(raw);
  return CONTACT_BY_WORD.get(phrase) ?? CONTACT_BY_WORD.get(phrase.replace(PLURAL, "$1"));
}

/** The preference category a noun names ("饮料", "drinks" → drink); unknown nouns stay themselves. */
export function preferenceCategory(raw: string): string {
  // "花里我最爱百合": the category is 花; "best of all the film genre options": the film genre.
  const phrase = stripAttributeModifiers(raw)
    .replace(/^(?:的|to\s+)/, "")
    // "你最爱的水果多半是苹果": a hedge before 是 is how sure, not the category.
    .replace(/(?:多半|应该|大概|估计|可能|好像|也许|或许|肯定|一定)+$/, "")
    .replace(/(?:的话|里面|里|当中|之中|中)$/, "")
    .replace(/\s+(?:options?|choices?|kinds?|types?)$/, "")
    .trim();
  const singular = phrase.replace(PLURAL, "$1");
  return CATEGORY_BY_WORD.get(phrase) ?? CATEGORY_BY_WORD.get(singular) ?? CATEGORY_VERBS[phrase] ?? singular;
}

/** Whether a noun is one of the preference categories the table knows ("colour", "饮料"). */
export function isKnownCategory(raw: string): boolean {
  const phrase = stripAttributeModifiers(raw);
  return CATEGORY_BY_WORD.has(phrase) || CATEGORY_BY_WORD.has(phrase.replace(PLURAL, "$1"));
}

/** The category a consumption verb implies ("喝" → drink), or undefined. */
export function categoryOfVerb(verb: string): string | undefined {
  return CATEGORY_VERBS[verb.trim()];
}

/**
 * A preference whose category only a verb implies ("我现在更喜欢吃坚果": food? snack?) or nothing at all
 * ("I'm really into espresso") is weak: its attribute is "~" plus the verb's category, or "~" alone. It
 * joins a named category's slot only where that category has held the same value (see slot-recall.ts).
 */
export const WEAK_CATEGORY = "~";

export function weakCategory(verb: string | undefined): string {
  const category = verb === undefined ? undefined : categoryOfVerb(verb);
  return category === undefined ? WEAK_CATEGORY : WEAK_CATEGORY + category;
}

export function isWeakCategory(attribute: string | undefined): boolean {
  return attribute !== undefined && attribute.startsWith(WEAK_CATEGORY);
}

const NUMBER_FIELDS = new Set(["phone", "whatsapp", "work_phone", "extension"]);

/** Contact values compare without spacing and separators: "139 1234-5678" is "13912345678". */
export function normaliseContactValue(field: string, value: string): string {
  // "用zhangwei156@qq.com", "更新为139…": the datum itself, without the verb that introduced it; not when a
  // negation comes first ("没有改成139…" sets nothing, and the whole phrase is no datum).
  const datum = field === "email" ? /[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/i.exec(value) : NUMBER_FIELDS.has(field) ? /\+?[0-9][0-9\s\-().]*[0-9]/.exec(value) : null;
  const negated = datum !== null && /没|不|未|别|\bnot\b|\bnever\b|n't\b|\bno longer\b/.test(value.slice(0, datum.index));
  const picked = datum && !negated ? datum[0] : value;
  return NUMBER_FIELDS.has(field) ? picked.replace(/[\s\-().]/g, "") : picked.replace(/\s+/g, " ").trim();
}

// The catalogue of subjects a planted state can be about, per language: each with its template
// variables, the values it may take and the words chit-chat may mention without stating its state.
// Also the check that no two subjects of one owner are named so that one is the other's tail.
import * as P from "./capture-pools";
import { KIND_OF, type Family, type Lang, type SlotKind } from "./capture-templates";
import type { SeededRandom } from "./seeded-random";

export type MentionKind = "thing" | "place" | "event" | "item" | "city" | "company" | "attr";

export interface ValueOption {
  /** Identity of the value within its subject: equal keys are the same state. */
  key: string;
  /** The value as a sentence names it, for {old} ("拿铁" in "我不再喜欢拿铁了"). */
  text: string;
  vars: Record<string, string>;
}

export interface SubjectSpec {
  key: string;
  lang: Lang;
  family: Family;
  kind: SlotKind;
  /** "self" or the owner's phrase; names only clash within one owner. */
  owner: string;
  /** The thing as text names it, for the tail check ("车钥匙", "favourite drink"). */
  name: string;
  vars: Record<string, string>;
  values: ValueOption[];
  mentions: Array<[MentionKind, string]>;
  /** Key of the deliberate near-subject partner, when this is one of a near pair. */
  nearPartner?: string;
}

/** Every subject of a language except the near pairs (see nearPairSubjects). */
export function subjectCatalogue(lang: Lang, rng: SeededRandom): SubjectSpec[] {
  const specs = lang === "zh" ? chineseSubjects(rng) : englishSubjects(rng);
  const clashes = tailClashes(specs);
  if (clashes.length > 0) throw new Error(`subject names clash: ${clashes.join("; ")}`);
  return specs;
}

/** The deliberate near pairs of one language and half: both members, partners of each other. */
export function nearPairSubjects(lang: Lang, half: "tuning" | "heldout"): SubjectSpec[] {
  const names = lang === "zh" ? P.NEAR_PAIRS.zh[half].map((n) => [n, false] as const) : P.NEAR_PAIRS.en[half];
  const specs = names.map(([name, plural]) => (lang === "zh" ? zhLocation(name) : enLocation(name, plural)));
  specs[0].nearPartner = specs[1].key;
  specs[1].nearPartner = specs[0].key;
  return specs;
}

/** Pairs of one owner's subject names where one ends with the other, near pairs excepted. */
export function tailClashes(specs: Array<Pick<SubjectSpec, "owner" | "name" | "key" | "nearPartner">>): string[] {
  const clashes: string[] = [];
  specs.forEach((a, i) =>
    specs.slice(i + 1).forEach((b) => {
      if (a.owner !== b.owner || a.nearPartner === b.key) return;
      const [short, long] = a.name.length <= b.name.length ? [a.name, b.name] : [b.name, a.name];
      if (long.endsWith(short)) clashes.push(`${a.key} / ${b.key}`);
    }),
  );
  return clashes;
}

function spec(lang: Lang, family: Family, owner: string, name: string, vars: Record<string, string>, values: ValueOption[], mentions: Array<[MentionKind, string]>): SubjectSpec {
  return { key: `${lang}/${family}/${owner}/${name}`, lang, family, kind: KIND_OF[family], owner, name, vars, values, mentions };
}

const value = (key: string, text: string, vars: Record<string, string>): ValueOption => ({ key, text, vars });

function zhLocation(thing: string): SubjectSpec {
  const values = P.ZH_PLACES.map(([noun, loc]) => value(noun, noun + loc, { place: noun + loc }));
  return spec("zh", "location", "self", thing, { thing }, values, [["thing", thing], ...P.ZH_PLACES.map(([noun]) => ["place", noun] as [MentionKind, string])]);
}

function enLocation(thing: string, plural: boolean): SubjectSpec {
  const values = P.EN_PLACES.map(([prep, np]) => value(np, `${prep} ${np}`, { place: `${prep} ${np}`, spot: np }));
  const vars = { thing, be: plural ? "are" : "is", it: plural ? "they" : "it" };
  return spec("en", "location", "self", thing, vars, values, [["thing", thing], ...P.EN_PLACES.map(([, np]) => ["place", np.replace(/^the /, "")] as [MentionKind, string])]);
}

function numberValues(low: number, high: number, step: number, vars: (n: string) => Record<string, string>): ValueOption[] {
  const out: ValueOption[] = [];
  for (let n = low; n <= high; n += step) out.push(value(String(n), String(n), vars(String(n))));
  return out;
}

function chineseSubjects(rng: SeededRandom): SubjectSpec[] {
  const times = P.ZH_DAYS.flatMap((d) => P.ZH_HOURS.map((h) => value(d + h, d + h, { time: d + h })));
  const owners = P.ZH_OWNERS.map((who) => ({ who, owner: who === "我" ? "self" : who, whose: `${who}的`, you: who.replace(/^我/, "你") }));
  return [
    ...P.ZH_THINGS.map(zhLocation),
    ...P.ZH_EVENTS.map((event) => spec("zh", "schedule", "self", event, { event }, times, [["event", event]])),
    ...P.ZH_PREFERENCES.map(([cat, verb, items]) =>
      spec("zh", "preference", "self", `最喜欢的${cat}`, { cat, verb }, items.map((i) => value(i, i, { item: i })), items.map((i) => ["item", i] as [MentionKind, string])),
    ),
    ...owners.flatMap(({ who, owner, whose, you }) => [
      spec("zh", "residence", owner, "住处", { who, whose, you }, P.ZH_CITIES.map((c) => value(c, c, { city: c })), P.ZH_CITIES.map((c) => ["city", c] as [MentionKind, string])),
      spec("zh", "workplace", owner, "工作单位", { who, whose, you }, P.ZH_COMPANIES.map((c) => value(c, c, { company: c })), P.ZH_COMPANIES.map((c) => ["company", c] as [MentionKind, string])),
      ...(["手机号", "邮箱", "地址", "微信号"] as const).map((attr) =>
        spec("zh", "contact", owner, attr, { whose, yours: `${you}的`, attr }, contactValues("zh", attr, rng), [["attr", attr]]),
      ),
    ]),
    ...P.ZH_MEASURES.map(([attr, unit, low, high, step]) => spec("zh", "measure", "self", attr, { attr, unit }, numberValues(low, high, step, (n) => ({ n })), [["attr", attr]])),
    ...P.ZH_COUNTS.map(([noun, cl]) => spec("zh", "count", "self", noun, { noun, cl }, numberValues(1, 9, 1, (n) => ({ n })), [["thing", noun]])),
  ];
}

// One user speaks both languages, and the store names some slots the same in both: the speaker's home,
// employer, phone, email and address, and preference categories its tables know (drink = 饮料). Such a slot
// is planted in Chinese only, so the history never holds two contradictory current values for one slot.
const SHARED_CATEGORIES = new Set(["drink", "fruit", "colour", "sport", "snack", "season", "author"]);
const SHARED_SELF_CONTACTS = new Set(["phone number", "email address", "home address"]);

function englishSubjects(rng: SeededRandom): SubjectSpec[] {
  const times = P.EN_DAYS.flatMap((d) => P.EN_HOURS.map((h) => value(`${d} ${h}`, `${d} at ${h}`, { time: `${d} at ${h}` })));
  const owners = P.EN_OWNERS.map((who) => {
    const self = who === "I";
    const other = who.replace(/^my /, "");
    return {
      owner: self ? "self" : who,
      vars: self
        ? { who, whose: "my", s: "", do: "do", you: "you", your: "your", ys: "", whom: "me" }
        : { who, whose: `${who}'s`, s: "s", do: "does", you: `your ${other}`, your: `your ${other}'s`, ys: "s", whom: who },
    };
  });
  return [
    ...P.EN_THINGS.map(([thing, plural]) => enLocation(thing, plural)),
    ...P.EN_EVENTS.map((event) => spec("en", "schedule", "self", event, { event }, times, [["event", event]])),
    ...P.EN_PREFERENCES.filter(([cat]) => !SHARED_CATEGORIES.has(cat)).map(([cat, items]) =>
      spec("en", "preference", "self", `favourite ${cat}`, { cat }, items.map((i) => value(i, i, { item: i })), items.map((i) => ["item", i] as [MentionKind, string])),
    ),
    ...owners.flatMap(({ owner, vars }) => [
      ...(owner === "self"
        ? []
        : [
            spec("en", "residence", owner, "home", vars, P.EN_CITIES.map((c) => value(c, c, { city: c })), P.EN_CITIES.map((c) => ["city", c] as [MentionKind, string])),
            spec("en", "workplace", owner, "employer", vars, P.EN_COMPANIES.map((c) => value(c, c, { company: c })), P.EN_COMPANIES.map((c) => ["company", c] as [MentionKind, string])),
          ]),
      ...(["phone number", "email address", "home address", "work phone"] as const)
        .filter((attr) => owner !== "self" || !SHARED_SELF_CONTACTS.has(attr))
        .map((attr) => spec("en", "contact", owner, attr, { ...vars, attr }, contactValues("en", attr, rng), [["attr", attr]])),
    ]),
    ...P.EN_MEASURES.map(([attr, unit, low, high, step]) => spec("en", "measure", "self", attr, { attr, unit }, numberValues(low, high, step, (n) => ({ n })), [["attr", attr]])),
    ...P.EN_COUNTS.map((noun) => spec("en", "count", "self", noun, { noun }, numberValues(2, 12, 1, (n) => ({ n })), [["thing", noun]])),
  ];
}

const ZH_NAMES = ["xiaoming", "lihua", "zhangwei", "wangfang", "chenjie", "liuyang", "zhaolei", "sunli"];
const ZH_STREETS = ["西湖区文三路", "朝阳区建国路", "南山区科技园路", "天河区中山路", "武侯区人民路", "鼓楼区解放路"];
const EN_NAMES = ["sam.lee", "alex.kim", "jo.smith", "pat.morgan", "chris.ng", "robin.hale", "max.berg", "lee.park"];
const EN_STREETS = ["Elm Street", "Mill Lane", "Station Road", "Park Avenue", "Church Street", "Victoria Road", "Bridge Street"];

/** Six made-up values per contact subject, so a long history revisits earlier ones. */
function contactValues(lang: Lang, attr: string, rng: SeededRandom): ValueOption[] {
  const draw = (): string => {
    if (lang === "zh") {
      if (attr === "手机号") return `1${rng.pick(["38", "39", "58", "86", "77"])}${String(rng.int(0, 99_999_999)).padStart(8, "0")}`;
      if (attr === "邮箱") return `${rng.pick(ZH_NAMES)}${rng.int(1, 999)}@${rng.pick(["qq.com", "163.com", "126.com", "outlook.com"])}`;
      if (attr === "地址") return `${rng.pick(P.ZH_CITIES)}市${rng.pick(ZH_STREETS)}${rng.int(1, 300)}号`;
      return `wx_${rng.pick(ZH_NAMES)}${rng.int(10, 9999)}`;
    }
    if (attr === "phone number") return `+44 7700 ${rng.int(900_000, 900_999)}`;
    if (attr === "email address") return `${rng.pick(EN_NAMES)}${rng.int(1, 99)}@example.com`;
    if (attr === "home address") return `${rng.int(1, 250)} ${rng.pick(EN_STREETS)}, ${rng.pick(P.EN_CITIES)}`;
    return `555-01${String(rng.int(0, 99)).padStart(2, "0")}`;
  };
  const texts = new Set<string>();
  while (texts.size < 6) texts.add(draw());
  return [...texts].map((t) => value(t, t, { value: t }));
}

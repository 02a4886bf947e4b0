// Which state slots a query asks about, read against the slot index: the newest statement of each (shown
// first in latest mode), the statements that replace an older value (for collapsing), and each slot's
// recent history (for timeline mode). No corpus scan: a query's phrases are looked up in the index.
import { isWeakCategory, verbClassOfCategory, WEAK_CATEGORY } from "../statements/attributes";
import { readSlotQuery, visitPhrases, type QueryPhrase, type SlotQuery } from "../statements/slot-query";
import { SELF, sameSlot, type SlotKind, type StateSlot } from "../statements/slots";
import { isKinship } from "../statements/zh-phrases";
import { valuesConflict } from "../statements/values";
import { slotKey, type SlotEntry, type SlotIndex } from "./slot-index";

const COUNT_WORD = /^(?:数量|个数|数目|总数|number|count|total)$/;
// A question names one or two things; more matches mean the phrases matched incidental words.
const MAX_ASKED_SLOTS = 4;
const MAX_HEADS = 3;
// Match strengths: a phrase equal to the subject beats one that is only its head ("钥匙" asks first about
// 钥匙, then about 车钥匙); a named attribute beats a subject alone; the speaker counts as a short match.
const EXACT_BONUS = 100;
const ATTRIBUTE_BONUS = 10;
const SELF_MATCH = 1;
// "Where does my aunt work?": "work" names the kind more closely than "where" does.
const KIND_BONUS = 3;

export interface AskedSlot {
  key: string;
  kind: SlotKind;
  subject: string;
  attribute?: string;
  /** The query names this slot's subject (or, for the speaker's own slot, its attribute) exactly, not by a head. */
  exact?: boolean;
  /** How well the query names it (see askedSlots); equal for equally good matches. */
  score?: number;
}

export interface SlotRecall {
  /** The slots the query asks about, best match first. */
  asked: AskedSlot[];
  /** The newest usable statement of each asked slot that no newer asked statement replaced, best match first. */
  heads: SlotEntry[];
  /** For each asked slot, in order, its head when it is one of `heads` (under either of a merged pair's names). */
  current: Array<SlotEntry | undefined>;
  /** The newest usable statement of an asked slot, newer than `afterMs`, whose value replaces `slot`'s. */
  newestReplacing(slot: StateSlot, afterMs: number): SlotEntry | undefined;
  /** The asked slots a timeline follows: those named exactly when any is ("钥匙" is not also the 车钥匙's story). */
  followed: AskedSlot[];
  /** The newest `limit` usable statements of the followed slots, oldest first. */
  history(limit: number): SlotEntry[];
}

/**
 * `usable(doc)`: live, in scope and not quarantined; only such statements are shown or replace anything.
 * `timeline`: the query asks for a history, so a subject it names exactly is asked whatever its question words.
 */
export function recallSlots(index: SlotIndex, query: string, usable: (doc: number) => boolean, options: { timeline?: boolean } = {}): SlotRecall {
  const slotQuery = index.size === 0 ? undefined : readSlotQuery(query);
  const named = slotQuery === undefined ? [] : askedSlots(index, slotQuery, options.timeline === true);
  // Weak preferences that joined a category by their verb alone are shown, but replace no named value.
  const byVerbOnly = new Set<SlotEntry>();
  // A person's moves to a workplace, read into their workplace chain: they do not make another home a member.
  const borrowed = new Set<SlotEntry>();
  // Weak preferences whose verb fits this category and another named one: a timeline shows them, latest does not.
  const mayBelong = new Map<string, SlotEntry[]>();
  const { asked, chains: allChains } = sameThingUnderTwoNames(named, named.map((slot) => chainOf(index, slot, byVerbOnly, mayBelong, borrowed)));
  const chains = allChains.map((chain) => chain.filter((entry) => usable(entry.doc)));
  const newest = chains.map((chain) => chain[chain.length - 1]);
  // In match order: the slot the query names exactly first ("钥匙" before "车钥匙", which may be another thing),
  // equally good matches newest first.
  // A timeline follows the best-named slots: "我爸爸先后在哪些公司上过班" is his jobs, not also his homes.
  const named_ = asked.some((slot) => slot.exact) ? asked.filter((slot) => slot.exact) : asked;
  const best = Math.max(...named_.map((slot) => slot.score ?? 0));
  const followed = named_.filter((slot) => (slot.score ?? 0) === best);
  const heads = newest
    .filter((head, i): head is SlotEntry => head !== undefined && !newest.some((other, j) => j !== i && other !== undefined && replaces(other, head)))
    .filter((head, i, all) => all.findIndex((h) => h.doc === head.doc) === i)
    .slice(0, MAX_HEADS);
  return {
    asked,
    heads,
    current: newest.map((entry) => (entry !== undefined && heads.includes(entry) ? entry : undefined)),
    newestReplacing(slot, afterMs) {
      let best: SlotEntry | undefined;
      chains.forEach((chain, i) => {
        // A statement under either of a merged pair's names belongs to the chain.
        const member = sameSlot(slot, { ...asked[i], value: "" }) || chain.some((entry) => sameName(entry.slot, slot) && !byVerbOnly.has(entry) && !borrowed.has(entry));
        if (!member) return;
        for (let at = chain.length - 1; at >= 0 && chain[at].timestampMs > afterMs; at--) {
          if (byVerbOnly.has(chain[at]) || !valuesConflict(slot.kind, chain[at].slot.value, slot.value)) continue;
          if (!best || chain[at].timestampMs > best.timestampMs) best = chain[at];
          break;
        }
      });
      return best;
    },
    followed,
    history(limit) {
      const byDoc = new Map<number, SlotEntry>();
      chains.forEach((chain, i) => {
        if (!followed.includes(asked[i])) return;
        for (const entry of chain) byDoc.set(entry.doc, entry);
        for (const entry of mayBelong.get(asked[i].key) ?? []) if (usable(entry.doc)) byDoc.set(entry.doc, entry);
      });
      const all = [...byDoc.values()].sort((a, b) => a.timestampMs - b.timestampMs || a.doc - b.doc);
      return all.slice(Math.max(0, all.length - limit));
    },
  };
}

/**
 * One thing under two names: an owner said or not ("儿子的家长会", "家长会"), an event with or without its head
 * noun ("科目二考试", "科目二"; "dentist appointment", "dentist"). Their chains are read as one, so the newest
 * statement under either name is the newest value. A compound name ("车钥匙") is another thing than its head
 * ("钥匙") and is kept apart: people own both.
 */
function sameThingUnderTwoNames(asked: AskedSlot[], chains: SlotEntry[][]): { asked: AskedSlot[]; chains: SlotEntry[][] } {
  // Each slot joins the group of the best-matched slot it names the same thing as.
  const group = asked.map((_, i) => i);
  const root = (i: number): number => (group[i] === i ? i : (group[i] = root(group[i])));
  asked.forEach((long, i) => {
    if (long.subject === SELF) return;
    asked.forEach((short, j) => {
      if (j === i || short.kind !== long.kind || short.attribute !== long.attribute) return;
      // "儿子的家长会" is the 家长会, "科目二考试" is 科目二; "车钥匙" stays another key than 钥匙, even when asked by name.
      if (!isOwnedName(short.subject, long.subject) && !(long.kind === "schedule" && isEventHead(short.subject, long.subject))) return;
      const [a, b] = [root(i), root(j)];
      if (a !== b) group[Math.max(a, b)] = Math.min(a, b);
    });
  });
  const keep = asked.map((_, i) => root(i) === i);
  const merged = chains.map((chain, i) =>
    keep[i] ? chains.flatMap((other, j) => (root(j) === i ? other : [])).sort((a, b) => a.timestampMs - b.timestampMs || a.doc - b.doc) : chain,
  );
  return { asked: asked.filter((_, i) => keep[i]), chains: merged.filter((_, i) => keep[i]) };
}

function isOwnedName(short: string, long: string): boolean {
  return short !== SELF && long.endsWith(`的${short}`) && short.length >= 2;
}

// An event keeps its name without its head noun or how often it recurs: "科目二考试" is 科目二, "dentist
// appointment" the dentist, "weekly team meeting" the team meeting, "每周例会" the 例会.
const RECURRENCE = /^(?:weekly|daily|monthly|annual|yearly|fortnightly|regular|usual|每周|每月|每天|每年|月度|年度|例行)\s?/;

function isEventHead(short: string, long: string): boolean {
  if (short === SELF || short.length >= long.length) return false;
  if (long.replace(RECURRENCE, "") === short) return true;
  if (!long.startsWith(short)) return false;
  return /\p{Script=Han}/u.test(short) ? short.length >= 2 && long.length - short.length <= 2 : long.startsWith(`${short} `) && long.split(" ").length === short.split(" ").length + 1;
}

// Two weak preferences ("~") share a key but not a category: only the same value makes them one member.
function sameName(a: StateSlot, b: StateSlot): boolean {
  return slotKey(a) === slotKey(b) && (!isWeakCategory(a.attribute) || bare(a.value) === bare(b.value));
}

function replaces(newer: SlotEntry, older: SlotEntry): boolean {
  return newer.timestampMs > older.timestampMs && sameSlot(newer.slot, older.slot) && valuesConflict(older.slot.kind, newer.slot.value, older.slot.value);
}

/**
 * A slot's statements, oldest first. A named preference category also takes the weak preferences of its
 * subject ("I'm really into espresso", "我现在更喜欢吃坚果") whose value it has held and no other named
 * category of that subject has: the value tells which favourite they change.
 */
function chainOf(index: SlotIndex, slot: AskedSlot, byVerbOnly: Set<SlotEntry>, mayBelong: Map<string, SlotEntry[]>, borrowed: Set<SlotEntry>): SlotEntry[] {
  const own = index.chain(slot.key);
  if (slot.kind === "location") return own.filter((entry) => !isMoveToWorkplace(index, entry.slot));
  if (slot.kind === "workplace") {
    const moves = index.chain(slotKey({ kind: "location", subject: slot.subject })).filter((entry) => isMoveToWorkplace(index, entry.slot));
    for (const entry of moves) borrowed.add(entry);
    return [...own, ...moves].sort((a, b) => a.timestampMs - b.timestampMs || a.doc - b.doc);
  }
  if (slot.kind !== "preference" || slot.attribute === undefined || isWeakCategory(slot.attribute)) return [...own];
  const values = new Set(own.map((entry) => bare(entry.slot.value)));
  const elsewhere = new Set<string>();
  const weak: SlotEntry[] = [];
  const verbClass = verbClassOfCategory(slot.attribute);
  let sameVerbCategories = 0;
  for (const key of index.keysWithSubjectHead(slot.subject)) {
    const [kind, subject, attribute] = key.split("\u0000");
    if (kind !== "preference" || subject !== slot.subject || key === slot.key) continue;
    if (attribute.startsWith(WEAK_CATEGORY)) weak.push(...index.chain(key));
    else {
      for (const entry of index.chain(key)) elsewhere.add(bare(entry.slot.value));
      if (verbClass !== undefined && verbClassOfCategory(attribute) === verbClass) sameVerbCategories++;
    }
  }
  // The value tells the category: this slot held it, or some statement named it one of this category ("海苔" a 零食).
  const ofCategory = (value: string) => values.has(value) || index.isValueOfCategory(value, slot.attribute!);
  // Or the verb does, when this is the subject's only named category of that verb ("更喜欢读刘慈欣": the 作家).
  const byVerb = verbClass !== undefined && sameVerbCategories === 0 ? WEAK_CATEGORY + verbClass : undefined;
  const members = weak.filter((entry) => {
    if (elsewhere.has(bare(entry.slot.value))) return false;
    if (ofCategory(bare(entry.slot.value))) return true;
    if (entry.slot.attribute !== byVerb) return false;
    byVerbOnly.add(entry);
    return true;
  });
  if (verbClass !== undefined && sameVerbCategories > 0) {
    const ambiguous = weak.filter((entry) => entry.slot.attribute === WEAK_CATEGORY + verbClass && !members.includes(entry) && !elsewhere.has(bare(entry.slot.value)));
    if (ambiguous.length > 0) mayBelong.set(slot.key, ambiguous);
  }
  return [...own, ...members].sort((a, b) => a.timestampMs - b.timestampMs || a.doc - b.doc);
}

/**
 * "My grandma moved to Globex from Umbrella Labs": a person who moved to what some statement names as a
 * workplace changed jobs, not homes. Only people (someone with a workplace or a home on record) and only a
 * move, never "lives in"; a thing left at a company ("the laptop is at Initech") stays where it is.
 */
export function isMoveToWorkplace(index: SlotIndex, slot: StateSlot): boolean {
  if (slot.kind !== "location" || !index.isKnownValue("workplace", bare(slot.value))) return false;
  const subject = slot.subject;
  return index.chain(slotKey({ kind: "workplace", subject })).length > 0 || index.chain(slotKey({ kind: "location", subject })).some((e) => e.slot.kind === "residence");
}

function bare(value: string): string {
  return value.replace(/^¬/, "");
}

/**
 * A slot is asked about when the query names its subject (a phrase that is a head of the subject, not
 * inside a longer matching phrase) or, for the speaker's own slots, speaks in the first person or names no
 * other subject; a slot with an attribute also needs the attribute named. Naming a thing is not asking
 * about its state ("What did Jon do at his dance studio?"): the question words must point at the slot's
 * kind ("where", "when", "住", "工作", "多少"), except for a named contact field or preference category.
 * When question words point at some kinds, slots of other kinds are dropped.
 */
function askedSlots(index: SlotIndex, query: SlotQuery, timeline: boolean): AskedSlot[] {
  const subjectHits: QueryPhrase[] = [];
  const attributeHits: QueryPhrase[] = [];
  // One Han character names an attribute only in a question about counts or preferences ("几只猫", "哪种花").
  const singles = query.kinds.has("state") || query.kinds.has("preference");
  visitPhrases(query, (phrase) => {
    // A single Han character names a subject only when it is a relative ("我姐", "我妈"): a closed class.
    const weak = phrase.single && !isKinship(phrase.text);
    if (!weak && phrase.text !== SELF && index.keysWithSubjectHead(phrase.text).size > 0) subjectHits.push(phrase);
    if ((!phrase.single || singles) && index.keysWithAttributeHead(phrase.text).size > 0) attributeHits.push(phrase);
  });
  const bySubject = subjectMatches(index, subjectHits);
  const byAttribute = attributeMatches(index, query, attributeHits);
  // The speaker's own slots: asked in the first person ("我住在哪", "where do I live") or when the query names
  // nobody else ("手机号是多少"); "my aunt", "我姐" name someone else.
  const selfNamed = bySubject.size === 0 || query.firstPerson;
  const candidates = new Set([...bySubject.keys(), ...byAttribute.keys(), ...(selfNamed ? index.keysWithSubjectHead(SELF) : [])]);
  const fieldNamed = [...byAttribute.keys()].some((key) => key.startsWith("contact\u0000"));
  const asksAboutPeople = query.kinds.has("residence") || query.kinds.has("workplace") || query.kinds.has("contact");
  const scored: Array<{ slot: AskedSlot; score: number; fits: boolean; newest: number }> = [];
  for (const key of candidates) {
    const slot = parseSlotKey(key);
    const subjectScore = bySubject.get(key) ?? (slot.subject === SELF && selfNamed ? SELF_MATCH : 0);
    const attributeScore = byAttribute.get(key) ?? 0;
    // "怎么联系房东": a way to reach someone, no field named, asks for every contact field of theirs.
    // …of the person the query names: "How do I reach my dad" is not also the asker's own address.
    const anyField = slot.kind === "contact" && query.kinds.has("contact") && !fieldNamed && !(slot.subject === SELF && [...bySubject.keys()].some((k) => parseSlotKey(k).subject !== SELF));
    if (subjectScore === 0 || (slot.attribute !== undefined && attributeScore === 0 && !anyField)) continue;
    // "Every daily step goal reading I've had?": the speaker's own measure or count named exactly is asked, whatever the
    // question words (here "reading" would ask for a favourite book).
    const exact = slot.subject === SELF ? attributeScore >= 2 * ATTRIBUTE_BONUS : subjectScore >= EXACT_BONUS;
    // A history of what the query names exactly ("护照的存放记录", "the book club over the months") is that
    // thing's story, whatever kind its words suggest or leave out.
    const fits =
      asksForKind(slot, query.kinds) ||
      // …except that the words of a person's history choose among their home, job and contacts ("where she lived").
      (timeline && exact && !(asksAboutPeople && isPersonSlot(index, slot))) ||
      (slot.kind === "state" && slot.subject === SELF && query.firstPerson && attributeScore >= 2 * ATTRIBUTE_BONUS && isMeasured(index, key));
    // A query for how something is now ("我现在头发什么颜色", "What's the dentist appointment now?") asks about
    // what it names exactly, whatever its question words; a person named so is not asked where they live or work.
    const namedExactly = query.current && (slot.subject === SELF ? attributeScore >= 2 * ATTRIBUTE_BONUS : subjectScore >= EXACT_BONUS && !isPersonSlot(index, slot));
    if (!fits && !namedExactly && !(attributeScore > 0 && (slot.kind === "contact" || slot.kind === "preference"))) continue;
    const chain = index.chain(key);
    const score = subjectScore + attributeScore + (fitsSpecifically(slot, query.kinds) ? KIND_BONUS : 0);
    scored.push({
      slot: { ...slot, exact, score },
      score,
      fits,
      newest: chain[chain.length - 1]?.timestampMs ?? 0,
    });
  }
  const fitting = scored.filter((s) => s.fits);
  return (fitting.length > 0 ? fitting : scored)
    .sort((a, b) => b.score - a.score || b.newest - a.newest || (a.slot.key < b.slot.key ? -1 : 1))
    .slice(0, MAX_ASKED_SLOTS)
    .map((s) => s.slot);
}

/** Whether a state slot holds numbers ("12000 steps", "2"): a measure or a count, not a hair colour or a car. */
function isMeasured(index: SlotIndex, key: string): boolean {
  const chain = index.chain(key);
  return chain.length > 0 && /[0-9]/.test(chain[chain.length - 1].slot.value);
}

/** Whether a slot is about a person: where they live or work, or how to reach them. */
function isPersonSlot(index: SlotIndex, slot: AskedSlot): boolean {
  return slot.kind === "workplace" || slot.kind === "contact" || index.chain(slot.key).some((entry) => entry.slot.kind === "residence");
}

/** Whether a question word other than a bare "where" points at this slot's kind ("work", "live", "when"). */
function fitsSpecifically(slot: AskedSlot, kinds: ReadonlySet<SlotKind>): boolean {
  return slot.kind === "location" ? kinds.has("residence") : kinds.has(slot.kind);
}

/** Whether the query's question words point at this slot's kind. Where the speaker lives needs "住"/"live", not just "where". */
function asksForKind(slot: AskedSlot, kinds: ReadonlySet<SlotKind>): boolean {
  if (slot.kind === "location") return slot.subject === SELF ? kinds.has("residence") : kinds.has("location") || kinds.has("residence");
  return kinds.has(slot.kind);
}

/** Slot keys whose subject a query phrase names, with the strength of the best such phrase (its length, more when exact). */
function subjectMatches(index: SlotIndex, hits: readonly QueryPhrase[]): Map<string, number> {
  const found = new Map<string, number>();
  for (const hit of hits) {
    // "钥匙" inside "车钥匙" names only a slot whose subject is exactly 钥匙, not every kind of key ("家门钥匙").
    const inner = hits.some((o) => o !== hit && o.start <= hit.start && o.end >= hit.end && o.end - o.start > hit.end - hit.start);
    // "哥" inside "表哥" is not the brother.
    if (inner && hit.single) continue;
    for (const key of index.keysWithSubjectHead(hit.text)) {
      const exact = parseSlotKey(key).subject === hit.text;
      if (inner && !exact) continue;
      // "钥匙" inside "车钥匙" still asks about 钥匙, but does not name it exactly.
      found.set(key, Math.max(found.get(key) ?? 0, hit.end - hit.start + (exact && !inner ? EXACT_BONUS : 0)));
    }
  }
  return found;
}

/**
 * Slot keys whose attribute the query names, as a phrase or a canonical contact field or category, with the
 * strength of the naming: the attribute itself ("savings goal", "phone") beats its head ("goal" in "daily
 * step goal", "phone" in "work phone"), and a head inside a longer matching phrase does not count.
 */
function attributeMatches(index: SlotIndex, query: SlotQuery, hits: readonly QueryPhrase[]): Map<string, number> {
  const found = new Map<string, number>();
  const note = (key: string, exact: boolean) => found.set(key, Math.max(found.get(key) ?? 0, exact ? 2 * ATTRIBUTE_BONUS : ATTRIBUTE_BONUS));
  // "我的乌龟数量": a count word asks for the count of the thing named beside it, not for a slot of its own.
  const things = hits.filter((hit) => !COUNT_WORD.test(hit.text));
  for (const hit of things.length > 0 ? things : hits) {
    const inner = hits.some((o) => o !== hit && o.start <= hit.start && o.end >= hit.end && o.end - o.start > hit.end - hit.start);
    // "address" inside "email address" names the email, not the address.
    const within = query.attributeSpans.filter((span) => span.start <= hit.start && span.end >= hit.end && span.end - span.start > hit.end - hit.start);
    for (const key of index.keysWithAttributeHead(hit.text)) {
      if (within.some((span) => span.key !== parseSlotKey(key).attribute)) continue;
      const exact = parseSlotKey(key).attribute === hit.text;
      if (!inner || exact) note(key, exact);
    }
  }
  for (const attribute of query.attributes) for (const key of index.keysWithAttributeHead(attribute)) note(key, parseSlotKey(key).attribute === attribute);
  // "最爱喝哪种茶叶": the named 茶叶 outranks the drink that 喝 implies.
  for (const category of query.verbCategories) {
    for (const key of index.keysWithAttributeHead(category)) if (!found.has(key)) found.set(key, ATTRIBUTE_BONUS / 2);
  }
  return found;
}

function parseSlotKey(key: string): AskedSlot {
  const [kind, subject, attribute] = key.split("\u0000");
  return { key, kind: kind as SlotKind, subject, ...(attribute === "" ? {} : { attribute }) };
}

// The slot index: for every state slot (kind, subject, attribute), the statements that set it in time
// order, kept on write, forget and replay and rebuilt from records on checkpoint restore. Only statements
// with authority over a slot are here (see statementAuthority); quarantine is checked when it is read.
import { isWeakCategory } from "../statements/attributes";
import { isHead, predicateOf, type StateSlot } from "../statements/slots";

export interface SlotEntry {
  doc: number;
  timestampMs: number;
  slot: StateSlot;
}

/**
 * One slot's key: predicate (residence shares location's), subject and attribute as stored (the attribute is
 * "" when the subject itself changes). Two statements share a chain exactly when sameSlot holds for them.
 */
export function slotKey(slot: Pick<StateSlot, "kind" | "subject" | "attribute">): string {
  return `${predicateOf(slot.kind)}\u0000${slot.subject}\u0000${slot.attribute ?? ""}`;
}

export class SlotIndex {
  private readonly chains = new Map<string, SlotEntry[]>();
  /** Every head of every subject ("马克杯" for "蓝色马克杯", "key" for "car key") → the keys it names. */
  private readonly keysByHead = new Map<string, Set<string>>();
  private readonly keysByAttribute = new Map<string, Set<string>>();
  private readonly keysOfDoc = new Map<number, string[]>();
  /** Per predicate, how many indexed statements hold each value: the words a change of that kind is said with. */
  private readonly valuesByPredicate = new Map<string, Map<string, number>>();
  /** Per liked value, how many statements name it under each named preference category ("海苔" → snack). */
  private readonly categoriesByValue = new Map<string, Map<string, number>>();
  private readonly lexiconOfDoc = new Map<number, ReadonlyArray<readonly [string, string]>>();
  private statements = 0;

  /** Statements indexed, counting each (doc, slot) once. */
  get size(): number {
    return this.statements;
  }

  get slotCount(): number {
    return this.chains.size;
  }

  add(doc: number, timestampMs: number, slots: readonly StateSlot[]): void {
    if (slots.length === 0 || this.keysOfDoc.has(doc)) return;
    const keys: string[] = [];
    for (const slot of slots) {
      const key = slotKey(slot);
      if (keys.includes(key)) continue;
      keys.push(key);
      let chain = this.chains.get(key);
      if (!chain) {
        chain = [];
        this.chains.set(key, chain);
        for (const head of headsOf(slot.subject)) addTo(this.keysByHead, head, key);
        if (slot.attribute !== undefined) for (const head of headsOf(slot.attribute)) addTo(this.keysByAttribute, head, key);
      }
      insertInOrder(chain, { doc, timestampMs, slot });
      this.countValue(slot, 1);
      this.statements++;
    }
    this.keysOfDoc.set(doc, keys);
  }

  remove(doc: number): void {
    const pairs = this.lexiconOfDoc.get(doc);
    if (pairs) {
      this.lexiconOfDoc.delete(doc);
      for (const [value, category] of pairs) this.countCategory(value, category, -1);
    }
    const keys = this.keysOfDoc.get(doc);
    if (!keys) return;
    this.keysOfDoc.delete(doc);
    for (const key of keys) {
      const chain = this.chains.get(key)!;
      const at = chain.findIndex((entry) => entry.doc === doc);
      this.countValue(chain[at].slot, -1);
      chain.splice(at, 1);
      this.statements--;
      if (chain.length === 0) this.dropKey(key);
    }
  }

  /** Whether `doc` sets any slot (a statement with authority over the slots it states). */
  has(doc: number): boolean {
    return this.keysOfDoc.has(doc);
  }

  /** The statements of one slot, oldest first (ties by doc number). */
  chain(key: string): readonly SlotEntry[] {
    return this.chains.get(key) ?? [];
  }

  /** Keys whose subject has `head` as a head (equal, or `head` is the last word(s) of it). */
  keysWithSubjectHead(head: string): ReadonlySet<string> {
    return this.keysByHead.get(head) ?? EMPTY;
  }

  keysWithAttributeHead(head: string): ReadonlySet<string> {
    return this.keysByAttribute.get(head) ?? EMPTY;
  }

  /**
   * Notes what any statement, with authority over slots or not, says about which category a liked thing
   * belongs to ("你最喜欢的零食是海苔": 海苔 is a 零食). A fact about words, not about anyone's state.
   */
  noteStatement(doc: number, slots: readonly StateSlot[]): void {
    if (slots.length === 0 || this.lexiconOfDoc.has(doc)) return;
    const pairs = slots
      .filter((slot) => slot.kind === "preference" && slot.attribute !== undefined && !isWeakCategory(slot.attribute) && !slot.value.startsWith("¬"))
      .map((slot) => [slot.value, slot.attribute!] as const);
    if (pairs.length === 0) return;
    this.lexiconOfDoc.set(doc, pairs);
    for (const [value, category] of pairs) this.countCategory(value, category, 1);
  }

  private countCategory(value: string, category: string, delta: number): void {
    let categories = this.categoriesByValue.get(value);
    if (!categories) this.categoriesByValue.set(value, (categories = new Map()));
    bump(categories, category, delta);
    if (categories.size === 0) this.categoriesByValue.delete(value);
  }

  /** Whether some statement names `value` (without "¬") as a favourite of the named `category`, for any subject. */
  isValueOfCategory(value: string, category: string): boolean {
    return (this.categoriesByValue.get(value)?.get(category) ?? 0) > 0;
  }

  /** Whether some indexed statement of `predicate` (see predicateOf) holds `value`, as stored. */
  isKnownValue(predicate: string, value: string): boolean {
    return (this.valuesByPredicate.get(predicate)?.get(value) ?? 0) > 0;
  }

  private countValue(slot: StateSlot, delta: number): void {
    const predicate = predicateOf(slot.kind);
    let values = this.valuesByPredicate.get(predicate);
    if (!values) this.valuesByPredicate.set(predicate, (values = new Map()));
    const value = slot.value.replace(/^¬/, "");
    bump(values, value, delta);
  }

  private dropKey(key: string): void {
    this.chains.delete(key);
    const slot = parseKey(key);
    for (const head of headsOf(slot.subject)) removeFrom(this.keysByHead, head, key);
    if (slot.attribute !== undefined) for (const head of headsOf(slot.attribute)) removeFrom(this.keysByAttribute, head, key);
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** The phrase itself and every suffix of it that isHead accepts as naming the same thing. */
export function headsOf(phrase: string): string[] {
  const heads = [phrase];
  for (let i = 1; i < phrase.length; i++) {
    const suffix = phrase.slice(i);
    if (isHead(suffix, phrase)) heads.push(suffix);
  }
  return heads;
}

function parseKey(key: string): Pick<StateSlot, "subject" | "attribute"> {
  const [, subject, attribute] = key.split("\u0000");
  return { subject, attribute: attribute === "" ? undefined : attribute };
}

// Entries arrive in time order when turns are captured, so the common case is an append; imports of
// older memories insert by binary search.
function insertInOrder(chain: SlotEntry[], entry: SlotEntry): void {
  const after = (e: SlotEntry) => e.timestampMs > entry.timestampMs || (e.timestampMs === entry.timestampMs && e.doc > entry.doc);
  if (chain.length === 0 || !after(chain[chain.length - 1])) {
    chain.push(entry);
    return;
  }
  let lo = 0;
  let hi = chain.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (after(chain[mid])) hi = mid;
    else lo = mid + 1;
  }
  chain.splice(lo, 0, entry);
}

function bump(counts: Map<string, number>, key: string, delta: number): void {
  const count = (counts.get(key) ?? 0) + delta;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}

function addTo(map: Map<string, Set<string>>, head: string, key: string): void {
  let keys = map.get(head);
  if (!keys) map.set(head, (keys = new Set()));
  keys.add(key);
}

function removeFrom(map: Map<string, Set<string>>, head: string, key: string): void {
  const keys = map.get(head);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) map.delete(head);
}

// A change the slot grammar could not read: the newest statement, newer than an asked slot's head, that
// names the slot's subject (and attribute) with a word of its kind and sets no other slot. People state a
// change in more ways than any grammar reads ("帐篷嘛，最后塞进了车库的架子上"); that such a statement came
// later is the evidence that it is the newer state, so latest mode shows it before the head it follows.
// Found through the lexical index's postings of the subject's words, never by a corpus scan.
import { documentTerms } from "../index/analyze";
import type { Bm25Index } from "../index/bm25";
import { holdsKnownValue, holdsNumber, mayBeSelf, mentionText, namesAttribute, namesContactField, namesOthers, namesSubject, ownedByOthers, searchPhrases, showsKind } from "../statements/mentions";
import { predicateOf, SELF, type StateSlot } from "../statements/slots";
import type { SpeechAct } from "../statements/speech-acts";
import { hasSlotAuthority } from "./record-statements";
import type { MemoryRecord } from "./records";
import type { SlotEntry, SlotIndex } from "./slot-index";
import { isMoveToWorkplace, type AskedSlot } from "./slot-recall";

// A subject's postings are read whole, but only this many of the statements among them are read in full.
const MAX_CHECKED = 64;
// Kinds whose values are open-class words (places, employers, liked things): a new value is recognised by
// having been one before, somewhere in the index. Times, numbers and contact data are recognised by shape.
const NEEDS_KNOWN_VALUE: ReadonlySet<string> = new Set(["location", "workplace", "preference"]);

export interface MentionView {
  readonly bm25: Bm25Index;
  readonly slotIndex: SlotIndex;
  record(doc: number): MemoryRecord | undefined;
  slots(doc: number): StateSlot[];
  act(doc: number): SpeechAct;
}

/** The newest usable statement newer than `head` that names `asked` without setting another slot, or undefined. */
export function newerMention(view: MentionView, asked: AskedSlot, head: SlotEntry, usable: (doc: number) => boolean): number | undefined {
  return mentionsOf(view, asked, usable, 1, head.timestampMs)[0];
}

/**
 * Up to `limit` usable statements that name `asked` without setting another slot, written after `afterMs`,
 * newest first: for timeline mode, the states a slot went through in words the grammar could not read.
 */
export function mentionsOf(view: MentionView, asked: AskedSlot, usable: (doc: number) => boolean, limit: number, afterMs = -Infinity): number[] {
  const docs = new Set<number>();
  for (const phrase of searchPhrases(asked.subject, asked.attribute)) for (const doc of view.bm25.docsWithAll(documentTerms(phrase))) docs.add(doc);
  const candidates = [...docs]
    .filter((doc) => (view.record(doc)?.timestamp_ms ?? -Infinity) > afterMs)
    .sort((a, b) => view.record(b)!.timestamp_ms - view.record(a)!.timestamp_ms || b - a);
  const names = slotNamer(view, asked);
  const found: number[] = [];
  // Questions, replies and other slots' statements are passed over cheaply; only statements that may name
  // the slot are read in full, at most MAX_CHECKED of them.
  let read = 0;
  for (const doc of candidates) {
    if (!usable(doc) || !maySetSlot(view, doc, asked)) continue;
    if (++read > MAX_CHECKED) break;
    if (names(doc)) found.push(doc);
    if (found.length >= limit) break;
  }
  return found;
}

/** The test a statement passes when it names `asked`: see the file comment. */
function slotNamer(view: MentionView, asked: AskedSlot): (doc: number) => boolean {
  const isOtherName = (phrase: string) => phrase !== asked.subject && [...view.slotIndex.keysWithSubjectHead(phrase)].some((key) => key.split("\u0000")[1] === phrase);
  // A person's slot (where they live or work, their contact data) may be told by anyone; a thing's by its owner.
  const isPerson = asked.kind === "workplace" || asked.kind === "contact" || view.slotIndex.chain(asked.key).some((entry) => entry.slot.kind === "residence");
  const predicate = predicateOf(asked.kind);
  const isKnownValue = (phrase: string) => phrase !== asked.subject && view.slotIndex.isKnownValue(predicate, phrase);
  return (doc) => {
    const record = view.record(doc)!;
    if (!maySetSlot(view, doc, asked)) return false;
    const text = mentionText(record.text);
    if (!namesSubject(text, asked.subject, isOtherName)) return false;
    if (asked.attribute !== undefined ? !namesAttribute(text, asked.attribute) : asked.kind !== "contact" && namesContactField(text)) return false;
    if (asked.subject === SELF ? !mayBeSelf(text) : !isPerson && namesOthers(text)) return false;
    if (!showsKind(text, asked.kind)) return false;
    // The value must be one a statement of this kind has held: a time, number or contact datum has its own shape.
    if (NEEDS_KNOWN_VALUE.has(predicate) && !holdsKnownValue(text, isKnownValue)) return false;
    return predicate !== "state" || holdsNumber(text) || holdsKnownValue(text, isKnownValue);
  };
}

/** Only a statement with authority over slots that sets no other slot may name one the grammar could not read. */
function maySetSlot(view: MentionView, doc: number, asked: AskedSlot): boolean {
  const record = view.record(doc);
  // An assistant repeating a stale recall must not pass for a change.
  return (
    record !== undefined &&
    hasSlotAuthority(record.source_type) &&
    view.act(doc) === "statement" &&
    setsNoOtherSlot(view.slots(doc), asked) &&
    // "My grandma moved to Globex": a move to a workplace is a job, not a home.
    !(predicateOf(asked.kind) === "location" && view.slots(doc).some((slot) => isMoveToWorkplace(view.slotIndex, slot)))
  );
}

/** A statement the grammar read as another slot is about that slot; one read as this slot's kind with a longer-cut subject is not. */
function setsNoOtherSlot(slots: readonly StateSlot[], asked: AskedSlot): boolean {
  return slots.every(
    (slot) => predicateOf(slot.kind) === predicateOf(asked.kind) && slot.attribute === asked.attribute && (slot.subject === asked.subject || (asked.subject !== SELF && slot.subject.includes(asked.subject))),
  );
}

// A thing's story (bought, broke, repaired) has no slot; a timeline query naming it ("the history of my green
// alarm clock") still wants every statement naming it. Phrases tried, longest first: Han runs of 3 to 8
// characters, English runs of 2 to 4 words; one that at least two statements name, and no more than 50
// memories or one in 50, is the thing.
const MIN_PHRASE_DOCS = 2;
const MAX_PHRASE_SHARE = 1 / 50;
const MAX_PHRASE_DOCS = 50;
const MAX_PHRASES_TRIED = 120;

/** For timeline mode without an asked slot: the newest `limit` statements naming the thing the query names, or []. */
export function thingMentions(view: MentionView, query: string, usable: (doc: number) => boolean, limit: number): number[] {
  const text = mentionText(query);
  for (const phrase of objectPhrases(text).slice(0, MAX_PHRASES_TRIED)) {
    const docs = view.bm25.docsWithAll(documentTerms(phrase));
    if (docs.length < MIN_PHRASE_DOCS || docs.length > Math.max(MAX_PHRASE_DOCS, view.bm25.size * MAX_PHRASE_SHARE)) continue;
    const naming = docs.filter((doc) => {
      const record = view.record(doc);
      if (!record || !usable(doc) || !hasSlotAuthority(record.source_type) || view.act(doc) !== "statement") return false;
      const said = mentionText(record.text);
      return said.includes(phrase) && !ownedByOthers(said, phrase);
    });
    if (naming.length < MIN_PHRASE_DOCS) continue;
    const time = (doc: number) => view.record(doc)!.timestamp_ms;
    return naming.sort((a, b) => time(b) - time(a) || b - a).slice(0, limit);
  }
  return [];
}

function objectPhrases(text: string): string[] {
  const phrases: string[] = [];
  for (const run of text.match(/\p{Script=Han}+/gu) ?? []) {
    for (let length = Math.min(8, run.length); length >= 3; length--) for (let i = 0; i + length <= run.length; i++) phrases.push(run.slice(i, i + length));
  }
  const words = (text.match(/[a-z0-9][a-z0-9'-]*/g) ?? []).filter((w) => !/^(?:my|our|the|a|an|of|in|on|to|and|me|tell|what|how|has|have|with|over|time|order|history|happened)$/.test(w));
  for (let n = 4; n >= 2; n--) for (let i = 0; i + n <= words.length; i++) phrases.push(words.slice(i, i + n).join(" "));
  return phrases.sort((a, b) => b.length - a.length);
}

// English state-slot patterns for one statement clause: who lives or works where, preferences, counts,
// contact fields and event times first (slots-en-kinds.ts), then where a thing is ("X is in Y",
// "put/moved/parked X in/to Y", active and passive) and other state changes ("X changed to Y", "my A is Y").
import { contactField, normaliseContactValue } from "./attributes";
import { expandContractions, hasPossessivePronoun, normalisePerson, normaliseSubject, normaliseValue, stripPossessive } from "./en-phrases";
import type { StateSlot } from "./slots";
import { type Match, matchContact, matchPreference, matchQuantity, matchResidence, matchSchedule, matchWorkplace } from "./slots-en-kinds";
import { SELF } from "./zh-phrases";

// Closed grammatical sets only: copulas, placement verbs, prepositions, determiners. "set" is
// a change verb only, since "set the alarm to 7am" would otherwise read as a placement.
const PREP = "(?:in front of|on top of|next to|inside of|inside|underneath|under|beneath|behind|beside|near|within|in|on|at|into|onto)";
const BE = "(?:is|are|am)";
const STILL = "(?:\\s+(?:now|still|currently|already|always|usually))*";
const PLACE_VERB =
  "(?:put|puts|placed|place|places|moved|move|moves|left|leave|leaves|kept|keep|keeps|stored|store|stores|hid|hidden|hide|hides|parked|park|parks|stashed|stash|tucked|dropped|locked)";
const CHANGE_VERB = "(?:changed|changes|switched|switches|updated|updates)";

// Past-tense copulas ("were in the drawer") are left out: they describe a former state,
// and a newer memory saying where something used to be must not supersede where it is.
const COPULA = new RegExp(`^(.+?)\\s+${BE}${STILL}\\s+${PREP}\\s+(.+)$`);
// One optional actor word ("i", "we", "tom"), or none for the imperative "put the keys in…".
const ACTIVE_PLACE = new RegExp(
  `^(?:[a-z'-]+\\s+)?(?:(?:have|has|had|just|already|finally|also)\\s+)*${PLACE_VERB}\\s+(.+?)\\s+(?:back\\s+)?(?:${PREP}|to)\\s+(.+)$`,
);
const PASSIVE_PLACE = new RegExp(
  `^(.+?)\\s+(?:is|are|was|were|has been|have been|got|gets)(?:\\s+(?:now|just|already))*\\s+${PLACE_VERB}\\s+(?:back\\s+)?(?:${PREP}|to)\\s+(.+)$`,
);
const MOVED_TO = /^(.+?)\s+(?:has\s+|have\s+)?moved\s+(?:back\s+)?to\s+(.+)$/;
const ACTIVE_CHANGE = new RegExp(
  `^(?:[a-z'-]+\\s+)?(?:(?:have|has|had|just|finally)\\s+)*(?:${CHANGE_VERB}|set)\\s+(.+?)\\s+to\\s+(.+)$`,
);
const CHANGED_TO = new RegExp(`^(.+?)\\s+(?:(?:has|have|was|were|is|are|got)\\s+)?(?:been\\s+)?${CHANGE_VERB}\\s+(?:to|into)\\s+(.+)$`);
const NOW_IS = /^(.+?)\s+(?:is|are)\s+now\s+(.+)$/;
// A bare "X is Y" is mostly description ("the mug is blue"); it counts as a state only for an
// owned attribute ("my phone number is…", "tom's address is…").
const OWNED_IS = /^((?:my|our|your|his|her|their)\s+.+?|.+?'s\s+.+?)\s+(?:is|are)\s+(.+)$/;

const NEGATION = /n't\b|\bnot\b|\bnever\b|\bno longer\b|\bnowhere\b/;
const LEADING_FILLER =
  /^(?:(?:and|but|so|then|today|yesterday|now|later|finally|also|earlier|tonight|this morning|last night|these days|nowadays|lately|recently|at the moment|currently|from now on|as of today|starting today)\s+)+/;

const MATCHERS: Array<(text: string) => Match> = [matchResidence, matchWorkplace, matchPreference, matchQuantity, matchContact, matchSchedule, matchLocation, matchState];

/** The one slot an English statement clause asserts, or undefined for actions and negations. */
export function extractEnglishSlot(clause: string): StateSlot | undefined {
  const text = expandContractions(clause).replace(/\s+/g, " ").trim().replace(LEADING_FILLER, "");
  // A negation asserts no new value, except the one retraction a preference can make ("I don't drink coffee anymore").
  if (NEGATION.test(text)) return matchPreference(text) ?? undefined;
  for (const match of MATCHERS) {
    const found = match(text);
    if (found !== undefined) return found ?? undefined;
  }
  return undefined;
}

function matchLocation(text: string): Match {
  const place = ACTIVE_PLACE.exec(text) ?? PASSIVE_PLACE.exec(text) ?? MOVED_TO.exec(text) ?? COPULA.exec(text);
  return place ? locationSlot(place[1], place[2]) : undefined;
}

function matchState(text: string): Match {
  const change = ACTIVE_CHANGE.exec(text) ?? CHANGED_TO.exec(text) ?? NOW_IS.exec(text) ?? OWNED_IS.exec(text);
  return change ? stateSlot(change[1], change[2]) : undefined;
}

function locationSlot(rawSubject: string, rawPlace: string): StateSlot | undefined {
  const subject = normaliseSubject(rawSubject);
  const value = normaliseValue(rawPlace);
  return subject && value ? { kind: "location", subject, value } : undefined;
}

function stateSlot(rawSubject: string, rawValue: string): StateSlot | undefined {
  const phrase = rawSubject.trim();
  const value = normaliseValue(rawValue);
  const owned = phrase.lastIndexOf("'s ");
  // "tom's phone number": the owner is tom; "my weight": the speaker; "the printer": the thing itself.
  const rawOwner = owned > 0 ? phrase.slice(0, owned) : hasPossessivePronoun(phrase) ? phrase.split(" ")[0] : "";
  const attribute = normaliseSubject(owned > 0 ? phrase.slice(owned + 3) : stripPossessive(phrase));
  const owner = rawOwner === "" ? "" : normalisePerson(rawOwner);
  if (!attribute || !value || owner === null) return undefined;
  const field = contactField(attribute);
  if (field) return { kind: "contact", subject: owner || SELF, attribute: field, value: normaliseContactValue(field, value) };
  return owner === "" ? { kind: "state", subject: attribute, value } : { kind: "state", subject: owner, attribute, value };
}

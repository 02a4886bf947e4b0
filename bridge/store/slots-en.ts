// English state-slot patterns: "X is (now) in/on/at Y", "put/moved/parked X in/to Y" (active
// and passive), "X moved to Y", and state changes ("X changed to Y", "X is now Y", "my A is Y").

import type { StateSlot } from "./slots";

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
const LEADING_FILLER = /^(?:(?:and|but|so|then|today|yesterday|now|later|finally|also|earlier|tonight|this morning|last night)\s+)+/;
const DETERMINERS = /^(?:(?:the|a|an|my|our|your|his|her|their|its|this|that|these|those|some|all|both)\s+)+/;
const TRAILING_TIME = /(?:\s+(?:now|today|yesterday|tonight|again|already|still|instead|too|for now|right now|as well))+$/;
const POSSESSIVE_PRONOUN = /^(?:my|our|your|his|her|their)\s+/;
// Pronouns cannot be resolved across memories ("it", "he" name different things in different
// turns), so a pronoun subject asserts nothing. This is also why "I am in a good mood" is no slot.
const PRONOUN = /^(?:i|me|you|he|she|it|we|they|him|her|us|them|this|that|there|here|everything|something|nothing)$/;

/** The one slot an English clause asserts, or undefined for actions and negations. */
export function extractEnglishSlots(clause: string): StateSlot | undefined {
  const text = clause.replace(/[\u2018\u2019]/g, "'").replace(/\s+/g, " ").trim().replace(LEADING_FILLER, "");
  if (NEGATION.test(text)) return undefined;
  const place = ACTIVE_PLACE.exec(text) ?? PASSIVE_PLACE.exec(text) ?? MOVED_TO.exec(text) ?? COPULA.exec(text);
  if (place) return locationSlot(place[1], place[2]);
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
  if (owned > 0) {
    // "tom's phone number": the owner is the thing, the rest the attribute that changes.
    const subject = normaliseSubject(phrase.slice(0, owned));
    const attribute = normaliseSubject(phrase.slice(owned + 3));
    return subject && attribute && value ? { kind: "state", subject, attribute, value } : undefined;
  }
  // A pronoun owner is the speaker or someone unresolvable, so the attribute alone names the
  // slot, matching the same attribute stated with no owner at all.
  const attribute = normaliseSubject(phrase.replace(POSSESSIVE_PRONOUN, ""));
  return attribute && value ? { kind: "state", subject: attribute, attribute, value } : undefined;
}

function normaliseSubject(raw: string): string {
  const phrase = raw.replace(TRAILING_TIME, "").replace(DETERMINERS, "").trim();
  if (PRONOUN.test(phrase)) return "";
  // Singular and plural name the same thing ("key"/"keys"); only the head word is folded,
  // and only a plain -s, which is enough for matching and never merges different heads.
  return phrase.replace(/([a-z]{3})s$/, (whole, stem: string) => (stem.endsWith("s") ? whole : stem));
}

function normaliseValue(raw: string): string {
  return raw.replace(TRAILING_TIME, "").replace(DETERMINERS, "").trim();
}

// English frames and open values (see frames.ts): "the keys aren't in the drawer anymore" / "Flight to
// Denver got delayed" / "Mom got a new WhatsApp number" name what changed; "they're in my jacket pocket" /
// "now departing at 9pm" / "he's at Wells Fargo now" / "+44 7700 900456" give only the new value.
import { contactField, normaliseContactValue, preferenceCategory } from "./attributes";
import { normalisePerson, normaliseSubject, normaliseTime, normaliseValue } from "./en-phrases";
import type { OpenValue, SlotFrame } from "./frames";
import type { SlotKind } from "./slots";
import { isTimeExpression } from "./time-expressions";
import { SELF } from "./zh-phrases";

const CONTACT_WORD = "(work phone number|work phone|work number|office phone|office number|desk phone|extension|phone number|mobile number|cell number|number|phone|cell|email address|e-mail address|email|e-mail|address|whatsapp number|whatsapp|wechat|telegram|signal)";
const AUX = "(?:\\s+(?:has|have|had|got|gets|is|was|were|are|just|finally|again|officially))*";
const SCHEDULE_CHANGE = "(?:rescheduled|postponed|delayed|pushed back|pushed|moved|bumped|cancelled|canceled|changed|shifted|rebooked)";
const CHANGED = new RegExp(`^(.+?)${AUX}\\s+${SCHEDULE_CHANGE}(?:\\s+(?:again|yet again|once more|around|up|back))*$`);
const NOT_THERE = /^(.+?)\s+(?:is|are)\s*(?:n't|not|no longer)\s+(?:(?:in|on|at|under|inside|with|by)\s+.+|where (?:it|they) used to be|in (?:its|their) (?:old|usual) (?:spot|place))$/;
// "I have a different number of tortoises now", "my tortoises count shifted again": a count whose value follows.
const COUNT_CHANGED_EN = /^(?:(?:i have|i've got|i've|we have) a (?:different|new) number of (.+?)|my (.+?) count (?:shifted|changed|moved)(?: again)?)(?:\s+now)?$/;
// "Not into my old favourite any more": a favourite changed, the new one follows.
const OLD_FAVOURITE_GONE = /^(?:i'm |i am )?not (?:into|keen on|a fan of) my (?:old|previous|usual) (?:favou?rite|one|pick)(?: any ?more)?$/;
const NEW_CONTACT = new RegExp(`^(.+?)${AUX}\\s+(?:got|has|have|now has|switched to|changed|moved to|uses|is using|now uses)\\s+(?:a\\s+)?new\\s+${CONTACT_WORD}s?$`);
const SWITCHED = new RegExp(`^(.+?)${AUX}\\s+(?:switched|changed)\\s+${CONTACT_WORD}(?:es|s)?$`);
const OWN_CONTACT_CHANGED = new RegExp(`^(.+?)'s\\s+(?:new\\s+)?${CONTACT_WORD}\\s+(?:has\\s+|just\\s+)?changed(?:\\s+again)?$`);
const NEW_JOB = /^(.+?)(?:\s+(?:has|have|just|finally|recently))*\s+(?:switched jobs|changed jobs|got a new job|started a new job|quit|left (?:his|her|their|my) job|left [a-z][a-z ]*)$/;
const MOVED_HOUSE = /^(.+?)(?:\s+(?:has|have|just|finally|recently))*\s+(?:moved (?:house|out|again)|relocated)$/;
// "put the passport away", "took my keys with me": the thing moved; where to comes next ("it's in the cabinet").
const MOVED_THING = /^(?:i\s+|we\s+)?(?:just\s+)?(?:put|took|moved|brought|packed|grabbed|got)\s+(.+?)\s+(?:away|back|out|home|with me|along)(?:\s+from\s+\S+)?$/;
// "my number changed again", "our address is different now".
const OWN_CHANGED = new RegExp(`^(my|our|[a-z]+'s)\\s+(?:new\\s+)?${CONTACT_WORD}\\s+(?:has\\s+|just\\s+)?(?:changed|is different)(?:\\s+again|\\s+now)*$`);

const OPEN_PRONOUN_PLACE = /^(?:it|they|it is|they are|it's|they're|i am|we are|i'm|we're)(?:\s+(?:now|still|currently|living|based|staying|settled))*\s+((?:in|on|at|under|inside|behind|beside|next to|with|by)\s+.+)$/;
// A place phrase on its own after a topic: "Grandma's ring? On my finger", "…, next to the kettle".
const OPEN_BARE_PLACE = /^((?:in|on|at|under|inside|behind|beside|next to|with|by)\s+(?:the|my|his|her|their|our|a|an)\s+.+?)(?:\s+now|,.*)?$/;
const OPEN_OBJECT_PLACE = /^(?:i\s+|we\s+)?(?:just\s+|then\s+|also\s+)?(?:put|hid|left|moved|stashed|keep|kept|stored|tucked|locked|placed|dropped)\s+(?:it|them)\s+(?:back\s+)?((?:in|on|at|under|inside|behind|into|onto|to)\s+.+)$/;
const OPEN_TIME = /^(?:(?:it|it's|it is|now|and)\s+)*(?:departing|leaving|starting|taking off|landing|happening|set|scheduled|moved|pushed|rescheduled)?\s*(?:to|for|at|on)?\s*(.+?)(?:\s+now|\s+instead|\s+after all|\s+then)?$/;
const OPEN_AT = /^(?:he|she|they|he's|she's|they're|he is|she is|they are)(?:\s+(?:now|currently))*\s+(?:at|with|working at|working for|employed at)\s+(.+?)(?:\s+now)?$/;
const OPEN_CONTACT = /^(?:(?:use|it's|it is|now|the new one is|new one is)\s+)*([+(]?[0-9][0-9\s\-().]{5,}[0-9]|[^\s@]+@[^\s@]+\.[a-z]{2,})(?:\s+now|\s+from now on)?$/;

// "counted them today": a count whose noun and number follow ("12 plants").
const COUNTED = /^(?:i\s+|we\s+)?(?:just\s+)?(?:counted|recounted|re-counted|tallied|did a (?:count|recount|tally|headcount))(?:\s+(?:them|it|up|again|everything|today|tonight|this morning|this evening))*$/;
// "favourite band has changed again", "my favourite colour": a preference whose new value follows.
// "if I had to pick a tea now": the favourite of that category follows ("it'd be jasmine").
const IF_I_PICKED = /^if i (?:had|have|were|was) to (?:pick|choose|name|go with) (?:a |an |one |my )?(?:favou?rite\s+)?([a-z]+(?: (?!now\b|today\b|these\b|right\b)[a-z]+)?)(?:\s+(?:now|today|these days|right now))?$/;
const FAVOURITE_FRAME = /^(?:(my|our|[a-z]+'s)\s+)?(?:new\s+|current\s+)?favou?rite\s+([a-z]+(?: (?!has\b|have\b|changed\b|switched\b|again\b|now\b)[a-z]+)?)(?:\s+(?:has|have))?(?:\s+(?:changed|switched))?(?:\s+(?:again|now|these days|lately))*$/;
// "marco has moved on again", "last i heard from raj": a named person the next clause's he/she is about.
const PERSON_FIRST = /^([a-z]+(?: [a-z]+)?)(?:'s\s+(?:moved|gone|left|got|been|just|finally|recently)|\s+(?:has|have|had|is|was|got|just|finally|recently|went|moved|left|quit))\b/;
const HEARD_FROM = /\b(?:heard from|talked to|spoke to|spoke with|caught up with|chatted with)\s+([a-z]+)$/;
// "it's all green tea now", "fleetwood mac": a preference's new value after a frame that named the preference.
const OPEN_PREFERENCE = /^(?:(?:it's|it is|now it's|now it is|it is now|it's now|it would be|it'd be|i would go with|i'd go with|i would pick|i'd pick|i would say|i'd say)(?:\s+all)?\s+)?([a-z][a-z' &-]{1,40}?)(?:\s+(?:now|these days|lately|again|weirdly|honestly|actually|all the way|hands down|for me))*$/;

// "correction on the camping tent", "update on the dentist": the subject of what follows.
const ABOUT = /^(?:correction|update|news|change|heads up)\s+(?:on|about|re|for)\s+(.+?)(?::.*)?$/;
// A clause that is only a noun phrase ("mum's flight", "the standup") names the topic of the next.
const NOUN_PHRASE = /^(?:the|my|our|[a-z]+'s)\s+[a-z][a-z' -]*$/;

export function frameOfEnglish(text: string): SlotFrame | undefined {
  const counted = COUNT_CHANGED_EN.exec(text);
  if (counted) {
    const noun = normaliseSubject(counted[1] ?? counted[2]);
    if (noun) return { subject: SELF, kind: "state", attribute: noun };
  }
  if (COUNTED.test(text)) return { subject: SELF, kind: "state" };
  const picked = IF_I_PICKED.exec(text);
  if (picked) return { subject: SELF, kind: "preference", attribute: preferenceCategory(picked[1]) };
  const favourite = FAVOURITE_FRAME.exec(text);
  if (favourite) {
    const owner = normalisePerson((favourite[1] ?? "my").replace(/'s$/, ""));
    return owner === null ? undefined : { subject: owner || SELF, kind: "preference", attribute: preferenceCategory(favourite[2]) };
  }
  const about = ABOUT.exec(text);
  if (about && normaliseSubject(about[1])) return { subject: normaliseSubject(about[1]) };
  // "marco's moved on again" is marco having moved on, not a thing called "marco's moved on".
  const acted = /^([a-z]+)'s\s+(?:moved|gone|left|got|been)\b/.exec(text);
  const actor = acted ? normalisePerson(acted[1]) : null;
  if (actor && actor !== SELF) return { subject: actor };
  const contact = NEW_CONTACT.exec(text) ?? SWITCHED.exec(text) ?? OWN_CONTACT_CHANGED.exec(text) ?? OWN_CHANGED.exec(text);
  if (contact) {
    const owner = normalisePerson(contact[1].replace(/'s$/, ""));
    const field = contactField(contact[2].replace(/^whatsapp(?: number)?$/, "whatsapp")) ?? contact[2];
    return owner === null ? undefined : { subject: owner || SELF, kind: "contact", attribute: field };
  }
  const job = NEW_JOB.exec(text);
  if (job) {
    const person = normalisePerson(job[1]);
    return person === null ? undefined : { subject: person || SELF, kind: "workplace" };
  }
  const moved = MOVED_HOUSE.exec(text);
  if (moved && normalisePerson(moved[1])) return { subject: normalisePerson(moved[1])!, kind: "residence" };
  const thing = MOVED_THING.exec(text);
  if (thing && normaliseSubject(thing[1])) return { subject: normaliseSubject(thing[1]), kind: "location" };
  const changed = CHANGED.exec(text);
  if (changed) {
    const subject = normaliseSubject(changed[1]);
    return subject ? { subject, kind: "schedule" as SlotKind } : undefined;
  }
  if (OLD_FAVOURITE_GONE.test(text)) return { subject: SELF, kind: "preference", attribute: "~" };
  const away = NOT_THERE.exec(text);
  const subject = away ? normaliseSubject(away[1]) : "";
  if (subject) return { subject, kind: "location" };
  // Weakest last: a clause that reads as a bare noun phrase may still be "my number changed again".
  if (NOUN_PHRASE.test(text) && text.split(" ").length <= 4 && normaliseSubject(text)) return { subject: normaliseSubject(text) };
  const named = HEARD_FROM.exec(text) ?? PERSON_FIRST.exec(text);
  const person = named ? normalisePerson(named[1]) : null;
  return person && person !== SELF ? { subject: person } : undefined;
}

/** A preference's value said on its own, read only under a frame that named the preference. */
export function openPreferenceOfEnglish(text: string): OpenValue | undefined {
  const open = OPEN_PREFERENCE.exec(text);
  // A lone adverb ("weirdly", "honestly") comments on the value; it is not one.
  if (!open || /\b(?:i|we|you|he|she|they|is|are|was|am|have|has|not)\b/.test(open[1]) || /^[a-z]+ly$/.test(open[1]) || open[1].split(" ").length > 5) return undefined;
  return { kinds: ["preference"], value: normaliseValue(open[1]) };
}

export function openValueOfEnglish(text: string): OpenValue | undefined {
  const contact = OPEN_CONTACT.exec(text);
  if (contact) {
    const field = contact[1].includes("@") ? "email" : "phone";
    return { kinds: ["contact"], attribute: field, value: normaliseContactValue(field, contact[1]) };
  }
  const time = OPEN_TIME.exec(text);
  if (time && isTimeExpression(normaliseTime(time[1]))) return { kinds: ["schedule"], value: normaliseTime(time[1]) };
  const at = OPEN_AT.exec(text);
  if (at) return { kinds: ["workplace", "location"], value: normaliseValue(at[1]) };
  const placed = OPEN_PRONOUN_PLACE.exec(text) ?? OPEN_OBJECT_PLACE.exec(text) ?? OPEN_BARE_PLACE.exec(text);
  return placed ? { kinds: ["location"], value: normaliseValue(placed[1].replace(/^(?:in|on|at|into|onto|to|inside)\s+/, "")) } : undefined;
}

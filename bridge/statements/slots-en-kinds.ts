// English patterns for what people state about people: where someone lives or works, a preference, a
// contact field (events, counts and measures are in slots-en-events.ts). Each returns undefined when it
// does not apply and null when it applies but asserts nothing (an unresolvable pronoun).
import { contactField, isKnownCategory, normaliseContactValue, preferenceCategory, weakCategory } from "./attributes";
import { FAVOURITE_EN, RESIDENCE_LIVE_EN, WORK_EN } from "./cues-en";
import { normalisePerson, normaliseSubject, normaliseValue } from "./en-phrases";
import type { StateSlot } from "./slots";
import { isTimeExpression } from "./time-expressions";
import { SELF } from "./zh-phrases";

export type Match = StateSlot | null | undefined;

export const ADV = "(?:\\s+(?:now|currently|still|also|just|recently|finally|officially|already|actually|really|mostly|usually|part-time|full-time|again))*";
export const AUX = "(?:\\s+(?:am|are|is|was|were|have|has|had|got|gets|will be|have been|has been|had been))?";
const MOVE_HOUSE = new RegExp(`^(.*?)${AUX}${ADV}\\s*\\b(?:moved|relocated|downsized|retired|emigrated|made the move|made a move)(?:\\s+house)?\\s+(?:back\\s+|over\\s+|out\\s+)?(?:from\\s+.+?\\s+)?(?:to|into)\\s+(.+)$`);
const MOVED_OUT_INTO = new RegExp(`^(.*?)${AUX}${ADV}\\s*\\bmoved out of\\s+.+?\\s+(?:and\\s+)?into\\s+(.+)$`);
// "she's living with my aunt in kent": who with is not where.
const LIVE_IN = new RegExp(`^(.+?)${AUX}${ADV}\\s+${RESIDENCE_LIVE_EN}${ADV}(?:\\s+with\\s+(?:my|his|her|their|our)?\\s*[a-z']+)?\\s+(?:in|at|on)\\s+(.+)$`);
// "new place is 18 oak avenue", "our new home is the riverside apartments".
const NEW_HOME = /^(?:(my|our|(?:my\s+|our\s+)?[a-z]+'s)\s+)?(?:new\s+)?(?:place|home|house|flat|apartment)\s+is(?:\s+now)?\s+(?:in\s+|at\s+)?(.+)$/;
const WORK_AT = new RegExp(`^(.*?)${AUX}${ADV}\\s*\\b${WORK_EN}${ADV}\\s+(?:at|for|with|by)\\s+(.+)$`);
const NEW_JOB = new RegExp(
  `^(.*?)${AUX}${ADV}\\s*\\b(?:started|got|took|taken|accepted|landed|found|secured|has|have)\\s+(?:a\\s+|an\\s+|the\\s+|her\\s+|his\\s+|their\\s+|my\\s+)?(?:new\\s+)?(?:part-time\\s+|full-time\\s+|permanent\\s+|summer\\s+|temporary\\s+)?(?:job|position|role|post|internship|placement)(?:\\s+as\\s+(?:a\\s+|an\\s+)?[a-z ]+?)?\\s+(?:at|with)\\s+(.+)$`,
);
// Taken on by an employer: "ben got poached by monzo", "priya has been hired by a private clinic".
const HIRED_BY = new RegExp(`^(.*?)${AUX}${ADV}\\s*\\b(?:(?:got|been|was|were|is)\\s+)?(?:poached|hired|headhunted|recruited|snapped up|taken on)\\s+by\\s+(.+)$|^(.*?)${AUX}${ADV}\\s*\\bsigned\\s+(?:on\\s+)?with\\s+(.+)$`);
const LEFT_FOR = new RegExp(`^(.*?)${AUX}${ADV}\\s*\\b(?:left|quit)\\s+.+?\\s+(?:and|to)\\s+(?:joined|join|went to|moved to|started at|start at|is at|is now at|is with)\\s+(.+?)(?:\\s+now)?$`);
const JOINED = new RegExp(`^(.*?)${AUX}${ADV}\\s*\\b(?:joined|switched jobs to|moved jobs to|jumped ship to|transferred to|got transferred to|got hired by|was hired by|got hired at|started at|is starting at|jumped to|hopped over to|hopped to)\\s+(.+)$`);
// "my mom is a nurse at st. mary's", "my brother is an engineer at boeing".
const JOB_AT = /^(.+?)\s+(?:is|are|am|was)\s+(?:now\s+)?(?:a|an|the)\s+[a-z -]{2,30}?\s+(?:at|for|with)\s+(.+)$/;
const FAVOURITE_IS = new RegExp(`^(.*?)\\b${FAVOURITE_EN}\\s+(.+?)\\s+(?:is|are|has been|have been|'s|became|has become|turned into)${ADV}\\s+(.+)$`);
const FAVOURITE_COLON = new RegExp(`^(?:(my|our)\\s+)?(?:new\\s+|current\\s+)?${FAVOURITE_EN}\\s+(.+?)(?:\\s+(?:update|these days|now|lately|at the moment))*\\s*:\\s*(.+)$`);
const FAVOURITE_CHANGED = new RegExp(`^(.*?)\\b${FAVOURITE_EN}\\s+(.+?)\\s+(?:has\\s+|have\\s+)?(?:changed|switched)\\s+(?:from\\s+.+?\\s+)?to\\s+(.+)$`);
const FAVOURITE_REVERSE = new RegExp(`^(.+?)\\s+(?:is|are|has become|have become|became|is now|'s now)${ADV}\\s+(.*?)\\s*(?:new\\s+)?${FAVOURITE_EN}\\s+(.+)$`);
const CONSUME = "(drinking|drink|eating|eat|listening to|listen to|watching|watch|reading|read|playing|play|wearing|wear)";
const PREFER = new RegExp(
  `^(.+?)${AUX}${ADV}\\s+(?:prefer|prefers|would rather|would much rather|switched to|have switched to|(?:am|are|is)(?:\\s+(?:really|so|totally))?\\s+(?:into|obsessed with)|like .{0,20}better|mostly|usually|only|mainly)${ADV}(?:\\s+${CONSUME})?\\s+(.+)$`,
);
// A plain like/love is one more liking; it replaces a preference only when a word says it changed.
const LIKE_NOW = new RegExp(`^(.+?)${ADV}\\s+(?:like|likes|love|loves|enjoy|enjoys)(?:\\s+${CONSUME})?\\s+(.+?)\\s+(?:now|these days|nowadays|lately|at the moment|more than anything|the most|best)$`);
// "i now like jalapeños best as a pizza topping", "i like peaches more than any other fruit": the category too.
// "lately i'm more into rice crackers than peanuts as a snack".
const MORE_INTO = new RegExp(`^(.+?)${AUX}${ADV}\\s+more\\s+into\\s+(.+?)\\s+than\\s+.+?\\s+as\\s+(?:a|an|my)\\s+(.+)$`);
// "forest green is my colour now": a known preference category after "my", said as a change.
const IS_MY_CATEGORY = /^(.+?)\s+is\s+(?:now\s+)?my\s+(?:new\s+)?([a-z]+(?: [a-z]+)?)\s+(?:now|these days|lately|again)$/;
const LIKE_BEST_AS = new RegExp(
  `^(.+?)${ADV}\\s+(?:like|likes|love|loves|enjoy)\\s+(.+?)\\s+(?:(?:the\\s+)?(?:best|most)\\s+(?:as|for|of all(?: the)?)|more than any other)\\s+(?:a|an|my)?\\s*(.+?)(?:\\s+(?:now|these days|lately))?$`,
);
// "priya is at unilever now", "i'm at microsoft these days": at an employer, said as the current state.
const AT_NOW = /^(.+?)\s+(?:is|am|are)\s+(?:now\s+)?at\s+(?!the\s|a\s|home|work|school|lunch|dinner|church|the\b)([a-z][a-z&' .-]{1,40}?)\s+(?:now|these days|nowadays)$/;
// "i've gone off coffee", "gave up sugar": off something without a verb of consuming.
const GONE_OFF = new RegExp(`^(.+?)${AUX}${ADV}\\s+(?:gone off|went off|got tired of|grown tired of|gave up|given up|am over)\\s+(?:${CONSUME}\\s+)?(.+?)$`);
const DISLIKE = new RegExp(`^(.+?)${ADV}\\s+(?:no longer|do not|does not|don't|doesn't|stopped|quit|gave up|have gone off|'ve gone off|went off|got tired of|am over|'m over)\\s+(?:really\\s+)?(?:(?:like|enjoy|love|liking)(?:\\s+${CONSUME})?|${CONSUME})\\s+(.+?)$`);
// "for workouts i prefer swimming now": the category before the preference.
const FOR_TOPIC = /^(?:for|when it comes to|as for)\s+(.+?),?\s+((?:i|we)\s+.+)$/;
const CONTACT_WORD = "(work phone number|work phone|work number|office phone|office number|office line|desk phone|extension number|extension|phone number|mobile number|cell number|cellphone number|telephone number|number|phone|mobile|cell|email address|e-mail address|email|e-mail|home address|mailing address|address|wechat id|wechat|whatsapp number|whatsapp)";
const CONTACT_COLON = new RegExp(`^(.*?)\\s*(?:a\\s+)?(?:new\\s+|current\\s+|updated\\s+)?${CONTACT_WORD}(?:\\s+for\\s+([a-z]+(?:\\s[a-z]+)?))?\\s*(?::|is now|is|changed(?:\\s+again)?\\s*:|changed to|to)\\s*(.+)$`);
const CONTACT_REVERSE = new RegExp(`^(.+?)\\s+is${ADV}\\s+(my|our|[a-z]+'s)\\s+(?:new\\s+|current\\s+)?${CONTACT_WORD}$`);
const CONTACT_CHANGED = new RegExp(`^(.*?)${ADV}\\s*\\b(?:changed|updated|switched)\\s+(?:his|her|their|my|our)\\s+(?:phone\\s+)?${CONTACT_WORD}\\s+to\\s+(.+)$`);
const REACHED_AT = /^(.+?)\s+(?:can be reached|is reachable|can be contacted)\s+(?:at|on)\s+(.+?)(?:\s+now)?$/;
// "reach dad at smithj@…", "for the plumber, ring 0161…", "call him on 020…": how to reach someone is their contact.
const REACH = /^(?:you\s+can\s+|you\s+could\s+|just\s+|please\s+)?(?:for\s+(?:the\s+|my\s+)?([a-z]+(?:\s[a-z]+)?),?\s+)?(?:to\s+)?(?:call|ring|text|phone|reach|contact|email|e-mail|message|whatsapp)\s+(?:(?:the\s+|my\s+)?([a-z]+)\s+)?(?:on|at)\s+(\+?[0-9][0-9 -]{4,}[0-9]|[^\s@]+@[^\s@]+)(?:\s+.*)?$/;
// "dad uses john.smith.home@gmail.com now": a contact value in use.
const USES = /^(.+?)\s+(?:uses|is using|has|now uses)\s+(\+?[0-9][0-9 -]{4,}[0-9]|[^\s@]+@[^\s@]+)(?:\s+(?:now|these days|from now on))?$/;

// "my sister changed jobs from initech to oscorp".
const CHANGED_JOBS = /^(.+?) (?:changed|switched|moved) jobs? from .+? to (.+)$/;
// "my aunt accepted an offer from globex": a job offer taken is the job.
const ACCEPTED_OFFER = /^(.+?) (?:accepted|took|signed) (?:an|a|the)? ?(?:job )?offer (?:from|at|with) (.+)$/;
const LEFT_PLACE_FOR = new RegExp(`^(.+?)${ADV}\\s+(?:left|quit|swapped|traded)\\s+(.+?)\\s+for\\s+(?:a\\s+new\\s+life\\s+in\\s+)?(.+)$`);

export function matchResidence(text: string): Match {
  const moved = MOVED_OUT_INTO.exec(text) ?? MOVE_HOUSE.exec(text);
  // Things move too ("my office moved to the 5th floor"): a person's move is a change of home, a thing's a
  // change of place; both are where the subject is (residence and location are one predicate, see slots.ts).
  if (moved && !/^(?:a\s+)?new\s+(?:email|number|phone|address)/.test(moved[2]) && !isTimeExpression(moved[2])) {
    return isPersonMove(moved[1]) ? personSlot("residence", moved[1] || "i", moved[2]) : thingMove(moved[1], moved[2]);
  }
  // "my mum left madrid for lisbon": a person leaving one place for another now lives there.
  const left = LEFT_PLACE_FOR.exec(text);
  if (left && left[1] !== "" && normalisePerson(left[1]) && isPlaceName(left[2]) && isPlaceName(left[3]) && !isTimeExpression(left[3])) return personSlot("residence", left[1], left[3]);
  const home = NEW_HOME.exec(text);
  if (home) return personSlot("residence", home[1] === undefined || /^(?:my|our)$/.test(home[1]) ? "i" : home[1].replace(/'s$/, "").replace(/^(?:my|our)\s+/, ""), home[2]);
  const lives = LIVE_IN.exec(text);
  if (!lives) return undefined;
  // Things "live" somewhere too ("the spare key lives in the glovebox now"): then it is where the thing is.
  return normalisePerson(lives[1]) === null ? thingMove(lives[1], lives[2]) : personSlot("residence", lives[1], lives[2]);
}

export function matchWorkplace(text: string): Match {
  const changedJobs = CHANGED_JOBS.exec(text);
  if (changedJobs && normalisePerson(changedJobs[1])) return personSlot("workplace", changedJobs[1], changedJobs[2]);
  const offer = ACCEPTED_OFFER.exec(text);
  if (offer && normalisePerson(offer[1])) return personSlot("workplace", offer[1], offer[2]);
  const joined = JOINED.exec(text);
  const hired = HIRED_BY.exec(text);
  const by = hired ? [hired[0], hired[1] ?? hired[3], hired[2] ?? hired[4]] : null;
  const at = LEFT_FOR.exec(text) ?? WORK_AT.exec(text) ?? NEW_JOB.exec(text) ?? by ?? joined ?? JOB_AT.exec(text) ?? AT_NOW.exec(text);
  if (!at || normalisePerson(at[1] || "i") === "") return undefined;
  // "joined a startup called nimbus labs": the name after "called"; "joined a gym", "joined an online group"
  // are not employers.
  const employer = at[2].replace(/^(?:a|an)\s+.+?\s+(?:called|named)\s+/, "");
  if (at === joined && /^(?:a|an|the)\s/.test(employer)) return undefined;
  // "I left work for the day": a time is no employer.
  if (isTimeExpression(employer) || /^(?:the\s+)?(?:day|night|weekend|evening|morning|afternoon|week|good|lunch|dinner|now)$/.test(employer)) return undefined;
  // "I work with 5 hamsters", "work with some kids": a count of things or people is no employer.
  if (/^(?:[0-9]|(?:one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|some|many|several|lots of)\s)/.test(employer)) return undefined;
  return personSlot("workplace", at[1] || "i", employer);
}

// "my top film genre right now is thrillers": "top" is a favourite only for a known category or said of now;
// "my top drawer is full" is a drawer.
const TOP_IS = /^(?:(my|our|[a-z]+'s)\s+)?(?:top|number one|no\. 1)\s+(.+?)(\s+(?:right now|currently|these days|now|at the moment|lately))?\s+(?:is|are)\s+(.+)$/;

// "of all instrument options i enjoy ukulele the most": the category named first.
const OF_ALL_MOST = /^of all(?: the)? ([a-z]+(?: [a-z]+)?)(?: options| choices| kinds| types)?,? (i|we) (?:enjoy|like|love|prefer) (.+?) (?:the )?(?:most|best)$/;
// "i can't get enough of jasmine lately", "i'm hooked on olives": a liking without its category.
// "been obsessed with jasmine recently": the speaker left out, the when dropped.
const CANT_GET_ENOUGH = /^(i|we)(?: really)? (?:can't|cannot|can not) get enough of (.+?)(?:\s+(?:recently|lately|these days|now|right now|at the moment))*$|^(?:(i|we)(?: am|'m| have become| have got| got| became| have been| had been)? |(?:been|totally|really) )?(?:hooked on|mad about|crazy about|obsessed with) (.+?)(?:\s+(?:recently|lately|these days|now|right now|at the moment))*$/;
// "i'd pick tulips over any other flower now": the one picked over every other of a category is the favourite.
const PICK_OVER = /^(i|we)(?:'d| would)?\s+(?:pick|choose|take|go for)\s+(.+?)\s+over\s+any\s+other\s+([a-z]+(?: [a-z]+)??)(?:\s+(?:now|these days|lately|nowadays))?$/;

// "totally into mushrooms these days": the speaker left out, a liking without its category.
const INTO_NOW = /^(?:(?:i|we)(?:'m| am| are)\s+)?(?:really |so |totally |super )?(?:into|loving|enjoying) (.+?)(?: these days| lately| now| right now| at the moment)$/;
// "i've gone for ukulele as my favourite instrument".
const GONE_FOR = /^(i|we)(?:'ve| have)? (?:gone for|picked|chosen|settled on) (.+?) as (?:my|our) (?:new )?favou?rite (.+)$/;

export function matchPreference(text: string): Match {
  const gone = GONE_FOR.exec(text);
  if (gone) return preferenceSlot(gone[1], preferenceCategory(gone[3]), gone[2], false);
  const into = INTO_NOW.exec(text);
  if (into) return preferenceSlot("i", weakCategory(undefined), normaliseValue(into[1]), false);
  const ofAll = OF_ALL_MOST.exec(text);
  if (ofAll) return preferenceSlot(ofAll[2], preferenceCategory(ofAll[1]), ofAll[3], false);
  const enough = CANT_GET_ENOUGH.exec(text);
  if (enough) return preferenceSlot(enough[1] ?? enough[3] ?? "i", weakCategory(undefined), normaliseValue(enough[2] ?? enough[4]), false);
  const pick = PICK_OVER.exec(text);
  if (pick) return preferenceSlot("i", preferenceCategory(pick[3]), pick[2], false);
  const top = TOP_IS.exec(text);
  if (top && (top[3] !== undefined || isKnownCategory(top[2]))) return preferenceSlot(top[1] === undefined || /^(?:my|our)$/.test(top[1]) ? "i" : top[1].replace(/'s$/, ""), preferenceCategory(top[2]), top[4], false);
  const topic = FOR_TOPIC.exec(text);
  if (topic) {
    const found = matchPreference(topic[2]);
    return found && found.attribute?.startsWith("~") ? { ...found, attribute: preferenceCategory(normaliseValue(topic[1])) } : found;
  }
  const colon = FAVOURITE_COLON.exec(text);
  if (colon) return preferenceSlot(colon[1] ?? "my", preferenceCategory(normaliseValue(colon[2])), colon[3].split(",")[0], false);
  const favourite = FAVOURITE_IS.exec(text) ?? FAVOURITE_CHANGED.exec(text);
  if (favourite) return preferenceSlot(favourite[1], preferenceCategory(normaliseValue(favourite[2])), favourite[3], false);
  const reverse = FAVOURITE_REVERSE.exec(text);
  if (reverse) return preferenceSlot(reverse[2], preferenceCategory(normaliseValue(reverse[3])), reverse[1], false);
  const more = MORE_INTO.exec(text);
  if (more) return preferenceSlot(more[1], preferenceCategory(normaliseValue(more[3])), more[2], false);
  const mine = IS_MY_CATEGORY.exec(text);
  if (mine && isKnownCategory(mine[2])) return preferenceSlot("my", preferenceCategory(mine[2]), mine[1], false);
  const best = LIKE_BEST_AS.exec(text);
  if (best) return preferenceSlot(best[1], preferenceCategory(normaliseValue(best[3])), best[2], false);
  const prefer = PREFER.exec(text) ?? LIKE_NOW.exec(text);
  if (prefer) return preferenceSlot(prefer[1], weakCategory(prefer[2]), prefer[3], false);
  const dislike = DISLIKE.exec(text);
  // Groups: owner, then the verb after like/enjoy or the bare verb ("don't drink"), then the item.
  if (dislike) return preferenceSlot(dislike[1], weakCategory(dislike[2] ?? dislike[3]), dislike[4], true);
  const off = GONE_OFF.exec(text);
  return off && off[1].trim().split(" ").length <= 3 ? preferenceSlot(off[1], weakCategory(off[2]), off[3], true) : undefined;
}

export function matchContact(text: string): Match {
  const found = contactStatement(text);
  if (!found) return undefined;
  const field = contactField(found.word) ?? found.word;
  const value = normaliseContactValue(field, found.value.replace(/^(?:now|to)\s+/, "").replace(/\s+(?:now|from now on)$/, "").trim());
  if (!plausibleContact(field, value)) return undefined;
  const owner = normalisePerson(found.owner.replace(/^the\s+/, ""));
  if (owner === null) return null;
  return { kind: "contact", subject: owner || SELF, attribute: field, value };
}

/** Owner words, field word and value of a contact statement, in whichever of its shapes the text has. */
function contactStatement(text: string): { owner: string; word: string; value: string } | undefined {
  const reverse = CONTACT_REVERSE.exec(text);
  if (reverse) return { owner: reverse[2], word: reverse[3], value: reverse[1] };
  const changed = CONTACT_CHANGED.exec(text);
  if (changed) return { owner: changed[1] || "my", word: changed[2], value: changed[3] };
  const reached = REACHED_AT.exec(text) ?? USES.exec(text);
  if (reached) return { owner: reached[1], word: reached[2].includes("@") ? "email" : "phone", value: reached[2] };
  const reach = REACH.exec(text);
  if (reach && (reach[1] ?? reach[2])) return { owner: reach[1] ?? reach[2], word: reach[3].includes("@") ? "email" : "phone", value: reach[3] };
  const found = CONTACT_COLON.exec(text);
  if (!found) return undefined;
  if (found[3] !== undefined) return { owner: found[3], word: found[2], value: found[4] };
  const owner = CONTACT_OWNER.exec(found[1].trim());
  return owner ? { owner: owner[1] ?? owner[2] ?? owner[3] ?? owner[4] ?? "", word: found[2], value: found[4] } : undefined;
}

// Who owns a contact field, as the words before it say: "my", "tom's", "the landlord's", "i got (a new)…", or nobody.
const CONTACT_OWNER = /^(?:(my|our)|(?:the\s+|my\s+|our\s+)?([a-z]+)'s|(?:the\s+)?([a-z]+)(?:\s+the\s+[a-z]+)?\s+(?:has|got|has got)|(i|we)\s+(?:got|have|have got|now have|just got|changed|updated))?$/;

// A place said by its name ("madrid", "new york"): no determiner, no pronoun, one to three words, not a time or an errand.
function isPlaceName(phrase: string): boolean {
  return /^[a-z][a-z'-]*(?: [a-z][a-z'-]*){0,2}$/.test(phrase) && !/\b(?:the|a|an|my|our|his|her|their|your|its|it|them|him|me|us|work|school|home|good|now|lunch|dinner|while)\b/.test(phrase);
}

// A bare name or the speaker moves house ("Tom moved to Berlin", "moved to Austin"); "my boss" is filed as a
// place change, which is the same predicate.
function isPersonMove(rawSubject: string): boolean {
  if (rawSubject.trim() === "") return true;
  const person = normalisePerson(rawSubject);
  return person === SELF || (person !== null && person !== "" && !/\s/.test(rawSubject.trim()));
}

function thingMove(rawSubject: string, rawPlace: string): StateSlot | null {
  const subject = normaliseSubject(rawSubject);
  const place = normaliseValue(rawPlace);
  return subject && place ? { kind: "location", subject, value: place } : null;
}

function personSlot(kind: "residence" | "workplace", rawPerson: string, rawValue: string): StateSlot | null {
  const person = normalisePerson(rawPerson);
  const value = normaliseValue(
    rawValue.replace(/\s+(?:for work|for school|for the summer|for the year|last (?:week|month|year)|this (?:week|month|year))$/, "").replace(kind === "residence" ? /\s+with\s+.+$/ : /$^/, ""),
  );
  if (person === null || person === "" || !value) return null;
  return { kind, subject: person, value };
}

function preferenceSlot(rawOwner: string, category: string, rawValue: string, negative: boolean): StateSlot | null {
  const owner = normalisePerson(rawOwner.trim().replace(/\s+(?:new|current)$/, ""));
  const value = normaliseValue(normaliseValue(rawValue).replace(/\s+(?:(?:the\s+)?most|more|better|best|more than anything|above all|over .+|rather than .+|instead of .+|as a .+)$/, ""));
  if (owner === null || !category || !value) return null;
  return { kind: "preference", subject: owner || SELF, attribute: category, value: negative ? `¬${value}` : value };
}

function plausibleContact(field: string, value: string): boolean {
  if (field === "phone" || field === "whatsapp") return /^\+?[0-9]{3,}$/.test(value);
  if (field === "email") return /^[^\s@]+@[^\s@]+$/.test(value);
  return value.length >= 2 && !/^(?:what|where|which)\b/.test(value);
}

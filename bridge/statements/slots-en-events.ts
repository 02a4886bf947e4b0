// English patterns for when an event is (moved, booked, fixed), how many of something someone has, and
// measured attributes ("my rent is $1,600", "weight crept back up to 68 kg"). Same conventions as
// slots-en-kinds.ts: undefined when a pattern does not apply, null when it applies but asserts nothing.
import { SCHEDULE_VERB_EN } from "./cues-en";
import { normaliseCount, normalisePerson, normaliseSubject, normaliseTime } from "./en-phrases";
import type { StateSlot } from "./slots";
import { ADV, type Match } from "./slots-en-kinds";
import { isTimeExpression } from "./time-expressions";
import { SELF } from "./zh-phrases";

// An actor of up to three words ("the airline", "my dentist's office") or none ("booked a haircut for …").
const ACTOR = "(?:(?:[a-z'-]+\\s+){0,2}[a-z'-]+)?";
const BEEN = "(?:has been|have been|had been|has\\s+\\w+\\s+been|was|were|is|are|got|gets|will be|is being)";
const SCHEDULE_PASSIVE = new RegExp(`^(.+?)\\s+${BEEN}${ADV}\\s+${SCHEDULE_VERB_EN}\\s+(?:back\\s+|up\\s+)?(?:to|until|till|for|on|at)\\s+(.+)$`);
// "the dentist moved to friday at 2pm": an event that moved to a time, said without a passive.
const SCHEDULE_MOVED = new RegExp(`^(.+?)(?:\\s+(?:has|have|just|now|finally))*\\s+(?:moved|shifted|slipped|slid|changed|switched)(?:\\s+(?:again|back|up|over))*\\s+(?:to|until|till)\\s+(.+)$`);
const SCHEDULE_ACTIVE = new RegExp(`^${ACTOR}(?:\\s+(?:have|has|had|just|finally))*${ADV}\\s*\\b${SCHEDULE_VERB_EN}\\s+(.+?)\\s+(?:back\\s+|up\\s+)?(?:from\\s+.+?\\s+)?(?:to|until|till|for|on)\\s+(.+)$`);
const SCHEDULE_IS = new RegExp(`^(.+?)\\s+(?:is|are|will be|'s)${ADV}\\s+(?:(?:scheduled|set|planned|booked|fixed|locked in)\\s+)?(?:on|at|for)?\\s*(.+)$`);
const SCHEDULE_STARTS = new RegExp(`^(.+?)${ADV}\\s+(?:starts|begins|leaves|departs|takes off|lands|kicks off|meets|is held|are held|takes place|happens|runs|will start|will meet|falls on|fall on|lands on|is happening)${ADV}\\s+(.+)$`);
// "i have a dentist appointment on tuesday at 3pm".
const HAVE_EVENT = /^(?:i|we|[a-z]+)\s+(?:have|has|got|'ve got)\s+(?:a|an|my|our|the)\s+(.+?)\s+(?:on|at|for|this|next)\s+(.+)$/;
// Someone arriving: "my parents are coming to visit on may 1st", "my folks are coming this saturday instead".
const ARRIVING = /^(.+?)\s+(?:is|are|will be)\s+(?:now\s+)?(?:coming|arriving|visiting|flying in|landing|getting here|coming over)(?:\s+to\s+visit)?\s+(?:on\s+|at\s+)?(.+?)(?:\s+instead)?$/;
// "parents pushed their visit back to may 10th": the visit is theirs, so the event is who visits.
const OWN_VISIT = /^(.+?)\s+(?:pushed|moved|rescheduled|postponed|brought forward|changed)\s+(?:their|his|her|my|our)\s+(?:visit|trip|arrival|flight)\s+(?:back\s+|up\s+)?(?:to|until|till|for)\s+(.+)$/;
const LEADING_START = /^(?:starting|from|as of|beginning)\s+(?:next|this)?\s*(?:week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow)\s+/;

const NUMBER = "(\\d+(?:\\.\\d+)?|zero|no|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a dozen)";
// "twelve thousand steps" is a number, not twelve of a thing called "thousand steps".
const THING = "((?!hundred\\b|thousand\\b|million\\b|now\\b|today\\b|currently\\b|already\\b|again\\b)[a-z][a-z-]*(?: [a-z][a-z-]*){0,2}?)";
const COUNT_TAIL =
  "(?:\\s+(?:now|left|total|in total|these days|lol|at the moment|so far))*(?:\\s+(?:(?:in|on|at)\\s+(?:the|my|our)\\s+[a-z ]+?|at home|at my place|at our place|at present|so far|right now|currently))?(?:\\s+(?:now|left|total|these days))*(?:\\s+(?:after|since|because|thanks to)\\s+.+)?";
const NO_IDIOM = /^(?:idea|clue|time|plan|money|choice|problem|reason|interest|doubt|energy|patience|way|chance|luck|appetite|word|comment|complaint|issue|excuse|option|preference|memory|recollection)$/;
// "i have 3 cats", "we're up to four cats", "only 2 credit cards now", "there are ten goldfish in the tank".
const COUNT_HAVE = new RegExp(`^(.*?)(?:\\s+(?:now|currently|still))*\\s*\\b(?:have|has|own|owns|have got|has got|got|am carrying|carry|keep)\\s+${NUMBER}\\s+(?:pairs? of\\s+)?${THING}${COUNT_TAIL}$`);
const COUNT_BARE = new RegExp(`^(?:(?:so|and|now|only|just|down to|up to|we are up to|we are down to|i am up to|i am down to|there are|there're|there is|[a-z ]{1,30}? (?:is|are))\\s+)*${NUMBER}\\s+(?:pairs? of\\s+)?${THING}${COUNT_TAIL}$`);
const UNIT = /^(?:kgs?|kilos?|lbs?|pounds?|minutes?|mins?|hours?|hrs?|steps?|km|miles?|ml|litres?|liters?|bpm|percent|dollars?|euros?|cm|years?|days?|weeks?|months?|times?)\b/;
const COUNT_CUE = /\b(?:now|left|total|only|up to|down to|there are|there're|these days)\b|^(?:so|and)\s/;

const NUMBER_WORDS =
  "(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)";
const MEASURE_VALUE = `((?:\\$|€|£)?\\d[\\d,]*(?:\\.\\d+)?(?:/\\d+)?(?:\\s?(?:kg|kgs|kilos|lbs|pounds|minutes|mins|hours|hrs|steps|km|miles|ml|l|litres|liters|bpm|%|percent|dollars|euros|cm|years|a month|per month|/month|a year|per year|/year|a day|per day|/day|a week|per week|/week))*|${NUMBER_WORDS}(?:[ -](?:${NUMBER_WORDS}|and))*(?:\\s(?:kg|kgs|kilos|pounds|lbs|steps|dollars|euros|minutes|hours|miles|km|liters|litres|ml|percent|a week|a month|a year|a day|per week|per month))*)`;
// When a measured change takes effect is not part of the value: "up to £1,350 next month".
const MEASURE_WHEN = "(?:\\s+(?:now|next (?:week|month|year)|from (?:next|this) (?:week|month|year)|from now on|for a while|for now|instead|again))*";
const MEASURE_IS = new RegExp(`^(?:(my|our|[a-z]+'s)\\s+)?(.+?)\\s+(?:is|are|'s|will be)${ADV}\\s+(?:(?:down|up|back up|back down)\\s+to\\s+|about\\s+|around\\s+|at\\s+)?${MEASURE_VALUE}${MEASURE_WHEN}$`);
const MEASURE_MOVED = new RegExp(
  `^(?:(my|our|[a-z]+'s)\\s+)?(.+?)${ADV}\\s+(?:(?:has|have|had|was|were|is|are|got)\\s+)?(?:been\\s+)?(?:crept|went|gone|came|climbed|dropped|fell|rose|risen|jumped|got|grown|grew|bumped|raised|cut|reduced|increased|decreased|lowered|upped|shrunk|shrank|slashed|hiked|put)\\s+(?:back\\s+)?(?:up|down)?\\s*to\\s+${MEASURE_VALUE}${MEASURE_WHEN}$`,
);
const MEASURE_SET = new RegExp(`^${ACTOR}${ADV}\\s*\\b(?:raised|lowered|increased|decreased|bumped|cut|upped|dropped|drop|reduced|reduce|raise|lower|set|changed|put)\\s+(my|our|the|his|her|[a-z]+'s)?\\s*(.+?)\\s+(?:up\\s+|down\\s+)?to\\s+${MEASURE_VALUE}${MEASURE_WHEN}$`);
// Verbs that are their attribute: "i weigh 70 kg", "weighed in at 65 kg".
const WEIGH = new RegExp(`^(?:i|we)?\\s*(?:weigh|weighed in at|weighed)\\s+(?:in\\s+at\\s+)?${MEASURE_VALUE}`);

export function matchSchedule(text: string): Match {
  const clause = text.replace(LEADING_START, "");
  const passive = SCHEDULE_PASSIVE.exec(clause);
  if (passive && isTimeExpression(normaliseTime(passive[2]))) return eventSlot(passive[1], passive[2]);
  const moved = SCHEDULE_MOVED.exec(clause);
  if (moved && isTimeExpression(normaliseTime(moved[2]))) return eventSlot(moved[1], moved[2]);
  const planned = plannedFor(clause);
  if (planned) return planned;
  const active = SCHEDULE_ACTIVE.exec(clause);
  if (active && isTimeExpression(normaliseTime(active[2]))) return eventSlot(active[1], active[2]);
  const have = HAVE_EVENT.exec(clause);
  if (have && isTimeExpression(normaliseTime(have[2]))) return eventSlot(have[1], have[2]);
  const visit = ARRIVING.exec(clause) ?? OWN_VISIT.exec(clause);
  if (visit && isTimeExpression(normaliseTime(visit[2]))) {
    const person = normalisePerson(visit[1]);
    return person ? { kind: "schedule", subject: person, value: normaliseTime(visit[2]) } : null;
  }
  const is = SCHEDULE_IS.exec(clause) ?? SCHEDULE_STARTS.exec(clause);
  if (is && isTimeExpression(normaliseTime(is[2]))) return eventSlot(is[1], is[2]);
  return undefined;
}

// "we'll do the check-up tuesday at noon", "let's have the team meeting on friday": the event, then its time.
const WE_WILL_DO = /^(?:we|i)(?:\s+will|'ll|\s+are going to|\s+shall)?\s+(?:do|have|hold|put)\s+((?:the|our|my)\s+.+)$/;

function plannedFor(clause: string): StateSlot | null | undefined {
  const planned = WE_WILL_DO.exec(clause.replace(/\bwe will\b/, "we will"));
  if (!planned) return undefined;
  const words = planned[1].split(" ");
  // The shortest event whose remaining words are a time ("the check-up" / "tuesday at noon").
  for (let i = 2; i < words.length; i++) {
    const time = words.slice(i).join(" ").replace(/^(?:on|at|for)\s+/, "");
    if (isTimeExpression(normaliseTime(time))) return eventSlot(words.slice(0, i).join(" "), time);
  }
  return undefined;
}

export function matchQuantity(text: string): Match {
  const have = COUNT_HAVE.exec(text);
  if (have) {
    // "the tank now has 12 goldfish": a thing that holds them counts as the speaker's.
    const owner = have[1] === "" || /^(?:the|my|our)\s/.test(have[1]) || /^there/.test(have[1]) ? SELF : normalisePerson(have[1]);
    const attribute = normaliseSubject(have[3]);
    // "I have no idea", "no time": an idiom, not a count of zero.
    if (/^(?:no|zero)$/.test(have[2]) && NO_IDIOM.test(attribute)) return undefined;
    return owner === null || !attribute ? null : countSlot(owner || SELF, attribute, have[2]);
  }
  const bare = COUNT_CUE.test(text) ? COUNT_BARE.exec(text) : null;
  const attribute = bare ? normaliseSubject(bare[2]) : "";
  // "70 kg", "20 minutes": a number of units is a measure (matchMeasure), not a count of things.
  return bare && attribute && !UNIT.test(attribute) ? countSlot(SELF, attribute, bare[1]) : undefined;
}

export function matchMeasure(text: string): Match {
  const weighed = WEIGH.exec(text);
  if (weighed) return measureSlot("my", "weight", weighed[1]);
  const found = MEASURE_SET.exec(text);
  if (found) return measureSlot(/'s$/.test(found[1] ?? "") ? found[1].slice(0, -2) : "my", found[2], found[3]);
  const moved = MEASURE_IS.exec(text) ?? MEASURE_MOVED.exec(text);
  return moved ? measureSlot(moved[1] ?? "my", moved[2], moved[3]) : undefined;
}

function measureSlot(rawOwner: string, rawAttribute: string, rawValue: string): Match {
  const owner = rawOwner === "my" || rawOwner === "our" ? SELF : normalisePerson(rawOwner);
  const attribute = normaliseSubject(rawAttribute.replace(/^(?:new|current|daily|monthly|weekly)\s+(?=\w+\s)/, ""));
  const value = normaliseCount(rawValue.trim());
  // Past four words the "attribute" swallowed a clause ("pocket money is ten pounds a week now that he"): no match.
  if (attribute.split(" ").length > 4) return undefined;
  if (owner === null || !attribute || !(/\d/.test(value) || new RegExp(`^${NUMBER_WORDS}\\b`).test(value))) return null;
  return { kind: "state", subject: owner || SELF, attribute, value };
}

function countSlot(owner: string, attribute: string, count: string): StateSlot {
  return { kind: "state", subject: owner, attribute, value: normaliseCount(count) };
}

function eventSlot(rawEvent: string, rawTime: string): StateSlot | null {
  const event = normaliseSubject(rawEvent.replace(/\s+from\s+.+$/, ""));
  const time = normaliseTime(rawTime);
  if (event.split(" ").length > 5) return null;
  return event && time ? { kind: "schedule", subject: event, value: time } : null;
}

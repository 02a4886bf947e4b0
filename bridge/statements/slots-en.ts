// English state-slot patterns for one statement clause: who lives or works where, preferences, counts,
// contact fields and event times first (slots-en-kinds.ts), then where a thing is ("X is in Y",
// "put/moved/parked X in/to Y", active and passive) and other state changes ("X changed to Y", "my A is Y").
import { contactField, normaliseContactValue, personPlaceKind } from "./attributes";
import { expandContractions, hasPossessivePronoun, normalisePerson, normaliseSubject, normaliseTime, normaliseValue, stripPossessive } from "./en-phrases";
import type { StateSlot } from "./slots";
import { isTimeExpression } from "./time-expressions";
import { matchMeasure, matchQuantity, matchSchedule } from "./slots-en-events";
import { type Match, matchContact, matchPreference, matchResidence, matchWorkplace } from "./slots-en-kinds";
import { SELF } from "./zh-phrases";

// Closed grammatical sets only: copulas, placement verbs, prepositions, determiners. "set" is
// a change verb only, since "set the alarm to 7am" would otherwise read as a placement.
const PREP = "(?:in front of|on top of|next to|inside of|inside|underneath|under|beneath|behind|beside|near|within|in|on|at|into|onto|with)";
const BE = "(?:is|are|am)";
const STILL = "(?:\\s+(?:now|still|currently|already|always|usually|probably|likely|most likely|maybe|possibly|definitely))*";
const PLACE_VERB =
  "(?:relocated|relocate|dumped|dump|put|puts|placed|place|places|moved|move|moves|left|leave|leaves|kept|keep|keeps|keeping|stored|store|stores|hid|hidden|hide|hides|parked|park|parks|stashed|stash|tucked|dropped|locked|filed|plugged|stuck|stick|shoved|popped|tossed|chucked|threw|slipped)";
const CHANGE_VERB = "(?:changed|changes|switched|switches|updated|updates)";

// Past-tense copulas ("were in the drawer") are left out: they describe a former state,
// and a newer memory saying where something used to be must not supersede where it is.
// "is hanging on the hook", "is up in the attic", "is sitting in the car": a posture or direction may come first.
const POSTURE = "(?:\\s+(?:hanging|sitting|lying|standing|parked|stored|kept|stashed|up|down|back|out|over))?";
const COPULA = new RegExp(`^(.+?)\\s+${BE}${STILL}${POSTURE}\\s+${PREP}\\s+(.+)$`);
// An actor of up to three words ("i", "my mom"), or none for the imperative "put the keys in…".
const ACTIVE_PLACE = new RegExp(
  `^(?:(?:[a-z'-]+\\s+){1,3}?)?(?:(?:have|has|had|just|already|finally|also|started|now|always)\\s+)*${PLACE_VERB}\\s+(.+?)\\s+(?:(?:back|away)\\s+|in\\s+(?=behind|under|next))?(?:${PREP}|to)\\s+(.+)$`,
);
// "final answer on the dentist: march 15th, 9am", "latest blood pressure reading: 120/80": a label, then a
// value whose shape (a time, a number) says which kind of slot.
const ACTOR_OWNER = /^(?:my|our)?\s*([a-z]+)\s+(?:keeps|kept|put|puts|left|leaves|stores|stored|moved|moves|hid|hides|parked|parks)\s+(?:his|her|their)\s/;
const LABELLED = /^([a-z][a-z' -]{1,50}?)\s*:\s*(?:(?:in|on|at|under|inside|with)\s+)?(.+)$/;
const LABEL_WORDS = /^(?:(?:final answer|final word|last word|latest word|word|update|latest|news|confirmed) on\s+(?:the\s+)?|(?:new|current|latest)\s+)|(?:\s+(?:update|reading|check|check-in|now|today))+$/g;
// "got the spare key back from dave and hid it in the lockbox".
const RETRIEVED_AND_PLACED = new RegExp(
  `^(?:i\\s+|we\\s+)?(?:got|took|picked up|grabbed|brought)\\s+(.+?)\\s+(?:back\\s+)?(?:from\\s+\\S+(?:\\s+\\S+)?\\s+)?and\\s+${PLACE_VERB}\\s+(?:it|them)\\s+(?:back\\s+)?(?:${PREP}|to)\\s+(.+)$`,
);
const PASSIVE_PLACE = new RegExp(
  `^(.+?)\\s+(?:is|are|was|were|has been|have been|got|gets)(?:\\s+(?:now|just|already))*\\s+(?:[a-z]+\\s+and\\s+)?(?:${PLACE_VERB}|handed over|handed|given|lent|loaned|passed)\\s+(?:back\\s+)?(?:${PREP}|to)\\s+(.+)$`,
);
// "I'm in a good mood", "in a hurry", "in love": states of a person, not places.
const NOT_A_PLACE = /^(?:a |an |the )?(?:(?:good|bad|great|terrible|foul|weird|better|festive) )?(?:mood|hurry|rush|trouble|love|pain|shock|tears|debt|charge|luck|doubt|danger|touch|shape|progress|denial|limbo|a meeting|meeting|class|a call)$/;
const MOVED_TO = /^(.+?)\s+(?:has\s+|have\s+)?moved\s+(?:back\s+)?to\s+(.+)$/;
// "my lease agreement ended up in the wardrobe": where it landed is where it is.
const ENDED_UP = new RegExp(`^(.+?)\\s+(?:has\\s+|have\\s+)?(?:ended up|wound up|landed|went back|got put)\\s+(?:back\\s+)?${PREP}\\s+(.+)$`);
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
  /^(?:(?:ok so|okay so|oh and|so yeah|and|but|so|then|today|yesterday|now|later|finally|also|earlier|tonight|this morning|last night|these days|nowadays|lately|recently|at the moment|currently|from now on|as of today|starting today|i'd say|i would say|(?:i'm |i am )?pretty sure(?: that)?|if i remember (?:right|rightly|correctly)|iirc|if memory serves(?: me)?(?: right)?|if i'm honest|if i am honest|to be honest|honestly|as far as i know|afaik|i believe|i reckon|i guess|i suppose|i think)\s+)+/;
// "mum says chloe is settling down in copenhagen": who reported it is not what changed; "emma says she
// prefers…", "the landlord says to call him on…": a he/she/him/her after it is the reporter.
const REPORTED = /^((?:my\s+|the\s+|our\s+)?[a-z]+(?:'s)?(?:\s+[a-z]+)?)\s+(?:says|said|told me|mentioned|texted|wrote|reckons|tells me)(?:\s+that)?\s+(?=\S+\s+\S+)/;
// Future and progressive forms of a change say the same as the past: "is going to be", "is going up to".
const TENSES: Array<[RegExp, string]> = [
  // "… now just so you know", "… to friday at 2pm by the way": how it is said, not what.
  [/(?:\s+(?:just so you know|by the way|fyi|btw|i think|i believe|(?:so )?don't (?:let me )?forget(?: it| that)?|remember that|keep that in mind|for the record|for reference|just saying|lol|haha|ugh|argh|sigh|yay|smh|ffs|omg|tho|though))+$/, ""],
  // "i'm really into piano these days best instrument ever": a liking, then the category it tops.
  [/^(?:i'm|i am)\s+(?:really\s+|so\s+|totally\s+)?(?:into|obsessed with|hooked on|loving)\s+(.+?)(?:\s+(?:these days|lately|right now|now|at the moment))?,?\s+(?:the\s+|easily the\s+)?best ([a-z][a-z ]{0,30}?) (?:ever|there is|there's|around|going|out there)$/, "my favourite $2 is $1"],
  // "i actually have 6", "is actually in the wardrobe": a correction's "actually" says nothing of the value.
  [/\bactually\s+/g, ""],
  // "my tape measure now lives behind the tv": where a thing lives is where it is.
  [/\b(?:now\s+)?lives\s+(?=(?:behind|under|on|next to|inside|beside|on top of)\b)/g, "is now "],
  // "your sister most likely lives in paris", "the book club is probably friday": how sure, not what.
  [/\b(?:most likely|more than likely|very likely|probably|possibly|presumably|definitely|surely)\s+/g, ""],
  [/\b(?:is|are|am) going to be\b/g, "will be"],
  [/\b(?:is|are) (?:going|heading|creeping|climbing) (up|down) to\b/g, "went $1 to"],
  [/\b(?:has|have) (?:gone|been going) (up|down) to\b/g, "went $1 to"],
  [/\b(?:is|are) (?:moving|being moved|shifting|changing) to\b/g, "has been moved to"],
  // "the book club has moved to saturday": an event that moved was moved.
  [/\b(?:has|have) (?:moved|shifted) to\b/g, "has been moved to"],
  // "my mum does live in madrid": the emphatic do says nothing more.
  [/\b(?:do|does|did) (?=(?:live|work|like|love|prefer|keep|own|have)\b)/g, ""],
  [/\b(have|has) (?:now|just|finally|currently) got\b/g, "$1 got"],
  // "update: my aunt now at wonka", "favourite instrument now ukulele": a verbless "X now Y" is "X is now Y".
  [/^((?!.*\b(?:is|are|am|was|were|has|have|had|do|does|did|will|moved|lives?|works?)\b)[a-z][a-z' -]{2,40}?)(?<!\b(?:from|for|until|by|as of|right|just)) now (?!(?:falls|starts|begins|leaves|takes|happens|runs|lands|departs|meets|costs|weighs|falls)\b)(?=\S)/, "$1 is now "],
  // "sewing kit in the storage room now": a verbless thing-and-place is where it is.
  // Only with a word of now at the end: "read at the library all morning" is no such thing.
  [/^((?!.*\b(?:is|are|am|was|were|has|have|had|do|does|did|will|got|get|put|moved|left|kept|keep|stored|hid|parked|stashed|tucked|dropped|placed|stuck|shoved|popped|tossed|threw|slipped|lives?|works?|i|we|he|she|they)\b)(?:my |our |the )?[a-z][a-z'-]*(?: [a-z][a-z'-]*){0,2}) (in|on|under|behind|inside|at|next to) (the|my|our) (?=.*\b(?:now|these days|at the moment|for now)$)/, "$1 is $2 $3 "],
  // "going forward my mum lives in…", "today the keys went in…": when, not what.
  [/^(?:going forward|from now on|as of today|today|these days|effective (?:today|immediately|now)|as of now|starting (?:today|now)|from today),?\s+/, ""],
  // The formal register: "resides in", "took up residence in", "has been adjusted to", "is deferred to",
  // "will be held on", "takes place on", "is now housed in", "currently favouring X".
  [/\b(?:resides|reside|resided|has taken up residence|have taken up residence|took up residence|is residing|are residing) in\b/g, "lives in"],
  [/\b(?:has|have|was|were|is|are)? ?(?:been )?(?:adjusted|revised|raised|lowered|increased|decreased|reduced|amended) to\b/g, "changed to"],
  [/\b(?:is|are|was|has been|have been) (?:deferred|postponed|re-scheduled|rescheduled|brought forward|put back) (?:to|for|until)\b/g, "has been moved to"],
  [/\b(?:has been|have been|was|were) re-scheduled\b/g, "has been rescheduled"],
  [/\b(?:will (?:now )?be held|is (?:now )?held|takes place|will take place|is taking place)\b/g, "is"],
  [/\b(is|are|was|were)( now)? (?:housed|located|situated|filed)\b/g, "$1$2 kept"],
  [/^(?:i am |i'm )?(?:currently )?(?:favouring|favoring)\s+/, "i prefer "],
  // "inventory: 6 succulents", "measured daily step goal: 8000 steps": a label before a count or a measure.
  [/^inventory:\s*(\d+)\s+(.+)$/, "i have $1 $2"],
  [/^measured\s+(?!favou?rite\b)([a-z][a-z ]{1,40}?):\s*(.+)$/, "my $1 is $2"],
  // "to be safe i tucked…", "for work my sister moved…", "after some back and forth the dentist landed on…":
  // why or when, not what. The phrase holds no pronoun, so "after i moved the keys" stays whole.
  // "for workouts i prefer…" names a category, so only a fixed few "for" phrases go.
  [/^(?:to be safe|just in case|in the end|eventually|after all|by agreement|as agreed|after discussion|for (?:work|school|the record|now|safety|safekeeping|a (?:job|new job|while)))\s+/, ""],
  [/^(?:because of|due to|thanks to|after|before)\s+(?!(?:i|we|he|she|they)\b)\S+(?:\s+(?!(?:i|we|he|she|they)\b)\S+){0,4}?\s+(?=(?:i|we|my|our|the|his|her|their)\s)/, ""],
  // "ended up leaving the keys in…": what was done.
  [/^(?:i\s+|we\s+)?(?:ended up|wound up)\s+leaving\b/, "i left"],
  [/^(?:i\s+|we\s+)?(?:ended up|wound up)\s+(?:putting|sticking)\b/, "i put"],
  [/^(?:i\s+|we\s+)?(?:ended up|wound up)\s+(keep|stor|park|stash|hid|tuck|plac)(?:ing|ping|ding|king)\b/, "i $1ed"],
  [/\bmoved (?:out|over|away|back) to\b/g, "moved to"],
  // "…held steady at 70 kg this week": the week is when, the value is 70 kg.
  [/(\d\s*[a-z%]*)\s+(?:this|last) (?:week|month|morning|year)$/, "$1"],
  // "moved back home to madrid", "relocated for work to lisbon": where to is the new home.
  [/\b(moved|relocated)(?: back)?(?: home)?(?: for (?:work|a job|her job|his job|their job))? to\b/g, "$1 to"],
  // "this week's resting heart rate: 52", "this week's tortoises count: 3": the speaker's, this week.
  [/^(?:this week's|this month's|today's|tonight's|this morning's|this year's)\s+/, "my "],
  // "dumped the gym pass on the windowsill on my way in": the way in is no part of the place.
  [/\s+on (?:my|the) way (?:in|out|home|back)$/, ""],
  [/^new (?:home|spot|place) for (?:the |my )?(.+?):\s*(.+)$/, "the $1 is in $2"],
  // "i'd take olives over anything else as a pizza topping", "i'd rather have mushrooms than any other topping".
  [/^(?:i'd|i would) take (.+?) over (?:anything|everything|any other [a-z ]+?)(?: else)? as (?:a|an|my) ([a-z][a-z ]*?)(?:\s+(?:these days|now|right now|lately))*$/, "my favourite $2 is $1"],
  [/^(?:i'd|i would) take (.+?) over (?:anything|everything)(?: else)?(?:\s+(?:these days|now|right now|lately))*$/, "i love $1 now"],
  [/^(?:i'd|i would) rather (?:have|eat|drink|listen to|watch|read|play) (.+?) than (?:any other|anything else|other) ?([a-z][a-z ]*?)?(?:\s+(?:these days|now|right now|lately))*$/, "my favourite $2 is $1"],
  // "can't beat tulips as a flower right now", "sci-fi is my jam these days", "my number one tea: jasmine".
  [/^(?:you )?(?:can't|cannot) beat (.+?) as (?:a|an|my) ([a-z][a-z ]*?)(?:\s+(?:right now|these days|now|lately|at the moment))*$/, "my favourite $2 is $1"],
  [/^(.+?) (?:is|are) (?:my|our) (?:jam|thing)(?:\s+(?:right now|these days|now|lately|at the moment))*$/, "i love $1 now"],
  [/^my (?:number one|no\. 1|top|favou?rite) ([a-z][a-z ]*?)(?:\s+(?:these days|right now|now|lately|at the moment))?:\s*(.+)$/, "my favourite $1 is $2"],
  // "my boss's phone number's +44…", "my weight's 70 kg": the 's of a field before its value is "is".
  [/\b(number|phone|mobile|cell|email|e-mail|address|whatsapp|extension|weight|height|rent|budget|goal|target|score|salary|count|pressure|rate|total)'s\s+(?=[+0-9(]|[^\s@]+@)/g, "$1 is "],
  // "ended up settling down in madrid", "ended up working at wonka": where they are.
  [/\b(?:ended up|wound up) settling(?: down)? in\b/g, "settled in"],
  [/\b(?:ended up|wound up) living in\b/g, "lives in"],
  [/\b(?:ended up|wound up) working (?:at|for)\b/g, "works at"],
  [/\b(?:ended up|wound up) moving to\b/g, "moved to"],
  // "you can get my aunt on 555-0181 now": a number someone is reached on is their phone number.
  [/^(?:you can |u can |i can )?(?:get|reach|call|text) ((?:my|our) [a-z]+|[a-z]+) on (\+?[0-9][0-9 ()-]{4,}[0-9])(?:\s+(?:now|these days))?$/, "$1's phone number is $2"],
  // "that makes 5 plants for me": a running total.
  [/^(?:that|this) makes (\d+) (.+?)(?:\s+(?:for me|in total|altogether|now))*$/, "i have $1 $2"],
  // "my weight held steady at 70 kg": a measure that stayed is its value.
  [/\b(?:held|stayed|stays|holds|remained|remains|is holding|has held|has stayed)(?: steady| stable| flat)? at\b/g, "is"],
  [/\b(?:was|got) (?:switched|updated) (?:over )?to\b/g, "changed to"],
  // "my sister switched over to oscorp for work": a job.
  [/^(.+?) switched(?: over)? to (.+?) for (?:work|a job|her job|his job|their job)$/, "$1 joined $2"],
  [/\bswitched over to\b/g, "switched to"],
  [/\b(?:slipped|slid|got pushed|got moved|got bumped|got shifted) to\b/g, "has been moved to"],
  [/\bwent (in|into|on|onto|under|behind|inside)\b/g, "is $1"],
  // "updated today: my flatmate's phone number is …": the label before a whole statement says nothing more.
  [/^(?:updated|update|updating|correction|new info|heads up|note)(?: today| just now| for today)?:\s*(?=(?:my|our|the|his|her|their|[a-z]+'s)\s)/, ""],
  // "use 0770… for my mum's number from now on": a value to use for a field is the field's value.
  [/^(?:please\s+)?use ([+(]?[0-9][0-9\s\-().]{5,}[0-9]|[^\s@]+@[^\s@]+\.[a-z]{2,}) (?:for|as) (.+?)(?:\s+(?:from now on|going forward|now|instead))*$/, "$2 is $1"],
  // "can't get enough of ukulele lately": a liking, whatever the negation says.
  [/^(?:i\s+)?(?:can't|cannot|can not) get enough of (.+?)(?:\s+(?:lately|these days|right now|at the moment|recently))*$/, "i love $1 now"],
  // "if i had to pick one film genre these days it'd be animation": the favourite of the category.
  [/^if i (?:had|have|were|was) to (?:pick|choose|name|go with) (?:a |an |one |my )?(?:favou?rite\s+)?([a-z]+(?: (?!now\b|today\b|these\b|right\b)[a-z]+)?)(?: (?:now|today|these days|right now))?,? (?:it'd|it would|i'd|i would)(?: have to)? (?:be|go with|pick|say|choose) (.+)$/, "my favourite $1 is $2"],
  // "my aunt got an offer from globex and took it": a job.
  [/^(.+?) (?:got|accepted|took|signed) (?:an |the |a )?(?:job |work )?offer (?:from|at|with) (.+?)(?: and (?:took|accepted|signed|grabbed) it)?$/, "$1 joined $2"],
  // "i finally found a flat in leeds": a home.
  [/\b(?:found|got|rented|bought|signed for|signed a lease on|got the keys to) (?:a|an|the|her|his|their|my|our) (?:new )?(?:flat|apartment|house|place|home|condo|studio) in\b/g, "moved to"],
  // "my sleep target measured 6 hours today", "my savings goal came in at 9000 pounds": a measure's value.
  [/\b(?:measured|came in at|comes in at|came out at|clocked in at|clocked) (?=[$€£]?\d)/g, "is "],
  [/(\d\s*[a-z%]*)\s+(?:today|tonight|yesterday|this (?:morning|afternoon|evening))$/, "$1"],
  // "i'm at 12 parrots", "we're on 3 cats now": a running total.
  [/^(?:i'm|i am|we're|we are) (?:at|on|up at) (\d+) ([a-z][a-z-]*(?: [a-z][a-z-]*)?)(?:\s+(?:now|so far|in total|total|altogether|at the moment|right now|today|already))*$/, "i have $1 $2"],
  // "12 plants in total as of today": a running total.
  [/^(\d+) ([a-z][a-z -]*?) (?:in total|altogether|all told|total)(?:\s+(?:as of today|so far|now|today))*$/, "i have $1 $2"],
  // "total parrots so far: 12": a running total is the count.
  [/^(?:total|running total of)\s+/, ""],
];

// Schedule first: it applies only to a time value, which "moved to Friday" must not read as a place.
const MATCHERS: Array<(text: string) => Match> = [
  matchSchedule,
  matchResidence,
  matchWorkplace,
  matchPreference,
  matchQuantity,
  matchContact,
  matchLocation,
  matchMeasure,
  matchLabelled,
  matchState,
];

/** The one slot an English statement clause asserts, or undefined for actions and negations. */
const SAVE_AS = /^(?:please\s+)?(?:save|store|record|note down|put down|log|file)\s+(.+?)\s+as\s+(.+)$/;

export function extractEnglishSlot(clause: string): StateSlot | undefined {
  const said = TENSES.reduce((acc, [pattern, plain]) => acc.replace(pattern, plain), unreported(expandContractions(clause).replace(/\s+/g, " ").trim().replace(LEADING_FILLER, "")));
  // "save my flatmate's number as 0770…": what to save it as is what it is.
  const text = said.replace(SAVE_AS, "$1 is $2");
  // A negation asserts no new value, except the one retraction a preference can make ("I don't drink coffee anymore").
  if (NEGATION.test(text)) return matchPreference(text) ?? undefined;
  for (const match of MATCHERS) {
    const found = match(text);
    if (found !== undefined) return found ?? undefined;
  }
  return undefined;
}

function unreported(text: string): string {
  const reported = REPORTED.exec(text);
  if (!reported) return text;
  const reporter = reported[1].replace(/^(?:my|our|the)\s+/, "").replace(/'s$/, "");
  const rest = text.slice(reported[0].length);
  if (/^(?:he|she)\s/.test(rest)) return rest.replace(/^(?:he|she)\s/, `${reporter} `);
  return rest.replace(/^(?:his|her)\s/, `${reporter}'s `).replace(/\b(?:him|her)\b(?=\s+(?:on|at)\b)/, reporter);
}

function matchLocation(text: string): Match {
  const active = ACTIVE_PLACE.exec(text);
  const place = RETRIEVED_AND_PLACED.exec(text) ?? active ?? PASSIVE_PLACE.exec(text) ?? MOVED_TO.exec(text) ?? ENDED_UP.exec(text) ?? COPULA.exec(text);
  if (!place) return undefined;
  if (NOT_A_PLACE.test(place[2].trim())) return null;
  // "my mom keeps her reading glasses on the bookshelf": her glasses are mom's.
  const actor = active === place ? ACTOR_OWNER.exec(text)?.[1] : undefined;
  const thing = actor && /^(?:his|her|their)\s/.test(place[1]) ? `${actor}'s ${place[1].replace(/^\S+\s/, "")}` : place[1];
  return locationSlot(thing, place[2].replace(/\s+(?:from now on|for now|these days)$/, ""));
}

// A label's value is a short phrase; "caroline: i went to a support group…" is a chat log line, not a label.
const NOT_A_VALUE = /\b(?:i|we|you|he|she|they|it|i'm|is|are|was|were|am|have|has|had|do|did|does|will|would|can|thanks|thank|wow|yes|no|so|and|but)\b/;

function matchLabelled(text: string): Match {
  const labelled = LABELLED.exec(text);
  const label = labelled?.[1].replace(LABEL_WORDS, "").trim();
  if (!labelled || label === undefined || NOT_A_VALUE.test(labelled[2]) || labelled[2].split(" ").length > 8 || label.split(" ").length > 5) return undefined;
  const value = labelled[2].replace(/\s+(?:from now on|for now|these days|now)$/, "");
  if (isTimeExpression(normaliseTime(value.replace(/,/g, "")))) {
    const event = normaliseSubject(label);
    return event ? { kind: "schedule", subject: event, value: normaliseTime(value.replace(/,/g, "")) } : undefined;
  }
  if (/^[$€£]?\d[\d,./]*\s*[a-z%]{0,10}$/.test(value)) {
    const attribute = normaliseSubject(stripPossessive(label));
    return attribute ? { kind: "state", subject: SELF, attribute, value } : undefined;
  }
  // Not a place: "tim: in my downtime…" is a chat log line, and a label cannot tell a thing from a speaker.
  return undefined;
}

function matchState(text: string): Match {
  const change = ACTIVE_CHANGE.exec(text) ?? CHANGED_TO.exec(text) ?? NOW_IS.exec(text) ?? OWNED_IS.exec(text);
  return change ? stateSlot(change[1], change[2]) : undefined;
}

// Past five words a "subject" is a clause that happened to precede "is in" ("so many posts today, I'm in…").
const MAX_SUBJECT_WORDS = 5;

function locationSlot(rawSubject: string, rawPlace: string): StateSlot | undefined {
  const subject = normaliseSubject(rawSubject);
  if (subject.split(" ").length > MAX_SUBJECT_WORDS) return undefined;
  const value = normaliseValue(rawPlace);
  return subject && value ? { kind: "location", subject, value } : undefined;
}

function stateSlot(rawSubject: string, rawValue: string): StateSlot | undefined {
  const phrase = rawSubject.trim();
  const value = normaliseValue(rawValue);
  const owned = phrase.lastIndexOf("'s ");
  // "tom's phone number": the owner is tom; "my weight": the speaker.
  const rawOwner = owned > 0 ? phrase.slice(0, owned) : hasPossessivePronoun(phrase) ? phrase.split(" ")[0] : "";
  const attribute = normaliseSubject(owned > 0 ? phrase.slice(owned + 3) : stripPossessive(phrase));
  const owner = rawOwner === "" ? "" : normalisePerson(rawOwner);
  if (!attribute || !value || owner === null) return undefined;
  const field = contactField(attribute);
  if (field) return { kind: "contact", subject: owner || SELF, attribute: field, value: normaliseContactValue(field, value) };
  const place = personPlaceKind(attribute);
  if (place) return { kind: place, subject: owner || SELF, value: value.replace(/^(?:in|at|with)\s+/, "") };
  // No owner ("the printer is now broken") is the speaker's, as in Chinese (slots-zh.ts).
  return { kind: "state", subject: owner || SELF, attribute, value };
}

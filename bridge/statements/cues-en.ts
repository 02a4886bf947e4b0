// English cue words: closed classes of function words, interjections and predicates that tell a
// statement from a question, request or acknowledgement, and which kind of state a statement sets.
// Never things, places or people: those come from the text itself.
import type { SlotKind } from "./slots";

/** Whole-clause acknowledgements and back-channel replies (lowercased, apostrophes straightened). */
export const ACK_EN = new RegExp(
  "^(?:(?:ok|okay|k|kk|sure|sure thing|noted|got it|gotcha|understood|will do|roger(?: that)?|thanks|thank you(?: so much| very much)?|thanks a lot|thx|ty|cheers|cool|great|nice|awesome|perfect|alright|all right|all set|fine|i see|makes sense|sounds good|no problem|no worries|you're welcome|appreciate it|much appreciated|that helps|that's right|that is right|fair enough|nice one|brilliant|ta|lovely|cool cool|as far as i (?:can tell|know)|yes|yeah|yep|yup|no|nope|right|of course|absolutely|certainly|good to know|haha|hahaha|lol|hmm+|wow|ah|oh|sorry|sorry about that|apologies|my apologies|unfortunately|sadly|i'm afraid|afraid not|" +
    "(?:i'll|i will|i'm going to)(?: definitely)? (?:remember|keep) (?:that|it|this)(?: in mind)?|(?:i'll|i will) remember|i've (?:noted|saved|got) (?:that|it)(?: down)?|(?:it's |that's )?(?:noted|saved|got it)(?: down)?)" +
    "(?:[\\s,]+(?:then|now|too|again|a lot|so much|for that|for telling me|for letting me know))*)$",
);

/** A reply that says it has nothing to say (the assistant's "I don't know"). */
export const NON_ANSWER_EN = new RegExp(
  "^(?:(?:sorry|i'm sorry|unfortunately|hmm+|as far as i can tell|i'm afraid)[\\s,]*)*(?:" +
    [
      "(?:i\\s+)?(?:(?:really|honestly)\\s+)?(?:don't|do not|can't|cannot|couldn't|could not)\\s+(?:know|remember|recall|find|tell|say)\\b",
      "(?:i\\s+)?(?:don't|do not)\\s+have\\s+(?:that|this|any|anything|enough|the)\\b",
      "(?:i\\s+)?(?:have|'ve got)\\s+no\\s+(?:idea|record|memory|information|clue)\\b",
      "(?:that's|that is)\\s+not\\s+something\\s+i\\s+(?:have|know)",
      "you\\s+(?:haven't|have not|never|didn't|did not|'ve never|have never)\\s+(?:told|mentioned|said|shared|given|brought up)",
      "i\\s+(?:don't|do not)\\s+think\\s+you(?:'ve|\\s+have|\\s+had)?\\s+(?:ever\\s+)?(?:told|mentioned|said|shared|brought up)",
      "(?:i'm|i am)\\s+(?:not\\s+able\\s+to|unable\\s+to)\\s+(?:recall|remember|find|tell|say|answer)",
      "(?:i\\s+)?(?:don't|do not)\\s+(?:seem\\s+to\\s+)?(?:have|know)\\s+(?:that|this|it)(?:\\s+one)?\\b",
      "(?:i\\s+)?(?:can't|cannot|couldn't)\\s+(?:seem\\s+to\\s+)?(?:find|recall|remember)",
      "no idea|not sure|i'm not sure|i am not sure|as far as i (?:can tell|know)",
    ].join("|") +
    ")",
);

/** "Remember / note that …": a request whose content the speaker asserts; the content is classified on its own. */
export const MEMORY_WRAPPER_EN =
  /^(?:please\s+)?(?:note to self|remember|note|keep in mind|don't forget|do not forget|make a note|take note|for the record|fyi|just so you know|for your information)(?:\s+(?:that|this))?(?:\s*[,:]\s*|\s+)/;

/** Leading words that say nothing about the content. */
export const LEADING_FILLER_EN =
  /^(?:(?:oh|ah|um+|uh+|well|hey|hi|hello|so|and|but|also|anyway|btw|by the way|ok|okay|alright|actually|just|quick update|update|honestly|basically|frankly|to be honest|tbh|i think|i guess|change of plans|good news|bad news|fyi)\b[\s,:!]*)+/;

/** A clause that opens like a question. */
export const QUESTION_OPENER_EN = new RegExp(
  "^(?:(?:what|where|when|which|who|whom|whose|why|how)(?:'s|'re|'d|'ll)?\\b" +
    "|(?:is|are|am|was|were|does|did|can|could|will|would|should|shall)\\s+[a-z]" +
    // A negative opener asks only before its subject ("can't you…", "isn't it…"): "Can't beat tulips" states.
    "|(?:isn't|aren't|wasn't|weren't|doesn't|didn't|haven't|hasn't|won't|can't|couldn't|wouldn't|shouldn't)\\s+(?:i|you|we|they|he|she|it|there|that|this|my|your|our|their|his|her|the)\\b" +
    "|(?:have|has|had|don't)\\s+(?:i|you|we|they|he|she|it|my|your|our|their|his|her|the|this|that|there|these|those|anyone|anything)\\b" +
    "|do\\s+(?:i|you|we|they)\\b" +
    "|(?:any idea|any clue|got any idea|do you (?:know|remember|recall|happen to know)|you (?:know|remember|recall|happen to know) (?:where|what|when|which|who|how|if|whether)|can you (?:remember|recall)|remind me (?:where|what|when|which|who|how))\\b" +
    "|(?:i have a question|quick question|question)\\b" +
    // Questions said as statements: "I forgot where I put my passport", "not sure when the dentist is".
    "|(?:i\\s+)?(?:just\\s+)?(?:forgot|(?:have|'ve)\\s+forgotten|can't remember|cannot remember|don't remember|do not remember|can't recall|don't recall|(?:am\\s+|'m\\s+)?wondering|wonder|(?:have\\s+)?no idea|(?:am\\s+|'m\\s+)?not sure|don't know|do not know|lost track of)\\s+(?:where|what|when|which|who|how|if|whether)\\b)",
);

/** Openers of a request addressed to the listener (imperatives of asking, not of placing things). */
export const REQUEST_EN = new RegExp(
  "^(?:please|pls|kindly|lookup|look up|search for|tell me|show me|give me|help me|remind me|let me know|let's|let us|can you|could you|would you|will you|" +
    "i need you to|i want you to|i'd like you to|schedule a|set a reminder|set an alarm|set a timer|make me|" +
    // Imperatives of asking only with their object: "book a table", not "book club meets…".
    "(?:find|search|look up|list|summari[sz]e|translate|write|explain|describe|draft|recommend|suggest|calculate|compare|check|sort|proofread|rewrite|fix|plan|create|generate|make|add|remove|delete|show|give|send|order|convert)\\s+[^\\s]" +
    "|book\\s+(?:a|an|the|me|us|my|this|that|some|it|for)\\b)",
);

// ---- state-slot predicates ----

export const SELF_EN = /^(?:i|we|me|us|myself|my family|my wife and i|my husband and i|my partner and i)$/;

// Not "stay": "I'm staying in all day" is about today, not a home.
export const RESIDENCE_LIVE_EN = "(?:live|lives|living|reside|resides|residing|am based|are based|is based|based|settling down|settled down|settling|settled)";
export const WORK_EN =
  "(?:work|works|working|am working|'m working|are working|'re working|started working|started a (?:new )?job|got a (?:new )?job|took a (?:new )?job|have a (?:new )?job|joined|switched jobs to|moved jobs to|am employed|'m employed|employed|am interning|'m interning|intern)";

/** Verbs that move an event in time; the value must then be a time expression. */
export const SCHEDULE_VERB_EN =
  "(?:slipped|slid|moved|rescheduled|postponed|pushed back|pushed|brought forward|bumped|delayed|shifted|switched|changed|moved up|put off|set|scheduled|booked|planned|fixed)";

export const FAVOURITE_EN = "(?:favou?rite|preferred|go-to)";

// ---- query cues ----

// "Is book club still on Tuesdays?", "Does Priya still work at Unilever?": whether a value still holds.
const STILL_EN = /^(?:is|are|am|do|does|did|has|have)\b.*\bstill\b|\bstill\b.*\?$/;

export const KIND_CUES_EN: Array<[RegExp, SlotKind]> = [
  // "Is my passport still in the safe?": asking whether a place still holds is asking where the thing is now.
  [/\bwhere(?:'s| is| are| did| do|abouts)?\b|\blocation\b|\bplaces?\b(?! of (?:residence|work))|\bput\b|\bkeep\b|\bleft\b|\bstill (?:in|at|on|under|inside|with|in the)\b|\bwho has\b/, "location"],
  [/\bwhen\b|\bwhen's\b|\bwhat time\b|\bwhich day\b|\bwhat day\b|\bdate\b|\btime of\b|\bschedule[ds]?\b|\brescheduled\b|\bmoved to\b|\barrive|\bvisiting\b|\bcoming\b|\bstill (?:on|at)\b/, "schedule"],
  [/\bfavou?rite\b|\bprefer|\blike\b|\benjoy\b|\binto\b|\bgo-to\b|\btop (?!of\b)|\bfond of\b|\bhooked on\b|\bobsessed with\b|\bcrazy about\b|\blove\b/, "preference"],
  [/\blive\b|\blived\b|\blives\b|\bliving\b|\brelocated\b|\breside\b|\bresidence\b|\bmoved\b|\bhome\b|\bcity\b|\btown\b|\bbased\b|\bsettled\b|\bstaying\b/, "residence"],
  [/\bwork\b|\bworks\b|\bworking\b|\bjobs?\b|\bemployers?\b|\bcompany\b|\bemployed\b|\bteach(?:es|ing)?\b|\bhired\b|\bemploys\b|\bemploy\b/, "workplace"],
  [/\bhow many\b|\bhow much\b|\bnumber of\b|\bcount\b|\bwhat(?:'s| is| are)? (?:my|our)\b/, "state"],
  [/\bphone\b|\bnumber\b|\bemail\b|\be-mail\b|\baddress\b|\bcontact\b|\bwechat\b|\breach\b|\bget hold of\b|\bcall\b|\bring\b|\btext\b|\bextension\b/, "contact"],
  ...(["location", "schedule", "preference", "residence", "workplace", "state", "contact"] as const).map((kind): [RegExp, SlotKind] => [STILL_EN, kind]),
];

/** The speaker as a query names them: "my" only before a thing or attribute, not before a relative ("my aunt"). */
export const FIRST_PERSON_EN =
  /\b(?:i|me|mine|we|us)\b|\b(?:my|our)\s+(?!(?:mum|mom|mother|dad|father|parents?|sister|brother|aunt|uncle|cousin|grandma|grandpa|grandmother|grandfather|wife|husband|partner|boyfriend|girlfriend|son|daughter|kids?|children|friend|flatmate|roommate|boss|colleague|coworker|neighbou?r|landlord|niece|nephew)s?\b)/;

/** Spelled-out numbers people write for small counts. */
export const NUMBER_WORDS_EN: Record<string, string> = {
  zero: "0", no: "0", one: "1", a: "1", an: "1", two: "2", three: "3", four: "4", five: "5", six: "6", seven: "7", eight: "8", nine: "9", ten: "10", eleven: "11", twelve: "12", "a couple of": "2", "a dozen": "12",
};

/** Words that ask for the state as it is now ("now", "currently", "these days"). */
export const CURRENT_EN = /\b(?:now|currently|current|latest|these days|nowadays|at the moment|right now|at present|presently|most recently|recently|at this point|at this stage|as it stands)\b/;

/** Hedges that make a clause a guess, not a statement: "I think my passport is in the drawer, is it still?". */
export const HEDGE_EN = /^(?:i think|i thought|i remember|i believe|i guess|if i remember (?:right|correctly)|iirc|wasn't it|was it|i'm pretty sure|pretty sure)\b/;

/**
 * Why the speaker asks, said before the question in the same sentence ("I forgot again, where …?",
 * "sorry to bother you, what's …?", "I need to call mum, what's her number?"): the clause is part of
 * the question, not a statement of its own. Kept to the speaker's memory, search, apology and need.
 */
export const ASKING_PREAMBLE_EN =
  /^(?:sorry|excuse me|pardon|apologies|(?:i\s+|i'm\s+|i am\s+|i've\s+|i have\s+)?(?:(?:so|totally|completely|just|already|still|kind of|sort of|a bit)\s+)*(?:forgot|forget|forgetting|keep forgetting|can't remember|cannot remember|can't recall|cannot recall|don't remember|do not remember|don't recall|blanking|blanked|lost track|confused|mixed up|drawing a blank|not sure|unsure|looking for|searching for|can't find|cannot find|gotta|(?:need|needed|want|wanted|have|had|got|going|about) to|(?:need|needed|want|wanted) (?:it|that|this))\b|my (?:memory|mind|brain|head)\b|(?:it )?slipped my mind\b|(?:need|want) (?:it|that|this)\b)/;

/** Words that ask for a state's history ("changed over time", "history of"). */
export const HISTORY_EN = /\bover time\b|\bchanged\b|\bhistory\b|\bso far\b|\bfrom first to last\b|\bbefore that\b|\bever\b/;

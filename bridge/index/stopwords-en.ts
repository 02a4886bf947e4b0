// English function words that a search query may drop: closed word classes only, spelled as the
// tokenizer emits them (lowercase ASCII, apostrophes split off: "didn't" -> "didn", "t").
//
// Left out on purpose: prepositions and adverbs with spatial or temporal meaning ("under", "before",
// "after", "since", "again"), quantities ("many", "first"), and function words that are also names or
// content words ("may", "don", "won"): a user asking "what did I leave under the sink in May" means them.
const PRONOUNS = "i me my mine myself you your yours yourself yourselves he him his himself she her hers herself it its itself we us our ours ourselves they them their theirs themselves";
const DETERMINERS = "a an the this that these those some any each all both either neither no every such own same other";
const QUESTION_WORDS = "what which who whom whose when where why how";
const AUXILIARIES = "am is are was were be been being have has had having do does did doing done will would shall should can could might must cannot";
const CONNECTIVES = "and or but nor if than then so as not too very just also there here";
const GRAMMATICAL_PREPOSITIONS = "of to in on at by for with from about into onto";
// What "it's", "I'm", "you're", "I've", "I'll", "I'd" and "didn't" leave after the apostrophe split.
const CONTRACTION_PARTS = "s t m re ve ll d doesn didn isn aren wasn weren hasn haven hadn wouldn shouldn couldn";

export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  [PRONOUNS, DETERMINERS, QUESTION_WORDS, AUXILIARIES, CONNECTIVES, GRAMMATICAL_PREPOSITIONS, CONTRACTION_PARTS].join(" ").split(" "),
);

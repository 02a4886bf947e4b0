// Which retrieval mode a question wants: `timeline` (how something went over time: every relevant
// memory, oldest first, nothing collapsed) or `latest` (the current state: superseded states
// collapse to the newest). Heuristic, in Chinese and English; an LLM rewrite may replace it later.

export type RecallIntent = "latest" | "timeline";

const TIMELINE_EN = [
  /\bhistory\b/i,
  /\btime ?line\b/i,
  /\bover time\b/i,
  /\bchronolog/i,
  /\bin (?:what|which) order\b/i,
  /\bsequence of\b/i,
  /\bwhat happened\b/i,
  /\bhow did .{1,60}\b(?:change|evolve|develop|go)\b/i,
  /\bevery time\b|\ball the times\b|\beach time\b/i,
  /\b(?:so far|up to now|until now)\b/i,
  /\bfrom (?:the )?(?:start|beginning)\b/i,
  /\bwhat (?:did|have) (?:i|we|you) (?:do|done|say|said) (?:about|with)\b/i,
];

// 经过 and 前后 also occur in unrelated words (我经过超市, 前后端), so only their history senses count.
const TIMELINE_ZH = [/历史/, /的经过/, /经过是/, /过程/, /时间线/, /先后/, /顺序/, /来龙去脉/, /变化/, /演变/, /发生了什么/, /每次/, /历次/, /前前后后/, /后来/, /从头/, /一直以来/, /都(?:做|说|发生)了/, /完整/];

export function detectIntent(query: string): RecallIntent {
  return TIMELINE_EN.some((p) => p.test(query)) || TIMELINE_ZH.some((p) => p.test(query)) ? "timeline" : "latest";
}

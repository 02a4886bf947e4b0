// The offline stand-in for a chat model: a deterministic reply built only from the retrieved
// memories, in Chinese when the message is Chinese. It quotes what the user (or a fact) said, never
// its own earlier replies (so answers do not nest "I remember: I remember: …") nor earlier questions.
import type { RecalledMemory } from "../../plugin/recall/context-message";
import type { RecallIntent } from "../../plugin/recall/intent";

const QUOTE_MAX_CHARS = 240;
const TIMELINE_MAX_ITEMS = 5;
const QUOTABLE = new Set(["user_message", "system_fact"]);

export function scriptedReply(message: string, memories: readonly RecalledMemory[], intent: RecallIntent): string {
  const zh = /[\u3400-\u9fff]/.test(message);
  const quotable = memories.filter((m) => QUOTABLE.has(m.source_type) && !/[?？]\s*$/.test(m.text));
  if (quotable.length === 0) return zh ? "我还没有关于这件事的记忆。" : "I don't have a memory about that yet.";
  if (intent === "timeline") {
    // Timeline results arrive oldest first; the reply keeps that order.
    const items = quotable.slice(0, TIMELINE_MAX_ITEMS).map((m, i) => `${i + 1}) ${quote(m.text)}`);
    return (zh ? "我记得（按时间先后）：" : "I remember, oldest first: ") + items.join(zh ? "；" : "; ");
  }
  // Latest results arrive most relevant first, superseded states already collapsed by the bridge.
  return (zh ? "我记得：" : "I remember: ") + quote(quotable[0]!.text);
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > QUOTE_MAX_CHARS ? flat.slice(0, QUOTE_MAX_CHARS - 1) + "…" : flat;
}

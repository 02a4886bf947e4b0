// LoCoMo loading and the evidence-recall metric exactly as ../shared/data/locomo/README.md defines
// them: one document per turn, evidence repair, ALL/ANY/FRAC@K over categories 1-4.

export interface LocomoTurn {
  diaId: string;
  text: string;
  timestampMs: number;
  session: number;
  turn: number;
}

export interface LocomoItem {
  question: string;
  category: number;
  evidence: string[];
}

export interface LocomoConversation {
  sampleId: string;
  turns: LocomoTurn[];
  items: LocomoItem[];
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Array<{ question: string; category: number; evidence?: string[] }>;
}

export function loadConversations(raw: unknown): LocomoConversation[] {
  if (!Array.isArray(raw)) throw new Error("LoCoMo file must hold a JSON array of samples");
  return (raw as RawSample[]).map((sample) => {
    const turns: LocomoTurn[] = [];
    const sessions = Object.keys(sample.conversation)
      .map((key) => /^session_(\d+)$/.exec(key)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    for (const session of sessions) {
      const list = sample.conversation[`session_${session}`] as Array<Record<string, string>>;
      const timestampMs = parseSessionDate(String(sample.conversation[`session_${session}_date_time`] ?? ""));
      list.forEach((t, i) => {
        const caption = t.blip_caption ? ` [image: ${t.blip_caption}]` : "";
        turns.push({ diaId: t.dia_id, text: `${t.speaker}: ${t.text}${caption}`, timestampMs: timestampMs + i * 60_000, session, turn: i });
      });
    }
    const known = new Set(turns.map((t) => t.diaId));
    const items = sample.qa
      .filter((q) => q.category >= 1 && q.category <= 4)
      .map((q) => ({ question: q.question, category: q.category, evidence: repairEvidence(q.evidence ?? [], known) }))
      .filter((q) => q.evidence.length > 0);
    return { sampleId: sample.sample_id, turns, items };
  });
}

/** Split on ; , and whitespace, "D:" -> "D", drop leading zeros, drop ids that match no turn. */
export function repairEvidence(evidence: string[], known: Set<string>): string[] {
  const ids = evidence
    .flatMap((e) => e.split(/[;,\s]+/))
    .filter(Boolean)
    .map((e) => e.replace(/^D:/, "D").replace(/\d+/g, (n) => String(Number(n))));
  return [...new Set(ids)].filter((id) => known.has(id));
}

/** "1:56 pm on 8 May, 2023" -> epoch ms (UTC); unknown formats fall back to 0. */
export function parseSessionDate(text: string): number {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) return 0;
  const month = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].indexOf(m[5].slice(0, 3).toLowerCase());
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(m[6]), Math.max(month, 0), Number(m[4]), hour, Number(m[2]));
}

export const KS = [5, 10, 20] as const;

export interface RecallScores {
  n: number;
  all: Record<number, number>;
  any: Record<number, number>;
  frac: Record<number, number>;
}

export function emptyScores(): RecallScores {
  return { n: 0, all: { 5: 0, 10: 0, 20: 0 }, any: { 5: 0, 10: 0, 20: 0 }, frac: { 5: 0, 10: 0, 20: 0 } };
}

export function addItem(scores: RecallScores, evidence: string[], ranked: string[]): void {
  scores.n++;
  for (const k of KS) {
    const top = new Set(ranked.slice(0, k));
    const hits = evidence.filter((id) => top.has(id)).length;
    scores.all[k] += hits === evidence.length ? 1 : 0;
    scores.any[k] += hits > 0 ? 1 : 0;
    scores.frac[k] += hits / evidence.length;
  }
}

/** Percentages with one decimal, as in the README's tables. */
export function toPercent(scores: RecallScores): { n: number } & Record<string, number> {
  const out: { n: number } & Record<string, number> = { n: scores.n };
  for (const metric of ["all", "any", "frac"] as const) {
    for (const k of KS) out[`${metric.toUpperCase()}@${k}`] = scores.n ? Math.round((1000 * scores[metric][k]) / scores.n) / 10 : 0;
  }
  return out;
}

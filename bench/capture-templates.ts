// The shape of the capture benchmark's phrasing: every user and assistant template family, one
// set per language, written twice over (capture-templates-tuning.ts, capture-templates-heldout.ts).
// Templates are plain strings with {name} holes so a test can check the halves share none.

export type Lang = "zh" | "en";
export type Half = "tuning" | "heldout";
export const HALVES: readonly Half[] = ["tuning", "heldout"];
export const LANGS: readonly Lang[] = ["zh", "en"];

/** A family is one way of stating a planted state; several families report under one kind. */
export type Family = "location" | "schedule" | "preference" | "residence" | "workplace" | "contact" | "measure" | "count";
export type SlotKind = "location" | "schedule" | "preference" | "residence" | "contact" | "quantity";

export const KIND_OF: Record<Family, SlotKind> = {
  location: "location",
  schedule: "schedule",
  preference: "preference",
  residence: "residence",
  workplace: "residence",
  contact: "contact",
  measure: "quantity",
  count: "quantity",
};

export interface FamilyTemplates {
  /** The user states the (new) value; a template naming {old} is only used once there is a previous value. */
  statements: string[];
  /** The user asks about the subject, some time after a change. */
  questions: string[];
  /** The assistant repeats the new value, naming the subject. */
  restatements: string[];
  /** The assistant repeats the new value without naming the subject. */
  elided: string[];
  /** The assistant answers a question with the then-current value. */
  answers: string[];
  elidedAnswers: string[];
  /** The benchmark's own latest-mode query for the subject. */
  latestQueries: string[];
  /** The benchmark's own timeline-mode query for the subject. */
  timelineQueries: string[];
}

export interface LanguageTemplates {
  families: Record<Family, FamilyTemplates>;
  /** A bare reply to a statement ("Noted."). */
  acknowledgements: string[];
  /** The assistant does not know the answer. */
  unknown: string[];
  /** The assistant answers a question with a question. */
  questionsBack: string[];
  /** Each story is 3–5 user steps about one {obj}, in order. */
  actionStories: string[][];
  actionReplies: string[];
  actionTimelineQueries: string[];
}

export type TemplateHalf = Record<Lang, LanguageTemplates>;

const HOLE = /\{([a-zA-Z]+)\}/g;

/** Fills every {name} hole; a hole without a value is a bug in the generator, so it throws. */
export function fillTemplate(template: string, vars: Readonly<Record<string, string>>): string {
  const text = template.replace(HOLE, (_, name: string) => {
    const value = vars[name];
    if (value === undefined) throw new Error(`template "${template}" needs {${name}}`);
    return value;
  });
  // English templates may open on a hole ("{who} moved to …"), so the sentence is capitalised here.
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Every template string of a half, for the test that the halves never share one. */
export function allTemplateStrings(half: TemplateHalf): string[] {
  return LANGS.flatMap((lang) => {
    const t = half[lang];
    const families = Object.values(t.families).flatMap((f) => Object.values(f).flat() as string[]);
    return [...families, ...t.acknowledgements, ...t.unknown, ...t.questionsBack, ...t.actionStories.flat(), ...t.actionReplies, ...t.actionTimelineQueries];
  });
}

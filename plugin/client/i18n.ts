// The panel's words in English and Chinese (locale/en.json, locale/zh.json, shared with the
// Plugins page), and which of the two the host's UI is showing now.
import en from "../../locale/en.json";
import zh from "../../locale/zh.json";

export type Lang = "en" | "zh";
/** Words by key; `lang` says which language they are in (a detail in English is folded away in Chinese). */
export type Translate = ((key: string, vars?: Record<string, string | number>) => string) & { lang: Lang };

export const DICTIONARIES: Record<Lang, Record<string, unknown>> = { en: en.settings, zh: zh.settings };

/** `zh`, `zh-CN`, `zh-Hans`… → zh; everything else → en. */
export function toLang(id: unknown): Lang {
  return typeof id === "string" && id.toLowerCase().startsWith("zh") ? "zh" : "en";
}

export function translator(lang: Lang): Translate {
  const t = (key: string, vars?: Record<string, string | number>) => {
    const found = lookup(DICTIONARIES[lang], key) ?? lookup(DICTIONARIES.en, key) ?? key;
    return found.replace(/\{(\w+)\}/g, (whole, name: string) => (vars && name in vars ? String(vars[name]) : whole));
  };
  return Object.assign(t, { lang });
}

function lookup(dictionary: Record<string, unknown>, key: string): string | undefined {
  let node: unknown = dictionary;
  for (const part of key.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === "string" ? node : undefined;
}

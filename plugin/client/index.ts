// DSH-DREAM's browser half: two pages in DSH Settings — the settings, and the Memories page — in
// English or Chinese following the host's locale. Loaded by the DSH module loader; `apply` never
// throws, and each registration is guarded so that one that fails costs that page only. (DSH 0.1.x has no per-plugin
// summary row on its Plugins page: its cards belong to host settings namespaces, which this plugin
// does not use, so no summary is registered there.)
import * as React from "react";
import { DICTIONARIES, toLang, translator, type Lang, type Translate } from "./i18n";
import { MemoriesPage } from "./memories-page";
import { SettingsPanel } from "./settings-panel";

export const name = "dsh-dream";
export const inject = ["slots"];

const NS = "dsh-dream";
const h = React.createElement;

interface ClientContext {
  slots?: {
    inject(slot: string, callback: () => unknown): unknown;
    register(options: Record<string, unknown>, component: unknown): unknown;
  };
  get?(name: string): unknown;
  on?(event: string, listener: (...args: unknown[]) => void): unknown;
  effect?(execute: () => () => void, label?: string): unknown;
}

interface LocaleService {
  getLocale?(): { active?: string } | string | undefined;
  register?(ns: string, dictionaries: Record<string, unknown>): () => void;
}

/** The host UI's language now, and whoever wants to hear when it changes. */
class LangState {
  private readonly listeners = new Set<() => void>();
  constructor(private readonly read: () => Lang) {}
  get current(): Lang {
    return this.read();
  }
  changed(): void {
    for (const listener of this.listeners) listener();
  }
  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };
}

export function apply(ctx: ClientContext): void {
  const locale = safely(() => (ctx.get?.("locale") ?? (ctx as { locale?: unknown }).locale) as LocaleService | undefined);
  const lang = new LangState(() => detectLang(locale));
  safely(() => ctx.effect?.(() => locale?.register?.(NS, DICTIONARIES) ?? (() => undefined), "dsh-dream: locale"));
  safely(() => ctx.on?.("locale/change", () => lang.changed()));
  const t = () => translator(lang.current);
  // Components re-render with the other language when the host switches locale.
  const useT = (): Translate => translator(React.useSyncExternalStore(lang.subscribe, () => lang.current));
  const Page = () => h(SettingsPanel, { t: useT() });
  const Memories = () => h(MemoriesPage, { t: useT() });

  // The callback runs later, when the host declares the slot: each registration guards itself too.
  safely(() =>
    ctx.slots?.inject("settings.section", () => {
      safely(() => ctx.slots!.register({ name: "settings.section", id: "dsh-dream", order: 32, label: () => t()("nav"), locale: NS }, Page));
      safely(() => ctx.slots!.register({ name: "settings.section", id: "dsh-dream-memories", order: 33, label: () => t()("memories.nav"), locale: NS }, Memories));
    }),
  );
}

function detectLang(locale: LocaleService | undefined): Lang {
  const active = safely(() => {
    const value = locale?.getLocale?.();
    return typeof value === "string" ? value : value?.active;
  });
  if (active) return toLang(active);
  return toLang(typeof document !== "undefined" ? document.documentElement.lang || navigator.language : "en");
}

/** A host that lacks a slot or service must cost us that feature only, never the page. */
function safely<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch (error) {
    console.warn("[dsh-dream] settings pages:", error);
    return undefined;
  }
}

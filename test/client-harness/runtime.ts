// The DSH web UI surface the plugin's browser half expects, small enough to read: DSH's own client
// module system from npm (@deepseek-ai/dsh-client-modules, loaded by the page before this script)
// with the host's baseline modules as its seeds, a slot registry that declares `settings.section`
// only when the settings shell mounts (as DSH's does), a locale service with a switch, and a
// settings shell rendering the registered sections. Built for the browser by the test with esbuild.
import * as React from "react";
import * as ReactDOM from "react-dom";
import * as ReactDOMClient from "react-dom/client";
import * as JsxRuntime from "react/jsx-runtime";

interface Registration {
  options: Record<string, any>;
  component: React.ComponentType<any>;
}

class Slots {
  private readonly declared = new Map<string, Registration[]>();
  private readonly waiting = new Map<string, Array<() => unknown>>();
  private readonly listeners = new Set<() => void>();

  /** Runs `callback` once `slot` is declared (now, if it already is). */
  inject(slot: string, callback: () => unknown): void {
    if (this.declared.has(slot)) callback();
    else this.waiting.set(slot, [...(this.waiting.get(slot) ?? []), callback]);
  }

  register(options: Record<string, any>, component: React.ComponentType<any>): () => void {
    // ?breakSlot=<name> makes one slot refuse registrations, to prove the others still work.
    if (options.name === new URLSearchParams(location.search).get("breakSlot")) throw new Error(`slot "${options.name}" refused (test)`);
    const list = this.declared.get(options.name);
    if (!list) throw new Error(`slot "${options.name}" is not declared`);
    const entry = { options, component };
    list.push(entry);
    this.notify();
    return () => {
      list.splice(list.indexOf(entry), 1);
      this.notify();
    };
  }

  declare(slot: string): void {
    if (this.declared.has(slot)) return;
    this.declared.set(slot, []);
    for (const callback of this.waiting.get(slot) ?? []) callback();
    this.waiting.delete(slot);
  }

  entries(slot: string): Registration[] {
    return [...(this.declared.get(slot) ?? [])].sort((a, b) => (a.options.order ?? 0) - (b.options.order ?? 0));
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

const events = new Map<string, Set<(...args: unknown[]) => void>>();
const slots = new Slots();
let active = new URLSearchParams(location.search).get("lang") ?? "en";
const registeredLocales = new Map<string, unknown>();
const locale = {
  getLocale: () => ({ active }),
  register: (ns: string, dictionaries: unknown) => {
    registeredLocales.set(ns, dictionaries);
    return () => void registeredLocales.delete(ns);
  },
};
const ctx = {
  slots,
  locale,
  get: (name: string) => (name === "slots" ? slots : name === "locale" ? locale : undefined),
  on: (event: string, listener: (...args: unknown[]) => void) => {
    events.set(event, new Set([...(events.get(event) ?? []), listener]));
    return () => void events.get(event)?.delete(listener);
  },
  effect: (execute: () => () => void) => execute(),
};

function setLocale(lang: string): void {
  active = lang;
  document.documentElement.lang = lang;
  for (const listener of events.get("locale/change") ?? []) listener({ active: lang });
  renderVersion++;
  shellListeners.forEach((l) => l());
}
let renderVersion = 0;
const shellListeners = new Set<() => void>();

function SettingsShell(): React.ReactElement {
  React.useSyncExternalStore(slots.subscribe, () => slots.entries("settings.section").length);
  React.useSyncExternalStore(
    (l) => {
      shellListeners.add(l);
      return () => void shellListeners.delete(l);
    },
    () => renderVersion,
  );
  React.useLayoutEffect(() => {
    slots.declare("settings.section");
    slots.declare("plugins.row.config");
  }, []);
  const sections = slots.entries("settings.section");
  const rows = slots.entries("plugins.row.config");
  const [selected, setSelected] = React.useState<string | undefined>(undefined);
  const current = sections.find((s) => s.options.id === selected) ?? sections[0];
  const label = (s: Registration) => (typeof s.options.label === "function" ? s.options.label() : s.options.label);
  return React.createElement(
    "div",
    { style: { display: "flex", gap: 24, font: "14px system-ui, sans-serif", padding: 16 } },
    React.createElement(
      "nav",
      { style: { width: 160, borderRight: "1px solid #ddd" } },
      React.createElement("div", { style: { marginBottom: 12 } }, ...["en", "zh"].map((lang) => React.createElement("button", { key: lang, "data-testid": `lang-${lang}`, onClick: () => setLocale(lang), style: { marginRight: 6 } }, lang))),
      ...sections.map((s) => React.createElement("div", { key: s.options.id, "data-testid": `nav-${s.options.id}`, onClick: () => setSelected(s.options.id), style: { cursor: "pointer", fontWeight: s === current ? 600 : 400 } }, label(s))),
    ),
    React.createElement(
      "div",
      { style: { flex: 1 } },
      React.createElement("main", { "data-testid": "settings-main" }, current ? React.createElement(current.component, { close: () => undefined }) : "no sections"),
      React.createElement(
        "aside",
        { "data-testid": "plugins-page", style: { borderTop: "1px solid #ddd", marginTop: 16, paddingTop: 8 } },
        ...rows.map((row) => React.createElement("div", { key: row.options.key, "data-testid": `plugin-row-${row.options.key}` }, React.createElement(row.component, { view: "summary" }))),
      ),
    ),
  );
}

interface Facade {
  mode: string;
  pendingQueue: Array<{ id: string; factory: (require: (spec: string) => unknown) => any }>;
  load(registration: unknown): void;
}

async function boot(): Promise<void> {
  const facade = (window as unknown as { __ModuleLoader__: Facade }).__ModuleLoader__;
  const systemId = "@deepseek-ai/dsh-client-modules";
  const own = facade.pendingQueue.findIndex((r) => r.id === systemId);
  const [registration] = facade.pendingQueue.splice(own, 1);
  const seeds: Record<string, unknown> = {
    react: React,
    "react/jsx-runtime": JsxRuntime,
    "react-dom": ReactDOM,
    "react-dom/client": ReactDOMClient,
    "@deepseek-ai/dsh-client-ui-slots": {},
    "@deepseek-ai/dsh-client-ui-primitives": {},
  };
  const systemExports = registration!.factory((spec) => seeds[spec]);
  const system = systemExports.createClientModuleSystem(
    facade,
    { id: systemId, exports: systemExports },
    { boot: { rev: "1", entries: [{ id: "dsh-dream", url: "/plugins/dsh-dream/client.js", rev: "1" }] }, staticModules: seeds },
  );
  const plugin = await system.import("dsh-dream");
  (window as unknown as { harness: unknown }).harness = { pluginExports: Object.keys(plugin).sort(), inject: plugin.inject, registeredLocales: () => [...registeredLocales.keys()] };
  plugin.apply(ctx);
  document.documentElement.lang = active;
  ReactDOMClient.createRoot(document.getElementById("root")!).render(React.createElement(SettingsShell));
}

boot().catch((error) => {
  document.body.setAttribute("data-boot-error", String(error?.stack ?? error));
});

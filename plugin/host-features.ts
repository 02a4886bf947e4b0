// The host differences the plugin copes with (dsh-host.md §0): how a session's log can be read
// (0.1.x `events`, 0.1.x–0.2 `snapshotEvents()`, later neither), and which optional services exist.
// Reported in the status route so a user's bug report says which host generation they run.
import type { HostContext, HostSession, SessionEvent } from "./host-types";

/** The session's committed events, by whichever reader this host generation offers; undefined when none. */
export function readSessionEvents(session: HostSession): readonly SessionEvent[] | undefined {
  try {
    if (typeof session.snapshotEvents === "function") return session.snapshotEvents();
    if (Array.isArray(session.events)) return session.events;
  } catch {
    // A reader that throws counts as absent: capture then relies on its own buffer alone.
  }
  return undefined;
}

export function hostFeatures(ctx: HostContext): Record<string, boolean> {
  const has = (name: string) => {
    try {
      return ctx.get(name) !== undefined && ctx.get(name) !== null;
    } catch {
      return false;
    }
  };
  return { tools: has("tools"), web_server: has("webServer"), settings_service: has("settings"), system_prompt: has("systemPrompt") };
}

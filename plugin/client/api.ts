// Calls to the plugin's own routes on the DSH host (same origin). Every answer comes back as a
// value, never a throw: the panel shows what went wrong instead of breaking the settings page.
import type { FieldIssue } from "./form";

export const ROUTE_PREFIX = "/_dsh/holo-memory";

export type ApiResult<T> =
  | { ok: true; status: number; body: T }
  | { ok: false; status: number; code: string; message: string; issues: FieldIssue[] };

export interface SettingsBody {
  settings: Record<string, any>;
  secrets: { embeddingApiKey: { set: boolean } };
}

export async function callRoute<T>(method: "GET" | "POST", route: string, body?: unknown): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(ROUTE_PREFIX + route, {
      method,
      credentials: "same-origin",
      cache: "no-store",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    return { ok: false, status: 0, code: "NETWORK", message: (error as Error)?.message ?? String(error), issues: [] };
  }
  let parsed: any = null;
  try {
    parsed = await response.json();
  } catch {
    return { ok: false, status: response.status, code: "BAD_JSON", message: `HTTP ${response.status}`, issues: [] };
  }
  if (response.ok) return { ok: true, status: response.status, body: parsed as T };
  const error = parsed?.error ?? {};
  const issues: FieldIssue[] = Array.isArray(parsed?.issues) ? parsed.issues : error.field ? [{ field: error.field, message: error.message }] : [];
  return { ok: false, status: response.status, code: String(error.code ?? "HTTP_" + response.status), message: String(error.message ?? ""), issues };
}

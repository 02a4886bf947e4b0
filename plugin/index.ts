// DSH-DREAM host entry: the four named exports DSH's loader reads (no default export: with one,
// the loader would take it and silently drop `inject` and `Config`). Wiring only.
import path from "node:path";
import type { HostContext } from "./host-types";
import type { PluginConfig } from "./config";
import { startMemoryPlugin } from "./memory-plugin";

export { Config } from "./config";

export const name = "dsh-dream";

/** Nothing is required: tools and the web server are optional services, taken when present. */
export const inject: string[] = [];

declare const DSH_DREAM_VERSION: string;
/** Set by the ESM build's banner: this bundle's own file (dist/plugin/index.mjs). */
declare const __dream_module_file: string | undefined;

export function apply(ctx: HostContext, config: PluginConfig): void {
  const here = typeof __dream_module_file === "string" ? path.dirname(__dream_module_file) : __dirname;
  startMemoryPlugin(ctx, config, { cliPath: path.join(here, "..", "cli.cjs"), version: DSH_DREAM_VERSION });
}

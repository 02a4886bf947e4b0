// The settings-panel tests' world: the real DSH host (test/dsh-host) with the plugin, its routes
// and a real bridge, serving a small DSH web-UI page (test/client-harness) next to the built
// client bundle on DSH's own web server, and a headless Chromium driven by playwright-core.
import { build } from "esbuild";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { tempDir } from "../../store/helpers";
import { DshHost } from "../dsh-host-driver";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const HARNESS_DIR = path.join(ROOT, "test", "client-harness");

export function chromiumPath(): string {
  const candidate = process.env.DSH_DREAM_CHROMIUM ?? "/usr/bin/chromium";
  if (!fs.existsSync(candidate)) {
    throw new Error(`no Chromium at ${candidate}: run \`sudo apt-get install -y chromium fonts-wqy-microhei\` (npm test's pretest does this as root) or set DSH_DREAM_CHROMIUM`);
  }
  return candidate;
}

/** Bundles the harness runtime (React and friends included) into a temporary file. */
export async function buildRuntime(): Promise<string> {
  const outfile = path.join(tempDir("client-harness-"), "runtime.js");
  await build({
    entryPoints: [path.join(HARNESS_DIR, "runtime.ts")],
    outfile,
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2020",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "warning",
  });
  return outfile;
}

export interface PanelWorld {
  host: DshHost;
  dataDir: string;
  port: number;
  browser: Browser;
  context: BrowserContext;
  url(lang?: string): string;
  close(): Promise<void>;
}

export async function startPanelWorld(config: Record<string, unknown>, options: { env?: Record<string, string>; beforeBoot?: (dataDir: string) => void } = {}): Promise<PanelWorld> {
  const runtime = await buildRuntime();
  const dshHome = tempDir("dsh-home-");
  const dataDir = path.join(dshHome, "dsh-dream");
  options.beforeBoot?.(dataDir);
  const host = new DshHost({ ...process.env, DSH_HOME: dshHome, ...options.env });
  const { webPort } = await host.boot(config, { webServer: true });
  await host.send("serveFiles", {
    files: {
      "/": { file: path.join(HARNESS_DIR, "index.html"), type: "text/html; charset=utf-8" },
      "/harness-runtime.js": { file: runtime, type: "text/javascript; charset=utf-8" },
      "/dsh-client-modules.js": { file: path.join(ROOT, "test", "dsh-host", "node_modules", "@deepseek-ai", "dsh-client-modules", "lib", "client.js"), type: "text/javascript; charset=utf-8" },
      "/plugins/dsh-dream/client.js": { file: path.join(ROOT, "dist", "client", "index.js"), type: "text/javascript; charset=utf-8" },
    },
  });
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const port = webPort!;
  return {
    host,
    dataDir,
    port,
    browser,
    context,
    url: (lang = "en") => `http://127.0.0.1:${port}/?lang=${lang}`,
    close: async () => {
      await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await host.shutdown().catch(() => undefined);
      host.kill();
    },
  };
}

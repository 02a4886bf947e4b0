// Every word the settings panel shows exists in English and in Chinese, with the same placeholders.
import fs from "node:fs";
import path from "node:path";
import en from "../../../locale/en.json";
import zh from "../../../locale/zh.json";
import { toLang, translator } from "../../../plugin/client/i18n";

const CLIENT_DIR = path.resolve(__dirname, "..", "..", "..", "plugin", "client");

function flatten(node: unknown, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (value !== null && typeof value === "object") for (const [k, v] of flatten(value, `${prefix}${key}.`)) out.set(k, v);
    else out.set(prefix + key, String(value));
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("the panel's locales", () => {
  it("hold the same keys in English and Chinese, with the same placeholders, none empty", () => {
    const english = flatten(en);
    const chinese = flatten(zh);
    expect([...chinese.keys()].sort()).toEqual([...english.keys()].sort());
    for (const [key, text] of english) {
      expect([key, placeholders(chinese.get(key)!)]).toEqual([key, placeholders(text)]);
      expect([key, text.trim() === "" || chinese.get(key)!.trim() === ""]).toEqual([key, false]);
    }
    expect(en.meta.title).toBe("DSH-DREAM long-term memory");
    expect(zh.meta.title).toBe("DSH-DREAM 长期记忆");
  });

  it("have an entry for every literal key the panel's code asks for", () => {
    const keys = new Set<string>();
    for (const file of fs.readdirSync(CLIENT_DIR).filter((f) => f.endsWith(".ts"))) {
      const source = fs.readFileSync(path.join(CLIENT_DIR, file), "utf8");
      for (const match of source.matchAll(/\bt\(\s*"([\w.]+)"/g)) keys.add(match[1]!);
    }
    expect(keys.size).toBeGreaterThan(40);
    const english = flatten(en.settings);
    expect([...keys].filter((key) => !english.has(key))).toEqual([]);
  });

  it("names every error code and fallback reason the panel may be handed", () => {
    for (const code of ["INVALID_FIELD", "REEMBED_REFUSED", "EMBEDDING_UNAVAILABLE", "BRIDGE_UNAVAILABLE", "INTERNAL"]) {
      expect(translator("zh")(`errors.${code}`)).not.toBe(`errors.${code}`);
    }
    for (const reason of ["runtime_missing", "model_not_cached", "index_not_current", "provider_error"]) {
      expect(translator("en")(`fallbackReasons.${reason}`)).not.toBe(`fallbackReasons.${reason}`);
    }
    // Every reason a model download can fail with (bridge/embed/download-model.ts), and every embedder state and provider.
    const source = fs.readFileSync(path.resolve(CLIENT_DIR, "..", "..", "bridge", "embed", "download-model.ts"), "utf8");
    const reasons = [...(/export type DownloadFailure = ([^;]+);/.exec(source)![1].matchAll(/"(\w+)"/g))].map((m) => m[1]!);
    expect(reasons.length).toBeGreaterThan(6);
    for (const key of [...reasons.map((r) => `downloadFailed.${r}`), "downloadFailed.invalid", ...["off", "opening", "ready", "unavailable", "refused"].map((s) => `embedderStates.${s}`), ...["local", "openai_compatible", "off"].map((p) => `providers.${p}`)]) {
      for (const lang of ["en", "zh"] as const) expect([lang, key, translator(lang)(key) === key]).toEqual([lang, key, false]);
    }
  });

  it("fills placeholders, falls back to English for a missing word, and maps host locale ids to en or zh", () => {
    expect(translator("zh")("coverageValue", { current: 3, records: 4, percent: 75 })).toBe("4 条记忆中有 3 条已有向量（75%）");
    expect(translator("en")("bridgeRunning", { pid: 42 })).toBe("running (process 42)");
    expect(translator("zh")("no.such.key")).toBe("no.such.key");
    expect(["zh", "zh-CN", "zh-Hans", "ZH-tw", "en", "en-US", "fr", undefined, 3].map(toLang)).toEqual(["zh", "zh", "zh", "zh", "en", "en", "en", "en", "en"]);
  });
});

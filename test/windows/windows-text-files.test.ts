// Files as Windows writes them (issue 14, finding 8): Windows PowerShell 5.1's Out-File and `>`
// write UTF-16 LE with a BOM, Set-Content writes the ANSI code page (CP936 on a Chinese Windows),
// Notepad may add a UTF-8 BOM. Each is read correctly or refused by name; nothing is imported as
// mojibake, and nothing stored changes on a refusal.
import fs from "node:fs";
import path from "node:path";
import { loadBridgeConfig } from "../../bridge/server/bridge-config";
import { decodeText } from "../../bridge/protocol/text-files";
import { DreamError } from "../../bridge/protocol/errors";
import { syncBridgeConfig } from "../../plugin/bridge-config-sync";
import { DEFAULT_CONFIG } from "../../plugin/config";
import { runCli } from "../cli/run-cli";
import { closePluginHome, newPluginHome } from "../plugin/plugin-helpers";
import { tempDir } from "../store/helpers";

const LINES = ['{"id":"w1","text":"钥匙放在鞋柜里了。","source_type":"user_message"}', '{"id":"w2","text":"The bike is in the garage.","source_type":"user_message"}'];

const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
const utf16be = (text: string) => {
  const le = Buffer.from(text, "utf16le");
  for (let i = 0; i < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1]!, le[i]!];
  return Buffer.concat([Buffer.from([0xfe, 0xff]), le]);
};
// "钥匙" in GBK/CP936, as Set-Content writes it on a Chinese Windows. D4 BF happens to be valid UTF-8
// (U+053F); B3 is the first byte no UTF-8 reader accepts: the error points there.
const CP936_KEYS = Buffer.from([0xd4, 0xbf, 0xb3, 0xd7]);

describe("decoding text files by their BOM", () => {
  it.each([
    ["UTF-8", Buffer.from(LINES.join("\r\n"), "utf8"), "utf-8"],
    ["UTF-8 with a BOM", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LINES.join("\r\n"), "utf8")]), "utf-8"],
    ["UTF-16 LE with a BOM (PowerShell 5.1 Out-File, >)", utf16le(LINES.join("\r\n")), "utf-16le"],
    ["UTF-16 BE with a BOM", utf16be(LINES.join("\r\n")), "utf-16be"],
  ])("reads %s", (_label, bytes, encoding) => {
    expect(decodeText(bytes, "f.jsonl")).toEqual({ text: LINES.join("\r\n"), encoding });
  });

  it("refuses bytes in a legacy code page by name and position, with what to do", () => {
    const bytes = Buffer.concat([Buffer.from('{"text":"', "utf8"), CP936_KEYS, Buffer.from('"}', "utf8")]);
    const error = (() => {
      try {
        decodeText(bytes, "C:\\Users\\me\\notes.jsonl");
      } catch (caught) {
        return caught as DreamError;
      }
      throw new Error("decoded");
    })();
    expect(error.code).toBe("BAD_ENCODING");
    expect(error.message).toBe("C:\\Users\\me\\notes.jsonl is not valid UTF-8 (byte 11); it may be in a legacy code page (Windows PowerShell 5.1's Set-Content writes one). Nothing was read from it.");
    expect(error.hint).toContain("Set-Content -Encoding utf8");
  });
});

describe("dsh-dream import with Windows-written files", () => {
  it.each([
    ["UTF-16 LE (Out-File)", utf16le(LINES.join("\r\n") + "\r\n")],
    ["UTF-8 with a BOM", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LINES.join("\r\n") + "\r\n")])],
  ])("imports a %s file exactly", (_label, bytes) => {
    const dataDir = tempDir("win-import-");
    const file = path.join(dataDir, "..", `${path.basename(dataDir)}.jsonl`);
    fs.writeFileSync(file, bytes);
    try {
      const imported = runCli(["--data-dir", dataDir, "import", file, "--json"]);
      expect(imported.code).toBe(0);
      const search = JSON.parse(runCli(["--data-dir", dataDir, "search", "钥匙", "--json"]).stdout);
      expect(search.results.map((r: { id: string; text: string }) => [r.id, r.text])).toEqual([["w1", "钥匙放在鞋柜里了。"]]);
    } finally {
      runCli(["--data-dir", dataDir, "stop"]);
      fs.rmSync(file, { force: true });
    }
  });

  it("refuses a CP936 file by name and stores nothing from it", () => {
    const dataDir = tempDir("win-import-");
    const file = path.join(dataDir, "..", `${path.basename(dataDir)}-cp936.jsonl`);
    fs.writeFileSync(file, Buffer.concat([Buffer.from('{"id":"w9","text":"', "utf8"), CP936_KEYS, Buffer.from('","source_type":"user_message"}\r\n', "utf8")]));
    try {
      const imported = runCli(["--data-dir", dataDir, "import", file]);
      expect(imported.code).toBe(1);
      expect(imported.stderr).toContain(`error [BAD_ENCODING]: ${file} is not valid UTF-8 (byte 21)`);
      expect(JSON.parse(runCli(["--data-dir", dataDir, "status", "--json"]).stdout).records).toBe(0);
    } finally {
      runCli(["--data-dir", dataDir, "stop"]);
      fs.rmSync(file, { force: true });
    }
  });
});

describe("config files written by Windows tools", () => {
  it("reads a UTF-16 LE bridge-config.json (PowerShell 5.1 `>`), on the bridge's side and the plugin's", () => {
    const dataDir = tempDir("win-config-");
    fs.writeFileSync(path.join(dataDir, "bridge-config.json"), utf16le(JSON.stringify({ embedding: { provider: "off" } }, null, 2)));
    expect(loadBridgeConfig(dataDir).embedding.provider).toBe("off");
    expect(syncBridgeConfig(dataDir, { ...DEFAULT_CONFIG, embedding: { ...DEFAULT_CONFIG.embedding, provider: "local" } })).toBe(true);
    expect(loadBridgeConfig(dataDir).embedding.provider).toBe("local");
  });

  it("loads a settings.json saved with a UTF-8 BOM instead of failing the plugin's load (in the DSH host)", async () => {
    const home = newPluginHome();
    try {
      fs.mkdirSync(home.dataDir, { recursive: true });
      fs.writeFileSync(path.join(home.dataDir, "settings.json"), `\uFEFF${JSON.stringify({ settings: { holographic: true } })}`);
      const { webPort } = await home.host.boot({ enabled: false }, { webServer: true });
      const response = await fetch(`http://127.0.0.1:${webPort}/_dsh/holo-memory/settings`, { headers: { host: `localhost:${webPort}` } });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { settings: unknown }).settings).toMatchObject({ enabled: false, holographic: true });
    } finally {
      await closePluginHome(home);
    }
  });
});

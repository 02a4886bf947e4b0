// The two thin front ends. install.sh runs for real from a release-shaped folder (stand-in dsh,
// Node 24 first on PATH); the .ps1 cannot run here (no PowerShell, dependency-notes §7), so it is
// parsed with tree-sitter-powershell and its parameter-to-flag mapping is checked as text.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseInstallArgs } from "../../installer/args";
import { dshNode } from "../plugin/dsh-host-driver";
import { INSTALLER, installDir, makeBinDir, makeBundle, makeDshHome, readProfile, recordedCalls, removeTempDirs, ROOT, tempDir, userHome } from "./installer-fixtures";

const SH = path.join(ROOT, "installer", "install.sh");
const PS1 = path.join(ROOT, "installer", "install-agent-memory-plugin.ps1");

afterEach(removeTempDirs);

/** The release folder layout: install.sh, installer/install.cjs and bundle/ side by side. */
function makeRelease(): string {
  const release = path.join(tempDir("release"), "DSH-DREAM-v0.1.0");
  fs.mkdirSync(path.join(release, "installer"), { recursive: true });
  fs.copyFileSync(SH, path.join(release, "install.sh"));
  fs.copyFileSync(INSTALLER, path.join(release, "installer", "install.cjs"));
  fs.cpSync(makeBundle(), path.join(release, "bundle"), { recursive: true });
  return release;
}

function runSh(release: string, args: string[], pathDirs: string[], env: Record<string, string> = {}) {
  return spawnSync("sh", [path.join(release, "install.sh"), ...args], { encoding: "utf8", env: { PATH: [...pathDirs, "/usr/bin", "/bin"].join(":"), HOME: userHome(pathDirs[0]), DSH_DREAM_INSTALL_SKIP_DEPS: "1", ...env } });
}

describe("install.sh", () => {
  it.each(["sh", "bash"])("passes `%s -n`", (shell) => {
    const result = spawnSync(shell, ["-n", SH], { encoding: "utf8" });
    expect([result.status, result.stderr]).toEqual([0, ""]);
  });

  it("hands --profile, --force and --dsh-home to the Node installer with the bundle next to it", () => {
    const release = makeRelease();
    const home = makeDshHome();
    const bin = makeBinDir(["dsh", "pnpm"]);
    const nodeDir = path.dirname(dshNode());
    expect(runSh(release, ["--dsh-home", home], [bin, nodeDir]).status).toBe(0);
    const run = runSh(release, ["--profile", "web", "--force", "--dsh-home", home, "--json"], [bin, nodeDir]);

    expect([run.status, run.stderr]).toEqual([0, expect.any(String)]);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, action: "reinstall", profile: "web", method: "dsh-cli" });
    const spec = `link:${installDir(home)}`;
    expect(recordedCalls(bin).filter((call) => call.tool === "dsh").map((call) => call.args)).toEqual([
      ["plugin", "--profile", "web", "add", "-w", spec],
      ["plugin", "--profile", "web", "remove", "dsh-dream"],
      ["plugin", "--profile", "web", "add", "-w", spec],
    ]);
    expect(readProfile(home).dsh.profile.bundles).toContain("dsh-dream");
  });

  it("hands --uninstall and --remove-data on, deleting the data directory", () => {
    const release = makeRelease();
    const home = makeDshHome();
    const nodeDir = path.dirname(dshNode());
    runSh(release, ["--dsh-home", home], [makeBinDir(), nodeDir]);
    const run = runSh(release, ["--dsh-home", home, "--uninstall", "--remove-data"], [makeBinDir(), nodeDir]);

    expect(run.status).toBe(0);
    expect(run.stdout).toContain("DSH-DREAM removed from DSH profile");
    expect(fs.existsSync(path.join(home, "dsh-dream"))).toBe(false);
  });

  it("refuses Node 20 on PATH with the Node 22 message and exit 1, before running the installer", () => {
    const bin = makeBinDir(["dsh", "pnpm"]);
    const run = runSh(makeRelease(), ["--dsh-home", makeDshHome()], [bin, path.dirname(process.execPath)]);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`DSH-DREAM needs Node.js 22 or newer (DSH itself does), but 'node' on PATH is v${process.versions.node}.`);
    expect(run.stderr).toContain("https://nodejs.org/");
    expect(recordedCalls(bin)).toEqual([]);
  });

  it("hands --download-model and --mirror on to the Node installer, which checks them", () => {
    const run = runSh(makeRelease(), ["--dsh-home", makeDshHome(), "--download-model", "--mirror", "hf-mirror.com"], [makeBinDir(), path.dirname(dshNode())]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--mirror must be an http:// or https:// URL such as https://hf-mirror.com/, not "hf-mirror.com"');
  });

  it("exits 2 naming an unknown option", () => {
    const run = runSh(makeRelease(), ["--Force"], [path.dirname(dshNode())]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("install.sh: unknown option --Force");
  });
});

describe("install-agent-memory-plugin.ps1", () => {
  const script = fs.readFileSync(PS1, "utf8");

  it("parses without syntax errors under tree-sitter-powershell", async () => {
    const errors = await powershellSyntaxErrors(script);
    expect(errors).toEqual([]);
    expect(await powershellSyntaxErrors(script.replace("if ($Force) {", "if ($Force {"))).not.toEqual([]);
  });

  it("declares exactly -Force, -Profile, -DshHome, -Uninstall and -RemoveData", () => {
    const params = /param\(([\s\S]*?)\n\)/.exec(script)?.[1] ?? "";
    expect([...params.matchAll(/\[(\w+)\]\$(\w+)/g)].map((m) => `${m[1]} ${m[2]}`)).toEqual(["switch Force", "string Profile", "string DshHome", "switch Uninstall", "switch RemoveData", "switch DownloadModel", "string Mirror"]);
  });

  it.each([
    ["Force", "'--force'"],
    ["Profile", "@('--profile', $Profile)"],
    ["DshHome", "@('--dsh-home', ($DshHome -replace '(?<=[^:])\\\\+$', ''))"],
    ["Uninstall", "'--uninstall'"],
    ["RemoveData", "'--remove-data'"],
    ["DownloadModel", "'--download-model'"],
    ["Mirror", "@('--mirror', $Mirror)"],
  ])("maps -%s to the Node installer's %s", (param, mapped) => {
    expect(script).toContain(`if ($${param}) { $nodeArgs += ${mapped} }`);
  });

  it("maps only to flags the Node installer accepts, runs install.cjs beside it with bundle/ and exits with its code", () => {
    const flags = [...script.matchAll(/'(--[a-z-]+)'/g)].map((m) => m[1]);
    expect(flags).toEqual(["--force", "--profile", "--dsh-home", "--uninstall", "--remove-data", "--download-model", "--mirror", "--bundle"]);
    expect(parseInstallArgs(["--force", "--profile", "web", "--dsh-home", "/h", "--uninstall", "--remove-data", "--bundle", "/b"])).toMatchObject({ force: true, uninstall: true, removeData: true, profile: "web" });
    expect(parseInstallArgs(["--download-model", "--mirror", "https://hf-mirror.com/", "--bundle", "/b"])).toMatchObject({ downloadModel: true, mirror: "https://hf-mirror.com/" });
    expect(script).toContain('$nodeArgs = @("$PSScriptRoot\\installer\\install.cjs")');
    expect(script).toContain(`$nodeArgs += @('--bundle', "$PSScriptRoot\\bundle")`);
    // 5.1 with 'Stop' turns a native program's stderr line into a terminating error when stderr is redirected.
    expect(script).toMatch(/\$ErrorActionPreference = 'Continue'\r?\n& \$node\.Source @nodeArgs\r?\n\$code = \$LASTEXITCODE\r?\n/);
    // The PATH step looks for the home where the installer does, DSH Desktop's included.
    expect(script).toContain("Join-Path $env:APPDATA 'DSH Desktop\\harness'");
    expect(script).toMatch(/\nexit \$code\s*$/);
    // The user PATH is read unexpanded and written back as REG_EXPAND_SZ, never through setx (1024-character cut).
    expect(script).toContain("[Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames");
    expect(script).toContain("[Microsoft.Win32.RegistryValueKind]::ExpandString");
    expect(script).not.toMatch(/\bsetx\b/i);
    expect(script).toMatch(/if \(\$major -lt 22\)/);
  });

  it("uses no PowerShell 7-only syntax, which Windows PowerShell 5.1 refuses (&&, ||, ??, ?., ternaries)", () => {
    // Comments and string literals removed, what is left is code.
    const code = script
      .replace(/<#[\s\S]*?#>/g, "")
      .replace(/#.*$/gm, "")
      .replace(/'[^']*'/g, "''")
      .replace(/"(?:`.|[^"`])*"/g, '""');
    expect(code.match(/&&|\|\||\?\?|\?\.|\s\?\s[^:]+\s:\s/g)).toBeNull();
  });

  it("is plain ASCII, which Windows PowerShell 5.1 reads correctly without a BOM", () => {
    expect(/[^\x00-\x7f]/.test(script)).toBe(false);
  });
});

describe("the README's Windows instructions", () => {
  const readme = fs.readFileSync(path.join(__dirname, "..", "..", "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```powershell\r?\n([\s\S]*?)```/g)].map((match) => match[1]);
  const windowsSection = readme.slice(readme.indexOf("**Windows (PowerShell).**"), readme.indexOf("**Linux / macOS.**"));

  it("has PowerShell blocks that parse and that Windows PowerShell 5.1 runs (no &&, ||, ??, ?., ternaries)", async () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) {
      expect(await powershellSyntaxErrors(block)).toEqual([]);
      expect(block.match(/&&|\|\||\?\?|\?\./g)).toBeNull();
      // Scripts run through -ExecutionPolicy Bypass, which the default policy would otherwise block.
      for (const line of block.split(/\r?\n/).filter((l) => /\.ps1\b/.test(l))) expect(line).toMatch(/^powershell -ExecutionPolicy Bypass -File /);
    }
  });

  it("names DSH Desktop's home, the Visual C++ runtime with its fix, and the 5.1 forms of npm and npx", () => {
    expect(windowsSection).toContain("%APPDATA%\\DSH Desktop\\harness");
    expect(windowsSection).toContain("Microsoft Visual C++ 2015–2022 Redistributable (x64)");
    expect(windowsSection).toContain("https://aka.ms/vs/17/release/vc_redist.x64.exe");
    expect(windowsSection).toContain("winget install --id Microsoft.VCRedist.2015+.x64");
    expect(windowsSection).toMatch(/`npm\.cmd ci`, then `npm\.cmd run demo`/);
    expect(windowsSection).toContain("`npx.cmd`");
  });
});

// The slice of web-tree-sitter's API used here, typed locally so the typecheck does not need it.
interface SyntaxNode {
  type: string;
  isMissing: boolean;
  startPosition: { row: number; column: number };
  children: Array<SyntaxNode | null>;
}
interface TreeSitter {
  Parser: { init(): Promise<void>; new (): { setLanguage(language: unknown): void; parse(source: string): { rootNode: SyntaxNode & { hasError: boolean } } | null } };
  Language: { load(wasm: Uint8Array): Promise<unknown> };
}

// Appendix C of dependency-notes with the WebAssembly build of tree-sitter (no native compile).
async function powershellSyntaxErrors(source: string): Promise<string[]> {
  let treeSitter: TreeSitter;
  let grammar: string;
  try {
    treeSitter = require("web-tree-sitter");
    grammar = require.resolve("tree-sitter-powershell/tree-sitter-powershell.wasm");
  } catch (error) {
    throw new Error(`the .ps1 syntax check needs the devDependencies web-tree-sitter and tree-sitter-powershell (npm ci): ${(error as Error).message}`);
  }
  await treeSitter.Parser.init();
  const parser = new treeSitter.Parser();
  // Bytes, not a path: given a path, Language.load imports fs itself, which jest's VM refuses.
  parser.setLanguage(await treeSitter.Language.load(fs.readFileSync(grammar)));
  const tree = parser.parse(source);
  if (!tree) return ["the parser returned no tree"];
  const errors: string[] = [];
  const walk = (node: SyntaxNode) => {
    if (node.type === "ERROR" || node.isMissing) errors.push(`${node.startPosition.row + 1}:${node.startPosition.column + 1}`);
    for (const child of node.children) if (child) walk(child);
  };
  walk(tree.rootNode);
  return tree.rootNode.hasError && errors.length === 0 ? ["the root node has an error"] : errors;
}

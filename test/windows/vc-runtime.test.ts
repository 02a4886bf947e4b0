// Issue 14, finding 5: Chroma's win32 binding and onnxruntime-node import the Visual C++ runtime,
// which Windows does not ship. Windows' environment is faked (the platform, the architecture and a
// SystemRoot in a temporary folder holding some of the DLLs); the files, the installer, the shipped
// launcher and the embedding worker are the real ones.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { LocalProvider } from "../../bridge/embed/local-provider";
import { EmbeddingUnavailable } from "../../bridge/embed/provider";
import { missingVcRuntime, VC_RUNTIME_DLLS, VC_RUNTIME_FIX, vcRuntimeInstallStep, type VcRuntimeArch } from "../../bridge/protocol/vc-runtime";
import type { InstallOptions } from "../../installer/args";
import { runInstaller, type InstallerContext } from "../../installer/installer";
import { preflight } from "../../installer/preflight";
import { formatReport } from "../../installer/report";
import { writeTinyModel } from "../embed/tiny-model";
import { tempDir } from "../store/helpers";

const ALL_X64 = [...VC_RUNTIME_DLLS.x64];

/** A Windows folder whose System32 holds exactly `dlls`. */
function systemRoot(dlls: readonly string[]): { root: string; system32: string } {
  const root = path.join(tempDir("win-root-"), "Windows");
  const system32 = path.join(root, "System32");
  fs.mkdirSync(system32, { recursive: true });
  for (const dll of dlls) fs.writeFileSync(path.join(system32, dll), "MZ");
  return { root, system32 };
}

describe("which Visual C++ runtime DLLs are missing", () => {
  it("names each x64 DLL that System32 lacks, in import order, with the x64 fix", () => {
    const { root, system32 } = systemRoot(["vcruntime140.dll"]);
    expect(missingVcRuntime({ platform: "win32", arch: "x64", env: { SystemRoot: root } })).toEqual({
      arch: "x64",
      systemDir: system32,
      missing: ["vcruntime140_1.dll", "msvcp140.dll"],
      problem: `the Microsoft Visual C++ 2015-2022 runtime (x64) is missing: ${system32} has no vcruntime140_1.dll, msvcp140.dll`,
      fix: 'Install "Microsoft Visual C++ 2015-2022 Redistributable (x64)" from https://aka.ms/vs/17/release/vc_redist.x64.exe or with `winget install --id Microsoft.VCRedist.2015+.x64`, then restart DSH.',
    });
    expect(missingVcRuntime({ platform: "win32", arch: "x64", env: { SystemRoot: systemRoot([]).root } })?.missing).toEqual(ALL_X64);
  });

  it("is satisfied when all three are there", () => {
    expect(missingVcRuntime({ platform: "win32", arch: "x64", env: { SystemRoot: systemRoot(ALL_X64).root } })).toBeUndefined();
  });

  it("asks ARM64 for vcruntime140.dll and msvcp140.dll only, and names the ARM64 package", () => {
    expect(missingVcRuntime({ platform: "win32", arch: "arm64", env: { SystemRoot: systemRoot(["vcruntime140.dll", "msvcp140.dll"]).root } })).toBeUndefined();
    const missing = missingVcRuntime({ platform: "win32", arch: "arm64", env: { SystemRoot: systemRoot(["vcruntime140.dll"]).root } });
    expect(missing).toMatchObject({ arch: "arm64", missing: ["msvcp140.dll"], fix: VC_RUNTIME_FIX.arm64 });
    expect(missing?.fix).toContain("https://aka.ms/vs/17/release/vc_redist.arm64.exe");
    expect(missing?.fix).toContain("winget install --id Microsoft.VCRedist.2015+.arm64");
  });

  it("says nothing off Windows or on an architecture with no binding to load", () => {
    const env = { SystemRoot: systemRoot([]).root };
    expect(missingVcRuntime({ platform: "linux", arch: "x64", env })).toBeUndefined();
    expect(missingVcRuntime({ platform: "darwin", arch: "arm64", env })).toBeUndefined();
    expect(missingVcRuntime({ platform: "win32", arch: "ia32", env })).toBeUndefined();
  });

  it("finds SystemRoot whatever its case in a copied environment, else windir", () => {
    const { root, system32 } = systemRoot([]);
    expect(missingVcRuntime({ platform: "win32", arch: "x64", env: { SYSTEMROOT: root } })?.systemDir).toBe(system32);
    expect(missingVcRuntime({ platform: "win32", arch: "x64", env: { windir: root } })?.systemDir).toBe(system32);
  });
});

const OPTIONS: InstallOptions = { force: false, uninstall: false, removeData: false, downloadModel: false, json: false, help: false };

/** A DSH home with profile "web" and a valid bundle, on a faked Windows whose System32 holds `dlls`. */
function windowsInstall(arch: VcRuntimeArch, dlls: readonly string[]): { context: InstallerContext; options: InstallOptions; home: string; manifest: string } {
  const user = tempDir("win-user-");
  const home = path.join(user, ".dsh");
  const manifest = path.join(home, "profiles", "web", "package.json");
  fs.mkdirSync(path.dirname(manifest), { recursive: true });
  fs.writeFileSync(manifest, JSON.stringify({ name: "web", private: true, dependencies: {} }, null, 2));
  const bundle = path.join(user, "bundle");
  fs.mkdirSync(bundle);
  fs.writeFileSync(path.join(bundle, "package.json"), JSON.stringify({ name: "dsh-dream", version: "0.1.0", dsh: { bundle: {} } }));
  const context: InstallerContext = {
    platform: "win32",
    arch,
    env: { SystemRoot: systemRoot(dlls).root },
    homeDir: user,
    nodeVersion: "22.12.0",
    installerDir: user,
    execPath: process.execPath,
    skipDependencies: true,
    log: () => undefined,
  };
  return { context, options: { ...OPTIONS, dshHome: home, bundle }, home, manifest };
}

describe("the installer on a Windows without the Visual C++ runtime", () => {
  it("refuses before changing anything, naming the missing DLLs, with the x64 package as what to do", () => {
    const { context, options, home, manifest } = windowsInstall("x64", ["vcruntime140.dll", "vcruntime140_1.dll"]);
    const before = fs.readFileSync(manifest, "utf8");
    const report = runInstaller(options, context);
    const system32 = path.join(context.env.SystemRoot!, "System32");
    const message = `the Microsoft Visual C++ 2015-2022 runtime (x64) is missing: ${system32} has no msvcp140.dll; Chroma's server binding and the local embedding runtime (onnxruntime) load it, and the install's last check starts Chroma; nothing was changed.`;
    const hint = 'Install "Microsoft Visual C++ 2015-2022 Redistributable (x64)" from https://aka.ms/vs/17/release/vc_redist.x64.exe or with `winget install --id Microsoft.VCRedist.2015+.x64`, then run the installer again.';
    expect(report).toMatchObject({ ok: false, action: "install", error: { code: "VC_RUNTIME_MISSING", message, hint } });
    expect(formatReport(report)).toBe(`DSH-DREAM install failed [VC_RUNTIME_MISSING]: ${message}\nWhat to do: ${hint}\n`);
    expect(fs.readFileSync(manifest, "utf8")).toBe(before);
    expect(fs.readdirSync(home)).toEqual(["profiles"]);
  });

  it("names the ARM64 package on an ARM64 Node", () => {
    const { context, options } = windowsInstall("arm64", []);
    const report = runInstaller(options, context);
    expect(report.error).toMatchObject({ code: "VC_RUNTIME_MISSING", hint: `${vcRuntimeInstallStep("arm64")}, then run the installer again.` });
    expect(report.error?.message).toContain("has no vcruntime140.dll, msvcp140.dll;");
  });

  it("passes preflight when the runtime is there, and never asks for it to uninstall", () => {
    const ready = windowsInstall("x64", ALL_X64);
    expect(preflight(ready.options, ready.context).dshHome).toBe(ready.home);
    const missing = windowsInstall("x64", []);
    expect(preflight({ ...missing.options, uninstall: true }, missing.context).dshHome).toBe(missing.home);
  });
});

// The shipped launcher, run as Chroma runs it, on a faked Windows: a preload sets process.platform and
// process.arch before the launcher reads them, and NODE_PATH offers a binding whose native file the
// loader refuses (ERR_DLOPEN_FAILED), as Windows refuses one whose DLLs are missing.
const LAUNCHER = path.join(__dirname, "..", "..", "bridge", "chroma", "chroma-launcher.cjs");
const BINDINGS: Record<VcRuntimeArch, string> = { x64: "chromadb-js-bindings-win32-x64-msvc", arm64: "chromadb-js-bindings-win32-arm64-msvc" };

function unloadableBinding(arch: VcRuntimeArch): string {
  const modules = path.join(tempDir("win-modules-"), "node_modules");
  const dir = path.join(modules, BINDINGS[arch]);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: BINDINGS[arch], main: "binding.node" }));
  fs.writeFileSync(path.join(dir, "binding.node"), "MZ this is no loadable library");
  return modules;
}

function runLauncher(arch: VcRuntimeArch, systemRootDir: string, nodePath?: string): { status: number | null; stderr: string } {
  const preload = path.join(tempDir("win-preload-"), "fake-windows.cjs");
  fs.writeFileSync(preload, `Object.defineProperty(process, "platform", { value: "win32" });\nObject.defineProperty(process, "arch", { value: ${JSON.stringify(arch)} });\n`);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, SystemRoot: systemRootDir, ...(nodePath ? { NODE_PATH: nodePath } : {}) };
  const result = spawnSync(process.execPath, ["--require", preload, LAUNCHER, "run", "--path", tempDir("chroma-"), "--host", "127.0.0.1", "--port", "1"], { env, encoding: "utf8", timeout: 30_000 });
  return { status: result.status, stderr: result.stderr };
}

describe("the Chroma launcher on a Windows without the Visual C++ runtime", () => {
  it("blames the runtime with the fix, in the same words as the bridge, instead of asking for a reinstall", () => {
    const { root } = systemRoot(["vcruntime140.dll"]);
    const run = runLauncher("x64", root, unloadableBinding("x64"));
    const vc = missingVcRuntime({ platform: "win32", arch: "x64", env: { SystemRoot: root } })!;
    expect(run.status).toBe(3);
    expect(run.stderr).toContain(`chroma-launcher: cannot load ${BINDINGS.x64}: ${vc.problem}. ${VC_RUNTIME_FIX.x64} (from `);
    expect(run.stderr).not.toContain("reinstall");
  });

  it("on ARM64 Windows, for which Chroma ships no build, says so and points to an external Chroma", () => {
    const run = runLauncher("arm64", systemRoot([]).root, unloadableBinding("arm64"));
    expect(run.status).toBe(2);
    expect(run.stderr).toBe("chroma-launcher: no Chroma server binding exists for win32-arm64; use an external Chroma URL\n");
  });

  it("still asks for a reinstall when the runtime is there and the binding will not load", () => {
    const run = runLauncher("x64", systemRoot(ALL_X64).root, unloadableBinding("x64"));
    expect(run.status).toBe(3);
    expect(run.stderr).toContain(`cannot load ${BINDINGS.x64}; reinstall with npm ci (from `);
    expect(run.stderr).not.toContain("Visual C++");
  });

  it("asks for a reinstall when the binding is not installed at all, and names the missing runtime too", () => {
    const { root } = systemRoot([]);
    const run = runLauncher("x64", root);
    const vc = missingVcRuntime({ platform: "win32", arch: "x64", env: { SystemRoot: root } })!;
    expect(run.status).toBe(3);
    expect(run.stderr).toContain(`cannot load ${BINDINGS.x64}; reinstall with npm ci (from `);
    expect(run.stderr).toContain(`. Also, ${vc.problem}. ${VC_RUNTIME_FIX.x64}`);
  });
});

describe("the local embedding runtime on a Windows without the Visual C++ runtime", () => {
  const providers: LocalProvider[] = [];
  afterEach(async () => {
    await Promise.all(providers.splice(0).map((provider) => provider.close()));
  });

  /** A runtime whose native addon the loader refuses, as onnxruntime-node's is without the DLLs. */
  function unloadableRuntime(): string {
    const dir = tempDir("win-runtime-");
    fs.writeFileSync(path.join(dir, "onnxruntime_binding.node"), "MZ this is no loadable library");
    const runtime = path.join(dir, "runtime.mjs");
    fs.writeFileSync(runtime, `import { createRequire } from "node:module";\ncreateRequire(import.meta.url)("./onnxruntime_binding.node");\nexport const env = {};\n`);
    return runtime;
  }

  async function openFailure(runtimeModule: string, dlls: readonly string[]): Promise<{ failure: EmbeddingUnavailable; root: string }> {
    const modelDir = tempDir("win-models-");
    const tiny = writeTinyModel(modelDir, "tiny/vc-runtime", 32);
    const { root } = systemRoot(dlls);
    const provider = new LocalProvider({ model: tiny.model, modelDir, runtimeModule, host: { platform: "win32", arch: "x64", env: { SystemRoot: root } } });
    providers.push(provider);
    const failure = await provider.open().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(EmbeddingUnavailable);
    return { failure: failure as EmbeddingUnavailable, root };
  }

  it("keeps runtime_missing and appends what is missing and the fix", async () => {
    const runtime = unloadableRuntime();
    const { failure, root } = await openFailure(runtime, ["vcruntime140.dll"]);
    const vc = missingVcRuntime({ platform: "win32", arch: "x64", env: { SystemRoot: root } })!;
    expect(failure.reason).toBe("runtime_missing");
    expect(failure.message).toMatch(new RegExp(`^The local embedding runtime ${escape(runtime)} could not be loaded: `));
    expect(failure.message).toContain("onnxruntime_binding.node");
    expect(failure.message.endsWith(`; ${vc.problem}, and onnxruntime needs it. ${VC_RUNTIME_FIX.x64}`)).toBe(true);
  });

  it("adds nothing when the runtime is there", async () => {
    const { failure } = await openFailure(unloadableRuntime(), ALL_X64);
    expect(failure.reason).toBe("runtime_missing");
    expect(failure.message).not.toContain("Visual C++");
  });

  it("adds nothing when the runtime package itself is not installed, which the Visual C++ runtime would not fix", async () => {
    const { failure } = await openFailure("@xenova/transformers-not-installed", []);
    expect(failure.reason).toBe("runtime_missing");
    expect(failure.message).toContain("@xenova/transformers-not-installed");
    expect(failure.message).not.toContain("Visual C++");
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

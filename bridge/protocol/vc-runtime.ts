// The Microsoft Visual C++ runtime that the Windows builds of Chroma's server binding and of
// onnxruntime-node (the local embedding runtime) import, and that Windows does not ship: which of
// its DLLs are missing, and the exact fix. chroma-launcher.cjs carries its own copy of this check.
import fs from "node:fs";
import path from "node:path";

/**
 * What each architecture's binaries import, read from their PE import tables
 * (chromadb-js-bindings-win32-x64-msvc 1.3.4, onnxruntime-node 1.14.0 win32/x64 and win32/arm64).
 * vcruntime140_1.dll holds the x64-only C++ exception handler (FH4), so ARM64 builds never import it.
 * No other Windows architecture has a binding to load (neither package ships ia32).
 */
export const VC_RUNTIME_DLLS = {
  x64: ["vcruntime140.dll", "vcruntime140_1.dll", "msvcp140.dll"],
  arm64: ["vcruntime140.dll", "msvcp140.dll"],
} as const;

export type VcRuntimeArch = keyof typeof VC_RUNTIME_DLLS;

// The arm64 package is the native one. An x64 Node under emulation on an ARM64 PC reports "x64" and
// gets the x64 package, which Microsoft documents as carrying the ARM64 binaries too.
const REDISTRIBUTABLES: Record<VcRuntimeArch, { name: string; url: string; winget: string }> = {
  x64: { name: "Microsoft Visual C++ 2015-2022 Redistributable (x64)", url: "https://aka.ms/vs/17/release/vc_redist.x64.exe", winget: "Microsoft.VCRedist.2015+.x64" },
  arm64: { name: "Microsoft Visual C++ 2015-2022 Redistributable (ARM64)", url: "https://aka.ms/vs/17/release/vc_redist.arm64.exe", winget: "Microsoft.VCRedist.2015+.arm64" },
};

/** The install step alone, for callers whose next step is not a DSH restart (the installer's). */
export function vcRuntimeInstallStep(arch: VcRuntimeArch): string {
  const { name, url, winget } = REDISTRIBUTABLES[arch];
  return `Install "${name}" from ${url} or with \`winget install --id ${winget}\``;
}

/** The fix a running bridge reports: the bridge and its Chroma server only load the DLLs when they start. */
export const VC_RUNTIME_FIX: Record<VcRuntimeArch, string> = {
  x64: `${vcRuntimeInstallStep("x64")}, then restart DSH.`,
  arm64: `${vcRuntimeInstallStep("arm64")}, then restart DSH.`,
};

export interface VcRuntimeContext {
  platform: NodeJS.Platform;
  /** The architecture of the Node that loads the bindings (process.arch). */
  arch: string;
  env: Readonly<Record<string, string | undefined>>;
  exists?: (file: string) => boolean;
}

export interface MissingVcRuntime {
  arch: VcRuntimeArch;
  systemDir: string;
  /** File names, in VC_RUNTIME_DLLS order. */
  missing: string[];
  /** Lower-case clause naming what is missing and where, for the caller's sentence. */
  problem: string;
  fix: string;
}

/**
 * undefined off Windows, on an architecture with no binding, or when every DLL is in System32, where
 * the redistributable puts them. A DLL found only elsewhere on PATH still counts as missing: callers
 * that can see the load itself (the launcher, the embedding provider) only speak up after it failed.
 */
export function missingVcRuntime(context: VcRuntimeContext): MissingVcRuntime | undefined {
  if (context.platform !== "win32" || !Object.hasOwn(VC_RUNTIME_DLLS, context.arch)) return undefined;
  const arch = context.arch as VcRuntimeArch;
  // The host's path module: path.win32 on Windows, and on Linux a faked SystemRoot is a real folder.
  const systemDir = path.join(systemRoot(context.env), "System32");
  const exists = context.exists ?? fs.existsSync;
  const missing = VC_RUNTIME_DLLS[arch].filter((dll) => !exists(path.join(systemDir, dll)));
  if (missing.length === 0) return undefined;
  const problem = `the Microsoft Visual C++ 2015-2022 runtime (${arch}) is missing: ${systemDir} has no ${missing.join(", ")}`;
  return { arch, systemDir, missing, problem, fix: VC_RUNTIME_FIX[arch] };
}

// A copied or test environment is an ordinary object, not Windows' case-insensitive process.env.
/** %SystemRoot% (any letter case, as a copied Windows environment has it), else %windir%, else C:\Windows. */
export function systemRoot(env: Readonly<Record<string, string | undefined>>): string {
  return windowsEnv(env, "SystemRoot") ?? windowsEnv(env, "windir") ?? "C:\\Windows";
}

/** A Windows environment variable by name, ignoring case as Windows does; empty counts as unset. */
export function windowsEnv(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const key = Object.keys(env).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : env[key] || undefined;
}

// Chroma server launcher, shipped as is next to the bundle: `node chroma-launcher.cjs run --path DIR --host H --port N`.
// chromadb 3.x's own CLI refuses Windows x64 ("Unsupported Windows architecture: x64") although the
// binding exists, and npm nests an overridden binding under chromadb/, so we resolve it ourselves.
"use strict";
const fs = require("node:fs");
const { createRequire } = require("node:module");
const path = require("node:path");
const { Worker } = require("node:worker_threads");

const EXIT_NO_BINDING_FOR_PLATFORM = 2;
const EXIT_BINDING_NOT_LOADABLE = 3;
const EXIT_USAGE = 64;

const BINDINGS = {
  "linux-x64": "chromadb-js-bindings-linux-x64-gnu",
  "linux-arm64": "chromadb-js-bindings-linux-arm64-gnu",
  "darwin-x64": "chromadb-js-bindings-darwin-x64",
  "darwin-arm64": "chromadb-js-bindings-darwin-arm64",
  "win32-x64": "chromadb-js-bindings-win32-x64-msvc",
  // No win32-arm64 build exists (chromadb ships none): such a Node is told to use an external Chroma.
};

// A copy of bridge/protocol/vc-runtime.ts (this file ships as is and imports no TypeScript);
// test/windows/vc-runtime.test.ts holds the two to the same words. The DLLs are the binding's
// imports; without them Windows says only "The specified module could not be found". x64 only:
// there is no win32-arm64 Chroma build (an x64 Node on an ARM64 PC runs the x64 one).
const VC_RUNTIME = {
  x64: {
    dlls: ["vcruntime140.dll", "vcruntime140_1.dll", "msvcp140.dll"],
    fix: 'Install "Microsoft Visual C++ 2015-2022 Redistributable (x64)" from https://aka.ms/vs/17/release/vc_redist.x64.exe or with `winget install --id Microsoft.VCRedist.2015+.x64`, then restart DSH.',
  },
};

/** "the ... runtime (x64) is missing: <System32> has no ...", or undefined when it is there or not needed. */
function missingVcRuntime() {
  const runtime = process.platform === "win32" ? VC_RUNTIME[process.arch] : undefined;
  if (!runtime) return undefined;
  const env = process.env; // Windows' own, case-insensitive
  const systemDir = path.join(env.SystemRoot || env.windir || "C:\\Windows", "System32");
  const missing = runtime.dlls.filter((dll) => !fs.existsSync(path.join(systemDir, dll)));
  if (missing.length === 0) return undefined;
  return { problem: `the Microsoft Visual C++ 2015-2022 runtime (${process.arch}) is missing: ${systemDir} has no ${missing.join(", ")}`, fix: runtime.fix };
}

function fail(code, message) {
  process.stderr.write(`chroma-launcher: ${message}\n`);
  process.exit(code);
}

// Resolvers in order: chromadb's own folder first (where npm puts an overridden binding),
// then the ordinary lookup from this file. "chromadb/package.json" is not exported, so the
// package's main entry is the anchor.
function resolvers() {
  const list = [];
  try {
    list.push({ from: "chromadb", req: createRequire(require.resolve("chromadb")) });
  } catch (error) {
    process.stderr.write(`chroma-launcher: chromadb not found (${String(error.message).split("\n")[0]}); trying the binding directly\n`);
  }
  list.push({ from: __dirname, req: require });
  return list;
}

// A binding that is there but whose native code cannot be loaded (ERR_DLOPEN_FAILED) is, on a
// Windows without the Visual C++ runtime, that runtime's fault: reinstalling would change nothing.
function loadBinding(name) {
  const failures = [];
  let nativeLoadFailed = false;
  for (const { from, req } of resolvers()) {
    try {
      return req(name);
    } catch (error) {
      nativeLoadFailed ||= error.code === "ERR_DLOPEN_FAILED";
      failures.push(`from ${from}: ${String(error.message).split("\n")[0]}`);
    }
  }
  const tried = `(${failures.join("; ")})`;
  const vc = missingVcRuntime();
  if (vc && nativeLoadFailed) return fail(EXIT_BINDING_NOT_LOADABLE, `cannot load ${name}: ${vc.problem}. ${vc.fix} ${tried}`);
  const also = vc ? ` Also, ${vc.problem}. ${vc.fix}` : "";
  return fail(EXIT_BINDING_NOT_LOADABLE, `cannot load ${name}; reinstall with npm ci ${tried}.${also}`);
}

// With WATCH_STDIN_ENV=1 the parent holds our stdin pipe; when the parent dies (even by SIGKILL) the
// pipe reaches EOF and we stop, so no orphaned server keeps the data directory (Chroma has no lock).
// A worker does the reading (and writes synchronously) because the main thread is blocked inside
// the native server. A SIGINT that comes before the server has set up its own handling reaches only
// our JavaScript handler, which never runs (the main thread is inside cli()), and is lost: a parent
// killed while Chroma started left it running for good. So the watcher repeats SIGINT until the
// server takes it (a graceful stop, Chroma's files flushed), and kills the process if it still runs
// after ORPHAN_GRACE_MS (the parent's own stop waits 5 s before SIGKILL; an orphan gets longer).
const WATCH_STDIN_ENV = "DSH_DREAM_CHROMA_WATCH_STDIN";
const ORPHAN_GRACE_MS = 10_000;
const SIGINT_EVERY_MS = 250;
const STDIN_WATCHER = `
const fs = require("node:fs");
const buf = Buffer.alloc(256);
const nap = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  let n;
  try { n = fs.readSync(0, buf, 0, buf.length, null); }
  catch (error) { if (error.code === "EAGAIN") { Atomics.wait(nap, 0, 0, 100); continue; } n = 0; }
  if (n === 0) break;
}
// stderr usually died with the parent (EPIPE): the notice is best effort, the stop is not.
try { fs.writeSync(2, "chroma-launcher: parent went away (stdin closed); stopping\\n"); } catch {}
for (let waited = 0; waited < ${ORPHAN_GRACE_MS}; waited += ${SIGINT_EVERY_MS}) {
  process.kill(process.pid, "SIGINT");
  Atomics.wait(nap, 0, 0, ${SIGINT_EVERY_MS});
}
try { fs.writeSync(2, "chroma-launcher: still running ${ORPHAN_GRACE_MS} ms after stdin closed; killing it\\n"); } catch {}
process.kill(process.pid, "SIGKILL");
`;

function watchStdin() {
  const worker = new Worker(STDIN_WATCHER, { eval: true });
  worker.unref();
  worker.on("error", (error) => process.stderr.write(`chroma-launcher: stdin watcher failed: ${error.message}\n`));
}

function main(argv) {
  if (argv.length === 0) fail(EXIT_USAGE, "usage: node chroma-launcher.cjs run --path DIR --host 127.0.0.1 --port N");
  const key = `${process.platform}-${process.arch}`;
  const name = BINDINGS[key];
  if (!name) fail(EXIT_NO_BINDING_FOR_PLATFORM, `no Chroma server binding exists for ${key}; use an external Chroma URL`);
  const binding = loadBinding(name);
  if (typeof binding.cli !== "function") fail(EXIT_BINDING_NOT_LOADABLE, `${name} does not export cli()`);
  // The server blocks inside native code; SIGINT is the graceful stop and should read as success.
  process.on("SIGINT", () => process.exit(0));
  if (process.env[WATCH_STDIN_ENV] === "1") watchStdin();
  binding.cli(["chroma", ...argv]);
}

main(process.argv.slice(2));

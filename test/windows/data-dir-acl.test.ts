// Issue 14, finding 12: modes 0700/0600 mean nothing on NTFS, so a data folder outside the profile
// (-DshHome D:\dsh) inherited "Authenticated Users: Modify". Windows is faked here with a runner that
// records what would be run (icacls cannot run on Linux); the POSIX half and the bridge run for real.
import fs from "node:fs";
import path from "node:path";
import { protectDataDir, type ProgramOptions, type ProgramResult } from "../../bridge/store/owner-only";
import { startBridge } from "../../bridge/server/daemon";
import { DEFAULT_SEARCH, defaultPrivacy } from "../../bridge/server/bridge-config";
import { defaultEmbeddingConfig } from "../../bridge/embed/embedding-config";
import { tempDir } from "../store/helpers";
import { parseInstallArgs } from "../../installer/args";
import { runInstaller } from "../../installer/installer";
import { makeBinDir, makeBundle, makeDshHome, removeTempDirs, userHome } from "../installer/installer-fixtures";
import { dshNode } from "../plugin/dsh-host-driver";

const SID = "S-1-5-21-1004336348-1177238915-682003330-1001";
const WHOAMI_CSV = `"desktop-7q2\\ana maría","${SID}"\r\n`;
const DIR = "D:\\dsh\\dsh-dream";
const ENV = { SystemRoot: "C:\\Windows", USERDOMAIN: "DESKTOP-7Q2", USERNAME: "ana" };

interface Call {
  file: string;
  args: readonly string[];
  options: ProgramOptions;
}

/** A stand-in for spawnSync: answers whoami and icacls from `answers`, records every call. */
function fakeWindows(answers: { whoami?: Partial<ProgramResult> | Error; icacls?: Partial<ProgramResult> | Error } = {}) {
  const calls: Call[] = [];
  const run = (file: string, args: readonly string[], options: ProgramOptions): ProgramResult => {
    calls.push({ file, args, options });
    const answer = file.endsWith("whoami.exe") ? (answers.whoami ?? { stdout: WHOAMI_CSV }) : (answers.icacls ?? { stdout: "processed file: D:\\dsh\\dsh-dream\r\nSuccessfully processed 1 files; Failed processing 0 files\r\n" });
    if (answer instanceof Error) throw answer;
    return { status: 0, stdout: "", stderr: "", ...answer };
  };
  return { calls, run };
}

const FIX = `icacls "${DIR}" /inheritance:r /grant:r "*${SID}:(OI)(CI)F" "*S-1-5-18:(OI)(CI)F"`;
const RISK = "so other users of this computer may be able to read your memories, the bridge token and any API key kept there";
const FAT = "(a FAT32 or exFAT drive keeps no permissions at all: move the folder to an NTFS drive or into your user profile).";

describe("on Windows (faked)", () => {
  it("reads the user's SID with System32's whoami and gives that SID and SYSTEM full control, nothing inherited, without a shell", () => {
    const { calls, run } = fakeWindows();
    const access = protectDataDir(DIR, { platform: "win32", env: ENV, run });
    expect(access).toEqual({ applied: true, how: `ACL set by icacls: inherited entries removed, full control granted to ${SID} and SYSTEM` });
    expect(calls.map(({ file, args }) => [file, ...args])).toEqual([
      ["C:\\Windows\\System32\\whoami.exe", "/user", "/fo", "csv", "/nh"],
      ["C:\\Windows\\System32\\icacls.exe", DIR, "/inheritance:r", "/grant:r", `*${SID}:(OI)(CI)F`, "*S-1-5-18:(OI)(CI)F"],
    ]);
    for (const { options } of calls) {
      expect(options).toMatchObject({ shell: false, windowsHide: true, encoding: "utf8" });
      expect(options.timeout).toBeGreaterThan(0);
    }
  });

  it("finds System32 through a copied environment's upper-case SYSTEMROOT, or windir", () => {
    const upper = fakeWindows();
    protectDataDir(DIR, { platform: "win32", env: { SYSTEMROOT: "E:\\WINNT" }, run: upper.run });
    const windir = fakeWindows();
    protectDataDir(DIR, { platform: "win32", env: { windir: "F:\\Win" }, run: windir.run });
    expect([upper.calls[1].file, windir.calls[1].file]).toEqual(["E:\\WINNT\\System32\\icacls.exe", "F:\\Win\\System32\\icacls.exe"]);
  });

  it("takes the SID from whoami's CSV with CRLF, LF or no line ending, and a user name holding a comma", () => {
    const granted = [`"host\\a","${SID}"\r\n`, `"host\\a","${SID}"\n`, `"host\\a, b","${SID}"`].map((stdout) => {
      const { calls, run } = fakeWindows({ whoami: { stdout } });
      protectDataDir(DIR, { platform: "win32", env: ENV, run });
      return calls[1].args[3];
    });
    expect(granted).toEqual([`*${SID}:(OI)(CI)F`, `*${SID}:(OI)(CI)F`, `*${SID}:(OI)(CI)F`]);
  });

  it("warns with the folder, icacls's reason and the icacls command to run when icacls exits non-zero", () => {
    const { run } = fakeWindows({ icacls: { status: 5, stdout: "Successfully processed 0 files; Failed processing 1 files\r\n", stderr: "D:\\dsh\\dsh-dream: Access is denied.\r\n" } });
    const access = protectDataDir(DIR, { platform: "win32", env: ENV, run });
    expect(access.applied).toBe(false);
    expect(access.warning).toBe(`The memory folder ${DIR} could not be made private to you (icacls exited with code 5: ${DIR}: Access is denied.), ${RISK}. To fix it, run: ${FIX} ${FAT}`);
  });

  it("falls back to icacls's last line of output when it exits non-zero with nothing on stderr", () => {
    const { run } = fakeWindows({ icacls: { status: 1, stdout: "Successfully processed 0 files; Failed processing 1 files\r\n", stderr: "" } });
    expect(protectDataDir(DIR, { platform: "win32", env: ENV, run }).how).toBe("icacls exited with code 1: Successfully processed 0 files; Failed processing 1 files");
  });

  it("warns, naming the timeout, when icacls does not finish", () => {
    const timedOut = Object.assign(new Error("spawnSync C:\\Windows\\System32\\icacls.exe ETIMEDOUT"), { code: "ETIMEDOUT" });
    const { run } = fakeWindows({ icacls: { status: null, stdout: null, stderr: null, error: timedOut } });
    expect(protectDataDir(DIR, { platform: "win32", env: ENV, run }).warning).toBe(`The memory folder ${DIR} could not be made private to you (icacls timed out after 30 s), ${RISK}. To fix it, run: ${FIX} ${FAT}`);
  });

  it("warns with the user's name in the command, and runs no icacls, when whoami cannot be run", () => {
    const missing = Object.assign(new Error("spawnSync C:\\Windows\\System32\\whoami.exe ENOENT"), { code: "ENOENT" });
    const { calls, run } = fakeWindows({ whoami: missing });
    const access = protectDataDir(DIR, { platform: "win32", env: ENV, run });
    expect(access.applied).toBe(false);
    expect(access.warning).toBe(
      `The memory folder ${DIR} could not be made private to you (could not read your account's SID with whoami: could not run C:\\Windows\\System32\\whoami.exe: ` +
        `spawnSync C:\\Windows\\System32\\whoami.exe ENOENT), ${RISK}. To fix it, run: icacls "${DIR}" /inheritance:r /grant:r "DESKTOP-7Q2\\ana:(OI)(CI)F" "*S-1-5-18:(OI)(CI)F" ${FAT}`,
    );
    expect(calls).toHaveLength(1);
  });

  it("warns instead of granting anything when whoami prints no SID", () => {
    const { calls, run } = fakeWindows({ whoami: { stdout: "ERROR: Access denied.\r\n" } });
    const access = protectDataDir(DIR, { platform: "win32", env: ENV, run });
    expect(access.warning).toContain(`(could not read your account's SID with whoami: no SID in its output "ERROR: Access denied."), ${RISK}.`);
    expect(calls.map((call) => call.file)).toEqual(["C:\\Windows\\System32\\whoami.exe"]);
  });

  it("warns rather than throws when the icacls runner itself throws ENOENT", () => {
    const missing = Object.assign(new Error("spawnSync icacls.exe ENOENT"), { code: "ENOENT" });
    const { run } = fakeWindows({ icacls: missing });
    const access = protectDataDir(DIR, { platform: "win32", env: ENV, run });
    expect(access).toMatchObject({ applied: false, how: "icacls could not run C:\\Windows\\System32\\icacls.exe: spawnSync icacls.exe ENOENT" });
    expect(access.warning).toContain(`To fix it, run: ${FIX} `);
  });
});

const posixIt = process.platform === "win32" ? it.skip : it;

describe("on POSIX", () => {
  posixIt("sets a group- and world-readable data folder to 0700", () => {
    const dir = tempDir();
    fs.chmodSync(dir, 0o755);
    expect(protectDataDir(dir, { platform: "linux" })).toEqual({ applied: true, how: "mode set to 0700 (was 0755)" });
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  });

  posixIt("leaves a folder that is already owner-only as it is", () => {
    const dir = tempDir();
    fs.chmodSync(dir, 0o500);
    expect(protectDataDir(dir, { platform: "linux" })).toEqual({ applied: true, how: "mode already 0500" });
    expect(fs.statSync(dir).mode & 0o777).toBe(0o500);
    fs.chmodSync(dir, 0o700);
  });

  posixIt("warns with the folder and the chmod command when the folder cannot be changed", () => {
    const dir = path.join(tempDir(), "it's gone");
    const access = protectDataDir(dir, { platform: "linux" });
    expect(access.applied).toBe(false);
    expect(access.warning).toMatch(new RegExp(`^The memory folder ${escapeRegExp(dir)} could not be made private to you \\(chmod failed: ENOENT[^)]*\\), ${RISK}\\.`));
    expect(access.warning).toMatch(new RegExp(`To fix it, run: chmod 700 '${escapeRegExp(dir.replace("'", "'\\''"))}'\\.$`));
  });
});

describe("the bridge", () => {
  posixIt("makes its data folder 0700 when it starts, and logs what it did", async () => {
    const dataDir = tempDir();
    fs.chmodSync(dataDir, 0o775);
    const bridge = await startBridge({
      dataDir,
      config: { chroma: { mode: "off" }, embedding: { ...defaultEmbeddingConfig(dataDir), provider: "off" }, privacy: defaultPrivacy(), search: { ...DEFAULT_SEARCH } },
      version: "test",
      env: {},
    });
    try {
      expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    } finally {
      await bridge.stop("test over");
    }
    expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).toMatch(/ info data directory owner-only: mode set to 0700 \(was 0775\); \d+ file\(s\) and folder\(s\) inside made owner-only\n/);
  });
});

describe("the installer", () => {
  afterEach(removeTempDirs);

  posixIt("makes a data folder it keeps 0700, and reports nothing to fix", () => {
    const home = makeDshHome();
    const dataDir = path.join(home, "dsh-dream");
    fs.mkdirSync(dataDir);
    fs.chmodSync(dataDir, 0o755);
    const bin = makeBinDir();
    const report = runInstaller(
      parseInstallArgs(["--dsh-home", home, "--bundle", makeBundle()]),
      { env: { PATH: bin }, platform: process.platform, nodeVersion: "22.12.0", execPath: dshNode(), homeDir: userHome(bin), installerDir: bin, skipDependencies: true, log: () => undefined },
    );
    expect(report).toMatchObject({ ok: true, action: "install", data: "kept" });
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(report.notes.join("\n")).not.toContain("could not be made private");
  });

  it("on Windows (faked) where whoami cannot run, still installs and puts the warning with the icacls command into the report", () => {
    // A SystemRoot as the installer's other checks expect it (the VC++ runtime in System32), with no whoami or icacls in it.
    const systemRoot = tempDir();
    fs.mkdirSync(path.join(systemRoot, "System32"));
    for (const dll of ["vcruntime140.dll", "vcruntime140_1.dll", "msvcp140.dll"]) fs.writeFileSync(path.join(systemRoot, "System32", dll), "");
    const home = makeDshHome();
    const bin = makeBinDir();
    const report = runInstaller(
      parseInstallArgs(["--dsh-home", home, "--bundle", makeBundle()]),
      { env: { PATH: bin, SystemRoot: systemRoot, USERNAME: "ana" }, platform: "win32", nodeVersion: "22.12.0", execPath: dshNode(), homeDir: userHome(bin), installerDir: bin, skipDependencies: true, log: () => undefined },
    );
    const dataDir = path.join(home, "dsh-dream");
    const whoami = path.win32.join(systemRoot, "System32", "whoami.exe");
    expect(report.error).toBeUndefined();
    expect(report).toMatchObject({ ok: true, action: "install", data: "created" });
    expect(report.notes).toContainEqual(expect.stringMatching(new RegExp(`^The memory folder ${escapeRegExp(dataDir)} could not be made private to you \\(could not read your account's SID with whoami: could not run ${escapeRegExp(whoami)}: `)));
    expect(report.notes).toContainEqual(expect.stringContaining(`To fix it, run: icacls "${dataDir}" /inheritance:r /grant:r "ana:(OI)(CI)F" "*S-1-5-18:(OI)(CI)F"`));
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

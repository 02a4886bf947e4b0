// Bad arguments end in exit 2 naming the flag, from the built installer; and the Windows-only
// pieces that cannot run here (PATHEXT lookup, cmd.exe quoting) checked as the pure functions they are.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { cmdCommandLine, findCommand } from "../../installer/commands";
import { dshNode } from "../plugin/dsh-host-driver";
import { INSTALLER, makeBinDir, makeBundle, makeDshHome, removeTempDirs, runInstaller, snapshotTree, tempDir } from "./installer-fixtures";

afterEach(removeTempDirs);

describe("installer arguments", () => {
  it.each([
    [["--frobnicate"], 'unknown option "--frobnicate"'],
    [["--profile"], "--profile needs a value"],
    [["--dsh-home", "--force"], "--dsh-home needs a value"],
    [["--remove-data"], "--remove-data only works together with --uninstall"],
    [["--profile", "../web"], "--profile must be a profile name"],
    [["--profile", "web", "--profile", "desktop"], "--profile was given twice"],
  ])("exits 2 for %j and names the flag: %s", (args, message) => {
    const home = makeDshHome();
    const before = snapshotTree(home);
    const run = runInstaller(["--dsh-home", home, ...args], { bin: makeBinDir() });

    expect(run.status).toBe(2);
    expect(run.report.error?.code).toBe("BAD_ARGUMENTS");
    expect(run.report.error?.message).toContain(message);
    expect(snapshotTree(home)).toEqual(before);
  });

  it("prints the usage, the exit codes and the test-only switch for --help, with exit 0", () => {
    const result = spawnSync(dshNode(), [INSTALLER, "--help"], { encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("Usage: node install.cjs [options]");
    expect(result.stdout).toContain("DSH_DREAM_INSTALL_SKIP_DEPS=1 is for tests only");
    expect(result.stdout).toContain("Exit codes: 0 done (or nothing to do), 1 failed and rolled back, 2 bad arguments.");
  });

  it("accepts --profile=name and --dsh-home=dir", () => {
    const home = makeDshHome(["work"]);
    const run = runInstaller([`--dsh-home=${home}`, "--profile=work", "--bundle", makeBundle()], { bin: makeBinDir() });

    expect(run.status).toBe(0);
    expect(run.report.profile).toBe("work");
  });
});

describe("finding programs on a Windows PATH", () => {
  it("tries each PATHEXT extension in order in each PATH folder, and .ps1 last", () => {
    const first = tempDir("path1");
    const second = tempDir("path2");
    fs.writeFileSync(path.join(second, "dsh.cmd"), "@echo off\r\n");
    fs.writeFileSync(path.join(second, "dsh.exe"), "");
    fs.writeFileSync(path.join(first, "pnpm.ps1"), "");
    const env = { Path: `"${first}";${second}`, PATHEXT: ".COM;.EXE;.BAT;.CMD" };

    expect(findCommand("dsh", { env, platform: "win32" })).toBe(path.join(second, "dsh.exe"));
    expect(findCommand("pnpm", { env, platform: "win32" })).toBe(path.join(first, "pnpm.ps1"));
    expect(findCommand("npm", { env, platform: "win32" })).toBeUndefined();
  });

  it("skips files without the execute bit on POSIX, as the shell does", () => {
    const dir = tempDir("path");
    fs.writeFileSync(path.join(dir, "dsh"), "#!/bin/sh\n", { mode: 0o644 });
    expect(findCommand("dsh", { env: { PATH: dir }, platform: "linux" })).toBeUndefined();
    fs.chmodSync(path.join(dir, "dsh"), 0o755);
    expect(findCommand("dsh", { env: { PATH: dir }, platform: "linux" })).toBe(path.join(dir, "dsh"));
  });
});

describe("the cmd.exe command line for a .cmd program", () => {
  it("quotes every argument and caret-escapes cmd metacharacters, spaces and parentheses included", () => {
    expect(cmdCommandLine("C:\\Program Files\\DSH\\dsh.cmd", ["plugin", "--profile", "web", "add", "-w", "C:/Users/Ann Lee/DSH-DREAM (1)/bundle"])).toBe(
      '"C:\\Program^ Files\\DSH\\dsh.cmd ^"plugin^" ^"--profile^" ^"web^" ^"add^" ^"-w^" ^"C:/Users/Ann^ Lee/DSH-DREAM^ ^(1^)/bundle^""',
    );
  });

  it("escapes embedded quotes and trailing backslashes for the program's argument parser, and & | % for cmd", () => {
    expect(cmdCommandLine("C:\\n\\npm.cmd", ['say "hi"', "C:\\dir\\", "a&b|c%PATH%"])).toBe(
      '"C:\\n\\npm.cmd ^"say^ \\^"hi\\^"^" ^"C:\\dir\\\\^" ^"a^&b^|c^%PATH^%^""',
    );
  });

  it("escapes twice for npm's node_modules\\.bin shims, which hand %* to another command line", () => {
    expect(cmdCommandLine("C:\\p\\node_modules\\.bin\\dsh.cmd", ["a b"])).toBe('"C:\\p\\node_modules\\.bin\\dsh.cmd ^^^"a^^^ b^^^""');
  });
});

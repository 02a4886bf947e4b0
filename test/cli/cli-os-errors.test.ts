// What a user sees when the operating system refuses: a message and a hint, exit code 1, never a
// stack trace or a hang; and a reader that closes the output early (`| head -1`) ends the CLI quietly.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../store/helpers";
import { CLI, runCli } from "./run-cli";

const IO_HINT = "hint: Check that the data directory exists, is writable and the disk is not full.\n";
// Only a safety net: a CLI that hangs is killed after this and the test fails on its signal.
const KILL_AFTER_MS = 30_000;

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; `closeOutput` closes the reading end of its stdout before it writes anything. */
function runCliWatched(args: string[], options: { closeOutput?: boolean; stdout?: number } = {}): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", options.stdout ?? "pipe", "pipe"] });
    const killer = setTimeout(() => child.kill("SIGKILL"), KILL_AFTER_MS);
    let stdout = "";
    let stderr = "";
    if (options.closeOutput) child.stdout!.destroy();
    else child.stdout?.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe("dsh-dream when the operating system refuses", () => {
  it("reports a data directory that is a file as an IO_ERROR, exit code 1, without a stack trace", () => {
    const file = path.join(tempDir("cli-os-"), "afile");
    fs.writeFileSync(file, "not a directory");
    const result = runCli(["--data-dir", file, "status"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error [IO_ERROR]: cannot create directory "${file}": a file with that name is in the way (EEXIST)\n${IO_HINT}`);
    expect(fs.readFileSync(file, "utf8")).toBe("not a directory");
  });

  it("prints the same error as a JSON object on stdout with --json", () => {
    const file = path.join(tempDir("cli-os-"), "afile");
    fs.writeFileSync(file, "");
    const result = runCli(["--data-dir", path.join(file, "data"), "status", "--json"]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error).toEqual({
      code: "IO_ERROR",
      message: `cannot create directory "${path.join(file, "data")}": a part of the path is a file, not a directory (ENOTDIR)`,
      hint: "Check that the data directory exists, is writable and the disk is not full.",
    });
    expect(result.stderr).not.toContain("    at ");
  });

  // Node 20's recursive mkdir loops for ever there, at full CPU and deaf to SIGTERM.
  (fs.existsSync("/proc/self") ? it : it.skip)("exits by itself with a message when the data directory's parent takes no new directories (/proc)", async () => {
    const result = await runCliWatched(["--data-dir", "/proc/dsh-dream-nope/data", "status"]);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error [IO_ERROR]: cannot create directory "/proc/dsh-dream-nope": its parent directory is missing or does not accept new directories (ENOENT)\n' + IO_HINT,
    );
  });

  (fs.existsSync("/dev/full") ? it : it.skip)("reports a failing output once as DISK_FULL and exits with 1", async () => {
    const full = fs.openSync("/dev/full", "w");
    try {
      const result = await runCliWatched(["help"], { stdout: full });
      expect(result.signal).toBeNull();
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        "error [DISK_FULL]: cannot write: the disk is full (ENOSPC)\n" +
          "hint: Free some space on the disk that holds the data directory; nothing of this write was kept, and writing works again by itself once there is room.\n",
      );
    } finally {
      fs.closeSync(full);
    }
  });
});

describe("dsh-dream whose output is closed early (status | head -1)", () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = path.join(tempDir("cli-os-"), "data");
  });
  // `status` starts a bridge on demand; stop it so that no process outlives its test.
  afterEach(() => {
    expect(runCli(["--data-dir", dataDir, "stop"]).code).toBe(0);
  });

  it("ends quietly with exit code 0 instead of an unhandled EPIPE", async () => {
    const result = await runCliWatched(["--data-dir", dataDir, "status"], { closeOutput: true });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
  });
});

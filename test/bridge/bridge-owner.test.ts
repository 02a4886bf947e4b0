// `dsh-dream serve --owner-pid`: the bridge ends itself, the graceful way, once the process that owns
// it is gone, and refuses an owner pid that is not a process id.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { runCli } from "../cli/run-cli";
import { tempDir } from "../store/helpers";
import { serveBridge } from "./bridge-process";

describe("a bridge with an owner process", () => {
  it("stops gracefully, removing its bridge file and lock, soon after its owner exits", async () => {
    const dataDir = tempDir("bridge-owner-");
    const owner = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    const ownerExited = new Promise((resolve) => owner.on("exit", resolve));
    const bridge = await serveBridge(dataDir, ["--no-chroma", "--owner-pid", String(owner.pid)]);
    try {
      expect((await bridge.client.health()).pid).toBe(bridge.child.pid);
      owner.kill("SIGKILL");
      await ownerExited;
      let timer: NodeJS.Timeout | undefined;
      const stillRunning = new Promise((resolve) => (timer = setTimeout(() => resolve("still running"), 5_000)));
      const code = await Promise.race([bridge.exited, stillRunning]);
      clearTimeout(timer);
      expect(code).toBe(0);
      expect(fs.existsSync(path.join(dataDir, "bridge.json"))).toBe(false);
      expect(fs.existsSync(path.join(dataDir, "store.lock"))).toBe(false);
      expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).toContain(`stopping: owner process ${owner.pid} exited`);
    } finally {
      owner.kill("SIGKILL");
      if (bridge.child.exitCode === null) bridge.child.kill("SIGKILL");
    }
  });

  it("stops when its owner's pipe closes, although the owner pid names a live process (a reused pid)", async () => {
    const dataDir = tempDir("bridge-owner-pipe-");
    // The pid stays alive throughout: only the pipe can tell that the owner is gone.
    const stranger = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    const bridge = await serveBridge(dataDir, ["--no-chroma", "--owner-pid", String(stranger.pid), "--owner-pipe"], {}, "pipe");
    try {
      expect((await bridge.client.health()).pid).toBe(bridge.child.pid);
      bridge.child.stdin!.end();
      let timer: NodeJS.Timeout | undefined;
      const stillRunning = new Promise((resolve) => (timer = setTimeout(() => resolve("still running"), 10_000)));
      const code = await Promise.race([bridge.exited, stillRunning]);
      clearTimeout(timer);
      expect(code).toBe(0);
      expect(stranger.exitCode).toBeNull();
      expect(fs.existsSync(path.join(dataDir, "store.lock"))).toBe(false);
      expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).toContain("stopping: the owner's pipe closed (the owner process ended)");
    } finally {
      stranger.kill("SIGKILL");
      if (bridge.child.exitCode === null) bridge.child.kill("SIGKILL");
    }
  });

  it.each(["0", "-5", "abc"])("refuses --owner-pid %s with BAD_ARGUMENTS and starts nothing", (value) => {
    const dataDir = tempDir("bridge-owner-bad-");
    const out = runCli(["--data-dir", dataDir, "serve", "--no-chroma", `--owner-pid=${value}`]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^error \[BAD_ARGUMENTS\]: --owner-pid must be (a positive process id|an integer|a whole number)/);
    expect(fs.existsSync(path.join(dataDir, "bridge.json"))).toBe(false);
  });
});

// launchOrAttachBridge and stopBridge with the real CLI: attaching to a running bridge, starting one
// (passing --owner-pid through), stopping it for good, and the errors a failed start gives.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { attachBridge, bridgeEnv, launchOrAttachBridge, stopBridge, type LaunchOptions } from "../../bridge/client/bridge-launcher";
import { isProcessAlive } from "../../bridge/store/lock";
import { serveBridge } from "../bridge/bridge-process";
import { CLI } from "../cli/run-cli";
import { tempDir } from "../store/helpers";
import { bundleScript } from "../bundle-script";

const dataDirs: string[] = [];
const owners: ChildProcess[] = [];

// Chroma plays no part in finding or starting a bridge; the data directory's config turns it off.
function newDataDir(chroma: "off" | "embedded" = "off"): string {
  const dataDir = tempDir("launcher-");
  if (chroma === "off") fs.writeFileSync(path.join(dataDir, "bridge-config.json"), JSON.stringify({ chroma: { mode: "off" } }));
  dataDirs.push(dataDir);
  return dataDir;
}

function spawnOwner(): ChildProcess {
  const owner = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  owners.push(owner);
  return owner;
}

// Whatever a test left running, a failing one included, is stopped the graceful way (its Chroma too).
afterEach(async () => {
  for (const owner of owners.splice(0)) owner.kill("SIGKILL");
  for (const dataDir of dataDirs.splice(0)) {
    const running = await attachBridge(dataDir);
    if (running) await stopBridge(running.client, running.pid, 20_000);
  }
});

const options = (dataDir: string, extra: Partial<LaunchOptions> = {}): LaunchOptions => ({ dataDir, cliPath: CLI, env: process.env, ...extra });

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return !isProcessAlive(pid);
}

describe("launchOrAttachBridge", () => {
  it("attaches to the bridge already serving the data directory and starts nothing", async () => {
    const dataDir = newDataDir();
    const served = await serveBridge(dataDir);
    const { client, started: launched } = await launchOrAttachBridge(options(dataDir));
    expect(launched).toBeUndefined();
    expect((await client.health()).pid).toBe(served.child.pid);
  });

  it("starts a bridge when none runs (in its data directory, with glibc's huge pages on Linux), says which pid it started, and that bridge answers", async () => {
    const dataDir = newDataDir();
    const { client, started: launched } = await launchOrAttachBridge(options(dataDir, { idleExitMs: 60_000 }));
    expect(isProcessAlive(launched!.pid)).toBe(true);
    expect(await client.call("add", { id: "a", text: "hello", source_type: "user_message" })).toMatchObject({ status: "added" });
    expect(await client.call("status", {})).toMatchObject({ records: 1, bridge: { pid: launched!.pid } });
    const again = await launchOrAttachBridge(options(dataDir));
    expect(again.started).toBeUndefined();
    // Its working directory is the data directory, not the caller's (which Windows would keep from being deleted).
    if (process.platform === "linux") expect(fs.readlinkSync(`/proc/${launched!.pid}/cwd`)).toBe(fs.realpathSync(dataDir));
    // On Linux the bridge runs with glibc's malloc told to use huge pages (bridgeEnv, tested below).
    if (process.platform === "linux") {
      const environ = fs.readFileSync(`/proc/${launched!.pid}/environ`, "latin1").split("\0");
      expect(environ).toContain(`GLIBC_TUNABLES=${bridgeEnv(process.env).GLIBC_TUNABLES}`);
      if (!process.env.GLIBC_TUNABLES?.includes("glibc.malloc.hugetlb=")) expect(environ.find((entry) => entry.startsWith("GLIBC_TUNABLES="))).toMatch(/[=:]glibc\.malloc\.hugetlb=1$/);
    }
  });

  it("passes --owner-pid on, so the started bridge ends with its owner", async () => {
    const dataDir = newDataDir();
    const owner = spawnOwner();
    const { started: launched } = await launchOrAttachBridge(options(dataDir, { ownerPid: owner.pid }));
    owner.kill("SIGKILL");
    expect(await waitUntilGone(launched!.pid, 10_000)).toBe(true);
    expect(fs.existsSync(path.join(dataDir, "bridge.json"))).toBe(false);
  });

  it("ends an owned bridge when the process that started it dies, even if the owner pid it was given lives on", async () => {
    const dataDir = newDataDir();
    const work = tempDir("launcher-host-");
    // A host that launches the bridge in-process (as the DSH plugin does), then is killed with SIGKILL.
    const host = bundleScript(work, "host.cjs", `
          const { launchOrAttachBridge } = require(${JSON.stringify(path.resolve(__dirname, "../../bridge/client/bridge-launcher.ts"))});
          const [dataDir, cliPath, ownerPid] = process.argv.slice(2);
          launchOrAttachBridge({ dataDir, cliPath, env: process.env, ownerPid: Number(ownerPid) }).then(({ started }) => {
            process.stdout.write(String(started.pid) + "\\n");
            setInterval(() => {}, 1000);
          });`);
    // Standing in for a pid that Windows reused: alive for the whole test, so only the pipe can tell.
    const reused = spawnOwner();
    const hostProcess = spawn(process.execPath, [host, dataDir, CLI, String(reused.pid)], { stdio: ["ignore", "pipe", "inherit"] });
    owners.push(hostProcess);
    let out = "";
    hostProcess.stdout!.on("data", (chunk) => (out += chunk));
    while (!out.includes("\n")) await new Promise((resolve) => setTimeout(resolve, 50));
    const bridgePid = Number(out.trim());
    expect(isProcessAlive(bridgePid)).toBe(true);
    hostProcess.kill("SIGKILL");
    expect(await waitUntilGone(bridgePid, 10_000)).toBe(true);
    expect(isProcessAlive(reused.pid!)).toBe(true);
    expect(fs.readFileSync(path.join(dataDir, "bridge.log"), "utf8")).toContain("stopping: the owner's pipe closed (the owner process ended)");
  });

  it("lets concurrent launches share one bridge, and only the launch that started it says so", async () => {
    // Embedded Chroma makes the winner slow to answer, long after the losers have exited.
    const dataDir = newDataDir("embedded");
    const launches = await Promise.all([1, 2, 3].map(() => launchOrAttachBridge(options(dataDir))));
    const pids = await Promise.all(launches.map(async (l) => (await l.client.health()).pid));
    expect(new Set(pids).size).toBe(1);
    expect(launches.filter((l) => l.started !== undefined).map((l) => l.started)).toEqual([{ pid: pids[0] }]);
    expect(await stopBridge(launches[0].client, pids[0], 20_000)).toBe("stopped");
  });

  it("fails with the bridge's own reason and code when it cannot start, and BRIDGE_UNAVAILABLE when the runtime does not exist", async () => {
    const dataDir = newDataDir();
    fs.writeFileSync(path.join(dataDir, "bridge-config.json"), JSON.stringify({ chroma: { mode: "sideways" } }));
    await expect(launchOrAttachBridge(options(dataDir))).rejects.toMatchObject({
      code: "INVALID_FIELD",
      message: expect.stringMatching(new RegExp(`^the bridge for ${escape(dataDir)} did not start: start failed \\[INVALID_FIELD\\]: .*chroma\\.mode`)),
    });
    // A store that cannot open says why too, not "stopped".
    const corrupt = newDataDir();
    fs.writeFileSync(path.join(corrupt, "journal.jsonl"), "not a journal line\nnor this one\n");
    await expect(launchOrAttachBridge(options(corrupt))).rejects.toMatchObject({
      code: "JOURNAL_CORRUPT",
      message: expect.stringMatching(new RegExp(`^the bridge for ${escape(corrupt)} did not start: start failed \\[JOURNAL_CORRUPT\\]: .*damaged but more lines follow`)),
    });
    await expect(launchOrAttachBridge(options(newDataDir(), { execPath: path.join(dataDir, "no-such-node") }))).rejects.toMatchObject({
      code: "BRIDGE_UNAVAILABLE",
      message: expect.stringContaining("could not start the bridge"),
    });
  });
});

describe("bridgeEnv", () => {
  it("tells glibc's malloc to use huge pages on Linux, after the tunables already set, and keeps the rest of the environment", () => {
    expect(bridgeEnv({ PATH: "/bin" }, "linux")).toEqual({ PATH: "/bin", GLIBC_TUNABLES: "glibc.malloc.hugetlb=1" });
    expect(bridgeEnv({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" }, "linux")).toEqual({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1" });
    expect(bridgeEnv({ GLIBC_TUNABLES: "" }, "linux")).toEqual({ GLIBC_TUNABLES: "glibc.malloc.hugetlb=1" });
  });

  it("leaves a huge-page setting the user made as it is, and sets nothing on Windows or macOS", () => {
    for (const mine of ["glibc.malloc.hugetlb=0", "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2"]) {
      expect(bridgeEnv({ GLIBC_TUNABLES: mine }, "linux")).toEqual({ GLIBC_TUNABLES: mine });
    }
    // A tunable whose name only begins the same is another one.
    expect(bridgeEnv({ GLIBC_TUNABLES: "glibc.malloc.hugetlbx=0" }, "linux").GLIBC_TUNABLES).toBe("glibc.malloc.hugetlbx=0:glibc.malloc.hugetlb=1");
    for (const platform of ["win32", "darwin"] as const) expect(bridgeEnv({ PATH: "x" }, platform)).toEqual({ PATH: "x" });
  });

  it("returns a copy: the caller's environment is not changed", () => {
    const env = { PATH: "/bin" };
    bridgeEnv(env, "linux");
    expect(env).toEqual({ PATH: "/bin" });
  });
});

describe("stopBridge", () => {
  it("shuts the bridge down, waits for its process to go and leaves no bridge file; a second stop is harmless", async () => {
    const dataDir = newDataDir();
    const { client, started: launched } = await launchOrAttachBridge(options(dataDir));
    const pid = launched!.pid;
    expect(await stopBridge(client, pid, 20_000)).toBe("stopped");
    expect(isProcessAlive(pid)).toBe(false);
    expect(fs.existsSync(path.join(dataDir, "bridge.json"))).toBe(false);
    expect(await attachBridge(dataDir)).toBeUndefined();
    expect(await stopBridge(client, pid, 1_000)).toBe("stopped");
  });

  // SIGSTOP, the stand-in for a hung bridge, exists on POSIX only.
  const posixIt = process.platform === "win32" ? it.skip : it;
  posixIt("kills a bridge that does not stop within the wait", async () => {
    const dataDir = newDataDir();
    const { client, started: launched } = await launchOrAttachBridge(options(dataDir));
    const pid = launched!.pid;
    // A stopped process can neither answer nor exit.
    process.kill(pid, "SIGSTOP");
    expect(await stopBridge(client, pid, 500)).toBe("killed");
    expect(isProcessAlive(pid)).toBe(false);
  });
});

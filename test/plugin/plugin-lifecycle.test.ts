// The plugin's lifecycle in the real DSH host: disposing it leaves no listener, tool, route, timer
// or process of ours behind, and a bridge that hangs or dies never breaks or holds up a turn.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { isProcessAlive } from "../../bridge/store/lock";
import { recallMessage, type DshHost } from "./dsh-host-driver";
import { bridgeClient, bridgeRecords, closePluginHome, newPluginHome, waitFor, type PluginHome } from "./plugin-helpers";

function getJson(port: number, route: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: route, headers: { host: `localhost:${port}` } }, (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text === "" ? null : JSON.parse(text) }));
      })
      .on("error", reject);
  });
}

function bridgePid(dataDir: string): number {
  return (JSON.parse(fs.readFileSync(path.join(dataDir, "bridge.json"), "utf8")) as { pid: number }).pid;
}

describe("the plugin's lifecycle in the real DSH host", () => {
  let home: PluginHome;
  let dataDir: string;
  let host: DshHost;

  beforeEach(() => {
    home = newPluginHome();
    ({ dataDir, host } = home);
  });

  afterEach(async () => {
    try {
      process.kill(bridgePid(dataDir), "SIGCONT"); // a test that stopped the bridge may have failed before resuming it
    } catch {
      // no bridge left to resume
    }
    await closePluginHome(home);
  });

  it("removes every listener, tool and route and stops its bridge and Chroma on dispose, and the host then exits on its own", async () => {
    const { webPort } = await host.boot({ enabled: true, holographic: true, embedding: { provider: "off" } }, { webServer: true });
    await host.createAgent("s-1");
    const first = await host.turn("s-1", "我的猫叫年糕。", [{ text: "好可爱的名字。" }]);
    expect(first.requests[0]!.tools).toEqual(["holo_forget", "holo_receipt", "holo_remember", "holo_search", "holo_timeline"]);
    const client = await bridgeClient(dataDir);
    await waitFor(() => bridgeRecords(client), (r) => r.length === 2);
    const status = await getJson(webPort!, "/_dsh/holo-memory/status");
    expect(status.status).toBe(200);
    expect(status.body.plugin).toMatchObject({ enabled: true, bridge_owned_by_plugin: true, capture: { pending: 0, written: 1, dropped: 0 } });
    const pids = { bridge: status.body.bridge.bridge.pid as number, chroma: status.body.bridge.chroma.pid as number };
    expect(pids.bridge).toBe(bridgePid(dataDir));

    const after = await host.send<{ tools: string[] }>("disposePlugin");
    expect(after.tools.filter((name) => name.startsWith("holo_"))).toEqual([]);
    expect((await getJson(webPort!, "/_dsh/holo-memory/status")).status).toBe(404);
    await waitFor(async () => [isProcessAlive(pids.bridge), isProcessAlive(pids.chroma)], (alive) => !alive[0] && !alive[1], 15_000);
    expect(fs.existsSync(path.join(dataDir, "bridge.json"))).toBe(false);

    const later = await host.turn("s-1", "我的猫叫什么？", [{ text: "年糕。" }]);
    expect(later.requests[0]!.tools).toEqual([]);
    expect(recallMessage(later.requests[0]!)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fs.existsSync(path.join(dataDir, "bridge.json"))).toBe(false); // nothing of ours started a bridge again

    const exitCode = await Promise.race([host.shutdown(), new Promise((resolve) => setTimeout(() => resolve("still running"), 10_000))]);
    expect(exitCode).toBe(0);
  });

  it("goes on without recall when the bridge hangs, within the time budget, and writes the turn once the bridge resumes", async () => {
    await host.boot({ enabled: true, holographic: true, embedding: { provider: "off" }, recall: { timeBudgetMs: 400 } });
    await host.createAgent("s-2");
    await host.turn("s-2", "会议改到周五下午三点。", [{ text: "好的，周五下午三点。" }]);
    const client = await bridgeClient(dataDir);
    await waitFor(() => bridgeRecords(client), (r) => r.length === 2);
    await host.createAgent("s-3");

    const pid = bridgePid(dataDir);
    process.kill(pid, "SIGSTOP");
    const hung = await host.turn("s-3", "会议是什么时候？", [{ text: "我不确定。" }]);
    expect(hung.unplayed).toBe(0);
    expect(recallMessage(hung.requests[0]!)).toBeUndefined();
    // The budget is 400 ms; a turn that waited on the hung bridge would take the 10 s write timeout.
    expect(hung.elapsedMs).toBeLessThan(400 + 3000);

    process.kill(pid, "SIGCONT");
    const records = await waitFor(() => bridgeRecords(client), (r) => r.length === 4, 60_000);
    expect(records.map((r) => r.id)).toEqual(["turn:s-2:1:user", "turn:s-2:1:assistant", "turn:s-3:1:user", "turn:s-3:1:assistant"]);
  });

  it("restarts a bridge that was killed, without failing the turn that found it gone", async () => {
    await host.boot({ enabled: true, holographic: true, embedding: { provider: "off" }, recall: { timeBudgetMs: 400 } });
    await host.createAgent("s-4");
    await host.turn("s-4", "我住在杭州。", [{ text: "杭州很美。" }]);
    const first = await bridgeClient(dataDir);
    await waitFor(() => bridgeRecords(first), (r) => r.length === 2);

    const killed = bridgePid(dataDir);
    process.kill(killed, "SIGKILL");
    await waitFor(async () => isProcessAlive(killed), (alive) => !alive);
    const turn = await host.turn("s-4", "我住在哪里？", [{ text: "杭州。" }]);
    expect(turn.unplayed).toBe(0);
    expect(turn.elapsedMs).toBeLessThan(400 + 3000);

    const restarted = await bridgeClient(dataDir);
    const records = await waitFor(() => bridgeRecords(restarted), (r) => r.length === 4, 60_000);
    expect(records.map((r) => r.text)).toEqual(["我住在杭州。", "杭州很美。", "我住在哪里？", "杭州。"]);
    expect(bridgePid(dataDir)).not.toBe(killed);
  });
});

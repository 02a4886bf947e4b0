// Issue 16, item 4: what keeps the embedded Chroma replica from everyone but the bridge. Chroma 1.x's
// server enforces no credential and checks no Host header (docs/design.md), so the guard is where it
// listens: a random address of the loopback /8 on Linux and Windows, not 127.0.0.1, written only into
// files readable by the user alone. These tests hold that guard; what it does not stop is in design.md.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { privateLoopbackHost } from "../../bridge/chroma/chroma-process-io";
import { serveBridge, waitForReplicaStart } from "../bridge/bridge-process";
import { tempDir } from "../store/helpers";
import { filesHolding } from "./files-holding";

function get(host: string, port: number, urlPath: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const request = http.get({ host, port, path: urlPath, headers, agent: false, timeout: 5_000 }, (response) => {
      let body = "";
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("timeout", () => request.destroy(new Error("timeout")));
    request.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

describe("the loopback address the embedded Chroma listens on", () => {
  it("is a random one of 127.0.0.0/8 on Linux and Windows, never 127.0.0.x, and 127.0.0.1 on macOS", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const host = privateLoopbackHost("linux");
      expect(host).toMatch(/^127\.(\d+)\.(\d+)\.(\d+)$/);
      const [, a, b, c] = /^127\.(\d+)\.(\d+)\.(\d+)$/.exec(host)!.map(Number);
      expect(a).toBeGreaterThanOrEqual(1);
      expect(a).toBeLessThanOrEqual(254);
      expect(b).toBeLessThanOrEqual(255);
      expect(c).toBeGreaterThanOrEqual(1);
      expect(c).toBeLessThanOrEqual(254);
      seen.add(host);
    }
    expect(seen.size).toBeGreaterThan(190);
    expect(privateLoopbackHost("win32", () => 0)).toBe("127.1.0.1");
    expect(privateLoopbackHost("darwin")).toBe("127.0.0.1");
  });
});

(process.platform === "linux" ? describe : describe.skip)("a real bridge's Chroma replica (Linux)", () => {
  it("is not on 127.0.0.1, where a page rebinding a name or a scan of 127.0.0.1 would look, and its address is in no file others can read", async () => {
    const dataDir = tempDir("replica-guard-");
    const bridge = await serveBridge(dataDir);
    try {
      await bridge.client.call("add", { id: "pin", text: "my bank PIN is 4711", source_type: "user_message", embedding: { provider: "test", model: "m", vector: [1, 0] } });
      // The replica starts once the bridge serves.
      const status = (await waitForReplicaStart(bridge.client)) as { chroma: { url: string } };
      const url = new URL(status.chroma.url);
      expect(url.hostname).not.toBe("127.0.0.1");
      const port = Number(url.port);
      // The bridge reaches it; 127.0.0.1 on the same port has nobody, with or without a foreign Host.
      expect(await get(url.hostname, port, "/api/v2/heartbeat")).toMatchObject({ status: 200 });
      expect(await get("127.0.0.1", port, "/api/v2/tenants/default_tenant/databases/default_database/collections", { host: "evil.example" })).toEqual({ error: "ECONNREFUSED" });
      expect(await get("localhost", port, "/api/v2/heartbeat")).toMatchObject({ error: expect.stringMatching(/ECONNREFUSED|EADDRNOTAVAIL/) });
      // Where the address is written, only the user can read.
      const holding = filesHolding(dataDir, url.hostname);
      for (const file of holding) expect(fs.statSync(path.join(dataDir, file)).mode & 0o077).toBe(0);
    } finally {
      await bridge.client.call("shutdown", {});
      await bridge.exited;
    }
  }, 60_000);
});


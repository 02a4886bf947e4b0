// Issue 15, item 7: half-open connections are capped and closed, so a flood of them cannot hold the
// bridge's sockets for a minute and a half each.
import http from "node:http";
import net from "node:net";
import { startRpcServer, type RpcServer } from "../../bridge/server/rpc-server";

const TOKEN = "t".repeat(32);
const servers: RpcServer[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A connection that sends half a request line and then nothing. */
function halfOpen(port: number): Promise<{ socket: net.Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write("POST /v1/rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      socket.resume(); // reads what the server sends (a 408), so that its close is seen
      resolve({ socket, closed: new Promise((done) => socket.once("close", () => done())) });
    });
    socket.on("error", () => undefined);
    socket.once("error", reject);
    sockets.push(socket);
  });
}

function healthAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/v1/health", headers: { authorization: `Bearer ${TOKEN}` }, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on("error", () => resolve(false));
  });
}

describe("the bridge's HTTP server", () => {
  it("closes a connection that never finishes its headers", async () => {
    const server = await startRpcServer({ token: TOKEN, handle: async () => null, headersTimeoutMs: 300 });
    servers.push(server);
    const { closed } = await halfOpen(server.port);
    await closed; // would hang (the test times out) if the server kept it
    expect(await healthAnswers(server.port)).toBe(true);
  });

  it("holds at most maxConnections at once and refuses the rest on accept", async () => {
    const server = await startRpcServer({ token: TOKEN, handle: async () => null, maxConnections: 20, headersTimeoutMs: 60_000 });
    servers.push(server);
    const held = await Promise.all(Array.from({ length: 20 }, () => halfOpen(server.port)));
    const extra = await Promise.all(Array.from({ length: 5 }, () => halfOpen(server.port)));
    // The five over the cap are closed by the server; the twenty are kept.
    await Promise.all(extra.map((connection) => connection.closed));
    expect(held.every((connection) => !connection.socket.destroyed)).toBe(true);
    for (const connection of held) connection.socket.destroy();
    await Promise.all(held.map((connection) => connection.closed));
    // Once they are gone, requests are served again.
    await waitFor(() => healthAnswers(server.port));
  });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
}

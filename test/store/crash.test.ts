// Crash injection: a real child process adds memories and is killed with SIGKILL mid-stream;
// every write it acknowledged must be there after reopening, and the store must keep working.
import { spawn } from "node:child_process";
import path from "node:path";
import { openStore, tempDir } from "./helpers";

const WRITER = path.resolve(__dirname, "../fixtures/crash-writer.cjs");

function runAndKill(dataDir: string, startAt: number, killAfterAcks: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, dataDir, String(startAt)], { stdio: ["ignore", "pipe", "pipe"] });
    const acked: string[] = [];
    let buffer = "";
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith("ack ")) acked.push(line.slice(4));
      if (acked.length >= killAfterAcks) child.kill("SIGKILL");
    });
    child.on("error", reject);
    child.on("exit", (_code, signal) => (signal === "SIGKILL" ? resolve(acked) : reject(new Error(`writer exited without being killed: ${stderr}`))));
  });
}

describe("crash injection", () => {
  it("keeps every acknowledged write across repeated kill -9 of the writer", async () => {
    const dataDir = tempDir("crash-");
    const acknowledged: string[] = [];
    for (const [round, kills] of [[0, 37], [1000, 113], [2000, 5]] as const) {
      acknowledged.push(...(await runAndKill(dataDir, round, kills)));
    }
    const store = openStore(dataDir);
    for (const id of acknowledged) expect(store.get(id)).toBeDefined();
    expect(store.size).toBeGreaterThanOrEqual(acknowledged.length);
    store.add({ id: "after-crash", text: "still writable", source_type: "user_message" });
    expect(store.get("after-crash")!.text).toBe("still writable");
    store.close();
  });
});

// Issue 15, item 7: bridge.log does not grow for ever and does not repeat a state that has not changed.
import fs from "node:fs";
import path from "node:path";
import { BridgeLog, LOG_ROTATE_BYTES } from "../../bridge/server/bridge-log";
import { tempDir } from "../store/helpers";

const lines = (file: string) => fs.readFileSync(file, "utf8").trim().split("\n").map((line) => line.replace(/^\S+ /, ""));

describe("bridge.log", () => {
  it("says an unchanged state once and then how often it repeated", () => {
    const dataDir = tempDir("log-repeat-");
    const log = new BridgeLog(dataDir);
    log.info("serving");
    for (let i = 0; i < 500; i++) log.error("chroma sync failed: cannot reach http://127.0.0.1:9");
    log.info("chroma back");
    log.info("chroma back");
    log.info("stopping");
    expect(lines(log.filePath)).toEqual([
      "info serving",
      "error chroma sync failed: cannot reach http://127.0.0.1:9",
      "info (the line before repeated 499 more times)",
      "info chroma back",
      "info (the line before repeated 1 more times)",
      "info stopping",
    ]);
  });

  it("moves itself to bridge.log.1 at its size limit, keeping one old file, and carries on", () => {
    const dataDir = tempDir("log-rotate-");
    const log = new BridgeLog(dataDir, 1_000);
    for (let i = 0; i < 100; i++) log.info(`line ${i} ${"x".repeat(40)}`);
    const current = fs.statSync(log.filePath).size;
    const old = fs.statSync(`${log.filePath}.1`).size;
    expect(current).toBeLessThan(1_100);
    expect(old).toBeGreaterThanOrEqual(1_000);
    expect(old).toBeLessThan(1_100);
    expect(fs.readdirSync(dataDir).sort()).toEqual(["bridge.log", "bridge.log.1"]);
    expect(lines(log.filePath).at(-1)).toBe(`info line 99 ${"x".repeat(40)}`);
    // A log that was already big when the bridge started is rotated on the first line too.
    fs.writeFileSync(path.join(dataDir, "bridge.log"), "y".repeat(2_000));
    new BridgeLog(dataDir, 1_000).info("first line of a new start");
    expect(lines(log.filePath)).toEqual(["info first line of a new start"]);
    expect(LOG_ROTATE_BYTES).toBe(5 * 1024 * 1024);
  });
});

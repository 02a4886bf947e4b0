// Finding 13 of issue 14 (the Chroma start timeout): on Windows the first start of the Chroma binding
// is scanned by Defender and can take tens of seconds, so Chroma gets the 120 s DSH Desktop gives its
// own services. The bridge now answers before its Chroma is up, but its own first start loads native
// modules (the embedder's) that are scanned alike: whoever starts a bridge still waits that long and more,
// on every platform, or a slow first start would be reported as a bridge that did not start.
import { bridgeStartTimeoutMs } from "../../bridge/client/bridge-launcher";
import { chromaStartTimeoutMs } from "../../bridge/chroma/chroma-process";

describe("start timeouts", () => {
  it("give Chroma 120 s on Windows and 15 s elsewhere", () => {
    expect(chromaStartTimeoutMs("win32")).toBe(120_000);
    expect(chromaStartTimeoutMs("linux")).toBe(15_000);
    expect(chromaStartTimeoutMs("darwin")).toBe(15_000);
  });

  it.each(["win32", "linux", "darwin"] as const)("wait for a bridge on %s longer than its Chroma may take to start", (platform) => {
    expect(bridgeStartTimeoutMs(platform)).toBeGreaterThanOrEqual(chromaStartTimeoutMs(platform) + 10_000);
  });
});

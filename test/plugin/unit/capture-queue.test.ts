import { CaptureQueue, MAX_PENDING_TURNS } from "../../../plugin/capture/capture-queue";
import { turnKey } from "../../../plugin/capture/capture";
import { turnRecords, type TurnRecord } from "../../../plugin/capture/turn-records";
import { MemoryLog, MemoryWriter } from "./memory-writer";

function records(turn: number, reply = `reply ${turn}`, sessionId = "s"): TurnRecord[] {
  return turnRecords(
    { sessionId, turn, userText: `question ${turn}`, assistantText: reply, startedMs: turn * 1_000, toolNames: [] },
    { highlighted: false, holographic: true },
  );
}

const ids = (turn: number, sessionId = "s") => [`turn:${sessionId}:${turn}:user`, `turn:${sessionId}:${turn}:assistant`];

function setup() {
  const writer = new MemoryWriter();
  const log = new MemoryLog();
  const queue = new CaptureQueue(writer, log);
  return { writer, log, queue };
}

afterEach(() => jest.useRealTimers());

describe("CaptureQueue writing", () => {
  it("writes queued turns in the order they were enqueued, each exactly once", async () => {
    const { writer, queue, log } = setup();
    for (const turn of [1, 2, 3]) queue.enqueue(turnKey("s", turn), records(turn));
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([ids(1), ids(2), ids(3)]);
    expect(writer.accepted).toEqual([...ids(1), ...ids(2), ...ids(3)]);
    expect(queue.status()).toEqual({ pending: 0, written: 3, dropped: 0, lastError: null });
    expect(log.warnings).toEqual([]);
  });

  it("ignores a turn with no records", async () => {
    const { writer, queue } = setup();
    queue.enqueue(turnKey("s", 1), []);
    expect(await queue.drain(100)).toBe(true);
    expect(writer.importCalls).toEqual([]);
    expect(queue.status().written).toBe(0);
  });

  it("replaces a queued turn with its newer version, which is written once and after the turns queued meanwhile", async () => {
    const { writer, queue } = setup();
    const release = writer.hold();
    queue.enqueue(turnKey("s", 1), records(1)); // in flight, held
    queue.enqueue(turnKey("s", 2), records(2, "draft"));
    queue.enqueue(turnKey("s", 3), records(3));
    queue.enqueue(turnKey("s", 2), records(2, "final answer"));
    expect(queue.status().pending).toBe(3);
    release();
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([ids(1), ids(3), ids(2)]);
    expect(writer.texts()["turn:s:2:assistant"]).toBe("final answer");
    expect(queue.status()).toEqual({ pending: 0, written: 3, dropped: 0, lastError: null });
  });

  it("writes a newer version that arrives while the older is in flight, replacing the older record through ID_CONFLICT", async () => {
    const { writer, queue } = setup();
    const release = writer.hold();
    queue.enqueue(turnKey("s", 1), records(1, "short reply"));
    queue.enqueue(turnKey("s", 1), records(1, "short reply, then more after a steer"));
    release();
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([ids(1), ids(1), ["turn:s:1:assistant"]]);
    expect(writer.forgotten).toEqual(["turn:s:1:assistant"]);
    expect(writer.texts()).toEqual({ "turn:s:1:user": "question 1", "turn:s:1:assistant": "short reply, then more after a steer" });
    expect(queue.status()).toEqual({ pending: 0, written: 2, dropped: 0, lastError: null });
  });

  it("forgets and re-imports only the record the bridge rejects with ID_CONFLICT", async () => {
    const { writer, queue, log } = setup();
    writer.refuse("turn:s:1:user", "ID_CONFLICT");
    queue.enqueue(turnKey("s", 1), records(1));
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([ids(1), ["turn:s:1:user"]]);
    expect(writer.forgotten).toEqual(["turn:s:1:user"]);
    expect(writer.accepted).toEqual(["turn:s:1:assistant", "turn:s:1:user"]);
    expect(log.warnings).toEqual([]);
  });

  it("warns about a record the bridge refuses for another reason and does not retry it", async () => {
    const { writer, queue, log } = setup();
    writer.refuse("turn:s:1:assistant", "INVALID_RECORD");
    queue.enqueue(turnKey("s", 1), records(1));
    expect(await queue.drain(1_000)).toBe(true);
    expect(writer.importCalls).toEqual([ids(1)]);
    expect(writer.accepted).toEqual(["turn:s:1:user"]);
    expect(writer.forgotten).toEqual([]);
    expect(log.warnings).toEqual(["the bridge refused captured record turn:s:1:assistant: INVALID_RECORD record turn:s:1:assistant refused"]);
    expect(queue.status().pending).toBe(0);
  });
});

describe("CaptureQueue retries", () => {
  it("retries a failing writer after 250, 500 and 1000 ms, then writes the turn exactly once", async () => {
    jest.useFakeTimers({ now: 0 });
    const { writer, queue } = setup();
    writer.failNext(3);
    queue.enqueue(turnKey("s", 1), records(1));
    await jest.advanceTimersByTimeAsync(0);
    expect(queue.status()).toEqual({ pending: 1, written: 0, dropped: 0, lastError: "the bridge is not reachable" });
    await jest.advanceTimersByTimeAsync(10_000);
    expect(writer.callTimes).toEqual([0, 250, 750, 1_750]);
    expect(writer.accepted).toEqual(ids(1));
    expect(queue.status()).toEqual({ pending: 0, written: 1, dropped: 0, lastError: null });
  });

  it("doubles the delay up to 10 seconds and starts again from 250 ms after a success", async () => {
    jest.useFakeTimers({ now: 0 });
    const { writer, queue } = setup();
    writer.failNext(8);
    queue.enqueue(turnKey("s", 1), records(1));
    await jest.advanceTimersByTimeAsync(60_000);
    expect(writer.callTimes).toEqual([0, 250, 750, 1_750, 3_750, 7_750, 15_750, 25_750, 35_750]);
    writer.failNext(1);
    queue.enqueue(turnKey("s", 2), records(2));
    await jest.advanceTimersByTimeAsync(1_000);
    expect(writer.callTimes.slice(9)).toEqual([60_000, 60_250]);
    expect(writer.accepted).toEqual([...ids(1), ...ids(2)]);
  });

  it("writes turns queued during a retry wait after the failed one, in order, once the writer recovers", async () => {
    jest.useFakeTimers({ now: 0 });
    const { writer, queue } = setup();
    writer.failNext(1);
    queue.enqueue(turnKey("s", 1), records(1));
    await jest.advanceTimersByTimeAsync(0);
    queue.enqueue(turnKey("s", 2), records(2));
    expect(writer.importCalls).toEqual([ids(1)]); // no write before the retry is due
    await jest.advanceTimersByTimeAsync(250);
    expect(writer.importCalls).toEqual([ids(1), ids(1), ids(2)]);
    expect(writer.accepted).toEqual([...ids(1), ...ids(2)]);
  });
});

describe("CaptureQueue bound", () => {
  it(`holds at most ${MAX_PENDING_TURNS} turns, dropping the oldest, counting it and warning`, async () => {
    jest.useFakeTimers({ now: 0 });
    const { writer, queue, log } = setup();
    writer.failNext(1);
    queue.enqueue(turnKey("s", 0), records(0));
    await jest.advanceTimersByTimeAsync(0); // the first write failed; the retry waits 250 ms
    for (let turn = 1; turn <= MAX_PENDING_TURNS; turn++) queue.enqueue(turnKey("s", turn), records(turn));
    expect(queue.status()).toEqual({ pending: MAX_PENDING_TURNS, written: 0, dropped: 1, lastError: "the bridge is not reachable" });
    expect(log.warnings).toEqual([`capture queue full (1000 turns waiting for the bridge): dropped the oldest turn ${turnKey("s", 0)}`]);

    await jest.advanceTimersByTimeAsync(250);
    expect(writer.accepted).toEqual(Array.from({ length: MAX_PENDING_TURNS }, (_, i) => ids(i + 1)).flat());
    expect(queue.status()).toEqual({ pending: 0, written: MAX_PENDING_TURNS, dropped: 1, lastError: null });
  });
});

describe("CaptureQueue drain", () => {
  it("resolves true at once when nothing is queued", async () => {
    const { queue } = setup();
    expect(await queue.drain(0)).toBe(true);
  });

  it("resolves true once the queued turns are written", async () => {
    const { writer, queue } = setup();
    const release = writer.hold();
    queue.enqueue(turnKey("s", 1), records(1));
    const drained = queue.drain(5_000);
    release();
    expect(await drained).toBe(true);
    expect(writer.accepted).toEqual(ids(1));
  });

  it("resolves false when the writer has not finished within the timeout", async () => {
    const { writer, queue } = setup();
    const release = writer.hold();
    queue.enqueue(turnKey("s", 1), records(1));
    expect(await queue.drain(30)).toBe(false);
    expect(writer.accepted).toEqual([]);
    release();
    expect(await queue.drain(1_000)).toBe(true);
  });

  it("waits through a retry and resolves true when the retry succeeds", async () => {
    jest.useFakeTimers({ now: 0 });
    const { writer, queue } = setup();
    writer.failNext(1);
    queue.enqueue(turnKey("s", 1), records(1));
    let result: boolean | undefined;
    void queue.drain(5_000).then((drained) => (result = drained));
    await jest.advanceTimersByTimeAsync(249);
    expect(result).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    expect(result).toBe(true);
  });
});

describe("CaptureQueue close", () => {
  it("stops retrying, warns how many turns were not written and ignores later turns", async () => {
    jest.useFakeTimers({ now: 0 });
    const { writer, queue, log } = setup();
    writer.failNext(100);
    queue.enqueue(turnKey("s", 1), records(1));
    queue.enqueue(turnKey("s", 2), records(2));
    await jest.advanceTimersByTimeAsync(0);
    queue.close();
    expect(log.warnings).toEqual(["2 captured turn(s) were not yet written when the plugin stopped"]);
    queue.enqueue(turnKey("s", 3), records(3));
    await jest.advanceTimersByTimeAsync(120_000);
    expect(writer.importCalls).toEqual([ids(1)]);
    expect(queue.status()).toEqual({ pending: 2, written: 0, dropped: 0, lastError: "the bridge is not reachable" });
  });

  it("does not warn when everything was written", async () => {
    const { queue, log } = setup();
    queue.enqueue(turnKey("s", 1), records(1));
    await queue.drain(1_000);
    queue.close();
    expect(log.warnings).toEqual([]);
  });
});

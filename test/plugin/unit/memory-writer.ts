// An in-memory stand-in for the bridge's import/forget, with the bridge's id rule: the same id with
// the same text is a duplicate (accepted, nothing changes), with other text it is ID_CONFLICT.
import type { RecordWriter } from "../../../plugin/capture/capture-queue";
import type { TurnRecord } from "../../../plugin/capture/turn-records";

type Rejection = { index: number; code: string; message: string };

export class MemoryWriter implements RecordWriter {
  /** The durable state: live records by id, in the order they were first accepted. */
  readonly stored = new Map<string, TurnRecord>();
  /** Ids of every importRecords call, in call order (failed calls included). */
  readonly importCalls: string[][] = [];
  /** Ids of records accepted as new, in order; a duplicate is not counted again. */
  readonly accepted: string[] = [];
  readonly forgotten: string[] = [];
  /** The clock (Date.now) at each importRecords call. */
  readonly callTimes: number[] = [];
  private failures = 0;
  private readonly refusals = new Map<string, string>();
  private gate: Promise<void> | undefined;

  /** The next `count` import calls throw as an unreachable bridge would. */
  failNext(count: number): void {
    this.failures = count;
  }

  /** Every import of this id is rejected with `code` (INVALID_RECORD, ID_CONFLICT, …). */
  refuse(id: string, code: string): void {
    this.refusals.set(id, code);
  }

  /** Import calls wait until the returned function is called. */
  hold(): () => void {
    let release!: () => void;
    this.gate = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.gate = undefined;
      release();
    };
  }

  texts(): Record<string, string> {
    return Object.fromEntries([...this.stored].map(([id, record]) => [id, record.text]));
  }

  async importRecords(records: TurnRecord[]): Promise<{ rejected: Rejection[] }> {
    this.importCalls.push(records.map((r) => r.id));
    this.callTimes.push(Date.now());
    if (this.gate) await this.gate;
    if (this.failures > 0) {
      this.failures--;
      throw new Error("the bridge is not reachable");
    }
    const rejected: Rejection[] = [];
    records.forEach((record, index) => {
      const refusal = this.refusals.get(record.id);
      const existing = this.stored.get(record.id);
      if (refusal) rejected.push({ index, code: refusal, message: `record ${record.id} refused` });
      else if (existing && existing.text !== record.text) rejected.push({ index, code: "ID_CONFLICT", message: `id "${record.id}" already holds a different memory` });
      else if (!existing) {
        this.stored.set(record.id, record);
        this.accepted.push(record.id);
      }
    });
    return { rejected };
  }

  async forget(id: string): Promise<void> {
    this.forgotten.push(id);
    this.refusals.delete(id);
    this.stored.delete(id);
  }
}

export class MemoryLog {
  readonly warnings: string[] = [];
  warn(message: string): void {
    this.warnings.push(message);
  }
}

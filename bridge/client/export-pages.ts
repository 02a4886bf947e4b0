// Every memory a bridge holds, page by page, in the import format its `export` method answers with
// (bridge/store/export-records.ts): the one loop the CLI's export, chat's session history and the
// tests read them with.
import type { SourceType } from "../store/records";

export interface ExportedRecord {
  id: string;
  text: string;
  source_type: SourceType;
  timestamp_ms: number;
  scope: string;
  session_id?: string;
  turn?: number;
  tags?: string[];
  metadata: Record<string, unknown>;
  quarantined?: string;
  embedding?: { provider: string; model: string; vector: number[] };
}

interface ExportSource {
  call<T>(method: "export", params: Record<string, unknown>): Promise<T>;
}

/** Yields the `export` pages in order, through the last; withVectors adds each record's current vector. */
export async function* exportPages(source: ExportSource, withVectors = false): AsyncGenerator<ExportedRecord[]> {
  for (let after = 0; ; ) {
    const page = await source.call<{ records: ExportedRecord[]; next: number | null }>("export", { after, with_vectors: withVectors });
    yield page.records;
    if (page.next === null) return;
    after = page.next;
  }
}

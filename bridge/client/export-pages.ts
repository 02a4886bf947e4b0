// Every memory a bridge holds, page by page, in the import format its `export` method answers with
// (bridge/store/export-records.ts): the one loop the CLI's export, chat's session history and the
// tests read them with.
import type { MemoryRecord } from "../store/records";

/** A record as toImportFormat writes it: no content hash, the quarantine as its reason, the vector if asked for. */
export type ExportedRecord = Omit<MemoryRecord, "content_hash" | "quarantine"> & {
  quarantined?: string;
  embedding?: { provider: string; model: string; vector: number[] };
};

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

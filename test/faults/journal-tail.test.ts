// Issue 15, item 7 (first part): a damaged or torn last entry is cut off so that the journal opens,
// but its bytes are kept beside the journal and status says where and why, instead of vanishing.
import fs from "node:fs";
import path from "node:path";
import { openStore, tempDir } from "../store/helpers";

function journalWithTwo(): { dataDir: string; journal: string } {
  const dataDir = tempDir("journal-tail-");
  const store = openStore(dataDir);
  store.add({ id: "a", text: "first memory", source_type: "user_message" });
  store.add({ id: "b", text: "second memory, the last line", source_type: "user_message" });
  store.close();
  return { dataDir, journal: path.join(dataDir, "journal.jsonl") };
}

const keptFiles = (dataDir: string) => fs.readdirSync(dataDir).filter((name) => /^journal\.jsonl\.tail-\d+\.bad$/.test(name));

describe("the last journal entry", () => {
  it("damaged by a bit flip is cut off, kept byte for byte beside the journal, and reported as damage", () => {
    const { dataDir, journal } = journalWithTwo();
    const bytes = fs.readFileSync(journal);
    const lastStart = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
    const flipped = Buffer.from(bytes);
    flipped[lastStart + 20] ^= 0x01;
    fs.writeFileSync(journal, flipped);
    const store = openStore(dataDir);
    try {
      expect(store.size).toBe(1);
      const kept = keptFiles(dataDir);
      expect(kept).toHaveLength(1);
      expect(fs.readFileSync(path.join(dataDir, kept[0]!)).equals(flipped.subarray(lastStart))).toBe(true);
      expect(store.status()).toMatchObject({
        journal: { torn_tail_bytes: bytes.length - lastStart, torn_tail: { kept_at: path.join(dataDir, kept[0]!), cause: "a damaged entry (checksum mismatch)" } },
      });
      expect(fs.readFileSync(journal).equals(bytes.subarray(0, lastStart))).toBe(true);
    } finally {
      store.close();
    }
  });

  it("cut short by a crash is kept too, and reported as a crash", () => {
    const { dataDir, journal } = journalWithTwo();
    const bytes = fs.readFileSync(journal);
    fs.writeFileSync(journal, bytes.subarray(0, bytes.length - 9));
    const store = openStore(dataDir);
    try {
      expect(store.size).toBe(1);
      expect(store.status()).toMatchObject({ journal: { torn_tail: { cause: "an append cut short (a crash)" } } });
      expect(keptFiles(dataDir)).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it("that is intact leaves no kept file and no torn_tail in status", () => {
    const { dataDir } = journalWithTwo();
    const store = openStore(dataDir);
    try {
      expect(store.size).toBe(2);
      expect(store.status()).toMatchObject({ journal: { torn_tail_bytes: 0 } });
      expect((store.status().journal as Record<string, unknown>).torn_tail).toBeUndefined();
      expect(keptFiles(dataDir)).toEqual([]);
    } finally {
      store.close();
    }
  });
});

// A checkpoint is only used when it matches the journal and every part is intact. Each damage below must make
// open ignore it, say why in status, and give exactly the state a full replay of the same journal gives.
import fs from "node:fs";
import path from "node:path";
import type { StoreOptions } from "../../bridge/store/memory-store";
import { checkpointStatus, copyDataDir, observe, openAt, RECORDS, writeHistory } from "./checkpoint-fixtures";
import { crc32Hex, tempDir } from "./helpers";

type Manifest = Record<string, any>;
let baseDir: string;

beforeAll(() => {
  baseDir = tempDir("ckpt-base-");
  const store = openAt(baseDir, { checkpointOnCloseBytes: Infinity });
  writeHistory(store, 0, 160);
  store.checkpoint();
  writeHistory(store, 160, 200);
  store.close();
});

const checkpointDir = (dataDir: string) => path.join(dataDir, "checkpoint");
const readManifest = (dataDir: string): Manifest => JSON.parse(fs.readFileSync(path.join(checkpointDir(dataDir), "manifest.json"), "utf8"));
const writeManifest = (dataDir: string, manifest: Manifest) => fs.writeFileSync(path.join(checkpointDir(dataDir), "manifest.json"), JSON.stringify(manifest));
const partPath = (dataDir: string, part: { file: string }) => path.join(checkpointDir(dataDir), part.file);
// The base store's 200 docs make one segment.
const parts = (m: Manifest): Record<string, { file: string; bytes: number; crc32: string }> => ({
  records: m.records[0],
  bm25: m.bm25.part,
  statements: m.statements.parts[0],
  vectors: m.vector_spaces[1].segments[0].part,
});

/** Rewrites a part and fixes its size and hash in the manifest: a checkpoint that is intact but wrong. */
function replacePart(dataDir: string, which: string, edit: (bytes: Buffer) => Buffer): void {
  const manifest = readManifest(dataDir);
  const part = parts(manifest)[which];
  const bytes = edit(fs.readFileSync(partPath(dataDir, part)));
  fs.writeFileSync(partPath(dataDir, part), bytes);
  Object.assign(part, { bytes: bytes.length, crc32: crc32Hex(bytes) });
  writeManifest(dataDir, manifest);
}

/** Damages a copy of the base directory, then checks open ignores its checkpoint for `reason` and equals a full replay. */
function expectIgnored(damage: (dataDir: string) => void, reason: string | RegExp, options: Partial<StoreOptions> = {}): void {
  const dataDir = copyDataDir(baseDir);
  damage(dataDir);
  const replayDir = copyDataDir(dataDir, { withCheckpoint: false });
  const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity, ...options });
  const replayed = openAt(replayDir, { checkpointOnCloseBytes: Infinity, ...options });
  const status = checkpointStatus(store);
  expect(status).toMatchObject({ used: false, offset: 0, entries_replayed_after: checkpointStatus(replayed).entries_replayed_after });
  expect(status.reason).toEqual(typeof reason === "string" ? reason : expect.stringMatching(reason));
  expect(observe(store)).toEqual(observe(replayed));
  store.close();
  replayed.close();
}

describe("checkpoint validation against the journal", () => {
  it("uses the undamaged base checkpoint and replays its tail", () => {
    const store = openAt(copyDataDir(baseDir), { checkpointOnCloseBytes: Infinity });
    expect(checkpointStatus(store)).toMatchObject({ used: true, offset: readManifest(baseDir).journal.offset });
    expect(checkpointStatus(store).entries_replayed_after).toBeGreaterThan(0);
    store.close();
  });

  it("ignores a checkpoint whose journal was replaced by a different, longer one", () => {
    expectIgnored((dataDir) => {
      const otherDir = tempDir("ckpt-other-");
      const other = openAt(otherDir, { checkpointOnCloseBytes: Infinity });
      other.importRecords([...RECORDS].reverse());
      other.close();
      fs.copyFileSync(path.join(otherDir, "journal.jsonl"), path.join(dataDir, "journal.jsonl"));
    }, /^the journal line ending at byte \d+ is not the one the checkpoint covers/);
  });

  it("ignores a checkpoint whose journal was cut back below the covered offset", () => {
    expectIgnored((dataDir) => {
      const { last_line_offset } = readManifest(dataDir).journal;
      fs.truncateSync(path.join(dataDir, "journal.jsonl"), last_line_offset);
    }, /^the journal is \d+ bytes, shorter than the \d+ the checkpoint covers$/);
  });

  it.each(["records", "bm25", "vectors"])("ignores a checkpoint whose %s part has a flipped byte", (which) => {
    expectIgnored((dataDir) => {
      const file = partPath(dataDir, parts(readManifest(dataDir))[which]);
      const bytes = fs.readFileSync(file);
      bytes[Math.floor(bytes.length / 2)] ^= 0x20;
      fs.writeFileSync(file, bytes);
    }, /part does not match its CRC-32 \(damaged\)$/);
  });

  it("ignores a checkpoint with a truncated or a missing part", () => {
    expectIgnored((dataDir) => {
      const part = parts(readManifest(dataDir)).vectors;
      fs.truncateSync(partPath(dataDir, part), part.bytes - 7);
    }, /^the vector part is \d+ bytes; the manifest says \d+$/);
    expectIgnored((dataDir) => fs.rmSync(partPath(dataDir, parts(readManifest(dataDir)).bm25)), /^the BM25 part \S+ is missing$/);
  });

  it("reads the BM25 snapshot on a worker thread to the same state, and reports the same damage", () => {
    const worker = { checkpoint: { snapshotWorkerMinBytes: 0 } };
    const store = openAt(copyDataDir(baseDir), { checkpointOnCloseBytes: Infinity, ...worker });
    const here = openAt(copyDataDir(baseDir), { checkpointOnCloseBytes: Infinity, checkpoint: { snapshotWorkerMinBytes: Infinity } });
    expect(checkpointStatus(store)).toMatchObject({ used: true });
    expect(observe(store)).toEqual(observe(here));
    store.close();
    here.close();
    const flip = (which: string) => (dataDir: string) => {
      const file = partPath(dataDir, parts(readManifest(dataDir))[which]);
      const bytes = fs.readFileSync(file);
      bytes[Math.floor(bytes.length / 2)] ^= 0x20;
      fs.writeFileSync(file, bytes);
    };
    expectIgnored(flip("bm25"), "the BM25 part does not match its CRC-32 (damaged)", worker);
    expectIgnored((dataDir) => fs.rmSync(partPath(dataDir, parts(readManifest(dataDir)).bm25)), /^the BM25 part \S+ is missing$/, worker);
    // The records fail while the worker reads: it is stopped, and the journal replayed.
    expectIgnored(flip("records"), "the record part does not match its CRC-32 (damaged)", worker);
    // Damage that still decodes (a letter of a text in the other case): the records are read here unhashed
    // while the worker reads, and its hash, taken after, is what refuses them.
    const recase = (dataDir: string) => {
      const file = partPath(dataDir, parts(readManifest(dataDir)).records);
      const bytes = fs.readFileSync(file);
      let at = bytes.indexOf('"text":"') + '"text":"'.length;
      while (!(bytes[at] >= 0x61 && bytes[at] <= 0x7a)) at++;
      bytes[at] ^= 0x20;
      fs.writeFileSync(file, bytes);
    };
    expectIgnored(recase, "the record part does not match its CRC-32 (damaged)", worker);
    // Rows read back from the parts: the worker reads the vector parts' heads too, writing their codes.
    const paged = { checkpoint: { snapshotWorkerMinBytes: 0, rowsInMemoryMax: 0 } };
    const inWorker = openAt(copyDataDir(baseDir), { checkpointOnCloseBytes: Infinity, ...paged });
    const onThread = openAt(copyDataDir(baseDir), { checkpointOnCloseBytes: Infinity, checkpoint: { snapshotWorkerMinBytes: Infinity, rowsInMemoryMax: 0 } });
    expect(checkpointStatus(inWorker)).toMatchObject({ used: true });
    expect(observe(inWorker)).toEqual(observe(onThread));
    inWorker.close();
    onThread.close();
    expectIgnored(
      (dataDir) => {
        const file = partPath(dataDir, parts(readManifest(dataDir)).vectors);
        const bytes = fs.readFileSync(file);
        bytes[24] ^= 0x01;
        fs.writeFileSync(file, bytes);
      },
      "the vector part's head does not match its CRC-32 (damaged)",
      paged,
    );
    expectIgnored(
      (dataDir) => {
        const rows = readManifest(dataDir).vector_spaces[1].segments[0].vectors;
        replacePart(dataDir, "vectors", (bytes) => {
          bytes[24 + 4 * rows] ^= 0xff;
          return bytes;
        });
        // The head's own hash too, so that only the binding is wrong.
        const manifest = readManifest(dataDir);
        const segment = manifest.vector_spaces[1].segments[0];
        const bytes = fs.readFileSync(partPath(dataDir, segment.part));
        segment.head.crc32 = crc32Hex(bytes.subarray(0, segment.head.bytes));
        writeManifest(dataDir, manifest);
      },
      /^the vector of doc \d+ is not bound to that doc's text$/,
      paged,
    );
    expect(() => openAt(copyDataDir(baseDir), { checkpoint: { snapshotWorkerMinBytes: -1 } })).toThrow("checkpoint.snapshotWorkerMinBytes must be a number of bytes, 0 or more (or Infinity), got -1");
  });

  it("ignores a checkpoint whose statements part is damaged or names docs it does not have", () => {
    expectIgnored((dataDir) => {
      const file = partPath(dataDir, parts(readManifest(dataDir)).statements);
      const bytes = fs.readFileSync(file);
      bytes[bytes.length - 3] ^= 0x01;
      fs.writeFileSync(file, bytes);
    }, /^the statements part does not match its CRC-32 \(damaged\)$/);
    expectIgnored(
      (dataDir) => replacePart(dataDir, "statements", (bytes) => Buffer.from(bytes.toString("utf8").replace(/\[\[(\d+),/, "[[99999,"), "utf8")),
      /^the statements part holds a malformed slot row$/,
    );
  });

  it("recomputes statements kept by another analyzer and otherwise uses the checkpoint", () => {
    const dataDir = copyDataDir(baseDir);
    writeManifest(dataDir, { ...readManifest(dataDir), statements: { ...readManifest(dataDir).statements, analyzer: "acts+slots/0 0000000000000000" } });
    const replayDir = copyDataDir(dataDir, { withCheckpoint: false });
    const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity });
    const replayed = openAt(replayDir, { checkpointOnCloseBytes: Infinity });
    expect(checkpointStatus(store)).toMatchObject({ used: true });
    expect(observe(store)).toEqual(observe(replayed));
    store.close();
    replayed.close();
  });

  it("ignores a manifest of an unknown format version, a torn manifest and one naming files outside its directory", () => {
    expectIgnored((dataDir) => writeManifest(dataDir, { ...readManifest(dataDir), version: 2 }), "checkpoint format version 2 is unknown (this build reads 4, 5, 6 and 7)");
    expectIgnored((dataDir) => {
      const file = path.join(checkpointDir(dataDir), "manifest.json");
      fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    }, /^the manifest is not JSON/);
    expectIgnored((dataDir) => {
      const manifest = readManifest(dataDir);
      manifest.records[0].file = "../journal.jsonl";
      writeManifest(dataDir, manifest);
    }, "the manifest is malformed");
    // A part's sum: exactly one of a CRC-32 (8 lowercase hex digits) and a SHA-256 (64), on a part or a vector head.
    const sum = (edit: (manifest: Manifest) => void) => (dataDir: string) => {
      const manifest = readManifest(dataDir);
      edit(manifest);
      writeManifest(dataDir, manifest);
    };
    for (const edit of [
      (m: Manifest) => (m.records[0].sha256 = "0".repeat(64)),
      (m: Manifest) => delete m.bm25.part.crc32,
      (m: Manifest) => (m.statements.parts[0].crc32 = m.statements.parts[0].crc32.toUpperCase().replace(/^[0-9]/, "A")),
      (m: Manifest) => (m.records[0].crc32 = 12345678),
      (m: Manifest) => (m.vector_spaces[1].segments[0].head.crc32 += "0"),
      (m: Manifest) => (m.vector_spaces[1].segments[0].head = { bytes: m.vector_spaces[1].segments[0].head.bytes, sha256: "f".repeat(63) }),
    ]) {
      expectIgnored(sum(edit), "the manifest is malformed");
    }
  });

  it("does not use a BM25 snapshot built by another analyzer or with other BM25 parameters", () => {
    expectIgnored(
      (dataDir) => writeManifest(dataDir, { ...readManifest(dataDir), analyzer: "zh-bigram+en-porter/0 0123456789abcdef" }),
      /^the BM25 snapshot was built by analyzer "zh-bigram\+en-porter\/0 0123456789abcdef"; this build uses "zh-bigram\+en-porter\/1 [0-9a-f]{16}"$/,
    );
    expectIgnored(() => undefined, "the BM25 snapshot has k1 1.2, b 0.75; this store uses k1 1.5, b 0.75", { bm25: { k1: 1.5 } });
  });

  it("refuses intact parts that contradict each other: a vector bound to other text, records the index does not hold", () => {
    // The first vector row's content-hash digest follows the 24-byte header and the doc numbers.
    expectIgnored((dataDir) => {
      const rows = readManifest(dataDir).vector_spaces[1].segments[0].vectors;
      replacePart(dataDir, "vectors", (bytes) => {
        bytes[24 + 4 * rows] ^= 0xff;
        return bytes;
      });
    }, /^the vector of doc \d+ is not bound to that doc's text$/);
    // The digest is compared to the record's hash byte by byte, to its last one: a hash string's, and the
    // bytes a store that reads its texts back keeps instead (content-hash-bytes.test.ts).
    for (const options of [{}, { checkpoint: { textInMemoryMax: 0 } }]) {
      expectIgnored(
        (dataDir) => {
          const rows = readManifest(dataDir).vector_spaces[1].segments[0].vectors;
          replacePart(dataDir, "vectors", (bytes) => {
            bytes[24 + 4 * rows + 31] ^= 0x01;
            return bytes;
          });
        },
        /^the vector of doc \d+ is not bound to that doc's text$/,
        options,
      );
    }
    // A record gone that has a vector is refused by the vectors' bindings (read first); one without, by the BM25 check.
    const dropRecord = (withVector: boolean) => (dataDir: string) => {
      const vectorDocs = new Set<number>();
      for (const space of readManifest(dataDir).vector_spaces) {
        const { part, vectors } = space.segments[0];
        const bytes = fs.readFileSync(partPath(dataDir, part));
        for (let i = 0; i < vectors; i++) vectorDocs.add(bytes.readInt32LE(24 + 4 * i));
      }
      replacePart(dataDir, "records", (bytes) => {
        const [first, ...rest] = bytes.toString("utf8").split("\n");
        const chunk = JSON.parse(first);
        const doc = chunk.findIndex((record: unknown, doc: number) => record !== null && vectorDocs.has(doc) === withVector);
        expect(doc).toBeGreaterThanOrEqual(0);
        chunk[doc] = null;
        return Buffer.from([JSON.stringify(chunk), ...rest].join("\n"));
      });
      const manifest = readManifest(dataDir);
      writeManifest(dataDir, { ...manifest, live: manifest.live - 1 });
    };
    expectIgnored(dropRecord(false), "the BM25 snapshot and the records disagree on which docs are live");
    expectIgnored(dropRecord(true), /^the vector of doc \d+ is not bound to that doc's text$/);
    // Ids are checked as each part is read: one twice, and a count of live records other than the manifest's.
    const editRecords = (edit: (chunk: Array<{ id: string } | null>) => void) => (dataDir: string) =>
      replacePart(dataDir, "records", (bytes) => {
        const [first, ...rest] = bytes.toString("utf8").split("\n");
        const chunk = JSON.parse(first);
        edit(chunk);
        return Buffer.from([JSON.stringify(chunk), ...rest].join("\n"));
      });
    expectIgnored(
      editRecords((chunk) => {
        const [a, b] = chunk.filter((record) => record !== null);
        b!.id = a!.id;
      }),
      /^the record part holds id "[^"]+" twice$/,
    );
    expectIgnored((dataDir) => {
      const manifest = readManifest(dataDir);
      writeManifest(dataDir, { ...manifest, live: manifest.live + 1 });
    }, /^the record part holds \d+ live records; the manifest says \d+$/);
  });

  it("replaces an ignored checkpoint with a current one when the store closes", () => {
    const dataDir = copyDataDir(baseDir);
    writeManifest(dataDir, { ...readManifest(dataDir), version: 99 });
    const store = openAt(dataDir, { checkpointOnCloseBytes: 1000 });
    expect(store.journalBytesSinceCheckpoint).toBe(store.journalEndOffset);
    const expected = observe(store);
    store.close();
    const reopened = openAt(dataDir);
    expect(checkpointStatus(reopened)).toMatchObject({ used: true, offset: fs.statSync(path.join(dataDir, "journal.jsonl")).size, entries_replayed_after: 0 });
    expect(observe(reopened)).toEqual(expected);
    reopened.close();
  });
});

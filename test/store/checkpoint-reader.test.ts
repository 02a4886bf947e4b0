// A checkpoint's BM25 snapshot read on a worker thread (issue 18, start at 1M): the index it gives must be
// the one a read on the opening thread gives, damage must be reported in the same words, and a worker that
// does not run must cost a wait, not the open.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Bm25Index } from "../../bridge/index/bm25";
import { CHECK_PIECES, decodeSnapshot, snapshotArrays, snapshotLayout } from "../../bridge/index/bm25-snapshot";
import type { PartRef } from "../../bridge/store/checkpoint-format";
import { VectorIndex } from "../../bridge/index/vector-index";
import { type PartSource, readPart, readPartStreaming } from "../../bridge/store/checkpoint-files";
import { decodeVectorPart } from "../../bridge/store/checkpoint-parts";
import { readSnapshot, startCheckpointRead } from "../../bridge/store/checkpoint-reader";
import { CHECKPOINT_READER_WORKER_SOURCE } from "../../bridge/store/checkpoint-reader-worker.generated";
import { type HashJob, PROGRESS_CHECK_NEXT, PROGRESS_DECODED, PROGRESS_HASH_NEXT, PROGRESS_HASHED, PROGRESS_SNAPSHOT, PROGRESS_VECTORS } from "../../bridge/store/checkpoint-read-job";
import { openAt, readManifest, writeHistory } from "./checkpoint-fixtures";
import { seededRandom } from "../fixtures/seeded-random";
import { crc32Hex, tempDir } from "./helpers";

const WORDS = ["记忆", "忆", "护照", "抽屉", "passport", "drawer", "constructor", "__proto__", "\ud800", "𠀀", "a-long-term"];

/** An index of 300 docs (a few removed, one term 300 times in a doc: a tf past a byte), and its snapshot as a part. */
function snapshotPart(): { dir: string; part: PartRef; index: Bm25Index } {
  const random = seededRandom(18);
  const index = new Bm25Index();
  const added: string[][] = [];
  for (let doc = 0; doc < 300; doc++) {
    const tokens = Array.from({ length: 1 + Math.floor(random() * 9) }, () => WORDS[Math.floor(WORDS.length * random() ** 2)]);
    added.push(doc === 7 ? Array<string>(300).fill("护照") : tokens);
    index.add(doc, added[doc]);
  }
  for (const doc of [3, 150, 299]) index.remove(doc, added[doc]);
  index.vacuum();
  const dir = tempDir("snapshot-read-");
  const bytes = index.serialize();
  fs.writeFileSync(path.join(dir, "bm25.bin"), bytes);
  return { dir, part: { file: "bm25.bin", bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") }, index };
}

function expectSameIndex(read: Bm25Index, original: Bm25Index): void {
  expect(Buffer.from(read.serialize())).toEqual(Buffer.from(original.serialize()));
  for (const query of [["护照"], ["记忆", "passport"], ["__proto__", "𠀀", "a-long-term"], ["\ud800"]]) expect(read.search(query, 10)).toEqual(original.search(query, 10));
}

/** The snapshot part read on a worker thread (no vector heads), the worker stopped afterwards. */
function takeInWorker(dir: string, part: PartRef): { bm25: Bm25Index; inWorker: boolean } {
  const read = startCheckpointRead(dir, part, []);
  try {
    return read.takeSnapshot();
  } finally {
    read.cancel();
  }
}

/** What `read` throws, as [class, message]. */
function thrown(read: () => unknown): [string, string] {
  try {
    read();
  } catch (error) {
    return [(error as Error).constructor.name, (error as Error).message];
  }
  throw new Error("expected the read to throw");
}

describe("the BM25 snapshot read on a worker thread", () => {
  it("gives the index a read on this thread gives, terms, tfs past a byte and removed docs included", () => {
    const { dir, part, index } = snapshotPart();
    const { bm25, inWorker } = takeInWorker(dir, part);
    expect(inWorker).toBe(true);
    expectSameIndex(bm25, index);
    expectSameIndex(readSnapshot(dir, part), index);
    // It takes adds and removes afterwards as the index it was read from does.
    for (const changed of [bm25, index]) {
      changed.add(300, ["护照", "抽屉", "new-term"]);
      expect(changed.remove(7, Array<string>(300).fill("护照"))).toBe(true);
    }
    expectSameIndex(bm25, index);
    expect(bm25.search(["new-term"], 3).map((hit) => hit.doc)).toEqual([300]);
    expect(bm25.search(["护照"], 300).map((hit) => hit.doc)).not.toContain(7);
  });

  it("fills an index made with room before the read, of the snapshot's k1 and b, its dictionary in shared memory", () => {
    const { dir, part, index } = snapshotPart();
    const read = startCheckpointRead(dir, part, [], { bm25: { k1: index.k1, b: index.b } });
    const { bm25, inWorker } = read.takeSnapshot();
    read.cancel();
    expect(inWorker).toBe(true);
    expectSameIndex(bm25, index);
    const terms = (bm25 as unknown as { termIds: { image(): { slots: Int32Array; codes: Uint32Array } } }).termIds.image();
    expect([terms.slots.buffer.constructor.name, terms.codes.buffer.constructor.name]).toEqual(["SharedArrayBuffer", "SharedArrayBuffer"]);
    // Past the room it was made with (an eighth more docs and terms than the snapshot's): it grows.
    for (const changed of [bm25, index]) for (let doc = 300; doc < 400; doc++) changed.add(doc, [`term-${doc}`, "护照"]);
    expectSameIndex(bm25, index);
    expect(bm25.search(["term-399"], 3).map((hit) => hit.doc)).toEqual([399]);
    // Made for another k1 or b, the room is not used: the index is the snapshot's all the same.
    const other = startCheckpointRead(dir, part, [], { bm25: { k1: 2, b: 0.5 } });
    const made = other.takeSnapshot().bm25;
    other.cancel();
    expect([made.k1, made.b]).toEqual([index.k1, index.b]);
    // The index given is the one filled (and, of other k1 or b, not).
    const bytes = index.serialize();
    const room = new Bm25Index({ k1: index.k1, b: index.b }).reserveForSnapshot(400, 400);
    expect(Bm25Index.fromSnapshot(decodeSnapshot(bytes), undefined, room)).toBe(room);
    expectSameIndex(room, index);
    const otherRoom = new Bm25Index({ k1: 2, b: 0.5 }).reserveForSnapshot(400, 400);
    expect(Bm25Index.fromSnapshot(decodeSnapshot(bytes), undefined, otherRoom)).not.toBe(otherRoom);
  });

  it("shares the postings' check with the worker: pieces it checked count, what it found corrupt is reported as here, and pieces it took but never checked are checked here", () => {
    const { dir, part, index } = snapshotPart();
    const bytes = fs.readFileSync(path.join(dir, part.file));
    // This thread comes late: the worker hashes its parts (none) only after the pieces left, so once it has
    // posted that, it has checked them all.
    const late = (at: PartRef) => {
      const read = startCheckpointRead(dir, at, [], { hashed: [] });
      try {
        read.takeHashed();
        return read.takeSnapshot();
      } finally {
        read.cancel();
      }
    };
    const { bm25, inWorker } = late(part);
    expect(inWorker).toBe(true);
    expectSameIndex(bm25, index);
    // A posting (the middle one) names doc 3, which was removed.
    const layout = snapshotLayout(bytes);
    const middle = layout.postings >> 1;
    const corrupt = Buffer.from(bytes);
    corrupt.writeInt32LE(3, 48 + 4 * layout.termCount + 4 * (layout.termCount + 1) + 4 * middle);
    fs.writeFileSync(path.join(dir, "corrupt.bin"), corrupt);
    const corruptPart = { file: "corrupt.bin", bytes: corrupt.length, crc32: crc32Hex(corrupt) };
    const here = thrown(() => readSnapshot(dir, corruptPart));
    expect(here).toEqual(["Error", `Bm25Index.deserialize: corrupt snapshot: posting ${middle} names doc 3, which is not live`]);
    expect(thrown(() => late(corruptPart))).toEqual(here);
    // A worker that takes every piece and stops before checking one: they are checked here once it is seen
    // to have stopped.
    const stops = `"use strict";
      const { workerData: given } = require("node:worker_threads");
      const add = Atomics.add;
      Atomics.add = (array, slot, value) => {
        if (array === given.progress && slot === ${PROGRESS_CHECK_NEXT}) {
          while (add(array, slot, 1) < ${CHECK_PIECES});
          require("node:fs").writeFileSync(require("node:path").join(given.dir, "claimed"), "");
          for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
        }
        return add(array, slot, value);
      };
      ${CHECKPOINT_READER_WORKER_SOURCE}`;
    const read = startCheckpointRead(dir, part, [], { workerSource: stops, stallMs: 200 });
    try {
      const sleep = new Int32Array(new SharedArrayBuffer(4));
      for (let waited = 0; !fs.existsSync(path.join(dir, "claimed")) && waited < 30_000; waited += 10) Atomics.wait(sleep, 0, 0, 10);
      const taken = read.takeSnapshot();
      expect(taken.inWorker).toBe(true);
      expectSameIndex(taken.bm25, index);
    } finally {
      read.cancel();
    }
  });

  it("reports a damaged, missing or corrupt part in the words a read on this thread uses", () => {
    const { dir, part } = snapshotPart();
    const bytes = fs.readFileSync(path.join(dir, part.file));
    const cases: Array<[string, () => void]> = [
      ["flipped", () => fs.writeFileSync(path.join(dir, part.file), Buffer.from(bytes).fill(0x41, bytes.length >> 1, (bytes.length >> 1) + 1))],
      ["missing", () => fs.rmSync(path.join(dir, part.file))],
      ["cut short", () => fs.writeFileSync(path.join(dir, part.file), bytes.subarray(0, bytes.length - 5))],
    ];
    const seen: Array<[string, string]> = [];
    for (const [, damage] of cases) {
      damage();
      const here = thrown(() => readSnapshot(dir, part));
      expect(thrown(() => takeInWorker(dir, part))).toEqual(here);
      seen.push(here);
      fs.writeFileSync(path.join(dir, part.file), bytes);
    }
    expect(seen).toEqual([
      ["CheckpointRejected", "the BM25 part does not match its SHA-256 (damaged)"],
      ["CheckpointRejected", "the BM25 part bm25.bin is missing"],
      ["CheckpointRejected", `the BM25 part is ${bytes.length - 5} bytes; the manifest says ${bytes.length}`],
    ]);
    // Intact bytes (its hash in the manifest) that do not make an index: the decoder's error, not a rejection.
    const corrupt = Buffer.from(bytes);
    // Doc 0's length: the doc lengths come last but for the term text.
    const docLengthsAt = bytes.length - 2 * snapshotLayout(bytes).termUnits - 4 * snapshotLayout(bytes).docCount;
    corrupt.writeInt32LE(corrupt.readInt32LE(docLengthsAt) + 1, docLengthsAt);
    fs.writeFileSync(path.join(dir, part.file), corrupt);
    const corruptPart = { file: part.file, bytes: part.bytes, sha256: createHash("sha256").update(corrupt).digest("hex") };
    const here = thrown(() => readSnapshot(dir, corruptPart));
    expect(here).toEqual(["Error", "Bm25Index.deserialize: corrupt snapshot: doc 0 length " + (bytes.readInt32LE(docLengthsAt) + 1) + " disagrees with its postings"]);
    expect(thrown(() => takeInWorker(dir, corruptPart))).toEqual(here);
  });

  it("reads a part unhashed when asked (hashing it whole when it does not decode), and on the worker reports damage as damage", () => {
    const { dir, part: shaPart, index } = snapshotPart();
    const bytes = fs.readFileSync(path.join(dir, shaPart.file));
    // The last term's last letter another (one no term has): it still decodes.
    const stillDecodes = Buffer.from(bytes);
    stillDecodes.writeUInt16LE(0xabcd, bytes.length - 2);
    // The last posting's tf 0 (the doc lengths and term text come after the postings): the decoder stops there.
    const breaksDecode = Buffer.from(bytes);
    breaksDecode.writeInt32LE(0, bytes.length - 2 * snapshotLayout(bytes).termUnits - 4 * snapshotLayout(bytes).docCount - 4);
    const decode = (source: PartSource) => decodeSnapshot(source);
    // Of format 7 (a CRC-32) and of those before (a SHA-256).
    for (const part of [{ file: shaPart.file, bytes: bytes.length, crc32: crc32Hex(bytes) }, shaPart] as PartRef[]) {
      const damage = ["CheckpointRejected", `the BM25 part does not match its ${part.crc32 ? "CRC-32" : "SHA-256"} (damaged)`];
      // Unhashed, what decodes is given as it is; what does not is hashed, and damage reported as such.
      fs.writeFileSync(path.join(dir, part.file), stillDecodes);
      expect(readPartStreaming(dir, part, "BM25", decode, { unhashed: true }).image.termText.at(-1)).toBe(0xab);
      expect(thrown(() => readPartStreaming(dir, part, "BM25", decode))).toEqual(damage);
      fs.writeFileSync(path.join(dir, part.file), breaksDecode);
      expect(thrown(() => readPartStreaming(dir, part, "BM25", decode, { unhashed: true }))).toEqual(damage);
      const intactButWrong = { file: part.file, bytes: part.bytes, crc32: crc32Hex(breaksDecode) };
      expect(thrown(() => readPartStreaming(dir, intactButWrong, "BM25", decode, { unhashed: true }))).toEqual(["Error", expect.stringMatching(/has term frequency 0$/)]);
      // On the worker, with the part among those to hash: the same index when whole, damage either way (found by
      // whichever thread hashes it, in either take).
      const takeBoth = (): Bm25Index => {
        const read = startCheckpointRead(dir, part, [], { hashed: [{ part, name: "BM25" }] });
        try {
          const { bm25, inWorker } = read.takeSnapshot();
          read.takeHashed();
          expect(inWorker).toBe(true);
          return bm25;
        } finally {
          read.cancel();
        }
      };
      for (const damaged of [stillDecodes, breaksDecode]) {
        fs.writeFileSync(path.join(dir, part.file), damaged);
        expect(thrown(takeBoth)).toEqual(damage);
      }
      fs.writeFileSync(path.join(dir, part.file), bytes);
      expectSameIndex(takeBoth(), index);
    }
  });

  it("reads the part on this thread when the worker stops or never starts, without ending the process", () => {
    const { dir, part, index } = snapshotPart();
    const damaged = { file: part.file, bytes: part.bytes, sha256: "0".repeat(64) };
    for (const workerSource of ["throw new Error('no worker today')", "process.exit(3)", "setInterval(() => undefined, 1000)"]) {
      const read = startCheckpointRead(dir, part, [], { hashed: [{ part, name: "BM25" }], workerSource, stallMs: 200 });
      expect(read.takeVectors()).toBeUndefined();
      const { bm25, inWorker } = read.takeSnapshot();
      // The parts to hash, hashed here: whole, then one that is not.
      expect(() => read.takeHashed()).not.toThrow();
      read.cancel();
      expect(inWorker).toBe(false);
      expectSameIndex(bm25, index);
      const again = startCheckpointRead(dir, part, [], { hashed: [{ part, name: "BM25" }, { part: damaged, name: "record" }], workerSource, stallMs: 200 });
      expect(thrown(() => again.takeHashed())).toEqual(["CheckpointRejected", "the record part does not match its SHA-256 (damaged)"]);
      again.cancel();
    }
  });

  it("gives the parts the worker found whole by their SHA-256 the CRC-32 it sends back", () => {
    const { dir, part } = snapshotPart();
    // A worker that takes every part to hash before this thread can, and says it found part 1 (a head) and
    // part 2 whole by their SHA-256, with these CRC-32s.
    const workerSource = `
      const { workerData: job } = require("node:worker_threads");
      const post = (port, slot, message) => { port.postMessage(message); Atomics.store(job.progress, slot, 1); Atomics.notify(job.progress, slot); };
      while (Atomics.add(job.progress, ${PROGRESS_HASH_NEXT}, 1) < job.hashed.length);
      require("node:fs").writeFileSync(require("node:path").join(job.dir, "taken"), "");
      post(job.vectorsPort, ${PROGRESS_VECTORS}, { heads: [] });
      post(job.snapshotPort, ${PROGRESS_DECODED}, { error: "no snapshot here", rejected: true });
      post(job.snapshotPort, ${PROGRESS_SNAPSHOT}, { error: "no snapshot here", rejected: true });
      post(job.hashedPort, ${PROGRESS_HASHED}, { hashed: job.hashed.length, upgraded: [[1, "0badc0de"], [2, "00c0ffee"]] });`;
    const sha = "5".repeat(64);
    const hashed = [
      { part: { file: "a.jsonl", bytes: 1, sha256: sha }, name: "record" },
      { part: { file: "v.bin", bytes: 9, crc32: "12345678" }, head: { bytes: 4, sha256: sha }, name: "vector" },
      { part: { file: "b.jsonl", bytes: 2, sha256: sha }, name: "record" },
    ] as HashJob[];
    const read = startCheckpointRead(dir, part, [], { hashed, workerSource });
    try {
      // Once the worker has taken them all (a take here would hash the next one left itself).
      const sleep = new Int32Array(new SharedArrayBuffer(4));
      for (let waited = 0; !fs.existsSync(path.join(dir, "taken")) && waited < 30_000; waited += 10) Atomics.wait(sleep, 0, 0, 10);
      read.takeHashed();
    } finally {
      read.cancel();
    }
    expect(hashed.map(({ part, head }) => ({ part, head }))).toEqual([
      { part: { file: "a.jsonl", bytes: 1, sha256: sha }, head: undefined },
      { part: { file: "v.bin", bytes: 9, crc32: "12345678" }, head: { bytes: 4, crc32: "0badc0de" } },
      { part: { file: "b.jsonl", bytes: 2, crc32: "00c0ffee" }, head: undefined },
    ]);
  });

  it("finds the parts it is given to hash whole, and reports the first damaged or missing one as reading it here would", () => {
    const { dir, part } = snapshotPart();
    // Parts of format 7 (a CRC-32) and of those before (a SHA-256), as a checkpoint that kept older parts names them.
    const contents = (name: string) => Buffer.from(`records of ${name}\n`.repeat(1000));
    const shaPart = (name: string): PartRef => ({ file: `${name}.jsonl`, bytes: contents(name).length, sha256: createHash("sha256").update(contents(name)).digest("hex") });
    const parts = ["a", "b", "c"].map((name): PartRef => {
      fs.writeFileSync(path.join(dir, `${name}.jsonl`), contents(name));
      return name === "c" ? shaPart(name) : { file: `${name}.jsonl`, bytes: contents(name).length, crc32: crc32Hex(contents(name)) };
    });
    const hashedBy = (hashed: PartRef[]) => {
      const read = startCheckpointRead(dir, part, [], { hashed: hashed.map((p) => ({ part: p, name: "record" })) });
      try {
        expect(read.takeSnapshot().inWorker).toBe(true);
        read.takeHashed();
        return true;
      } finally {
        read.cancel();
      }
    };
    expect(hashedBy(parts)).toBe(true);
    // The part found whole by its SHA-256 is named by its CRC-32 from then on (by whichever thread hashed it).
    expect(parts[2]).toEqual({ file: "c.jsonl", bytes: contents("c").length, crc32: crc32Hex(contents("c")) });
    expect(hashedBy([])).toBe(true);
    const damaged = fs.readFileSync(path.join(dir, "b.jsonl"));
    damaged[500] ^= 0x20;
    fs.writeFileSync(path.join(dir, "b.jsonl"), damaged);
    const here = thrown(() => parts.forEach((p) => readPart(dir, p, "record")));
    expect(here).toEqual(["CheckpointRejected", "the record part does not match its CRC-32 (damaged)"]);
    expect(thrown(() => hashedBy(parts))).toEqual(here);
    fs.writeFileSync(path.join(dir, "c.jsonl"), damaged);
    expect(thrown(() => hashedBy([parts[0], parts[2]]))).toEqual(["CheckpointRejected", "the record part does not match its CRC-32 (damaged)"]);
    const unverified = shaPart("c");
    expect(thrown(() => hashedBy([parts[0], unverified]))).toEqual(["CheckpointRejected", "the record part does not match its SHA-256 (damaged)"]);
    // A damaged one keeps its SHA-256.
    expect(unverified).toEqual(shaPart("c"));
    fs.rmSync(path.join(dir, "b.jsonl"));
    expect(thrown(() => hashedBy(parts))).toEqual(["CheckpointRejected", "the record part b.jsonl is missing"]);
  });

  it("writes the vector parts' codes into the index's memory, and gives the rest of their heads", () => {
    const dataDir = tempDir("heads-read-");
    const store = openAt(dataDir, { checkpointOnCloseBytes: Infinity, checkpoint: { segmentDocs: 64 } });
    writeHistory(store, 0, 200);
    store.checkpoint();
    store.close();
    const dir = path.join(dataDir, "checkpoint");
    const manifest = readManifest(dataDir);
    const space = manifest.vector_spaces[1];
    const segments = (space.segments as Array<{ part: PartRef; head: { bytes: number; crc32: string }; vectors: number } | null>).flatMap((segment, s) => (segment ? [{ ...segment, s }] : []));
    expect(segments.length).toBeGreaterThan(1);
    const inWorker = new VectorIndex(space.dim);
    inWorker.reserveDocs(manifest.docs);
    const parts = segments.map(({ s, part, head, vectors }) => ({ segment: s, part, head, vectors, from: 64 * s, count: 64 }));
    const read = startCheckpointRead(dir, manifest.bm25.part, [{ dim: space.dim, target: inWorker.codesTarget(), parts }]);
    const heads = read.takeVectors();
    expect(read.takeSnapshot().inWorker).toBe(true);
    read.cancel();
    expect([...heads![0].keys()]).toEqual(segments.map(({ s }) => s));
    // Shared, not transferred: a transferred buffer counts as new memory in this thread's heap (and makes V8
    // collect it: the records of 1M at an open), a shared one's clone does not.
    const buffers = [...heads![0].values()].flatMap(({ docs, digests, crcs, scales, errors }) => [docs, digests, crcs, scales, errors].map((array) => array!.buffer.constructor.name));
    expect(new Set(buffers)).toEqual(new Set(["SharedArrayBuffer"]));
    const onThread = new VectorIndex(space.dim);
    const noRows = { read: () => undefined, close: () => undefined };
    for (const { s, part, vectors } of segments) {
      const decoded = decodeVectorPart(readPart(dir, part, "vector"), space.dim, vectors);
      const head = heads![0].get(s)!;
      expect({ ...head, digests: Buffer.from(head.digests) }).toEqual({ docs: decoded.docs, digests: decoded.digests, crcs: decoded.crcs, scales: decoded.codes!.scales, errors: decoded.codes!.errors, rowsAt: decoded.rowsAt });
      inWorker.appendCodedInPlace(head.docs, head, noRows);
      onThread.appendCoded(decoded.docs, decoded.codes!, noRows);
    }
    const docs = Int32Array.from(segments.flatMap(({ s }) => [...heads![0].get(s)!.docs]));
    expect(docs.length).toBe(space.vectors);
    expect(inWorker.readCodes(docs)).toEqual(onThread.readCodes(docs));
    // The heads are read unhashed, each hashed as a part of `hashed` (by this thread while it waits, or by the
    // worker after the snapshot): one that does not match its hash is reported in the words this thread uses.
    const damaged = [{ ...parts[1], head: { bytes: parts[1].head.bytes, crc32: (parseInt(parts[1].head.crc32, 16) ^ 1).toString(16).padStart(8, "0") } }];
    const reserved = () => {
      const index = new VectorIndex(space.dim);
      index.reserveDocs(manifest.docs);
      return index.codesTarget();
    };
    const again = startCheckpointRead(dir, manifest.bm25.part, [{ dim: space.dim, target: reserved(), parts: damaged }], {
      hashed: damaged.map(({ part, head }) => ({ part, head, name: "vector" })),
    });
    expect(
      thrown(() => {
        again.takeVectors();
        again.takeHashed();
      }),
    ).toEqual(["CheckpointRejected", "the vector part's head does not match its CRC-32 (damaged)"]);
    again.cancel();
    // Without `hashed`, nothing hashes the heads: they are decoded as they are.
    const unchecked = startCheckpointRead(dir, manifest.bm25.part, [{ dim: space.dim, target: reserved(), parts: damaged }]);
    expect([...unchecked.takeVectors()![0].keys()]).toEqual([parts[1].segment]);
    unchecked.cancel();
  });

  it("decodes into the arrays it is given, and refuses arrays of other sizes", () => {
    const { index } = snapshotPart();
    const bytes = index.serialize();
    const into = snapshotArrays(snapshotLayout(bytes), (size) => new SharedArrayBuffer(size));
    const { image, bounds } = decodeSnapshot(bytes, into);
    expect([image.docs, image.tfs, image.offsets, bounds.maxTf, bounds.minLength]).toEqual([into.docs, into.tfs, into.offsets, into.maxTf, into.minLength]);
    expect(image.docs).toBe(into.docs);
    expect(bounds.minLength).toBe(into.minLength);
    expectSameIndex(Bm25Index.fromSnapshot({ image, bounds }), index);
    const short = { ...snapshotArrays(snapshotLayout(bytes)), docs: new Int32Array(image.docs.length - 1) };
    expect(() => decodeSnapshot(bytes, short)).toThrow(`Bm25Index.deserialize: the arrays given hold ${image.docs.length - 1} docs; this snapshot has ${image.docs.length}`);
  });
});

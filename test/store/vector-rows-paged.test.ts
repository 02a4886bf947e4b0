// Vector rows read from the checkpoint (issue 18, item 3): once a checkpoint holds a vector's f32 row, the
// index reads it from that part when a search re-scores it instead of keeping it in memory. Answers must
// not change, the memory must go, and no part file may stay open after the index lets go of it (a
// replaced checkpoint's parts, a compaction, close).
import fs from "node:fs";
import path from "node:path";
import { type Manifest, manifestParts } from "../../bridge/store/checkpoint-format";
import type { MemoryStore, StoreOptions } from "../../bridge/store/memory-store";
import { checkpointStatus, copyDataDir, linux, main, observe, openAt, openFilesUnder, readManifest, RECORDS, touchEarlier, writeHistory } from "./checkpoint-fixtures";
import { tempDir } from "./helpers";

const SEGMENT = 16;
const options = (pageRows: boolean): Partial<StoreOptions> => ({ checkpointOnCloseBytes: Infinity, checkpoint: { segmentDocs: SEGMENT, rowsInMemoryMax: pageRows ? 0 : Infinity } });
const footprints = (store: MemoryStore) => store.vectors.list().map((space) => ({ model: space.model, ...space.index.rowFootprint() }));
const vectorPartsOf = (manifest: Manifest, model: string) =>
  manifest.vector_spaces.find((space) => space.model === model)!.segments.filter((segment) => segment !== null).map((segment) => segment!.part.file);


describe("vector rows read from the checkpoint", () => {
  it("a store opened from its checkpoint keeps no rows in memory and answers as one that keeps them all", () => {
    const dataDir = tempDir("rows-paged-");
    const writer = openAt(dataDir, options(true));
    writeHistory(writer, 0, 200);
    writer.checkpoint();
    writer.close();
    const manifest = readManifest(dataDir);

    const paged = openAt(copyDataDir(dataDir), options(true));
    const inMemory = openAt(copyDataDir(dataDir), options(false));
    try {
      expect(observe(paged)).toEqual(observe(inMemory));
      // One open file per vector part, nothing in memory; the store told to keep rows keeps them all.
      expect(footprints(paged)).toEqual(paged.vectors.list().map((space) => ({ model: space.model, memoryBytes: 0, files: vectorPartsOf(manifest, space.model).length })));
      expect(footprints(inMemory).every((space) => space.memoryBytes > 0 && space.files === 0)).toBe(true);

      // New rows live in memory until a checkpoint holds them; then they are read from its new parts.
      for (const store of [paged, inMemory]) {
        store.importRecords(RECORDS.slice(200, 230));
        touchEarlier(store, 0, 200);
      }
      expect(observe(paged)).toEqual(observe(inMemory));
      expect(footprints(paged).find((space) => space.model === "m8")!.memoryBytes).toBeGreaterThan(0);
      expect(paged.checkpoint()).toHaveProperty("parts_written");
      inMemory.checkpoint();
      expect(observe(paged)).toEqual(observe(inMemory));
      const after = readManifest(paged.dataDir);
      expect(footprints(paged)).toEqual(paged.vectors.list().map((space) => ({ model: space.model, memoryBytes: 0, files: vectorPartsOf(after, space.model).length })));
    } finally {
      paged.close();
      inMemory.close();
    }
  });

  linux("holds open exactly the vector parts the newest checkpoint names, and nothing after a compaction or close", () => {
    const dataDir = tempDir("rows-paged-fd-");
    const store = openAt(dataDir, options(true));
    const reference = openAt(tempDir("rows-paged-fd-ref-"), options(false));
    const openParts = () => openFilesUnder(dataDir).filter((file) => file.startsWith("checkpoint"));
    const vectorParts = () => {
      if (!fs.existsSync(path.join(dataDir, "checkpoint", "manifest.json"))) return [];
      return manifestParts(readManifest(dataDir)).map((part) => path.join("checkpoint", part.file)).filter((file) => file.includes(".vectors-")).sort();
    };
    try {
      for (const s of [store, reference]) {
        writeHistory(s, 0, 120);
        s.checkpoint();
      }
      expect(vectorParts().length).toBeGreaterThan(4);
      expect(openParts()).toEqual(vectorParts());

      // An incremental checkpoint rewrites some segments: the index moves to their new parts and closes
      // the old ones before they are removed (none is held open deleted).
      for (const s of [store, reference]) {
        s.importRecords(RECORDS.slice(120, 150));
        touchEarlier(s, 0, 120);
        s.checkpoint();
      }
      expect(openParts()).toEqual(vectorParts());
      expect(observe(store)).toEqual(observe(reference));

      // A compaction removes the checkpoint; its parts are let go at the switch, and the checkpoint it takes
      // after is read from then on.
      for (const s of [store, reference]) s.compact();
      expect(openParts()).toEqual(vectorParts());
      expect(openParts().every((file) => !file.endsWith("(deleted)"))).toBe(true);
      expect(observe(store)).toEqual(observe(reference));
    } finally {
      store.close();
      reference.close();
    }
    expect(openFilesUnder(dataDir)).toEqual([]);
  });

  it("a checkpoint in steps reads the rows of docs forgotten meanwhile, and the reopened store equals a full replay", () => {
    const dataDir = tempDir("rows-paged-steps-");
    const paged = openAt(dataDir, options(true));
    const reference = openAt(tempDir("rows-paged-ref-"), options(false));
    try {
      for (const store of [paged, reference]) {
        writeHistory(store, 0, 150);
        store.checkpoint();
        store.importRecords(RECORDS.slice(150, 200));
      }
      // Step the paged store's checkpoint one step at a time; between steps, forget docs whose rows it has
      // still to write, on both stores: segment 9 (docs 144 to 159) has rows in a part and in memory.
      let outcome = paged.checkpointInSteps(0);
      const victims = RECORDS.slice(144, 200).map((r) => r.id as string).filter((id, i) => i % 3 === 0 && paged.get(id));
      expect(victims.length).toBeGreaterThan(10);
      for (let step = 0; outcome === undefined; step++) {
        const victim = victims[step];
        if (victim) for (const store of [paged, reference]) store.forget(victim);
        expect(observe(paged)).toEqual(observe(reference));
        outcome = paged.checkpointInSteps(0);
      }
      expect(outcome).toHaveProperty("parts_written");
      expect(observe(paged)).toEqual(observe(reference));
    } finally {
      paged.close();
      reference.close();
    }
    const reopened = openAt(copyDataDir(dataDir), options(true));
    const replayed = openAt(copyDataDir(dataDir, { withCheckpoint: false }), options(false));
    try {
      expect(observe(reopened)).toEqual(observe(replayed));
    } finally {
      reopened.close();
      replayed.close();
    }
  });

  it("a vector replaced after a checkpoint's commit, while its rows move to the new parts a part a step, keeps its new row", () => {
    const dataDir = tempDir("rows-paged-commit-");
    const paged = openAt(dataDir, options(true));
    const reference = openAt(tempDir("rows-paged-commit-ref-"), options(false));
    const manifestOffset = () => readManifest(dataDir).journal.offset;
    const vectorOf = (store: MemoryStore, id: string) => Array.from(store.currentWithVectors(id)!.embeddings.at(-1)!.vector);
    try {
      for (const store of [paged, reference]) {
        writeHistory(store, 0, 150);
        store.checkpoint();
        // Rows in memory (docs 150 on) beside rows read back from the first checkpoint's parts; every
        // segment changes, so the next checkpoint rewrites each one's vector part.
        store.importRecords(RECORDS.slice(150, 200));
        touchEarlier(store, 0, 150);
        for (let i = 1; i < 150; i += 16) if (store.get(`m-${i}`)) store.forget(`m-${i}`);
      }
      // One with its row in memory, one read from the first checkpoint's part: both parts are rewritten.
      const withRow = (from: number) => RECORDS.slice(from).find((r) => paged.currentWithVectors(r.id as string)?.embeddings.at(-1)?.model === "m8")!.id as string;
      const replaced = [withRow(150), withRow(40)];
      const before = manifestOffset();
      let outcome = paged.checkpointInSteps(0);
      let stepsAfterCommit = 0;
      for (; outcome === undefined; outcome = paged.checkpointInSteps(0)) {
        if (manifestOffset() === before) continue;
        // Committed: the parts hold the old vectors. Replace them on both stores between the steps that move
        // rows to those parts (the first such step has not run yet).
        if (stepsAfterCommit++ === 0) {
          for (const [k, id] of replaced.entries()) {
            const record = paged.get(id)!;
            const vector = Float32Array.from({ length: 8 }, (_, j) => (j === k ? 1 : 0.25));
            for (const store of [paged, reference]) store.attachVectors([{ id, contentHash: record.content_hash, embedding: { ...main([]), vector } }]);
          }
        }
      }
      expect(outcome).toHaveProperty("parts_written");
      expect(stepsAfterCommit).toBeGreaterThan(paged.vectors.list().length);
      for (const id of replaced) expect(vectorOf(paged, id)).toEqual(vectorOf(reference, id));
      expect(observe(paged)).toEqual(observe(reference));
      // Once a vector was replaced, only rows read back from a file moved to the new parts (a row in memory
      // might be newer than its part's): the parts of segments below doc 150 are read, the rest stay in
      // memory until the next checkpoint.
      const m8 = paged.vectors.list().find((space) => space.model === "m8")!.index;
      const segments = readManifest(dataDir).vector_spaces.find((space) => space.model === "m8")!.segments;
      expect(m8.rowFootprint().memoryBytes).toBeGreaterThan(0);
      expect(m8.rowFootprint().files).toBe(segments.filter((segment, s) => segment !== null && s * SEGMENT < 150).length);
      expect(paged.checkpoint()).toHaveProperty("parts_written");
      expect(m8.rowFootprint()).toEqual({ memoryBytes: 0, files: vectorPartsOf(readManifest(dataDir), "m8").length });
      expect(observe(paged)).toEqual(observe(reference));
    } finally {
      paged.close();
      reference.close();
    }
  });

  it("keeps the rows of a space at or under rowsInMemoryMax in memory, and reads a larger one's back; a space that shrinks under it stays read back", () => {
    const dataDir = tempDir("rows-paged-limit-");
    const limit = (max: number): Partial<StoreOptions> => ({ checkpointOnCloseBytes: Infinity, checkpoint: { segmentDocs: SEGMENT, rowsInMemoryMax: max } });
    const writer = openAt(dataDir, limit(Infinity));
    writeHistory(writer, 0, 200);
    writer.checkpoint();
    writer.close();
    const sizesOf = (store: MemoryStore): Record<string, number> => Object.fromEntries(store.vectors.list().map((space) => [space.model, space.index.size]));
    const probe = openAt(copyDataDir(dataDir), limit(Infinity));
    const sizes = sizesOf(probe);
    probe.close();
    expect(sizes.m8).toBeGreaterThan(sizes.m3);
    // The limit between the two spaces: the small one keeps its rows, the large one reads them back.
    const store = openAt(copyDataDir(dataDir), limit(sizes.m3));
    try {
      const byModel = () => Object.fromEntries(footprints(store).map((space) => [space.model, space.files > 0 && space.memoryBytes === 0]));
      expect(byModel()).toEqual({ m8: true, m3: false });
      // The large space shrinks to the limit: its next checkpoint still reads its rows back.
      for (const id of RECORDS.map((r) => r.id as string)) if (sizesOf(store).m8 > sizes.m3 && store.get(id)) store.forget(id);
      store.checkpoint();
      expect(sizesOf(store).m8).toBeLessThanOrEqual(sizes.m3);
      expect(byModel()).toEqual({ m8: true, m3: false });
      // Read from the new parts, not from the ones the checkpoint replaced (removed: on Linux still open).
      expect(footprints(store).find((space) => space.model === "m8")!.files).toBe(vectorPartsOf(readManifest(store.dataDir), "m8").length);
      if (process.platform === "linux") expect(openFilesUnder(store.dataDir).filter((file) => file.endsWith("(deleted)"))).toEqual([]);
    } finally {
      store.close();
    }
    expect(() => openAt(copyDataDir(dataDir), limit(-1))).toThrow("checkpoint.rowsInMemoryMax must be a number of vectors, 0 or more (or Infinity), got -1");
  });

  linux("an open that refuses the checkpoint half-way closes the parts it had opened", () => {
    const dataDir = tempDir("rows-paged-refused-");
    const writer = openAt(dataDir, options(true));
    writeHistory(writer, 0, 120);
    writer.checkpoint();
    writer.close();
    // The head (docs, bindings, codes) of the main space's last vector part damaged: the parts before it were
    // opened to read rows from. An open reads only the heads, so that is where damage refuses a checkpoint.
    const manifest = readManifest(dataDir);
    const parts = vectorPartsOf(manifest, "m8");
    expect(parts.length).toBeGreaterThan(3);
    const last = path.join(dataDir, "checkpoint", parts[parts.length - 1]);
    const bytes = fs.readFileSync(last);
    bytes[30] ^= 0xff;
    fs.writeFileSync(last, bytes);
    const store = openAt(dataDir, options(true));
    try {
      expect(checkpointStatus(store)).toMatchObject({ used: false, reason: "the vector part's head does not match its CRC-32 (damaged)" });
      expect(openFilesUnder(dataDir).filter((file) => file.startsWith("checkpoint"))).toEqual([]);
    } finally {
      store.close();
    }
  });

  describe("a row damaged in its part (read back only when a search re-scores it)", () => {
    let dataDir: string;
    let doc: number;
    let query: { provider: string; model: string; vector: Float32Array };
    let others: Array<{ id: string; score: number; quarantined: boolean }>;
    let expected: typeof others;
    let vectors: number;

    beforeAll(() => {
      dataDir = tempDir("rows-paged-damaged-");
      const writer = openAt(dataDir, options(true));
      writeHistory(writer, 0, 120);
      writer.checkpoint();
      writer.close();
      // One bit of the first row of the main space's second part: its head (checked at open) is intact.
      const space = readManifest(dataDir).vector_spaces.find((entry) => entry.model === "m8")!;
      const segment = space.segments.filter((entry) => entry !== null)[1]!;
      const file = path.join(dataDir, "checkpoint", segment.part.file);
      const bytes = fs.readFileSync(file);
      doc = bytes.readInt32LE(24);
      bytes[segment.head!.bytes + 5] ^= 0x40;
      fs.writeFileSync(file, bytes);
      // The journal still holds the vector: a store that keeps its rows reads the whole part, refuses the
      // checkpoint for its CRC-32 and replays, so it has every vector as written.
      const reference = openAt(copyDataDir(dataDir), options(false));
      try {
        expect(checkpointStatus(reference).used).toBe(false);
        const vector = reference.vectors.find({ provider: "test", model: "m8", dim: 8, modelDigest: null, configHash: null })!.index.vectorOf(doc)!;
        query = { provider: "test", model: "m8", vector };
        const withIt = reference.searchVector(query, 12);
        // The damaged doc's own vector is its nearest neighbour.
        expect(withIt[0].id).toBe(`m-${doc}`);
        expect(withIt[0].score).toBeCloseTo(1, 6);
        others = withIt.slice(1);
        expected = others.slice(0, 10);
        vectors = spaceStatus(reference).vectors;
      } finally {
        reference.close();
      }
    });

    const spaceStatus = (store: MemoryStore) => (store.status() as { vectors: Array<{ model: string; vectors: number; damaged_rows?: number }> }).vectors.find((space) => space.model === "m8")!;

    it("opens from the checkpoint, drops that one vector when a search reads its row, says so, and keeps the memory", () => {
      const store = openAt(copyDataDir(dataDir), options(true));
      try {
        expect(checkpointStatus(store)).toMatchObject({ used: true });
        expect(spaceStatus(store)).toMatchObject({ vectors });
        expect(spaceStatus(store)).not.toHaveProperty("damaged_rows");
        // Exact answers among the other vectors, the same twice: the doc is dropped at the first read.
        expect(store.searchVector(query, 10)).toEqual(expected);
        expect(store.searchVector(query, 10)).toEqual(expected);
        expect(spaceStatus(store)).toEqual(expect.objectContaining({ vectors: vectors - 1, damaged_rows: 1 }));
        expect(store.get(`m-${doc}`)).toBeDefined();
        expect(store.vectors.bindingsOf(doc)).toEqual([]);
        // The next checkpoint writes that segment without the vector; a store opened from it agrees.
        expect(store.checkpoint()).toHaveProperty("parts_written");
        const reopened = openAt(copyDataDir(store.dataDir), options(true));
        try {
          expect(checkpointStatus(reopened)).toMatchObject({ used: true });
          expect(spaceStatus(reopened)).toEqual(expect.objectContaining({ vectors: vectors - 1 }));
          expect(spaceStatus(reopened)).not.toHaveProperty("damaged_rows");
          expect(reopened.searchVector(query, 10)).toEqual(expected);
          // Everything else as the store that dropped it, which alone counts the damaged row.
          const counted = JSON.stringify(observe(store));
          expect(counted).toContain(',"damaged_rows":1');
          expect(observe(reopened)).toEqual(JSON.parse(counted.replace(',"damaged_rows":1', "")));
        } finally {
          reopened.close();
        }
      } finally {
        store.close();
      }
    });

    it("a checkpoint that rewrites the segment reads the row first: it drops the vector, tries again and is written", () => {
      const store = openAt(copyDataDir(dataDir), options(true));
      try {
        // Another memory of the same segment forgotten: the checkpoint must rewrite it, reading every row.
        const neighbour = [doc + 1, doc + 2, doc + 3].find((other) => store.get(`m-${other}`) !== undefined)!;
        expect(Math.floor(neighbour / SEGMENT)).toBe(Math.floor(doc / SEGMENT));
        store.forget(`m-${neighbour}`);
        expect(store.checkpoint()).toHaveProperty("parts_written");
        expect(spaceStatus(store)).toEqual(expect.objectContaining({ vectors: vectors - 2, damaged_rows: 1 }));
        const reopened = openAt(copyDataDir(store.dataDir), options(true));
        try {
          expect(checkpointStatus(reopened)).toMatchObject({ used: true });
          expect(reopened.searchVector(query, 10)).toEqual(others.filter((hit) => hit.id !== `m-${neighbour}`).slice(0, 10));
          expect(spaceStatus(reopened)).not.toHaveProperty("damaged_rows");
        } finally {
          reopened.close();
        }
      } finally {
        store.close();
      }
    });
  });
});

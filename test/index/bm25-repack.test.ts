// The background re-pack (issue 18, lexical p95 at 1M): maintain() packs the delta and drops dead postings
// in steps while adds, removes and searches go on between them. Whatever is interleaved, every search must
// equal, bit for bit, an index rebuilt from the live docs, and the swap must leave a packed index.
import fc from "fast-check";
import { Bm25Index } from "../../bridge/index/bm25";
import { seededRandom } from "../fixtures/seeded-random";

const WORDS = ["the", "of", "a", "记忆", "忆", "passport", "drawer", "constructor", "__proto__", "mug", "paris", "tuesday"];

function randomDoc(random: () => number): string[] {
  // Now and then one term many times in a short doc: a tf past every bound the packed postings set.
  if (random() < 0.05) return [...Array<string>(2 + Math.floor(random() * 40)).fill(WORDS[Math.floor(random() * WORDS.length)]), "mug"];
  const length = 1 + Math.floor(random() * 12);
  // Skewed, so that some terms are in most docs and some in a few; now and then a term never seen before.
  return Array.from({ length }, () => (random() < 0.03 ? `new${Math.floor(random() * 1e6)}` : WORDS[Math.floor(WORDS.length * random() ** 2)]));
}

function rebuilt(live: Map<number, string[]>): Bm25Index {
  const index = new Bm25Index();
  for (const [doc, tokens] of [...live].sort((a, b) => a[0] - b[0])) index.add(doc, tokens);
  return index;
}

function expectSameAnswers(index: Bm25Index, live: Map<number, string[]>, random: () => number): void {
  const reference = rebuilt(live);
  expect(index.size).toBe(live.size);
  for (let q = 0; q < 4; q++) {
    const query = randomDoc(random).slice(0, 4);
    for (const k of [1, 5, 200]) {
      const answer = index.search(query, k);
      expect(answer).toEqual(reference.search(query, k));
      expect(answer).toEqual(index.search(query, k, undefined, { exhaustive: true }));
    }
    const holding = [...live].filter(([, tokens]) => query.every((token) => tokens.includes(token))).map(([doc]) => doc);
    expect(index.docsWithAll(query).sort((a, b) => a - b)).toEqual(holding.sort((a, b) => a - b));
    const masker = index.termMasker(query);
    const masks = [...live].map(([doc, tokens]) => [masker(doc), query.reduce((mask, token, i) => (tokens.includes(token) ? mask | (1 << i) : mask), 0)]);
    expect(masks.filter(([got, expected]) => got !== expected)).toEqual([]);
  }
}

describe("Bm25Index background re-pack", () => {
  it("answers like an index rebuilt from the live docs whatever adds, removes, re-adds and searches come between its steps", () => {
    let finished = 0;
    let opsWhileRepacking = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 9 }), (seed, stepPostings) => {
        const random = seededRandom(seed);
        const index = new Bm25Index({}, { repackStepPostings: stepPostings });
        const live = new Map<number, string[]>();
        const removed: number[] = [];
        let nextDoc = 0;
        for (let i = 0; i < 400; i++) {
          const tokens = randomDoc(random);
          index.add(nextDoc, tokens);
          live.set(nextDoc++, tokens);
        }
        index.vacuum();
        for (let op = 0; op < 1500; op++) {
          const roll = random();
          if (index.layout.repacking) opsWhileRepacking++;
          if (roll < 0.45) {
            const tokens = randomDoc(random);
            // A removed doc number comes back now and then, which forces a blocking re-pack.
            const doc = roll < 0.003 && removed.length > 0 ? removed.pop()! : nextDoc++;
            index.add(doc, tokens);
            live.set(doc, tokens);
          } else if (roll < 0.7 && live.size > 0) {
            const docs = [...live.keys()];
            const doc = docs[Math.floor(random() * docs.length)];
            expect(index.remove(doc, live.get(doc)!)).toBe(true);
            live.delete(doc);
            removed.push(doc);
          } else if (roll < 0.99) {
            for (let steps = 1 + Math.floor(random() * 30); steps > 0; steps--) index.maintain(0);
          } else {
            expectSameAnswers(index, live, random);
          }
        }
        expectSameAnswers(index, live, random);
        while (index.maintain(0));
        expectSameAnswers(index, live, random);
        finished += index.repacks.stepped;
        // A snapshot of what the steps left holds the same index.
        const restored = Bm25Index.deserialize(index.serialize());
        expectSameAnswers(restored, live, random);
      }),
      { numRuns: 20 },
    );
    // The runs did exercise it: re-packs finished, with plenty happening between their steps. (Whether a
    // run's last re-pack finishes depends on its seed, and fast-check draws new seeds each time: most do.)
    expect(finished).toBeGreaterThanOrEqual(10);
    expect(opsWhileRepacking).toBeGreaterThan(20 * 100);
  });

  it("takes new terms and docs after a load from a snapshot, into the room its arrays leave and past it", () => {
    const random = seededRandom(77);
    const live = new Map<number, string[]>();
    const original = new Bm25Index();
    for (let doc = 0; doc < 80; doc++) {
      const tokens = randomDoc(random);
      live.set(doc, tokens);
      original.add(doc, tokens);
    }
    const loaded = Bm25Index.deserialize(original.serialize());
    expectSameAnswers(loaded, live, random);
    // Far more new terms than an eighth of the snapshot's, a tf past the old bounds, and short docs.
    for (let doc = 80; doc < 400; doc++) {
      const tokens = doc % 5 === 0 ? [`fresh${doc}`] : [...randomDoc(random), `fresh${doc}`, `fresh${doc}`, `fresh${doc - 1}`, "mug", "mug", "mug"];
      live.set(doc, tokens);
      loaded.add(doc, tokens);
      if (doc % 40 === 0) expectSameAnswers(loaded, live, random);
    }
    expectSameAnswers(loaded, live, random);
    const reference = rebuilt(live);
    for (const query of [["fresh81", "mug"], ["fresh200"], ["fresh399", "fresh398", "passport"], ["mug"]]) {
      for (const k of [1, 3, 50]) expect(loaded.search(query, k)).toEqual(reference.search(query, k));
    }
  });

  it("writes a snapshot mid-re-pack, with a delta and dead docs, as the bytes a vacuum would give, and leaves the index as it was", () => {
    let midRepack = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 40 }), (seed, steps) => {
        const random = seededRandom(seed);
        const index = new Bm25Index({}, { repackStepPostings: 5 });
        const live = new Map<number, string[]>();
        for (let doc = 0; doc < 300; doc++) {
          const tokens = randomDoc(random);
          index.add(doc, tokens);
          live.set(doc, tokens);
          if (doc === 150) index.vacuum();
          // About a fifth of the docs die: past the tenth that starts a background re-pack, short of the blocking quarter.
          if (doc > 150 && random() < 0.35) index.remove(doc - 100, live.get(doc - 100)!) && live.delete(doc - 100);
        }
        for (let i = 0; i < steps; i++) index.maintain(0);
        for (let doc = 300; doc < 320; doc++) {
          const tokens = randomDoc(random);
          index.add(doc, tokens);
          live.set(doc, tokens);
        }
        const layout = index.layout;
        if (layout.repacking) midRepack++;
        const repacks = { ...index.repacks };
        const streamed = index.serialize();
        expect(index.layout).toEqual(layout);
        expect(index.repacks).toEqual(repacks);
        expectSameAnswers(Bm25Index.deserialize(streamed), live, random);
        expectSameAnswers(index, live, random);
        index.vacuum();
        expect(Buffer.from(index.serialize()).equals(Buffer.from(streamed))).toBe(true);
      }),
      { numRuns: 30 },
    );
    // Whether a run stops mid-re-pack depends on its step count and seed: most do.
    expect(midRepack).toBeGreaterThanOrEqual(5);
  });

  it("writes in steps the snapshot of its first step, whatever adds, removes, re-adds, re-pack steps and vacuums come between its steps", () => {
    let interleaved = 0;
    let readded = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const random = seededRandom(seed);
        const index = new Bm25Index({}, { repackStepPostings: 5 });
        let next = 0;
        const live = new Map<number, string[]>();
        const add = () => {
          const tokens = randomDoc(random);
          index.add(next, tokens);
          live.set(next++, tokens);
        };
        for (let i = 0; i < 200; i++) add();
        index.vacuum();
        for (let i = 0; i < 60; i++) add();
        for (const doc of [3, 50, 120, 210]) index.remove(doc, live.get(doc)!) && live.delete(doc);
        // The reference: the bytes serialize() gives now, and the docs live now.
        const expected = Buffer.from(index.serialize());
        const frozen = new Map(live);
        const removed = [3, 50, 120, 210];
        const steps = index.serializeInSteps(7);
        let result = steps.next();
        for (; !result.done; result = steps.next()) {
          interleaved++;
          const roll = random();
          if (roll < 0.3) add();
          else if (roll < 0.4 && removed.length > 0) {
            // A doc number removed (before the snapshot or since) comes back with another text, and length:
            // the lengths the snapshot was lent must not change under it.
            const doc = removed.splice(Math.floor(random() * removed.length), 1)[0];
            const tokens = [...randomDoc(random), "again"];
            index.add(doc, tokens);
            live.set(doc, tokens);
            readded++;
          } else if (roll < 0.7) {
            const doc = [...live.keys()][Math.floor(random() * live.size)];
            index.remove(doc, live.get(doc)!) && live.delete(doc) && removed.push(doc);
          } else if (roll < 0.95) index.maintain(0);
          else index.vacuum();
        }
        expect(Buffer.from(result.value).equals(expected)).toBe(true);
        expectSameAnswers(Bm25Index.deserialize(result.value), frozen, random);
        expectSameAnswers(index, live, random);
      }),
      { numRuns: 30 },
    );
    expect(interleaved).toBeGreaterThan(30 * 20);
    expect(readded).toBeGreaterThan(30);
  });

  it("writes a long posting list of its main segment over several steps, not in one", () => {
    // One term in every doc: its list of 1,000 postings is most of the snapshot (a common bigram at 1M).
    const index = new Bm25Index();
    for (let doc = 0; doc < 1000; doc++) index.add(doc, ["common", `only${doc}`]);
    index.vacuum();
    const expected = Buffer.from(index.serialize());
    const steps = index.serializeInSteps(100);
    let count = 0;
    let result = steps.next();
    for (; !result.done; result = steps.next()) count++;
    // 2,000 postings at 100 a step: about 20 steps, the common term's list alone about 10.
    expect(count).toBeGreaterThanOrEqual(19);
    expect(Buffer.from(result.value).equals(expected)).toBe(true);
  });

  it("gives its snapshot in chunks of at most 1 MiB, main and delta postings alike, that join into a snapshot answering as the index", () => {
    const random = seededRandom(7);
    const index = new Bm25Index();
    const live = new Map<number, string[]>();
    const add = (doc: number) => {
      const tokens = [...randomDoc(random), `doc${doc % 5000}`];
      index.add(doc, tokens);
      live.set(doc, tokens);
    };
    for (let doc = 0; doc < 60_000; doc++) add(doc);
    index.vacuum();
    // A delta after the packed part, and dead docs in both.
    for (let doc = 60_000; doc < 80_000; doc++) add(doc);
    for (let doc = 7; doc < 80_000; doc += 97) index.remove(doc, live.get(doc)!) && live.delete(doc);
    const steps = index.snapshotInSteps();
    let result = steps.next();
    while (!result.done) result = steps.next();
    const sizes: number[] = [];
    const copies: Buffer[] = [];
    for (const chunk of result.value) {
      sizes.push(chunk.length);
      copies.push(Buffer.from(chunk));
    }
    const joined = Buffer.concat(copies);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1 << 20);
    // The postings' docs, then their tfs, 256Ki a full chunk.
    const postings = joined.readUInt32LE(20);
    expect(postings).toBeGreaterThan(1 << 18);
    expect(sizes.filter((size) => size === 1 << 20).length).toBe(2 * Math.floor(postings / (1 << 18)));
    expect(joined.equals(Buffer.from(index.serialize()))).toBe(true);
    expectSameAnswers(Bm25Index.deserialize(joined), live, random);
  });

  it("keeps the delta small without a blocking re-pack when maintain() runs between adds", () => {
    const random = seededRandom(7);
    const index = new Bm25Index();
    const added: string[][] = [];
    let most = 0;
    let blockingEarly = 0;
    for (let doc = 0; doc < 60_000; doc++) {
      // Small indexes re-pack at once, as before: their delta passes 4,096 postings while the main segment is tiny.
      if (doc === 20_000) blockingEarly = index.repacks.blocking;
      added.push(randomDoc(random));
      index.add(doc, added[doc]);
      if (doc % 7 === 0 && doc >= 3) index.remove(doc - 3, added[doc - 3]);
      // One step at a time (a budget of 0), so that how far the re-pack gets does not depend on the machine.
      if (doc % 50 === 0) index.maintain(0);
      const { mainPostings, deltaPostings } = index.layout;
      if (doc > 20_000) most = Math.max(most, deltaPostings / mainPostings);
    }
    expect(index.repacks.blocking).toBe(blockingEarly);
    expect(index.repacks.stepped).toBeGreaterThan(3);
    // Past the sixteenth that starts a re-pack by what arrives while it runs, but well short of the half
    // at which add() would re-pack at once.
    expect(most).toBeGreaterThan(1 / 16);
    expect(most).toBeLessThan(1 / 4);
  });

  it("drops the dead docs' postings and terms, so that a doc number can come back without a blocking re-pack", () => {
    const index = new Bm25Index({}, { repackStepPostings: 3 });
    for (let doc = 0; doc < 100; doc++) index.add(doc, ["common", `w${doc}`]);
    index.vacuum();
    for (let doc = 0; doc < 20; doc++) index.remove(doc, ["common", `w${doc}`]);
    expect(index.layout).toEqual({ mainPostings: 200, deltaPostings: 0, deadDocs: 20, repacking: false });
    expect(index.maintain(0)).toBe(true);
    expect(index.layout.repacking).toBe(true);
    index.add(100, ["common", "late"]);
    index.remove(50, ["common", "w50"]);
    while (index.maintain(0));
    // The docs dead when it began are gone; doc 50, removed meanwhile, waits for the next re-pack.
    expect(index.layout).toEqual({ mainPostings: 160, deltaPostings: 2, deadDocs: 1, repacking: false });
    expect(index.repacks).toEqual({ stepped: 1, blocking: 1 });
    index.add(5, ["common", "back"]);
    expect(index.repacks.blocking).toBe(1);
    expect(index.search(["back"], 5).map(({ doc }) => doc)).toEqual([5]);
    expect(index.search(["w5"], 5)).toEqual([]);
    expect(index.search(["late"], 5).map(({ doc }) => doc)).toEqual([100]);
    expect(index.search(["w50"], 5)).toEqual([]);
  });

  it("bounds a term by the tf of a doc added while it ran, so that pruning cannot drop that doc", () => {
    const index = new Bm25Index({}, { repackStepPostings: 2 });
    for (let doc = 0; doc < 1000; doc++) index.add(doc, doc < 9 ? ["alpha", "f"] : doc < 58 ? ["beta", "g"] : ["g", "h"]);
    index.vacuum();
    for (let doc = 100; doc < 250; doc++) index.remove(doc, ["g", "h"]);
    index.maintain(0);
    // Long, so that alpha adds little, but beta thirty times: it wins only if beta's bound knows tf 30.
    index.add(1000, ["alpha", ...Array<string>(30).fill("beta")]);
    while (index.maintain(0));
    expect(index.repacks.stepped).toBe(1);
    const exhaustive = index.search(["alpha", "beta"], 1, undefined, { exhaustive: true });
    expect(exhaustive.map(({ doc }) => doc)).toEqual([1000]);
    expect(index.search(["alpha", "beta"], 1)).toEqual(exhaustive);
  });

  it("gives way to a blocking re-pack begun between its steps, which packs everything", () => {
    const index = new Bm25Index({}, { repackStepPostings: 2 });
    for (let doc = 0; doc < 50; doc++) index.add(doc, ["common", `w${doc % 5}`]);
    index.vacuum();
    for (let doc = 0; doc < 10; doc++) index.remove(doc, ["common", `w${doc % 5}`]);
    index.maintain(0);
    index.add(50, ["common", "late"]);
    index.vacuum();
    expect(index.layout).toEqual({ mainPostings: 82, deltaPostings: 0, deadDocs: 0, repacking: false });
    expect(index.maintain()).toBe(false);
    expect(index.repacks).toEqual({ stepped: 0, blocking: 2 });
    expect(index.search(["late"], 5).map(({ doc }) => doc)).toEqual([50]);
  });

  it("refuses a step size that is not a positive integer", () => {
    expect(() => new Bm25Index({}, { repackStepPostings: 0 })).toThrow("Bm25Index: repackStepPostings must be a positive integer, got 0");
    expect(() => new Bm25Index({}, { repackStepPostings: 1.5 })).toThrow("repackStepPostings must be a positive integer, got 1.5");
  });
});

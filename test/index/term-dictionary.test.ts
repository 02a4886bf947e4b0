// The BM25 term dictionary (issue 18, memory at 1M): short terms packed into codes in a typed hash table,
// the rest in a Map. Whatever the terms, it must give the ids a Map<string, number> would, list the terms
// back exactly (lone surrogates and NUL units included), and read a snapshot's term section the same way.
import fc from "fast-check";
import { TermDictionary } from "../../bridge/index/term-dictionary";

// Units that sit on every edge of the packing: NUL (never packed first), lone surrogates, the top unit.
const UNITS = [0x0, 0x1, 0x61, 0x7f, 0x4e00, 0x8000, 0xd800, 0xdc00, 0xfffe, 0xffff];
const term = fc.array(fc.oneof(fc.constantFrom(...UNITS), fc.integer({ min: 0, max: 0xffff })), { minLength: 0, maxLength: 4 }).map((units) => String.fromCharCode(...units));

function snapshotText(terms: readonly string[]): { text: Uint8Array; lengths: Int32Array } {
  const text = new Uint8Array(2 * terms.reduce((sum, t) => sum + t.length, 0));
  let at = 0;
  for (const t of terms) for (let i = 0; i < t.length; i++, at += 2) [text[at], text[at + 1]] = [t.charCodeAt(i) & 0xff, t.charCodeAt(i) >> 8];
  return { text, lengths: Int32Array.from(terms, (t) => t.length) };
}

/** The terms by id, as a snapshot writes them (termLength, writeTerm). */
function listTerms(dictionary: TermDictionary): string[] {
  const view = new DataView(new ArrayBuffer(8));
  return Array.from({ length: dictionary.size }, (_, id) => {
    const length = dictionary.termLength(id);
    const bytes = length * 2 > view.byteLength ? new DataView(new ArrayBuffer(length * 2)) : view;
    dictionary.writeTerm(id, bytes, 0);
    return String.fromCharCode(...Array.from({ length }, (_, i) => bytes.getUint16(2 * i, true)));
  });
}

describe("TermDictionary", () => {
  it("gives the ids a Map would, and lists its terms back in id order, for any terms", () => {
    fc.assert(
      fc.property(fc.uniqueArray(term, { maxLength: 300 }), fc.array(term, { maxLength: 50 }), (terms, probes) => {
        const dictionary = new TermDictionary();
        const reference = new Map<string, number>();
        for (const t of terms) {
          expect(dictionary.add(t)).toBe(reference.size);
          reference.set(t, reference.size);
        }
        expect(dictionary.size).toBe(terms.length);
        expect(listTerms(dictionary)).toEqual(terms);
        for (const t of [...terms, ...probes]) expect(dictionary.get(t)).toBe(reference.get(t));
        const read = new TermDictionary();
        const { text, lengths } = snapshotText(terms);
        read.addSnapshotTerms(text, lengths);
        expect(listTerms(read)).toEqual(terms);
        for (const t of [...terms, ...probes]) expect(read.get(t)).toBe(reference.get(t));
        // Another thread's dictionary, taken over through its image (structured-cloned, as a worker posts it):
        // the same ids, and adds go on from where it was.
        const taken = TermDictionary.fromImage(structuredClone(read.image()));
        expect(listTerms(taken)).toEqual(terms);
        for (const t of [...terms, ...probes]) expect(taken.get(t)).toBe(reference.get(t));
        const fresh = [...new Set(probes.filter((t) => !reference.has(t)))];
        fresh.forEach((t, i) => expect(taken.add(t)).toBe(terms.length + i));
        fresh.forEach((t, i) => expect(taken.get(t)).toBe(terms.length + i));
        // What a snapshot writes, without a string per term: each term's length, then its units, little-endian.
        for (const dict of [dictionary, read, taken]) {
          expect(terms.map((_, id) => dict.termLength(id))).toEqual(Array.from(lengths));
          const written = new Uint8Array(text.length + 2);
          const view = new DataView(written.buffer);
          let at = 1;
          terms.forEach((_, id) => (at = dict.writeTerm(id, view, at)));
          expect(at).toBe(1 + text.length);
          expect([...written.subarray(1, 1 + text.length)]).toEqual([...text]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("keeps every one of 300,000 bigrams and long terms through its arrays' resizes", () => {
    const dictionary = new TermDictionary();
    const terms: string[] = [];
    // Long terms alone at the end, past where the short ones left the arrays by id.
    for (let i = 0; i < 300_000; i++) terms.push(i % 10 === 0 || i >= 200_000 ? `word${i}` : String.fromCharCode(0x4e00 + (i % 3000), 0x4e00 + Math.floor(i / 3000)));
    terms.forEach((t) => dictionary.add(t));
    expect(terms.every((t, id) => dictionary.get(t) === id)).toBe(true);
    expect(dictionary.get("word1")).toBeUndefined();
    expect(dictionary.get(String.fromCharCode(0x4e00, 0x4e00 + 100))).toBeUndefined();
    const listed = listTerms(dictionary);
    expect(listed.length).toBe(terms.length);
    expect(listed.every((t, id) => t === terms[id])).toBe(true);
  });

  it("refuses a term it holds already, short or long, and leaves its terms as they were", () => {
    const dictionary = new TermDictionary();
    ["记忆", "a", "passport", "\u0000x"].forEach((t) => dictionary.add(t));
    expect(() => dictionary.add("记忆")).toThrow('duplicate term "记忆"');
    expect(() => dictionary.add("passport")).toThrow('duplicate term "passport"');
    expect(() => dictionary.add("\u0000x")).toThrow('duplicate term "\\u0000x"');
    expect(listTerms(dictionary)).toEqual(["记忆", "a", "passport", "\u0000x"]);
    const { text, lengths } = snapshotText(["of", "mug", "of"]);
    expect(() => new TermDictionary().addSnapshotTerms(text, lengths)).toThrow('duplicate term "of"');
  });

  it("refuses an image whose table or codes do not fit its counts", () => {
    const dictionary = new TermDictionary();
    for (const t of ["记忆", "a", "long term"]) dictionary.add(t);
    const image = dictionary.image();
    expect(() => TermDictionary.fromImage({ ...image, bits: image.bits + 1 })).toThrow(`TermDictionary.fromImage: ${image.slots.length} slots for ${image.bits + 1} bits`);
    expect(() => TermDictionary.fromImage({ ...image, codes: new Uint32Array(2) })).toThrow("2 codes for 3 terms");
  });

  it("refuses a snapshot's term lengths that do not cover its term text exactly", () => {
    const { text } = snapshotText(["of", "mug"]);
    expect(() => new TermDictionary().addSnapshotTerms(text, Int32Array.of(2, 4))).toThrow("term lengths exceed the term text");
    expect(() => new TermDictionary().addSnapshotTerms(text, Int32Array.of(2, -1))).toThrow("term lengths exceed the term text");
    expect(() => new TermDictionary().addSnapshotTerms(text, Int32Array.of(2, 2))).toThrow("term lengths do not cover the term text");
    expect(() => new TermDictionary().addSnapshotTerms(text.subarray(0, 9), Int32Array.of(2, 2))).toThrow("term lengths do not cover the term text");
  });
});

// Issue 18, item 4: a checkpoint encodes its vector parts in one reused scratch (fresh arrays for every
// segment made V8 collect every few segments, which slowed the adds between the steps). A part encoded in
// the scratch must be byte for byte the part encoded from arrays of its own, whatever part came before.
import fc from "fast-check";
import { decodeVectorPart, encodeVectorPart, type VectorCodes, VectorPartScratch } from "../../bridge/store/checkpoint-parts";

interface PartInput {
  docs: Int32Array;
  hashes: string[];
  rows: Float32Array;
  codes: VectorCodes;
}

const partArbitrary = (dim: number) =>
  fc.integer({ min: 1, max: 40 }).chain((count) =>
    fc.record({
      rows: fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: dim * count, maxLength: dim * count }),
      codes: fc.array(fc.integer({ min: -127, max: 127 }), { minLength: dim * count, maxLength: dim * count }),
      scales: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: count, maxLength: count }),
      errors: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: count, maxLength: count }),
      hashes: fc.array(fc.stringMatching(/^[0-9a-f]{64}$/), { minLength: count, maxLength: count }),
    }),
  );

const joined = (chunks: Uint8Array[]) => Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));

function plain(dim: number, input: PartInput): Buffer {
  const encoded = encodeVectorPart(dim, input);
  return joined([...encoded.head, ...encoded.rows]);
}

/** Fills the scratch's views with `input`, as a checkpoint reads a segment's rows and codes into them. */
function inScratch(dim: number, scratch: VectorPartScratch, input: PartInput): Buffer {
  const views = scratch.take(dim, input.docs.length);
  views.rows.set(input.rows);
  views.codes.codes.set(input.codes.codes);
  views.codes.scales.set(input.codes.scales);
  views.codes.errors.set(input.codes.errors);
  const encoded = encodeVectorPart(dim, { docs: input.docs, hashes: input.hashes, rows: views.rows, codes: views.codes }, views);
  return joined([...encoded.head, ...encoded.rows]);
}

describe("vector parts encoded in a reused scratch", () => {
  it("are the parts encoded from their own arrays, part after part of any sizes, and decode to their input", () => {
    fc.assert(
      fc.property(
        // Odd dims make codes whose padding is not empty: a smaller part must not carry the last one's codes there.
        fc.integer({ min: 1, max: 7 }).chain((dim) => fc.tuple(fc.constant(dim), fc.array(partArbitrary(dim), { minLength: 2, maxLength: 5 }))),
        ([dim, parts]) => {
          const scratch = new VectorPartScratch();
          let firstDoc = 0;
          for (const part of parts) {
            const count = part.scales.length;
            const input: PartInput = {
              docs: Int32Array.from({ length: count }, (_, i) => firstDoc + 3 * i),
              hashes: part.hashes.map((hex) => `sha256:${hex}`),
              rows: Float32Array.from(part.rows),
              codes: { codes: Int8Array.from(part.codes), scales: Float64Array.from(part.scales), errors: Float64Array.from(part.errors) },
            };
            firstDoc += 3 * count;
            const bytes = inScratch(dim, scratch, input);
            expect(bytes.equals(plain(dim, input))).toBe(true);
            const decoded = decodeVectorPart(bytes, dim, count);
            expect([...decoded.docs]).toEqual([...input.docs]);
            expect([...decoded.rows!]).toEqual([...input.rows]);
            expect([...decoded.codes!.codes]).toEqual([...input.codes.codes]);
            expect([...decoded.codes!.scales]).toEqual([...input.codes.scales]);
            expect([...decoded.codes!.errors]).toEqual([...input.codes.errors]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses rows or codes that are not the views' own", () => {
    const scratch = new VectorPartScratch();
    const views = scratch.take(4, 2);
    const docs = Int32Array.of(0, 1);
    const hashes = [`sha256:${"a".repeat(64)}`, `sha256:${"b".repeat(64)}`];
    expect(() => encodeVectorPart(4, { docs, hashes, rows: new Float32Array(8), codes: views.codes }, views)).toThrow("the rows and codes must be the views' own");
    const codes = { codes: new Int8Array(8), scales: new Float64Array(2), errors: new Float64Array(2) };
    expect(() => encodeVectorPart(4, { docs, hashes, rows: views.rows, codes }, views)).toThrow("the rows and codes must be the views' own");
  });
});

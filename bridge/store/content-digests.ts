// Content hashes ("sha256:" and 64 lowercase hex digits, records.ts hashContent) as their 32 bytes: a
// vector part stores them so, and a store read back from a checkpoint keeps them so (text-pages.ts,
// DocHashes), where a million strings of 71 characters cost ~88 MB of heap that every collection walks.

export const HASH_PREFIX = "sha256:";
export const DIGEST_BYTES = 32;
/** The characters of a content hash. */
export const HASH_CHARS = HASH_PREFIX.length + 2 * DIGEST_BYTES;

/** A byte's two lowercase hex digits as one number (first << 8 | second). */
const HEX_PAIRS = Uint16Array.from({ length: 256 }, (_, byte) => {
  const hex = byte.toString(16).padStart(2, "0");
  return (hex.charCodeAt(0) << 8) | hex.charCodeAt(1);
});
const HEX_DIGITS = "0123456789abcdef";
/** A lowercase hex digit's value by character code, -1 for anything else. */
const HEX_VALUES = Int8Array.from({ length: 128 }, (_, code) => HEX_DIGITS.indexOf(String.fromCharCode(code)));

/** Whether `hash` is the content hash whose digest lies at `digests[at, at + 32)`. */
export function hashMatchesDigest(hash: string, digests: Uint8Array, at: number): boolean {
  if (hash.length !== HASH_CHARS || !hash.startsWith(HASH_PREFIX)) return false;
  for (let j = 0, k = HASH_PREFIX.length; j < DIGEST_BYTES; j++, k += 2) {
    if (((hash.charCodeAt(k) << 8) | hash.charCodeAt(k + 1)) !== HEX_PAIRS[digests[at + j]]) return false;
  }
  return true;
}

/** Writes the digest of content hash `hash` at `into[at, at + 32)`; false (nothing written) if it is not one. */
export function writeDigest(hash: string, into: Uint8Array, at: number): boolean {
  if (hash.length !== HASH_CHARS || !hash.startsWith(HASH_PREFIX)) return false;
  for (let k = HASH_PREFIX.length; k < HASH_CHARS; k++) {
    const code = hash.charCodeAt(k);
    if (code >= 128 || HEX_VALUES[code] < 0) return false;
  }
  for (let j = 0, k = HASH_PREFIX.length; j < DIGEST_BYTES; j++, k += 2) into[at + j] = (HEX_VALUES[hash.charCodeAt(k)] << 4) | HEX_VALUES[hash.charCodeAt(k + 1)];
  return true;
}

/**
 * Writes at `into[at, at + 32)` the digest spelled by the 64 lowercase hex digits (UTF-8) at `hex[from, from + 64)`;
 * false if they are not 64 such digits (what was written then is of no use).
 */
export function writeDigestFromHex(hex: Uint8Array, from: number, into: Uint8Array, at: number): boolean {
  for (let j = 0, k = from; j < DIGEST_BYTES; j++, k += 2) {
    const high = hex[k] < 128 ? HEX_VALUES[hex[k]] : -1;
    const low = hex[k + 1] < 128 ? HEX_VALUES[hex[k + 1]] : -1;
    if (high < 0 || low < 0) return false;
    into[at + j] = (high << 4) | low;
  }
  return true;
}

/** The content hash whose digest lies at `digests[at, at + 32)`. */
export function hashOfDigest(digests: Uint8Array, at: number): string {
  return hashOfHex(Buffer.from(digests.buffer, digests.byteOffset + at, DIGEST_BYTES).toString("hex"));
}

/**
 * The content hash of a digest's 64 hex digits, as one flat string: `HASH_PREFIX + hex` is a string of two
 * parts and the parts (three objects a record, kept for the record's life, that every full collection marks).
 */
export function hashOfHex(hex: string): string {
  if (hex.length !== 2 * DIGEST_BYTES) throw new Error(`hashOfHex: ${hex.length} hex digits, not ${2 * DIGEST_BYTES}`);
  HASH_SCRATCH.write(hex, HASH_PREFIX.length, "latin1");
  return HASH_SCRATCH.toString("latin1");
}

const HASH_SCRATCH = Buffer.from(HASH_PREFIX.padEnd(HASH_CHARS, "0"), "latin1");

/** Copies the 32 bytes at `from[i, i + 32)` to `into[j, j + 32)` (no view made: a restore copies a million). */
export function copyDigest(from: Uint8Array, i: number, into: Uint8Array, j: number): void {
  for (let k = 0; k < DIGEST_BYTES; k++) into[j + k] = from[i + k];
}

/** Whether the 32 bytes at `a[i, i + 32)` and `b[j, j + 32)` are the same. */
export function sameDigest(a: Uint8Array, i: number, b: Uint8Array, j: number): boolean {
  for (let k = 0; k < DIGEST_BYTES; k++) if (a[i + k] !== b[j + k]) return false;
  return true;
}

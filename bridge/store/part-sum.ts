// A checkpoint part's checksum, which an open checks before it uses what it decoded from the part. Parts are
// written with a CRC-32 (format 7 on); those written before carry a SHA-256 until an open finds them whole,
// and the checkpoint after it names them by their CRC-32 (PartHasher). The sum guards against damage on disk,
// not against someone who can write the checkpoint directory (they could rewrite the manifest too): CRC-32
// runs ~3.4 times as fast as SHA-256 on the benchmark VM, and hashing the parts was ~1.35 s of CPU of the
// open of a million records.
import { createHash, type Hash } from "node:crypto";
import { crc32 } from "node:zlib";

/** Exactly one of the two: CRC-32 as 8 lowercase hex digits, or SHA-256 as 64. */
export type PartSum = { crc32: string; sha256?: undefined } | { sha256: string; crc32?: undefined };

const CRC32_HEX = /^[0-9a-f]{8}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Whether `value` holds exactly one well-formed sum (the manifest's parser). */
export function isPartSum(value: Record<string, unknown>): boolean {
  const crc = value.crc32;
  const sha = value.sha256;
  return crc === undefined ? typeof sha === "string" && SHA256_HEX.test(sha) : sha === undefined && typeof crc === "string" && CRC32_HEX.test(crc);
}

/**
 * Whether a part with this sum is checked by the thread that reads it, as it reads it. A CRC-32 is (~0.3 s for
 * the ~1.5 GB an open of a million records reads); a SHA-256 part is read unhashed where the read is on an
 * open's critical path, and hashed by either thread when it would otherwise wait (checkpoint-reader.ts).
 */
export function checkedAsRead(sum: PartSum): boolean {
  return sum.crc32 !== undefined;
}

/** The sum's name in a damage report: "CRC-32" or "SHA-256". */
export function sumName(sum: PartSum): string {
  return sum.crc32 !== undefined ? "CRC-32" : "SHA-256";
}

/**
 * Takes bytes as they come and tells whether they make `expected` (or, with none, the sum a new part gets).
 * The CRC-32 is taken of a SHA-256 part too: once the part is found whole, its sum becomes that CRC-32
 * (upgradeSum), which the next checkpoint writes for the part it keeps. A store's parts from before format 7
 * are so hashed with SHA-256 once more, not at every open.
 */
export class PartHasher {
  private crc = 0;
  private readonly sha: Hash | undefined;

  /** Of the kind of `expected`; without it, CRC-32 (what new parts are written with). */
  constructor(expected?: PartSum) {
    this.sha = expected?.sha256 !== undefined ? createHash("sha256") : undefined;
  }

  update(bytes: Uint8Array): void {
    this.sha?.update(bytes);
    this.crc = crc32(bytes, this.crc);
  }

  /** The sum of the bytes given so far (once: a SHA-256 is finished by it). */
  sum(): PartSum {
    return this.sha ? { sha256: this.sha.digest("hex") } : { crc32: this.crcHex() };
  }

  /**
   * Whether the bytes given so far have the sum `expected` (of this hasher's kind); once, as sum(). A SHA-256
   * that matches is replaced on `expected` by the CRC-32 of the same bytes (upgradeSum).
   */
  matches(expected: PartSum): boolean {
    const sum = this.sum();
    if (sum.crc32 !== undefined) return sum.crc32 === expected.crc32;
    if (sum.sha256 !== expected.sha256) return false;
    upgradeSum(expected, this.crcHex());
    return true;
  }

  private crcHex(): string {
    return this.crc.toString(16).padStart(8, "0");
  }
}

/**
 * Gives a part (or head) found whole by its SHA-256 the CRC-32 `crc` of the same bytes instead, in place: the
 * manifest's object, which a checkpoint that keeps the part writes again. A part's file never changes.
 */
export function upgradeSum(sum: PartSum, crc: string): void {
  const upgraded = sum as { crc32?: string; sha256?: string };
  delete upgraded.sha256;
  upgraded.crc32 = crc;
}

/** The sum of `bytes` (CRC-32 unless `like` is a SHA-256). */
export function partSumOf(bytes: Uint8Array, like?: PartSum): PartSum {
  const hasher = new PartHasher(like);
  hasher.update(bytes);
  return hasher.sum();
}

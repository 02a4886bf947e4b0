// Int8 codes of the stored unit vectors, kept in WebAssembly linear memory and scanned by the SIMD
// kernel in dot-kernel.wat; each row carries its scale and the L2 norm of its quantization error.
import { DOT_KERNEL_WASM_BASE64 } from "./dot-kernel.generated";

const PAGE_BYTES = 65536;
const MAX_MEMORY_BYTES = 65536 * PAGE_BYTES; // wasm32 ceiling
const CODE_MAX = 127;
const QUERY_CODE_MAX = 32767;
const I32_MAX = 2147483647;
// The gather kernel reads this many rows side by side: lists are padded to a multiple of it.
const GATHER_GROUP = 8;

interface WasmMemory {
  readonly buffer: SharedArrayBuffer;
  grow(pages: number): number;
}

interface KernelExports {
  readonly memory: WasmMemory;
  scan(queryAt: number, codesAt: number, strideBytes: number, rows: number, outAt: number): void;
  gather(queryAt: number, codesAt: number, strideBytes: number, rowsAt: number, count: number, outAt: number): void;
}

// The Node typings in use do not declare the WebAssembly global, so describe the part used here.
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
}

let kernelModule: object | undefined;

/**
 * Synchronous on purpose: the module is under 1 KB, so compiling it blocks for microseconds. Its memory is
 * shared (a SharedArrayBuffer), so that a restore can have a worker thread write the codes (codesTarget).
 */
function instantiateKernel(): KernelExports {
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  kernelModule ??= new wasm.Module(Buffer.from(DOT_KERNEL_WASM_BASE64, "base64"));
  const memory = new wasm.Memory({ initial: 1, maximum: MAX_MEMORY_BYTES / PAGE_BYTES, shared: true });
  const { scan, gather } = new wasm.Instance(kernelModule, { env: { memory } }).exports as Omit<KernelExports, "memory">;
  return { memory, scan, gather };
}

/** Where the codes of an Int8Codes lie, for another thread to write rows below `capacity` (writeCodes). */
export interface CodesTarget {
  memory: SharedArrayBuffer;
  codesAt: number;
  strideBytes: number;
  capacity: number;
  dim: number;
}

/**
 * Writes the codes of rows `rows[i]` (`dim` each, joined) where `target` keeps them, zero-padded to the
 * stride: what Int8Codes.load does with the codes, on whichever thread holds the target.
 */
export function writeCodes(target: CodesTarget, rows: Int32Array, codes: Int8Array): void {
  const { dim, strideBytes, codesAt, capacity } = target;
  if (codes.length !== rows.length * dim) throw new Error(`writeCodes: ${codes.length} codes for ${rows.length} rows of ${dim}`);
  const memory = new Int8Array(target.memory, 0, codesAt + capacity * strideBytes);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!(row >= 0 && row < capacity)) throw new Error(`writeCodes: row ${row} is not reserved`);
    const at = codesAt + row * strideBytes;
    memory.set(codes.subarray(i * dim, (i + 1) * dim), at);
    memory.fill(0, at + dim, at + strideBytes);
  }
}

export interface QueryCode {
  /** Dequantized query = scale * code. */
  scale: number;
  /** ||q - scale * code||, the query's quantization error. */
  error: number;
}

/**
 * Layout in linear memory: [query int16 × stride][codes int8 rows × capacity][dots int32 × (capacity + G)]
 * [gathered row numbers int32 × (capacity + G)]: gather() reads G = GATHER_GROUP rows at a time, so a list is padded.
 */
export class Int8Codes {
  /** Bytes per code row: dim rounded up to the kernel's 32-byte step, zero-padded. */
  readonly strideBytes: number;
  /** Most rows linear memory can hold. */
  readonly maxRows: number;
  scales = new Float64Array(0);
  errors = new Float64Array(0);
  private readonly kernel = instantiateKernel();
  private readonly codesAt: number;
  private readonly queryCodeMax: number;
  private capacity = 0;

  constructor(readonly dim: number) {
    this.strideBytes = Math.ceil(dim / 32) * 32;
    this.codesAt = this.strideBytes * 2;
    // One page short of the ceiling, so no end address the kernel computes wraps past 2^32.
    this.maxRows = Math.floor((MAX_MEMORY_BYTES - PAGE_BYTES - this.codesAt - 8 * GATHER_GROUP) / (this.strideBytes + 8));
    // Keeps every partial sum of the kernel's i32 dot below 2^31: sum |code * query code| <= 127 * max * dim.
    this.queryCodeMax = Math.min(QUERY_CODE_MAX, Math.floor(I32_MAX / (CODE_MAX * dim)));
  }

  /** Makes room for rows [0, rows); the caller chooses the growth policy. */
  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    if (rows > this.maxRows) throw new Error(`vector index is full: ${rows} rows of ${this.dim} dims exceed WebAssembly memory`);
    const neededBytes = this.codesAt + rows * (this.strideBytes + 8) + 8 * GATHER_GROUP;
    const memory = this.kernel.memory;
    const missingPages = Math.ceil(neededBytes / PAGE_BYTES) - memory.buffer.byteLength / PAGE_BYTES;
    if (missingPages > 0) memory.grow(missingPages);
    this.scales = grow(this.scales, rows);
    this.errors = grow(this.errors, rows);
    this.capacity = rows;
  }

  /**
   * Quantizes the unit vector at unit[at .. at + dim) into row `row` (symmetric, scale = max|v| / 127).
   * Returns the vector's squared norm, taken on the way, so a bulk load can check unit length for free.
   */
  encode(row: number, unit: Float32Array, at: number): number {
    const dim = this.dim;
    let maxAbs = 0;
    for (let i = 0; i < dim; i++) maxAbs = Math.max(maxAbs, Math.abs(unit[at + i]));
    // The f32-rounded scale is the one the error norm is measured against, so the bound uses what is stored.
    const scale = Math.fround(maxAbs / CODE_MAX);
    const codes = new Int8Array(this.kernel.memory.buffer, this.codesAt + row * this.strideBytes, this.strideBytes);
    let errorSquared = 0;
    let normSquared = 0;
    for (let i = 0; i < dim; i++) {
      const value = unit[at + i];
      normSquared += value * value;
      // floor(x + 0.5), not Math.round: V8's Math.round branches on the fraction, mispredicted about half the
      // time here, which made encoding 4x slower. The two differ only within an ulp of a tie, and any integer
      // code is sound because the bound uses the error measured below, not an assumed one.
      const code = clamp(Math.floor(value / scale + 0.5), CODE_MAX);
      codes[i] = code;
      const error = value - scale * code;
      errorSquared += error * error;
    }
    codes.fill(0, dim);
    this.scales[row] = scale;
    this.errors[row] = Math.sqrt(errorSquared);
    return normSquared;
  }

  /**
   * Installs codes made by encode() and copied out by readCodes(), for rows `rows[i]`: `dim` codes each, with
   * their scales and error norms. The rows must be reserved.
   */
  load(rows: Int32Array, codes: Int8Array, scales: Float64Array, errors: Float64Array): void {
    const dim = this.dim;
    if (codes.length !== rows.length * dim || scales.length !== rows.length || errors.length !== rows.length) throw new Error(`load: ${codes.length} codes and ${scales.length} scales for ${rows.length} rows of ${dim}`);
    this.checkLoaded(rows, scales, errors);
    writeCodes(this.codesTarget(), rows, codes);
    this.adoptScales(rows, scales, errors);
  }

  /** The memory, offsets and capacity another thread writes codes through (writeCodes); valid until a reserve. */
  codesTarget(): CodesTarget {
    return { memory: this.kernel.memory.buffer, codesAt: this.codesAt, strideBytes: this.strideBytes, capacity: this.capacity, dim: this.dim };
  }

  /** load() for rows whose codes were written through codesTarget() already: their scales and error norms. */
  loadWritten(rows: Int32Array, scales: Float64Array, errors: Float64Array): void {
    if (scales.length !== rows.length || errors.length !== rows.length) throw new Error(`loadWritten: ${scales.length} scales and ${errors.length} error norms for ${rows.length} rows`);
    this.checkLoaded(rows, scales, errors);
    this.adoptScales(rows, scales, errors);
  }

  private checkLoaded(rows: Int32Array, scales: Float64Array, errors: Float64Array): void {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (!(row >= 0 && row < this.capacity)) throw new Error(`load: row ${row} is not reserved`);
      // A scale or error norm that is not a finite non-negative number would make every bound of the row wrong.
      if (!(scales[i] >= 0 && scales[i] < Infinity && errors[i] >= 0 && errors[i] < Infinity)) throw new Error(`load: row ${row} has scale ${scales[i]} and error ${errors[i]}`);
    }
  }

  private adoptScales(rows: Int32Array, scales: Float64Array, errors: Float64Array): void {
    for (let i = 0; i < rows.length; i++) {
      this.scales[rows[i]] = scales[i];
      this.errors[rows[i]] = errors[i];
    }
  }

  /** The codes of rows `rows[i]`, joined (`dim` each), with their scales and error norms (what load() takes), in `into` if given. */
  readCodes(rows: Int32Array, into?: { codes: Int8Array; scales: Float64Array; errors: Float64Array }): { codes: Int8Array; scales: Float64Array; errors: Float64Array } {
    const dim = this.dim;
    const { codes, scales, errors } = into ?? { codes: new Int8Array(rows.length * dim), scales: new Float64Array(rows.length), errors: new Float64Array(rows.length) };
    if (codes.length !== rows.length * dim || scales.length !== rows.length || errors.length !== rows.length) throw new Error(`readCodes: room for ${scales.length} codes, ${rows.length} rows asked for`);
    const memory = new Int8Array(this.kernel.memory.buffer);
    for (let i = 0; i < rows.length; i++) {
      const at = this.codesAt + rows[i] * this.strideBytes;
      codes.set(memory.subarray(at, at + dim), i * dim);
      scales[i] = this.scales[rows[i]];
      errors[i] = this.errors[rows[i]];
    }
    return { codes, scales, errors };
  }

  /** Writes the int16 code of a unit query into linear memory. */
  encodeQuery(unit: Float64Array): QueryCode {
    const dim = this.dim;
    let maxAbs = 0;
    for (let i = 0; i < dim; i++) maxAbs = Math.max(maxAbs, Math.abs(unit[i]));
    const scale = maxAbs / this.queryCodeMax;
    const codes = new Int16Array(this.kernel.memory.buffer, 0, this.strideBytes);
    let errorSquared = 0;
    for (let i = 0; i < dim; i++) {
      const code = clamp(Math.round(unit[i] / scale), this.queryCodeMax);
      codes[i] = code;
      errorSquared += (unit[i] - scale * code) ** 2;
    }
    codes.fill(0, dim);
    return { scale, error: Math.sqrt(errorSquared) };
  }

  /** Where gather() reads its row numbers: write up to capacity rows here (valid until the next reserve). */
  gatherRows(): Int32Array {
    return new Int32Array(this.kernel.memory.buffer, this.gatherRowsAt(), this.capacity + GATHER_GROUP);
  }

  /** Integer dots of the last encoded query with the first `count` rows listed in gatherRows(), in that order. */
  gather(count: number): Int32Array {
    const rows = this.gatherRows();
    // The kernel takes rows a group at a time: pad with copies of a listed row (their dots are not returned).
    const padded = Math.ceil(count / GATHER_GROUP) * GATHER_GROUP;
    for (let i = count; i < padded; i++) rows[i] = rows[0];
    this.kernel.gather(0, this.codesAt, this.strideBytes, this.gatherRowsAt(), padded, this.dotsAt());
    return new Int32Array(this.kernel.memory.buffer, this.dotsAt(), count);
  }

  private dotsAt(): number {
    return this.codesAt + this.capacity * this.strideBytes;
  }

  private gatherRowsAt(): number {
    return this.dotsAt() + (this.capacity + GATHER_GROUP) * 4;
  }

  /** Integer dots of the last encoded query with rows [0, rows); valid until the next reserve or scan. */
  scan(rows: number): Int32Array {
    this.kernel.scan(0, this.codesAt, this.strideBytes, rows, this.dotsAt());
    return new Int32Array(this.kernel.memory.buffer, this.dotsAt(), rows);
  }
}

function clamp(code: number, max: number): number {
  return code > max ? max : code < -max ? -max : code;
}

function grow(array: Float64Array, length: number): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(length);
  grown.set(array);
  return grown;
}

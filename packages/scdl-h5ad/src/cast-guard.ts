import { FormatError } from '@binscope/core';
import {
  asNumbers,
  castElements,
  countChanged,
  type DataDtype,
  OUTPUT_TYPE,
  type OutputType,
} from './cast.js';
import { ELEMENT_SIZE, type ElementType } from './h5.js';

/** An element the target dtype cannot hold: where it is in its chunk, its value and why. */
export interface UnfitValue {
  index: number;
  value: number | bigint;
  reason: string;
}

const UNSIGNED_BITS: Partial<Record<OutputType, number>> = { u8: 8, u16: 16, u32: 32, u64: 64 };
/** Largest integer each source type holds, to skip the scan when every value fits. */
const SOURCE_MAX: Partial<Record<ElementType, number>> = {
  bool: 1,
  u8: 2 ** 8 - 1,
  u16: 2 ** 16 - 1,
  u32: 2 ** 32 - 1,
};
/** Finite numbers at or above this round to infinity in binary16 (65504 + half an ulp). */
const FLOAT16_OVERFLOW = 65520;
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * The first element (little-endian `from`) that `to` cannot hold, C10: for an unsigned
 * target NaN, ±inf, a fraction, below 0 or above its maximum; for a float target a finite
 * value that would become infinite. Rounding a float to a narrower float is not refused
 * (upstream warns about it, and so does the converter).
 */
export function firstUnfitValue(
  bytes: Uint8Array,
  from: ElementType,
  to: OutputType,
): UnfitValue | undefined {
  const bits = UNSIGNED_BITS[to];
  if (bits === undefined) return firstOverflow(bytes, from, to);
  const sourceMax = SOURCE_MAX[from];
  if (sourceMax !== undefined && sourceMax <= 2 ** bits - 1) return undefined;
  if (from === 'i64' || from === 'u64') return firstUnfitWide(bytes, from, bits);
  const values = numbers(bytes, from);
  // Exclusive: 2^64 − 1 is not a double, and 2^64 itself does not fit.
  const limit = 2 ** bits;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (x >= 0 && x < limit && Number.isInteger(x)) continue;
    return { index: i, value: x, reason: unsignedReason(x, bits) };
  }
  return undefined;
}

function unsignedReason(x: number, bits: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return 'infinite';
  if (x < 0) return 'below 0';
  if (x >= 2 ** bits) return `above the maximum ${maxOf(bits)}`;
  return 'not a whole number';
}

const maxOf = (bits: number) => (2n ** BigInt(bits) - 1n).toString();

/** 64-bit integer sources, compared exactly through their 32-bit halves. */
function firstUnfitWide(bytes: Uint8Array, from: 'i64' | 'u64', bits: number): UnfitValue | undefined {
  const source = alignedTo(bytes, 8);
  const count = Math.floor(source.byteLength / 8);
  const words = new Uint32Array(source.buffer as ArrayBuffer, source.byteOffset, count * 2);
  const max = 2 ** bits - 1;
  for (let i = 0; i < count; i++) {
    const lo = words[2 * i];
    const hi = words[2 * i + 1];
    const negative = from === 'i64' && hi >= 0x80000000;
    if (!negative && (bits === 64 || (hi === 0 && lo <= max))) continue;
    return {
      index: i,
      value: exactWide(source, from, i),
      reason: negative ? 'below 0' : `above the maximum ${maxOf(bits)}`,
    };
  }
  return undefined;
}

/** Float targets: only a finite value too large for the type is refused. */
function firstOverflow(bytes: Uint8Array, from: ElementType, to: OutputType): UnfitValue | undefined {
  // float64 holds everything; float32 everything but large float64s; float16 overflows
  // only from sources that reach 65520.
  if (to === 'f64' || (to === 'f32' && from !== 'f64')) return undefined;
  if (to === 'f16' && ['bool', 'u8', 'i8', 'i16', 'f16'].includes(from)) return undefined;
  const values = numbers(bytes, from);
  for (let i = 0; i < values.length; i++) {
    const x = Math.abs(values[i]);
    const overflows = to === 'f16' ? x >= FLOAT16_OVERFLOW : x > FLOAT32_MAX && Math.fround(x) === Infinity;
    if (!overflows || x === Infinity) continue;
    return overflowAt(bytes, from, to, i, values[i]);
  }
  return undefined;
}

function overflowAt(
  bytes: Uint8Array,
  from: ElementType,
  to: OutputType,
  i: number,
  value: number,
): UnfitValue {
  return {
    index: i,
    value: from === 'i64' || from === 'u64' ? exactWide(alignedTo(bytes, 8), from, i) : value,
    reason: `too large for ${to === 'f16' ? 'float16' : 'float32'} (it would become infinite)`,
  };
}

function numbers(bytes: Uint8Array, from: ElementType): ArrayLike<number> {
  const size = ELEMENT_SIZE[from];
  return asNumbers(alignedTo(bytes, size), from, Math.floor(bytes.byteLength / size));
}

function exactWide(bytes: Uint8Array, from: 'i64' | 'u64', i: number): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset + 8 * i, 8);
  return from === 'i64' ? view.getBigInt64(0, true) : view.getBigUint64(0, true);
}

function alignedTo(bytes: Uint8Array, size: number): Uint8Array {
  return bytes.byteOffset % size === 0 ? bytes : bytes.slice();
}

/**
 * Refuses a chunk holding a value the data dtype cannot hold (C10), naming row, column and
 * value. `inspect` runs while the source bytes are alive, `check` once the chunk's row
 * pointers and column indices are known (the streamers produce them in that order).
 */
export class CastGuard {
  private pending: (UnfitValue & { firstRow: number }) | undefined;

  constructor(
    private readonly file: string,
    private readonly where: string,
    private readonly dtype: DataDtype,
  ) {}

  private inspect(data: Uint8Array, from: ElementType, firstRow: number): void {
    const unfit = firstUnfitValue(data, from, OUTPUT_TYPE[this.dtype]);
    this.pending = unfit && { ...unfit, firstRow };
  }

  /**
   * `inspect`, the cast (castElements) and the count of values it changed (countChanged) with
   * one pass over the values fewer: an unsigned target's scan proves a chunk that passes cast
   * exactly (nothing to count), and a float target overflows where the count finds a finite
   * value made infinite. So the guard costs next to nothing beside the unguarded cast and count.
   */
  castChunk(
    data: Uint8Array,
    from: ElementType,
    firstRow: number,
    tolerance: number,
    into?: ArrayBuffer,
  ): { cast: Uint8Array; changed: number } {
    const to = OUTPUT_TYPE[this.dtype];
    if (UNSIGNED_BITS[to] !== undefined) {
      // A chunk that fails is refused (check), so its count would never be reported.
      this.inspect(data, from, firstRow);
      return { cast: castElements(data, from, to, into), changed: 0 };
    }
    const cast = castElements(data, from, to, into);
    const found = { firstOverflow: -1 };
    const changed = from === to ? 0 : countChanged(data, from, cast, to, tolerance, found);
    const i = found.firstOverflow;
    this.pending = i < 0 ? undefined : { ...overflowAt(data, from, to, i, numbers(data, from)[i]), firstRow };
    return { cast, changed };
  }

  /** `indptr`: the chunk's row pointers (its first entry is the chunk's first element). */
  check(indptr: ArrayLike<number>, indices: ArrayLike<number | bigint>): void {
    const unfit = this.pending;
    if (!unfit) return;
    this.pending = undefined;
    let row = 0;
    while (row + 1 < indptr.length - 1 && indptr[row + 1] - indptr[0] <= unfit.index) row++;
    const value = typeof unfit.value === 'bigint' ? unfit.value.toString() : String(unfit.value);
    throw new FormatError(
      'InvalidValue',
      `${this.where}: row ${unfit.firstRow + row}, column ${indices[unfit.index]}: value ${value} cannot be ` +
        `stored as ${this.dtype} (${unfit.reason}); upstream would write whatever the platform's cast ` +
        'gives. Pass lossyCast: true (CLI: --lossy-cast) to cast as numpy does anyway',
      { file: this.file, format: 'h5ad' },
    );
  }
}

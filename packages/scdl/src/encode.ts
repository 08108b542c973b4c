import { type FormatError, formatErrors } from '@binscope/core';
import { encodeFloat16, maxUnsigned, numberToFloat16 } from '@binscope/core/binary';
import { FORMAT, ITEM_SIZE } from './header.js';
import type {
  FeatureBlock,
  IntegerArrayLike,
  NumericArrayLike,
  ScdlDataDType,
  ScdlIndexDType,
} from './write-types.js';

const fail = formatErrors(FORMAT);

/** The smallest unsigned dtype holding `max`, as upstream picks for row_ptr (nnz) and col_ptr (n_cols − 1) (C10). */
export function smallestUnsignedDType(max: number): ScdlIndexDType {
  if (max <= 0xff) return 'uint8';
  if (max <= 0xffff) return 'uint16';
  if (max <= 0xffffffff) return 'uint32';
  return 'uint64';
}

export function writerError(
  code: 'InvalidValue' | 'CountMismatch' | 'OutOfBounds',
  message: string,
): FormatError {
  return fail(code, message);
}

export function toNumber(v: number | bigint): number {
  return typeof v === 'bigint' ? Number(v) : v;
}

/**
 * Checks every column index is an integer in [0, numCols) (any non-negative integer when
 * numCols is unknown) and returns the largest, or −1 when there are none. Integer typed
 * arrays are scanned once as unsigned (a negative signed value reads as ≥ 2^(bits−1)), and
 * not at all when their type cannot exceed numCols; then the type's largest value, still
 * below numCols, is returned as the bound.
 */
export function checkIndices(
  indices: IntegerArrayLike,
  numCols: number | undefined,
  firstRow: number,
): number {
  const limit = numCols ?? Number.POSITIVE_INFINITY;
  if (indices.length === 0) return -1;
  const unsigned = unsignedView(indices);
  if (unsigned) {
    const { view, typeMax, signed } = unsigned;
    if (!signed && numCols !== undefined && typeMax < numCols) return typeMax;
    const max = maxUnsigned(view);
    // A signed value read as unsigned is negative from 2^(bits−1) on.
    const bound = signed ? Math.min(limit, (typeMax + 1) / 2) : limit;
    if (max < bound) return max;
    throw badIndex(firstBad(indices as ArrayLike<number>, limit), numCols, firstRow);
  }
  let max = -1;
  if (indices instanceof BigInt64Array || indices instanceof BigUint64Array) {
    for (let i = 0; i < indices.length; i++) {
      const v = Number(indices[i]);
      if (!(v >= 0 && v < limit)) throw badIndex(v, numCols, firstRow);
      if (v > max) max = v;
    }
    return max;
  }
  const arr = indices as ArrayLike<number>;
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    if (!(v >= 0 && v < limit && Math.floor(v) === v)) throw badIndex(v, numCols, firstRow);
    if (v > max) max = v;
  }
  return max;
}

/** Integer typed arrays as an unsigned view of the same bytes. */
export function unsignedView(
  a: IntegerArrayLike,
): { view: Uint8Array | Uint16Array | Uint32Array; typeMax: number; signed: boolean } | undefined {
  if (a instanceof Uint16Array) return { view: a, typeMax: 0xffff, signed: false };
  if (a instanceof Uint32Array) return { view: a, typeMax: 0xffffffff, signed: false };
  if (a instanceof Uint8Array) return { view: a, typeMax: 0xff, signed: false };
  if (a instanceof Int32Array)
    return { view: new Uint32Array(a.buffer, a.byteOffset, a.length), typeMax: 0xffffffff, signed: true };
  if (a instanceof Int16Array)
    return { view: new Uint16Array(a.buffer, a.byteOffset, a.length), typeMax: 0xffff, signed: true };
  if (a instanceof Int8Array)
    return { view: new Uint8Array(a.buffer, a.byteOffset, a.length), typeMax: 0xff, signed: true };
  return undefined;
}

export function firstBad(a: ArrayLike<number>, limit: number): number {
  for (let i = 0; i < a.length; i++) if (!(a[i] >= 0 && a[i] < limit)) return a[i];
  return Number.NaN;
}

/** A caller's `maxIndex`: an integer index below numCols (−1 only for an empty chunk). */
export function checkMaxIndex(
  max: number,
  nnz: number,
  numCols: number | undefined,
  firstRow: number,
): number {
  const limit = numCols ?? Number.POSITIVE_INFINITY;
  if (nnz === 0 && max === -1) return -1;
  if (!(Number.isSafeInteger(max) && max >= 0 && max < limit)) throw badIndex(max, numCols, firstRow);
  return max;
}

export function badIndex(v: number, numCols: number | undefined, firstRow: number): FormatError {
  return writerError(
    'OutOfBounds',
    `column index ${v} (in the chunk starting at row ${firstRow}) is not an integer in [0, ${numCols ?? '∞'})`,
  );
}

const UNSIGNED_CTOR = {
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
} as const;

export function bytesOf(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** Validated non-negative integers → little-endian bytes of an unsigned dtype. */
export function encodeUnsigned(values: IntegerArrayLike | Float64Array, dtype: ScdlIndexDType): Uint8Array {
  const n = values.length;
  if (dtype === 'uint64') {
    const out = new BigUint64Array(n);
    if (values instanceof BigInt64Array || values instanceof BigUint64Array) out.set(values);
    else {
      const view = new DataView(out.buffer);
      const arr = values as ArrayLike<number>;
      for (let i = 0; i < n; i++) {
        const v = arr[i];
        view.setUint32(i * 8, v % 0x100000000, true);
        view.setUint32(i * 8 + 4, Math.floor(v / 0x100000000), true);
      }
    }
    return bytesOf(out);
  }
  const Ctor = UNSIGNED_CTOR[dtype];
  if (values instanceof Ctor) return bytesOf(values);
  const out = new Ctor(n);
  if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
    for (let i = 0; i < n; i++) out[i] = Number(values[i]);
  } else out.set(values as ArrayLike<number>);
  return bytesOf(out);
}

/**
 * Values → little-endian bytes of the data dtype, cast like numpy's astype: floats round to
 * nearest (even), float → unsigned truncates toward zero and wraps modulo 2^bits, NaN → 0.
 */
export function encodeData(values: NumericArrayLike, dtype: ScdlDataDType): Uint8Array {
  const n = values.length;
  const isBig = values instanceof BigInt64Array || values instanceof BigUint64Array;
  switch (dtype) {
    case 'float32':
    case 'float64': {
      const Ctor = dtype === 'float32' ? Float32Array : Float64Array;
      if (values instanceof Ctor) return bytesOf(values);
      const out = new Ctor(n);
      if (isBig) for (let i = 0; i < n; i++) out[i] = Number(values[i]);
      else out.set(values as ArrayLike<number>);
      return bytesOf(out);
    }
    case 'float16': {
      const out = new Uint16Array(n);
      if (isBig) for (let i = 0; i < n; i++) out[i] = numberToFloat16(Number(values[i]));
      else encodeFloat16(values as ArrayLike<number>, out);
      return bytesOf(out);
    }
    case 'uint64': {
      const out = new BigUint64Array(n);
      if (isBig) out.set(values as BigInt64Array);
      else {
        const arr = values as ArrayLike<number>;
        for (let i = 0; i < n; i++) {
          const v = Math.trunc(arr[i]);
          out[i] = Number.isFinite(v) ? BigInt.asUintN(64, BigInt(v)) : 0n;
        }
      }
      return bytesOf(out);
    }
    default: {
      const Ctor = UNSIGNED_CTOR[dtype];
      if (values instanceof Ctor) return bytesOf(values);
      const out = new Ctor(n);
      if (isBig) {
        const bits = BigInt(ITEM_SIZE[dtype] * 8);
        for (let i = 0; i < n; i++) out[i] = Number(BigInt.asUintN(Number(bits), values[i] as bigint));
      } else out.set(values as ArrayLike<number>); // ToUint8/16/32: truncate, wrap, NaN → 0
      return bytesOf(out);
    }
  }
}

export function blockLength(block: FeatureBlock): number {
  let n: number | undefined;
  for (const column of block.columns) {
    if (n !== undefined && column.values.length !== n) {
      throw writerError(
        'CountMismatch',
        `feature block "${block.label}": column "${column.name}" has ${column.values.length} values, others ${n}`,
      );
    }
    n = column.values.length;
  }
  return n ?? 0;
}

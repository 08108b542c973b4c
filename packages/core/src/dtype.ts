import { float16ToNumber } from './cursor.js';

/** Element types shared by the array-bearing formats (SCDL, UDF, MLDF NDARRAY). */
export type DType = 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'u64' | 'i64' | 'f16' | 'f32' | 'f64';

export type NumericArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | BigUint64Array
  | BigInt64Array
  | Float32Array
  | Float64Array;

export const DTYPE_SIZE: Record<DType, number> = {
  u8: 1,
  i8: 1,
  u16: 2,
  i16: 2,
  u32: 4,
  i32: 4,
  u64: 8,
  i64: 8,
  f16: 2,
  f32: 4,
  f64: 8,
};

/** The typed array of each dtype that has one (f16 has none: it decodes to Float32Array). */
export const TYPED_ARRAY = {
  u8: Uint8Array,
  i8: Int8Array,
  u16: Uint16Array,
  i16: Int16Array,
  u32: Uint32Array,
  i32: Int32Array,
  u64: BigUint64Array,
  i64: BigInt64Array,
  f32: Float32Array,
  f64: Float64Array,
} as const;

const hostLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Bytes → typed array of `dtype`. Zero-copy when the bytes are aligned and already in host
 * order; otherwise one copy (and a byte swap for big-endian). f16 decodes to Float32Array.
 * The caller checked the byte length against the file before reading (A4).
 */
export function toTypedArray(bytes: Uint8Array, dtype: DType, littleEndian = true): NumericArray {
  const size = DTYPE_SIZE[dtype];
  const count = Math.floor(bytes.byteLength / size);
  if (dtype === 'f16') {
    const out = new Float32Array(count);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < count; i++) out[i] = float16ToNumber(view.getUint16(i * 2, littleEndian));
    return out;
  }
  const Ctor = TYPED_ARRAY[dtype];
  if (size === 1) return new Ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset, count) as NumericArray;
  if (littleEndian === hostLittleEndian) {
    if (bytes.byteOffset % size === 0)
      return new Ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset, count) as NumericArray;
    const copy = bytes.slice(0, count * size);
    return new Ctor(copy.buffer, 0, count) as NumericArray;
  }
  const swapped = new Uint8Array(count * size);
  for (let i = 0; i < count * size; i += size) {
    for (let k = 0; k < size; k++) swapped[i + k] = bytes[i + size - 1 - k];
  }
  return new Ctor(swapped.buffer, 0, count) as NumericArray;
}

/** A typed array's bytes in little-endian order (what every format here stores). */
export function typedArrayBytes(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * The largest element. One copy of the loop per element type keeps each monomorphic (a
 * shared one runs ~1.5x slower); four lanes let the CPU overlap the compares.
 */
export function maxUnsigned(a: Uint8Array | Uint16Array | Uint32Array): number {
  return a instanceof Uint32Array ? maxUint32(a) : a instanceof Uint16Array ? maxUint16(a) : maxUint8(a);
}

function maxUint32(a: Uint32Array): number {
  let m0 = 0;
  let m1 = 0;
  let m2 = 0;
  let m3 = 0;
  const n = a.length - (a.length % 4);
  for (let i = 0; i < n; i += 4) {
    const v0 = a[i];
    const v1 = a[i + 1];
    const v2 = a[i + 2];
    const v3 = a[i + 3];
    if (v0 > m0) m0 = v0;
    if (v1 > m1) m1 = v1;
    if (v2 > m2) m2 = v2;
    if (v3 > m3) m3 = v3;
  }
  for (let i = n; i < a.length; i++) if (a[i] > m0) m0 = a[i];
  return Math.max(m0, m1, m2, m3);
}

function maxUint16(a: Uint16Array): number {
  let m0 = 0;
  let m1 = 0;
  let m2 = 0;
  let m3 = 0;
  const n = a.length - (a.length % 4);
  for (let i = 0; i < n; i += 4) {
    const v0 = a[i];
    const v1 = a[i + 1];
    const v2 = a[i + 2];
    const v3 = a[i + 3];
    if (v0 > m0) m0 = v0;
    if (v1 > m1) m1 = v1;
    if (v2 > m2) m2 = v2;
    if (v3 > m3) m3 = v3;
  }
  for (let i = n; i < a.length; i++) if (a[i] > m0) m0 = a[i];
  return Math.max(m0, m1, m2, m3);
}

function maxUint8(a: Uint8Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) if (a[i] > m) m = a[i];
  return m;
}

import { float16ToNumber, numberToFloat16 } from '@binscope/core/binary';
import type { ElementType } from './h5.js';

/** The data dtypes upstream accepts for `data.npy` (numpy names, as its CLI takes them). */
export const DATA_DTYPES = ['float32', 'float16', 'float64', 'uint8', 'uint16', 'uint32', 'uint64'] as const;
export type DataDtype = (typeof DATA_DTYPES)[number];

export type OutputType = 'u8' | 'u16' | 'u32' | 'u64' | 'f16' | 'f32' | 'f64';

export const OUTPUT_TYPE: Record<DataDtype, OutputType> = {
  float32: 'f32',
  float16: 'f16',
  float64: 'f64',
  uint8: 'u8',
  uint16: 'u16',
  uint32: 'u32',
  uint64: 'u64',
};

export const OUTPUT_SIZE: Record<OutputType, number> = {
  u8: 1,
  u16: 2,
  u32: 4,
  u64: 8,
  f16: 2,
  f32: 4,
  f64: 8,
};

const TWO_32 = 4294967296;
const TWO_63 = 2 ** 63;
const TWO_64 = 2 ** 64;

/**
 * Elements as JS numbers (or a typed array that converts to them exactly). 64-bit integers
 * are combined from their 32-bit halves, which rounds once, like numpy's int64 → float64.
 */
export function asNumbers(bytes: Uint8Array, from: ElementType, count: number): ArrayLike<number> {
  const buffer = bytes.buffer as ArrayBuffer;
  const at = bytes.byteOffset;
  switch (from) {
    case 'u8':
    case 'bool':
      return new Uint8Array(buffer, at, count);
    case 'i8':
      return new Int8Array(buffer, at, count);
    case 'u16':
      return new Uint16Array(buffer, at, count);
    case 'i16':
      return new Int16Array(buffer, at, count);
    case 'u32':
      return new Uint32Array(buffer, at, count);
    case 'i32':
      return new Int32Array(buffer, at, count);
    case 'f32':
      return new Float32Array(buffer, at, count);
    case 'f64':
      return new Float64Array(buffer, at, count);
    case 'f16': {
      const halves = new Uint16Array(buffer, at, count);
      const out = new Float32Array(count);
      for (let i = 0; i < count; i++) out[i] = float16ToNumber(halves[i]);
      return out;
    }
    case 'u64':
    case 'i64': {
      const words = new Uint32Array(buffer, at, count * 2);
      const out = new Float64Array(count);
      const signed = from === 'i64';
      for (let i = 0; i < count; i++) {
        const hi = words[2 * i + 1];
        out[i] = (signed ? hi | 0 : hi) * TWO_32 + words[2 * i];
      }
      return out;
    }
  }
}

/** A copy aligned for typed-array views when the bytes are not (rare: views into odd offsets). */
function aligned(bytes: Uint8Array, size: number): Uint8Array {
  return bytes.byteOffset % size === 0 ? bytes : bytes.slice();
}

const isFloat = (t: ElementType) => t === 'f16' || t === 'f32' || t === 'f64';
const isSigned = (t: ElementType) => t === 'i8' || t === 'i16' || t === 'i32' || t === 'i64';

/**
 * Casts little-endian elements to `to`, each on its own as numpy's scalar cast loop does on
 * x86-64 (the platform upstream runs on): floats round to nearest even; float → unsigned
 * truncates toward zero and wraps like C's conversion through a 32-bit (u8, u16) or 64-bit
 * (u32) register, NaN and out-of-range values giving 0 (2^63 for u64); integer → unsigned
 * wraps modulo 2^bits. numpy's vectorised float → u32 loop differs for values u32 cannot hold
 * (README, "Casts"); following it would make a value's result depend on its array's length.
 */
export function castElements(
  bytes: Uint8Array,
  from: ElementType,
  to: OutputType,
  into?: ArrayBuffer,
): Uint8Array {
  const fromSize = from === 'bool' ? 1 : sizeOf(from);
  const count = Math.floor(bytes.byteLength / fromSize);
  const src = aligned(bytes, fromSize);
  const outBytes = count * OUTPUT_SIZE[to];
  // The result never aliases `bytes` (they may be a view into wasm memory that dies next).
  const out =
    into && into.byteLength >= outBytes ? new Uint8Array(into, 0, outBytes) : new Uint8Array(outBytes);
  if (sameLayout(from, to)) {
    out.set(src.subarray(0, outBytes));
    return out;
  }
  const outBuffer = out.buffer as ArrayBuffer;
  switch (to) {
    case 'f32':
    case 'f64': {
      const target =
        to === 'f32' ? new Float32Array(outBuffer, 0, count) : new Float64Array(outBuffer, 0, count);
      target.set(asNumbers(src, from, count));
      return out;
    }
    case 'f16': {
      const target = new Uint16Array(outBuffer, 0, count);
      const values = asNumbers(src, from, count);
      for (let i = 0; i < count; i++) target[i] = numberToFloat16(values[i]);
      return out;
    }
    case 'u8':
    case 'u16':
    case 'u32': {
      const target =
        to === 'u8'
          ? new Uint8Array(outBuffer, 0, count)
          : to === 'u16'
            ? new Uint16Array(outBuffer, 0, count)
            : new Uint32Array(outBuffer, 0, count);
      if (from === 'i64' || from === 'u64') {
        // Integer narrowing keeps the low bits: the low 32-bit word of each element.
        const words = new Uint32Array(src.buffer as ArrayBuffer, src.byteOffset, count * 2);
        for (let i = 0; i < count; i++) target[i] = words[2 * i];
        return out;
      }
      const values = asNumbers(src, from, count);
      if (!isFloat(from)) {
        // Typed-array stores wrap integers modulo 2^bits, as a C cast does.
        target.set(values);
        return out;
      }
      if (to === 'u32') {
        for (let i = 0; i < count; i++) {
          const x = values[i];
          // cvttsd2si to 64 bits, keep the low 32; NaN and |x| ≥ 2^63 give 0.
          target[i] = x > -TWO_63 - 1 && x < TWO_63 ? x : 0;
        }
      } else {
        for (let i = 0; i < count; i++) {
          const x = values[i];
          // cvttsd2si to 32 bits, keep the low 8/16; NaN and out-of-range give 0.
          target[i] = x > -2147483649 && x < 2147483648 ? x : 0;
        }
      }
      return out;
    }
    case 'u64': {
      const words = new Uint32Array(outBuffer, 0, count * 2);
      if (!isFloat(from)) {
        const values = asNumbers(src, from, count);
        const signed = isSigned(from);
        for (let i = 0; i < count; i++) {
          const v = values[i];
          words[2 * i] = v >>> 0;
          words[2 * i + 1] = signed && v < 0 ? 0xffffffff : 0;
        }
        return out;
      }
      const values = asNumbers(src, from, count);
      for (let i = 0; i < count; i++) floatToU64(values[i], words, 2 * i);
      return out;
    }
  }
}

function sizeOf(t: ElementType): number {
  return t === 'u8' || t === 'i8' || t === 'bool'
    ? 1
    : t === 'u16' || t === 'i16' || t === 'f16'
      ? 2
      : t === 'u32' || t === 'i32' || t === 'f32'
        ? 4
        : 8;
}

function sameLayout(from: ElementType, to: OutputType): boolean {
  return from === to || (from === 'bool' && to === 'u8') || (from === 'i64' && to === 'u64');
}

/** x86-64 double → uint64 as gcc compiles it (numpy's cast): see castElements. */
function floatToU64(x: number, words: Uint32Array, at: number): void {
  let t: number;
  if (x >= TWO_63) {
    if (x >= TWO_64) {
      words[at] = 0;
      words[at + 1] = 0;
      return;
    }
    t = x;
  } else if (x >= -TWO_63) {
    t = Math.trunc(x);
  } else {
    // NaN, -Infinity, below -2^63: the "integer indefinite" value 2^63.
    words[at] = 0;
    words[at + 1] = 0x80000000;
    return;
  }
  const hi = Math.floor(t / TWO_32);
  words[at] = t - hi * TWO_32;
  words[at + 1] = hi;
}

/**
 * How many elements the cast changed by more than `tolerance` (upstream warns when the cast
 * data is not `allclose` to the source). Integer widenings and float32 → float32 never change.
 */
export function countChanged(
  source: Uint8Array,
  from: ElementType,
  cast: Uint8Array,
  to: OutputType,
  tolerance: number,
  /** When given, its `firstOverflow` is set to the first finite value the cast made infinite (else -1). */
  found?: { firstOverflow: number },
): number {
  if (found) found.firstOverflow = -1;
  if (losslessCast(from, to)) return 0;
  const count = Math.floor(cast.byteLength / OUTPUT_SIZE[to]);
  const before = asNumbers(aligned(source, from === 'bool' ? 1 : sizeOf(from)), from, count);
  const after = asNumbers(cast, to === 'f16' ? 'f16' : (to as ElementType), count);
  let changed = 0;
  for (let i = 0; i < count; i++) {
    const a = before[i];
    const b = after[i];
    if (a === b || (Number.isNaN(a) && Number.isNaN(b))) continue;
    // Only values the cast moved can have overflowed (whatever the tolerance), so looking here
    // costs the guard next to nothing.
    if (found && found.firstOverflow < 0 && !Number.isFinite(b) && Number.isFinite(a))
      found.firstOverflow = i;
    if (!(Math.abs(a - b) <= tolerance)) changed++;
  }
  return changed;
}

function losslessCast(from: ElementType, to: OutputType): boolean {
  if (from === to) return true;
  const rank: Partial<Record<ElementType, number>> = { bool: 0, u8: 1, u16: 2, u32: 3, u64: 4 };
  if (to === 'f64') return from !== 'i64' && from !== 'u64';
  if (to === 'f32') return ['bool', 'u8', 'i8', 'u16', 'i16', 'f16'].includes(from);
  if (to === 'f16') return ['bool', 'u8', 'i8'].includes(from);
  const r = rank[from];
  const target = rank[to as ElementType];
  return r !== undefined && target !== undefined && r <= target;
}

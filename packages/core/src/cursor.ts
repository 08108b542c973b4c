import { type ErrorCode, FormatError } from './errors.js';

export interface CursorOptions {
  /** Absolute file offset of bytes[0], so errors name real file positions. */
  base?: number;
  littleEndian?: boolean;
  file?: string;
  format?: string;
}

const TWO_32 = 2 ** 32;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Bounds-checked reads over one buffer. Running off the end throws `Truncated` at the
 * absolute offset, never a raw RangeError. 64-bit integers: `u64()`/`i64()` give bigint;
 * `u64Number()` gives a number and throws `OutOfBounds` above 2^53, which suits offsets and
 * sizes (no real file is that large).
 */
export class Cursor {
  readonly view: DataView;
  readonly base: number;
  littleEndian: boolean;
  readonly file: string | undefined;
  readonly format: string | undefined;
  /** Position relative to the start of `bytes`. */
  pos = 0;

  constructor(
    readonly bytes: Uint8Array,
    options: CursorOptions = {},
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.base = options.base ?? 0;
    this.littleEndian = options.littleEndian ?? true;
    this.file = options.file;
    this.format = options.format;
  }

  get length(): number {
    return this.bytes.byteLength;
  }
  get remaining(): number {
    return this.bytes.byteLength - this.pos;
  }
  /** Absolute file offset of the current position. */
  get offset(): number {
    return this.base + this.pos;
  }

  /** Moves to an absolute file offset inside this buffer. */
  seek(absolute: number): this {
    const rel = absolute - this.base;
    if (rel < 0 || rel > this.bytes.byteLength) {
      throw this.error('OutOfBounds', `offset ${absolute} lies outside the buffer`, absolute);
    }
    this.pos = rel;
    return this;
  }

  skip(n: number, what = 'data'): this {
    this.need(n, what);
    this.pos += n;
    return this;
  }

  error(code: ErrorCode, message: string, offset = this.offset): FormatError {
    return new FormatError(code, message, { offset, file: this.file, format: this.format });
  }

  /** Throws Truncated unless n more bytes exist. */
  need(n: number, what = 'data'): void {
    if (n < 0 || this.pos + n > this.bytes.byteLength) {
      throw this.error(
        'Truncated',
        `${what} needs ${n} bytes at offset ${this.offset} but only ${Math.max(0, this.remaining)} remain`,
      );
    }
  }

  u8(what?: string): number {
    this.need(1, what);
    return this.bytes[this.pos++];
  }
  i8(what?: string): number {
    this.need(1, what);
    return this.view.getInt8(this.pos++);
  }
  u16(what?: string): number {
    this.need(2, what);
    const v = this.view.getUint16(this.pos, this.littleEndian);
    this.pos += 2;
    return v;
  }
  i16(what?: string): number {
    this.need(2, what);
    const v = this.view.getInt16(this.pos, this.littleEndian);
    this.pos += 2;
    return v;
  }
  u32(what?: string): number {
    this.need(4, what);
    const v = this.view.getUint32(this.pos, this.littleEndian);
    this.pos += 4;
    return v;
  }
  i32(what?: string): number {
    this.need(4, what);
    const v = this.view.getInt32(this.pos, this.littleEndian);
    this.pos += 4;
    return v;
  }
  u64(what?: string): bigint {
    this.need(8, what);
    const v = this.view.getBigUint64(this.pos, this.littleEndian);
    this.pos += 8;
    return v;
  }
  i64(what?: string): bigint {
    this.need(8, what);
    const v = this.view.getBigInt64(this.pos, this.littleEndian);
    this.pos += 8;
    return v;
  }
  /** An unsigned 64-bit offset/size/count as a number; above 2^53 it cannot be in any file. */
  u64Number(what = 'value'): number {
    this.need(8, what);
    const at = this.offset;
    const v = readU64(this.view, this.pos, this.littleEndian);
    this.pos += 8;
    if (!Number.isSafeInteger(v))
      throw this.error(
        'OutOfBounds',
        `${what} ${readU64Big(this.view, at - this.base, this.littleEndian)} is beyond any file size`,
        at,
      );
    return v;
  }
  f16(what?: string): number {
    return float16ToNumber(this.u16(what));
  }
  f32(what?: string): number {
    this.need(4, what);
    const v = this.view.getFloat32(this.pos, this.littleEndian);
    this.pos += 4;
    return v;
  }
  f64(what?: string): number {
    this.need(8, what);
    const v = this.view.getFloat64(this.pos, this.littleEndian);
    this.pos += 8;
    return v;
  }
  /** A view of the next n bytes (not a copy). */
  bytesView(n: number, what?: string): Uint8Array {
    this.need(n, what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  /** A fixed-width field read as Latin-1 text, cut at the first NUL (magic strings, dtype codes). */
  fixedString(n: number, what?: string): string {
    const raw = this.bytesView(n, what);
    let end = raw.indexOf(0);
    if (end < 0) end = raw.byteLength;
    let out = '';
    for (let i = 0; i < end; i++) out += String.fromCharCode(raw[i]);
    return out;
  }
  /** n bytes of strict UTF-8; bad UTF-8 is InvalidValue at its offset. */
  utf8(n: number, what = 'text'): string {
    const at = this.offset;
    return decodeUtf8(this.bytesView(n, what), { offset: at, file: this.file, format: this.format, what });
  }
}

/** An unsigned 64-bit value as a double; exact up to 2^53. Two getUint32 calls beat getBigUint64 in hot loops. */
export function readU64(view: DataView, pos: number, littleEndian = true): number {
  const lo = view.getUint32(pos + (littleEndian ? 0 : 4), littleEndian);
  const hi = view.getUint32(pos + (littleEndian ? 4 : 0), littleEndian);
  return hi * TWO_32 + lo;
}

export function readU64Big(view: DataView, pos: number, littleEndian = true): bigint {
  return view.getBigUint64(pos, littleEndian);
}

/**
 * An unsigned 64-bit value as people should see it: a number while exact (up to 2^53), else
 * a bigint, so messages and displays print its exact decimal (2^53 + 1 as 9007199254740993,
 * not the nearest double 9007199254740992).
 */
export function readU64Exact(view: DataView, pos: number, littleEndian = true): number | bigint {
  const value = readU64(view, pos, littleEndian);
  return Number.isSafeInteger(value) ? value : view.getBigUint64(pos, littleEndian);
}

export function decodeUtf8(
  bytes: Uint8Array,
  location: { offset?: number; file?: string; format?: string; what?: string } = {},
): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new FormatError('InvalidValue', `${location.what ?? 'text'} is not valid UTF-8`, location);
  }
}

const exponentScale = new Float64Array(64);
for (let e = 0; e < 64; e++) exponentScale[e] = 2 ** (e - 25);

/** IEEE 754 binary16 bits → number. */
export function float16ToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1024 + fraction) * exponentScale[exponent];
}

const f32Scratch = new Float32Array(1);
const f32Bits = new Uint32Array(f32Scratch.buffer);

/**
 * number → nearest IEEE 754 binary16 bits, round half to even, NaN payloads kept: the bits
 * numpy's astype(float16) gives. A value float32 holds exactly rounds from its float32 bits
 * (integer work, no allocation: writers call this per element); any other value rounds once
 * from the double, since going through float32 first would round twice.
 */
export function numberToFloat16(value: number): number {
  f32Scratch[0] = value;
  if (f32Scratch[0] !== value && !Number.isNaN(value)) return float16FromDouble(value);
  const x = f32Bits[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) {
    if (mant === 0) return sign | 0x7c00;
    const nan = 0x7c00 + (mant >>> 13);
    return sign | (nan === 0x7c00 ? 0x7c01 : nan);
  }
  const halfExp = exp - 112; // rebias 127 → 15
  if (halfExp >= 31) return sign | 0x7c00;
  if (halfExp <= 0) {
    if (halfExp < -10) return sign;
    const m = mant | 0x800000;
    const shift = 14 - halfExp;
    let q = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rest > half || (rest === half && q & 1)) q++;
    return sign | q;
  }
  let q = (halfExp << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && q & 1)) q++;
  return sign | q; // a carry into the exponent is right, up to infinity
}

/** numberToFloat16 over an array, into `out` (which must hold values.length elements). */
export function encodeFloat16(values: ArrayLike<number>, out: Uint16Array): void {
  for (let i = 0; i < values.length; i++) out[i] = numberToFloat16(values[i]);
}

/** The rounding of a finite or infinite double float32 cannot hold exactly, from the double. */
export function float16FromDouble(value: number): number {
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const abs = Math.abs(value);
  if (abs >= 65520) return sign | 0x7c00;
  if (abs <= 2 ** -25) return sign; // halfway to the smallest subnormal rounds to even (zero)
  let e = Math.floor(Math.log2(abs));
  if (2 ** e > abs) e--;
  if (2 ** (e + 1) <= abs) e++;
  if (e < -14) return sign | roundHalfEven(abs / 2 ** -24);
  let mant = roundHalfEven((abs / 2 ** e - 1) * 1024);
  let biased = e + 15;
  if (mant === 1024) {
    mant = 0;
    biased++;
  }
  if (biased >= 31) return sign | 0x7c00;
  return sign | (biased << 10) | mant;
}

function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

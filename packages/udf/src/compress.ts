import type { ErrorCode } from '@binscope/core';
import type { Prim } from './types.js';

/**
 * The compression schemes of the `udf` crate (U12): compress_info values from its `format`
 * module and the byte streams of its `compress` module (SimpleU16, SimpleU32, SimpleF32).
 * The crate names SIMPLE_U64 (18) and SIMPLE_F64 (20) but has no algorithm for them, so
 * no file can hold them: they are UnsupportedFeature like any other unknown value.
 *
 * All three are one opcode family: a byte stream of opcodes that each emit values, tracking
 * the last value (deltas are relative to it, a run that is not of maximum length bumps it by
 * one so counting sequences compress) and a 64-entry table of recently seen values indexed by
 * a hash of the value. SimpleF32 is SimpleU32 over `round(x / unit)` as i32, behind a 4-byte
 * f32 `unit` header.
 */
export const COMPRESS_NONE = 0;

export interface CompressScheme {
  id: number;
  name: string;
  /** Primitives whose bytes the decoded values are (the crate never checks; we do). */
  prims: readonly Prim[];
  /** Bytes before the first opcode. */
  headerBytes: number;
  /** The most values one stream byte can produce (a maximal run), bounding any allocation (A4). */
  maxValuesPerByte: number;
}

export const SIMPLE_U16: CompressScheme = {
  id: 16,
  name: 'SimpleU16',
  prims: ['u16', 'i16'],
  headerBytes: 0,
  maxValuesPerByte: 32,
};
export const SIMPLE_U32: CompressScheme = {
  id: 17,
  name: 'SimpleU32',
  prims: ['u32', 'i32', 'f32'],
  headerBytes: 0,
  maxValuesPerByte: 16,
};
export const SIMPLE_F32: CompressScheme = {
  id: 19,
  name: 'SimpleF32',
  prims: ['f32'],
  headerBytes: 4,
  maxValuesPerByte: 16,
};

const SCHEMES = new Map<number, CompressScheme>([
  [SIMPLE_U16.id, SIMPLE_U16],
  [SIMPLE_U32.id, SIMPLE_U32],
  [SIMPLE_F32.id, SIMPLE_F32],
]);

/** Names the crate defines without an algorithm. */
const NAMED_ONLY: Record<number, string> = { 18: 'SIMPLE_U64', 20: 'SIMPLE_F64' };

export function compressScheme(id: number): CompressScheme | undefined {
  return SCHEMES.get(id);
}

export interface CompressProblem {
  code: ErrorCode;
  message: string;
}

/** The descriptor-time check of compress_info against the table's primitive. */
export function compressInfoProblem(compressInfo: number, prim: Prim): CompressProblem | undefined {
  if (compressInfo === COMPRESS_NONE) return undefined;
  const scheme = SCHEMES.get(compressInfo);
  if (!scheme) {
    const named = NAMED_ONLY[compressInfo];
    return {
      code: 'UnsupportedFeature',
      message: named
        ? `compress_info ${compressInfo} (${named}) is named by the udf crate but has no algorithm there`
        : `compress_info ${compressInfo} is not a scheme of the udf crate (0 none, 16 SimpleU16, 17 SimpleU32, 19 SimpleF32)`,
    };
  }
  if (!scheme.prims.includes(prim)) {
    return {
      code: 'InvalidValue',
      message: `compress_info ${compressInfo} (${scheme.name}) decodes ${scheme.prims.join('/')} values, not ${prim}`,
    };
  }
  return undefined;
}

export type Decoded =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; code: ErrorCode; message: string /** offset in the stream */; at: number };

/**
 * Decodes a stream into exactly `count` values of `scheme` and returns their bytes (U12: the
 * decoded size is checked against the declared shape). `count` must come from the shape; it is
 * checked against what the stream could possibly hold before anything is allocated.
 */
export function decompress(scheme: CompressScheme, stream: Uint8Array, count: number): Decoded {
  const opBytes = stream.byteLength - scheme.headerBytes;
  if (opBytes < 0) {
    return fail(
      'DecompressError',
      `the ${scheme.name} stream is shorter than its ${scheme.headerBytes}-byte header`,
      0,
    );
  }
  if (count > opBytes * scheme.maxValuesPerByte) {
    return fail(
      'CountMismatch',
      `the ${scheme.name} stream of ${stream.byteLength} bytes cannot hold the ${count} values its shape declares`,
      0,
    );
  }
  if (scheme === SIMPLE_U16) {
    const out = new Uint16Array(count);
    const r = decodeU16(stream, out);
    return r ?? { ok: true, bytes: new Uint8Array(out.buffer) };
  }
  const raw = new Uint32Array(count);
  const r = decodeU32(stream, scheme.headerBytes, raw, scheme.name);
  if (r) return r;
  if (scheme === SIMPLE_F32) {
    const unit = new DataView(stream.buffer, stream.byteOffset, 4).getFloat32(0, true);
    const out = new Float32Array(raw.buffer);
    // i32 → f32, then an f32 multiply: the product of two f32 is exact in a double, so one
    // fround gives the crate's `v as i32 as f32 * unit` bit for bit.
    for (let k = 0; k < count; k++) out[k] = Math.fround(raw[k] | 0) * unit;
  }
  return { ok: true, bytes: new Uint8Array(raw.buffer) };
}

function fail(code: ErrorCode, message: string, at: number): Decoded & { ok: false } {
  return { ok: false, code, message, at };
}

/** Bob Jenkins' 32-bit integer hash, the crate's lookup-table index (mod 64). */
export function hash32(value: number): number {
  let a = value >>> 0;
  a = (a ^ 61 ^ (a >>> 16)) >>> 0;
  a = (a + (a << 3)) >>> 0;
  a = (a ^ (a >>> 4)) >>> 0;
  a = Math.imul(a, 0x27d4eb2d) >>> 0;
  return (a ^ (a >>> 15)) >>> 0;
}

function signExtend(value: number, bits: number): number {
  const shift = 32 - bits;
  return (value << shift) >> shift;
}

const truncated = (name: string, at: number) =>
  fail('DecompressError', `the ${name} stream ends inside the opcode at byte ${at}`, at);
const tooMany = (name: string, want: number, at: number) =>
  fail('CountMismatch', `the ${name} stream decodes to more than the ${want} values its shape declares`, at);
const tooFew = (name: string, got: number, want: number, at: number) =>
  fail('CountMismatch', `the ${name} stream decodes to ${got} values, its shape declares ${want}`, at);

/**
 * SimpleU32 opcodes: 00xxxxxx delta (6 bits), 01xxxxxx+1 byte delta (14), 10xxxxxx lookup
 * index, 1100xxxx+2 delta (20), 1101xxxx+3 delta (28), 1110nnnn repeat n+1, 1111nnnn n+1 raw
 * little-endian u32s. A non-negative delta d means +d+1 (a zero delta is a repeat).
 */
function decodeU32(s: Uint8Array, start: number, out: Uint32Array, name: string): Decoded | undefined {
  const lookup = new Uint32Array(64);
  const want = out.length;
  let last = 0;
  let k = 0;
  let i = start;
  while (i < s.length) {
    const at = i;
    const op = s[i++];
    const top = op >> 6;
    if (top === 2) {
      if (k >= want) return tooMany(name, want, at);
      last = lookup[op & 63];
      out[k++] = last;
      continue;
    }
    let delta: number;
    if (top === 0) delta = signExtend(op & 63, 6);
    else if (top === 1) {
      if (i + 1 > s.length) return truncated(name, at);
      delta = signExtend(((op & 63) << 8) | s[i], 14);
      i += 1;
    } else if ((op & 0xf0) === 0xc0) {
      if (i + 2 > s.length) return truncated(name, at);
      delta = signExtend(((op & 15) << 16) | (s[i] << 8) | s[i + 1], 20);
      i += 2;
    } else if ((op & 0xf0) === 0xd0) {
      if (i + 3 > s.length) return truncated(name, at);
      delta = signExtend(((op & 15) << 24) | (s[i] << 16) | (s[i + 1] << 8) | s[i + 2], 28);
      i += 3;
    } else if ((op & 0xf0) === 0xe0) {
      const n = (op & 15) + 1;
      if (n > want - k) return tooMany(name, want, at);
      out.fill(last, k, k + n);
      k += n;
      if (n !== 16) last = (last + 1) >>> 0;
      continue;
    } else {
      const n = (op & 15) + 1;
      for (let j = 0; j < n; j++) {
        if (i + 4 > s.length) return truncated(name, at);
        if (k >= want) return tooMany(name, want, at);
        last = (s[i] | (s[i + 1] << 8) | (s[i + 2] << 16) | (s[i + 3] << 24)) >>> 0;
        i += 4;
        out[k++] = last;
        lookup[hash32(last) & 63] = last;
      }
      continue;
    }
    if (k >= want) return tooMany(name, want, at);
    last = (last + (delta >= 0 ? delta + 1 : delta)) >>> 0;
    out[k++] = last;
    lookup[hash32(last) & 63] = last;
  }
  return k === want ? undefined : tooFew(name, k, want, s.length);
}

/**
 * SimpleU16 opcodes: 00xxxxxx delta (6 bits), 01xxxxxx+1 byte delta (14), 10xxxxxx lookup
 * index, 110nnnnn repeat n+1 (up to 32), 111nnnnn n+1 raw little-endian u16s; arithmetic mod 2^16.
 */
function decodeU16(s: Uint8Array, out: Uint16Array): Decoded | undefined {
  const name = SIMPLE_U16.name;
  const lookup = new Uint16Array(64);
  const want = out.length;
  let last = 0;
  let k = 0;
  let i = 0;
  while (i < s.length) {
    const at = i;
    const op = s[i++];
    const top = op >> 6;
    if (top === 2) {
      if (k >= want) return tooMany(name, want, at);
      last = lookup[op & 63];
      out[k++] = last;
      continue;
    }
    if (top === 3) {
      const n = (op & 31) + 1;
      if ((op & 0xe0) === 0xc0) {
        if (n > want - k) return tooMany(name, want, at);
        out.fill(last, k, k + n);
        k += n;
        if (n !== 32) last = (last + 1) & 0xffff;
        continue;
      }
      for (let j = 0; j < n; j++) {
        if (i + 2 > s.length) return truncated(name, at);
        if (k >= want) return tooMany(name, want, at);
        last = s[i] | (s[i + 1] << 8);
        i += 2;
        out[k++] = last;
        lookup[hash32(last) & 63] = last;
      }
      continue;
    }
    let delta: number;
    if (top === 0) delta = signExtend(op & 63, 6);
    else {
      if (i + 1 > s.length) return truncated(name, at);
      delta = signExtend(((op & 63) << 8) | s[i], 14);
      i += 1;
    }
    if (k >= want) return tooMany(name, want, at);
    last = (last + (delta >= 0 ? delta + 1 : delta)) & 0xffff;
    out[k++] = last;
    lookup[hash32(last) & 63] = last;
  }
  return k === want ? undefined : tooFew(name, k, want, s.length);
}

import type { NumericArray } from '@binscope/core';
import { compressInfoProblem, hash32, SIMPLE_F32, SIMPLE_U16, SIMPLE_U32 } from './compress.js';
import type { Prim } from './types.js';

/**
 * Encoders for the udf crate's compression schemes (see compress.ts), writing the streams the
 * crate's `SimpleU16::compress`, `SimpleU32.compress` and `SimpleF32 { unit }.compress` write,
 * byte for byte. One quirk is kept for that: the crate never merges consecutive raw values
 * into one opcode (its counter of raw values is never advanced), so each raw value gets its
 * own "1 raw value" opcode here too.
 */
export type CompressOption = 'simple-u16' | 'simple-u32' | { scheme: 'simple-f32'; unit: number };

export function compressOptionId(option: CompressOption): number {
  if (option === 'simple-u16') return SIMPLE_U16.id;
  if (option === 'simple-u32') return SIMPLE_U32.id;
  return SIMPLE_F32.id;
}

/** A table's values as the stream of `option`; throws for a primitive the scheme does not decode. */
export function encodeCompressed(
  name: string,
  prim: Prim,
  values: NumericArray,
  option: CompressOption,
): Uint8Array {
  const problem = compressInfoProblem(compressOptionId(option), prim);
  if (problem) throw new TypeError(`table ${JSON.stringify(name)}: ${problem.message}`);
  const view = values as Uint8Array;
  if (option === 'simple-u16')
    return encodeSimpleU16(new Uint16Array(view.buffer, view.byteOffset, values.length));
  if (option === 'simple-u32')
    return encodeSimpleU32(new Uint32Array(view.buffer, view.byteOffset, values.length));
  if (!(option.unit > 0) || !Number.isFinite(option.unit))
    throw new RangeError(
      `table ${JSON.stringify(name)}: SimpleF32 needs a finite unit > 0, not ${option.unit}`,
    );
  return encodeSimpleF32(values as Float32Array, option.unit);
}

/** A growable byte buffer. */
class Bytes {
  private buf = new Uint8Array(64);
  length = 0;
  push(b: number): void {
    if (this.length === this.buf.length) {
      const next = new Uint8Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = b & 0xff;
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** SimpleU32 over u32 words (the bit patterns of i32/f32 values alike). */
export function encodeSimpleU32(words: Uint32Array): Uint8Array {
  const out = new Bytes();
  encode32(out, words);
  return out.result();
}

/** SimpleF32: a 4-byte f32 `unit`, then SimpleU32 over `round(x × (1/unit))` as i32 (lossy). */
export function encodeSimpleF32(values: Float32Array, unit: number): Uint8Array {
  const out = new Bytes();
  const head = new Uint8Array(4);
  new DataView(head.buffer).setFloat32(0, unit, true);
  for (const b of head) out.push(b);
  const inv = Math.fround(1 / Math.fround(unit));
  const words = new Uint32Array(values.length);
  for (let k = 0; k < values.length; k++) words[k] = roundToI32(Math.fround(values[k] * inv)) >>> 0;
  encode32(out, words);
  return out.result();
}

/** Rust's `f32::round() as i32`: halves away from zero, saturating, NaN → 0. */
function roundToI32(x: number): number {
  if (Number.isNaN(x)) return 0;
  const r = Math.sign(x) * Math.floor(Math.abs(x) + 0.5);
  return Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, r));
}

function encode32(out: Bytes, words: Uint32Array): void {
  const lookup = new Uint32Array(64);
  let last = 0;
  let run = 0;
  for (let k = 0; k < words.length; k++) {
    const v = words[k];
    if (v === last) {
      if (++run === 16) {
        out.push(0xe0 | 15);
        run = 0;
      }
      continue;
    }
    if (run > 0) {
      out.push(0xe0 | (run - 1));
      run = 0;
      // A run that is not of maximum length bumps the last value: counting sequences become runs.
      last = (last + 1) >>> 0;
      if (v === last) {
        run = 1;
        continue;
      }
    }
    const slot = hash32(v) & 63;
    if (lookup[slot] === v) {
      out.push(0x80 | slot);
    } else {
      lookup[slot] = v;
      let d = (v - last) | 0;
      if (d > 0) d -= 1;
      if (d >= -32 && d < 32) out.push(d & 63);
      else if (d >= -8192 && d < 8192) {
        out.push(0x40 | ((d >> 8) & 63));
        out.push(d);
      } else if (d >= -(1 << 19) && d < 1 << 19) {
        out.push(0xc0 | ((d >> 16) & 15));
        out.push(d >> 8);
        out.push(d);
      } else if (d >= -(1 << 27) && d < 1 << 27) {
        out.push(0xd0 | ((d >> 24) & 15));
        out.push(d >> 16);
        out.push(d >> 8);
        out.push(d);
      } else {
        out.push(0xf0);
        for (let b = 0; b < 4; b++) out.push(v >>> (8 * b));
      }
    }
    last = v;
  }
  if (run > 0) out.push(0xe0 | (run - 1));
}

/** SimpleU16 over u16 values (the bit patterns of i16 values alike). Deltas are taken mod 2^16. */
export function encodeSimpleU16(values: Uint16Array): Uint8Array {
  const out = new Bytes();
  const lookup = new Uint16Array(64);
  let last = 0;
  let run = 0;
  for (let k = 0; k < values.length; k++) {
    const v = values[k];
    if (v === last) {
      if (++run === 32) {
        out.push(0xc0 | 31);
        run = 0;
      }
      continue;
    }
    if (run > 0) {
      out.push(0xc0 | (run - 1));
      run = 0;
      last = (last + 1) & 0xffff;
      if (v === last) {
        run = 1;
        continue;
      }
    }
    const slot = hash32(v) & 63;
    if (lookup[slot] === v) {
      out.push(0x80 | slot);
    } else {
      lookup[slot] = v;
      // The crate subtracts as u16, so the delta is never negative.
      let d = (v - last) & 0xffff;
      if (d > 0) d -= 1;
      if (d < 32) out.push(d);
      else if (d < 8192) {
        out.push(0x40 | (d >> 8));
        out.push(d);
      } else {
        out.push(0xe0);
        out.push(v);
        out.push(v >> 8);
      }
    }
    last = v;
  }
  if (run > 0) out.push(0xc0 | (run - 1));
  return out.result();
}

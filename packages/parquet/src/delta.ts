import { ByteOut } from './page-bytes.js';

/** Values a block holds, and miniblocks a block (of 32 values each). */
const BLOCK = 128;
const MINIBLOCKS = 4;
const MINIBLOCK = BLOCK / MINIBLOCKS;

function zigzag(out: ByteOut, value: number): void {
  out.varint(((value << 1) ^ (value >> 31)) >>> 0);
}

/**
 * INT32 values [first, last) in Parquet's DELTA_BINARY_PACKED encoding: the first value, then
 * blocks of 128 deltas (wrapping in 32 bits, as the spec has it), each block its smallest
 * delta and four miniblocks of 32 deltas above it, bit-packed at the miniblock's width. Sorted
 * or slowly changing integers (a row's column indices, row numbers) take a few bits each, where
 * PLAIN takes 32 and leaves the compressor many short matches to find.
 */
/**
 * Whether values [first, last) look like they pack in at most 16 bits a delta: the widths of
 * up to 8 blocks spread over them (a column of random numbers is ruled out without encoding it).
 */
export function deltasLookSmall(values: Int32Array, first: number, last: number): boolean {
  const blocks = Math.floor((last - first - 1) / BLOCK);
  if (blocks < 8) return true;
  let width = 0;
  for (let b = 0; b < 8; b++) {
    const start = first + 1 + Math.floor((b * blocks) / 8) * BLOCK;
    let min = (values[start] - values[start - 1]) | 0;
    let max = min;
    for (let k = start + 1; k < start + BLOCK; k++) {
      const delta = (values[k] - values[k - 1]) | 0;
      if (delta < min) min = delta;
      else if (delta > max) max = delta;
    }
    width += 32 - Math.clz32(max - min);
  }
  return width <= 8 * 16;
}

export function deltaBinaryPacked(values: Int32Array, first: number, last: number): Uint8Array {
  const count = last - first;
  const out = new ByteOut(32 + count * 4 + Math.ceil(count / BLOCK) * (5 + MINIBLOCKS));
  out.varint(BLOCK);
  out.varint(MINIBLOCKS);
  out.varint(count);
  zigzag(out, count > 0 ? values[first] : 0);
  const deltas = new Int32Array(BLOCK);
  const widths = new Uint8Array(MINIBLOCKS);
  for (let start = first + 1; start < last; start += BLOCK) {
    const n = Math.min(BLOCK, last - start);
    let min = (values[start] - values[start - 1]) | 0;
    for (let k = 0; k < n; k++) {
      const delta = (values[start + k] - values[start + k - 1]) | 0;
      deltas[k] = delta;
      if (delta < min) min = delta;
    }
    zigzag(out, min);
    for (let m = 0; m < MINIBLOCKS; m++) {
      let bits = 0;
      for (let k = m * MINIBLOCK, end = Math.min(n, k + MINIBLOCK); k < end; k++) bits |= deltas[k] - min;
      widths[m] = m * MINIBLOCK < n ? 32 - Math.clz32(bits) : 0;
      out.byte(widths[m]);
    }
    for (let m = 0; m * MINIBLOCK < n; m++) pack(out, deltas, min, m * MINIBLOCK, n, widths[m]);
  }
  return out.bytes.subarray(0, out.length);
}

/** 32 deltas from `from` (zeros past `n`) less `min`, at `width` bits: `width` little-endian words. */
function pack(out: ByteOut, deltas: Int32Array, min: number, from: number, n: number, width: number): void {
  if (width === 0) return;
  out.ensure(width * 4);
  const bytes = out.bytes;
  let at = out.length;
  let word = 0;
  let bits = 0;
  for (let k = from; k < from + MINIBLOCK; k++) {
    const v = k < n ? (deltas[k] - min) >>> 0 : 0;
    word |= v << bits;
    bits += width;
    if (bits >= 32) {
      bytes[at] = word;
      bytes[at + 1] = word >>> 8;
      bytes[at + 2] = word >>> 16;
      bytes[at + 3] = word >>> 24;
      at += 4;
      bits -= 32;
      word = bits > 0 ? v >>> (width - bits) : 0;
    }
  }
  out.length = at;
}

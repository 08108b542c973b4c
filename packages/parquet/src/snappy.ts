/**
 * Snappy compression (the raw format, as Parquet pages hold it), the algorithm of Google's
 * reference `CompressFragment`: the input in 64 KiB fragments, each searched for 4-byte matches
 * through a hash table of earlier positions, literals and copies written straight into one
 * output array sized for the worst case. hyparquet-writer's own compressor does the same search
 * but appends every byte through a growing DataView, which made it most of an export's time
 * (25–30 MB/s on numbers and strings; this runs several times faster, in plain JavaScript, so
 * it works in a browser bundle as well).
 */

const BLOCK = 1 << 16;
const MAX_TABLE_BITS = 14;
/** The reference's kInputMarginBytes: matching stops this far from a fragment's end. */
const MARGIN = 15;

const tables: Uint16Array[] = [];

function tableFor(size: number): { table: Uint16Array; shift: number } {
  let bits = 8;
  while (bits < MAX_TABLE_BITS && 1 << bits < size) bits++;
  tables[bits] ??= new Uint16Array(1 << bits);
  const table = tables[bits];
  table.fill(0);
  return { table, shift: 32 - bits };
}

function load32(a: Uint8Array, i: number): number {
  return a[i] | (a[i + 1] << 8) | (a[i + 2] << 16) | (a[i + 3] << 24);
}

function hash(value: number, shift: number): number {
  return Math.imul(value, 0x1e35a7bd) >>> shift;
}

/** The most bytes `snappyCompress` can make of `length` input bytes. */
export function maxCompressedLength(length: number): number {
  return 32 + length + Math.floor(length / 6);
}

/** Compresses `input` as one raw Snappy block. */
export function snappyCompress(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(maxCompressedLength(input.length));
  let op = 0;
  let n = input.length;
  for (; n >= 0x80; n >>>= 7) out[op++] = (n & 0x7f) | 0x80;
  out[op++] = n;
  for (let start = 0; start < input.length; start += BLOCK)
    op = compressFragment(input, start, Math.min(input.length, start + BLOCK), out, op);
  return out.subarray(0, op);
}

function compressFragment(
  input: Uint8Array,
  start: number,
  end: number,
  out: Uint8Array,
  op: number,
): number {
  if (end - start < MARGIN) return emitLiteral(input, start, end, out, op);
  const { table, shift } = tableFor(end - start);
  const limit = end - MARGIN;
  let nextEmit = start;
  let ip = start + 1;
  let nextWord = load32(input, ip);
  for (;;) {
    // Look for a 4-byte match, stepping further the longer none is found.
    let skip = 32;
    let nextIp = ip;
    let candidate = 0;
    let word = 0;
    do {
      ip = nextIp;
      word = nextWord;
      const h = hash(word, shift);
      nextIp = ip + (skip++ >> 5);
      if (nextIp > limit) return emitLiteral(input, nextEmit, end, out, op);
      nextWord = load32(input, nextIp);
      candidate = start + table[h];
      table[h] = ip - start;
    } while (word !== load32(input, candidate));
    op = emitLiteral(input, nextEmit, ip, out, op);
    // Copies while the bytes after one match start another.
    do {
      const base = ip;
      let a = ip + 4;
      let b = candidate + 4;
      while (a + 4 <= end && load32(input, a) === load32(input, b)) {
        a += 4;
        b += 4;
      }
      while (a < end && input[a] === input[b]) {
        a++;
        b++;
      }
      ip = a;
      op = emitCopy(out, op, base - candidate, ip - base);
      nextEmit = ip;
      if (ip >= limit) return nextEmit < end ? emitLiteral(input, nextEmit, end, out, op) : op;
      table[hash(load32(input, ip - 1), shift)] = ip - 1 - start;
      word = load32(input, ip);
      const h = hash(word, shift);
      candidate = start + table[h];
      table[h] = ip - start;
    } while (word === load32(input, candidate));
    nextWord = load32(input, ++ip);
  }
}

function emitLiteral(input: Uint8Array, from: number, to: number, out: Uint8Array, op: number): number {
  const n = to - from - 1;
  if (n < 60) out[op++] = n << 2;
  else if (n < 0x100) {
    out[op++] = 60 << 2;
    out[op++] = n;
  } else {
    out[op++] = 61 << 2;
    out[op++] = n & 0xff;
    out[op++] = n >> 8;
  }
  if (to - from < 32) for (let i = from; i < to; i++) out[op++] = input[i];
  else {
    out.set(input.subarray(from, to), op);
    op += to - from;
  }
  return op;
}

function emitCopy(out: Uint8Array, op: number, offset: number, length: number): number {
  while (length >= 68) {
    op = copyUpTo64(out, op, offset, 64);
    length -= 64;
  }
  if (length > 64) {
    op = copyUpTo64(out, op, offset, 60);
    length -= 60;
  }
  return copyUpTo64(out, op, offset, length);
}

function copyUpTo64(out: Uint8Array, op: number, offset: number, length: number): number {
  if (length < 12 && offset < 2048) {
    out[op++] = 1 | ((length - 4) << 2) | ((offset >> 8) << 5);
    out[op++] = offset & 0xff;
  } else {
    out[op++] = 2 | ((length - 1) << 2);
    out[op++] = offset & 0xff;
    out[op++] = offset >> 8;
  }
  return op;
}

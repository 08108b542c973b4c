/**
 * The byte-level pieces of a Parquet page that the column writer (column-chunk.ts) assembles:
 * a growable byte buffer, the RLE / bit-packing hybrid of levels, booleans and dictionary
 * indexes, and page headers in Thrift's compact protocol. Each works on typed arrays, a run or
 * a group of eight values at a time, never a value through a DataView.
 */

/** Bytes appended to a buffer that doubles as it fills. */
export class ByteOut {
  bytes: Uint8Array;
  length = 0;

  constructor(capacity = 256) {
    this.bytes = new Uint8Array(capacity);
  }

  ensure(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  byte(value: number): void {
    this.ensure(1);
    this.bytes[this.length++] = value;
  }

  /** An unsigned LEB128 varint (of up to 32 bits). */
  varint(value: number): void {
    this.ensure(5);
    let v = value >>> 0;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.bytes[this.length++] = v;
  }

  append(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** The bytes so far, as a copy of their own. */
  take(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** Bits needed for values up to `max`. */
export function bitWidth(max: number): number {
  return max <= 0 ? 0 : 32 - Math.clz32(max);
}

/**
 * Appends `values[start, end)` in the RLE / bit-packing hybrid of `width` bits (at most 24): a
 * run of eight or more equal values as one RLE run, everything else in groups of eight
 * bit-packed values (the last group padded with zeros). Returns the bytes written.
 */
export function writeHybrid(
  out: ByteOut,
  values: ArrayLike<number>,
  start: number,
  end: number,
  width: number,
): number {
  const before = out.length;
  let packedFrom = start;
  let groups = 0;
  let i = start;
  while (i < end) {
    const value = values[i];
    let run = i + 1;
    while (run < end && values[run] === value) run++;
    if (run - i >= 8) {
      if (groups > 0) writePacked(out, values, packedFrom, end, groups, width);
      groups = 0;
      writeRun(out, run - i, value, width);
      i = run;
    } else {
      if (groups === 0) packedFrom = i;
      groups++;
      i += 8;
    }
  }
  if (groups > 0) writePacked(out, values, packedFrom, end, groups, width);
  return out.length - before;
}

/** Appends `count` repeats of `value` as one RLE run of `width` bits; returns the bytes written. */
export function writeRun(out: ByteOut, count: number, value: number, width: number): number {
  const before = out.length;
  out.varint(count * 2);
  const valueBytes = (width + 7) >> 3;
  out.ensure(valueBytes);
  for (let b = 0; b < valueBytes; b++) out.bytes[out.length++] = (value >>> (8 * b)) & 0xff;
  return out.length - before;
}

function writePacked(
  out: ByteOut,
  values: ArrayLike<number>,
  from: number,
  end: number,
  groups: number,
  width: number,
): void {
  out.varint(groups * 2 + 1);
  out.ensure(groups * width);
  const bytes = out.bytes;
  let at = out.length;
  let buffer = 0;
  let bits = 0;
  const to = from + groups * 8;
  const stop = Math.min(to, end);
  for (let i = from; i < stop; i++) {
    buffer |= values[i] << bits;
    bits += width;
    while (bits >= 8) {
      bytes[at++] = buffer & 0xff;
      buffer >>>= 8;
      bits -= 8;
    }
  }
  // Padding to whole groups: zeros, as many bits as the missing values'.
  for (let pad = (to - stop) * width + bits; pad > 0; pad -= 8) {
    bytes[at++] = buffer & 0xff;
    buffer >>>= 8;
  }
  out.length = at;
}

/** Thrift compact-protocol type ids of the fields a page header has. */
const I32 = 5;
const STRUCT = 12;
const FALSE = 2;

/** Page types and encodings by their Thrift numbers. */
export const PAGE_TYPE = { DICTIONARY_PAGE: 2, DATA_PAGE_V2: 3 } as const;
export const ENCODING = { PLAIN: 0, RLE: 3, DELTA_BINARY_PACKED: 5, RLE_DICTIONARY: 8 } as const;

function field(out: ByteOut, delta: number, type: number): void {
  out.byte((delta << 4) | type);
}

function i32(out: ByteOut, delta: number, value: number): void {
  field(out, delta, I32);
  out.varint((value << 1) ^ (value >> 31));
}

export interface DataPageV2 {
  values: number;
  nulls: number;
  rows: number;
  encoding: number;
  definitionBytes: number;
  repetitionBytes: number;
  compressed: boolean;
}

/**
 * A PageHeader (type, sizes and a dictionary or data page v2 header) in the compact protocol,
 * the fields hyparquet-writer writes for the same page.
 */
export function pageHeader(
  uncompressed: number,
  compressed: number,
  page: { dictionary: number } | DataPageV2,
): Uint8Array {
  const out = new ByteOut(48);
  i32(out, 1, 'dictionary' in page ? PAGE_TYPE.DICTIONARY_PAGE : PAGE_TYPE.DATA_PAGE_V2);
  i32(out, 1, uncompressed);
  i32(out, 1, compressed);
  if ('dictionary' in page) {
    field(out, 4, STRUCT);
    i32(out, 1, page.dictionary);
    i32(out, 1, ENCODING.PLAIN);
  } else {
    field(out, 5, STRUCT);
    i32(out, 1, page.values);
    i32(out, 1, page.nulls);
    i32(out, 1, page.rows);
    i32(out, 1, page.encoding);
    i32(out, 1, page.definitionBytes);
    i32(out, 1, page.repetitionBytes);
    if (!page.compressed) field(out, 1, FALSE);
  }
  out.byte(0); // the inner struct's stop
  out.byte(0); // the header's stop
  return out.take();
}

import { FormatError } from '@binscope/core';
import { FORMAT } from './layout.js';

// ignoreBOM: a value may start with U+FEFF, and it is part of the value.
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const latin1 = new TextDecoder('latin1');

/**
 * A utf8 column as stored: `offsets` (length+1 positions into `bytes`) and the strings
 * block. Values are decoded on demand, so one `get(i)` never decodes the others.
 */
export class Utf8Column implements Iterable<string> {
  constructor(
    /** Positions of each value in `bytes`; value i is bytes[offsets[i], offsets[i+1]). */
    readonly offsets: Uint32Array,
    readonly bytes: Uint8Array,
    /** Where the strings block is, for error messages. */
    readonly location: { file?: string; offset?: number; column?: string; firstRow?: number } = {},
  ) {}

  get length(): number {
    return this.offsets.length - 1;
  }

  /** Value `i`, decoded alone. Bad UTF-8 is `InvalidValue`. */
  get(i: number): string {
    if (!(i >= 0 && i < this.length)) throw new RangeError(`row ${i} is outside 0..${this.length - 1}`);
    return this.decode(this.offsets[i], this.offsets[i + 1], i);
  }

  /** The value's length in bytes, without decoding it. */
  byteLength(i: number): number {
    return this.offsets[i + 1] - this.offsets[i];
  }

  /** The raw UTF-8 bytes of value `i` (a view). */
  rawBytes(i: number): Uint8Array {
    return this.bytes.subarray(this.offsets[i], this.offsets[i + 1]);
  }

  /** Rows [start, end) sharing this column's bytes. */
  slice(start = 0, end = this.length): Utf8Column {
    const s = Math.max(0, Math.min(start, this.length));
    const e = Math.max(s, Math.min(end, this.length));
    return new Utf8Column(this.offsets.subarray(s, e + 1), this.bytes, {
      ...this.location,
      firstRow: (this.location.firstRow ?? 0) + s,
    });
  }

  /**
   * Every value. An all-ASCII block is decoded once and sliced, which is much faster; its short
   * values are interned (see sliceAscii).
   */
  toArray(): string[] {
    const n = this.length;
    const out = new Array<string>(n);
    if (n === 0) return out;
    const first = this.offsets[0];
    const last = this.offsets[n];
    const region = this.bytes.subarray(first, last);
    if (isAscii(region)) return sliceAscii(latin1.decode(region), this.bytes, this.offsets, out);
    for (let i = 0; i < n; i++) out[i] = this.decode(this.offsets[i], this.offsets[i + 1], i);
    return out;
  }

  /**
   * Throws InvalidValue unless every value is valid UTF-8, without building the strings: the
   * bytes as a whole must be valid and no value may start inside a character.
   */
  validate(): void {
    const n = this.length;
    if (n === 0) return;
    const first = this.offsets[0];
    const region = this.bytes.subarray(first, this.offsets[n]);
    if (isAscii(region)) return;
    let wholeValid = true;
    try {
      strict.decode(region);
    } catch {
      wholeValid = false;
    }
    for (let i = 0; i < n; i++) {
      const start = this.offsets[i];
      const startsInside = start < this.offsets[n] && (this.bytes[start] & 0xc0) === 0x80;
      if (startsInside || !wholeValid) this.decode(start, this.offsets[i + 1], i);
    }
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
  }

  private decode(start: number, end: number, row: number): string {
    if (end === start) return '';
    try {
      return strict.decode(this.bytes.subarray(start, end));
    } catch {
      const column = this.location.column === undefined ? '' : ` of column "${this.location.column}"`;
      throw new FormatError(
        'InvalidValue',
        `row ${row + (this.location.firstRow ?? 0)}${column} is not valid UTF-8`,
        {
          offset: this.location.offset,
          file: this.location.file,
          format: FORMAT,
        },
      );
    }
  }
}

/** V8 copies a slice shorter than this (a longer one is a view of the decoded text). */
const SHORT = 13;
const INTERNED_MAX = 1024;
/** Open-addressing slots for the interned values: a power of two, at most half full. */
const SLOTS = 2 * INTERNED_MAX;
/** Values looked at before interning stops when under half of them were repeats. */
const INTERN_TRIAL = 4096;

/**
 * The values of an ASCII block (`text`, decoded from bytes[offsets[0], offsets[n])). A short
 * value would be a fresh copy each time, so a repeated one (a category, a label) is handed out
 * as one shared string: a 1,000,000-row column of 8 labels costs 8 strings, not a million, and
 * less time (a hash of its bytes and a compare instead of an allocation the GC then tracks).
 * A column of mostly distinct short values stops interning after its first INTERN_TRIAL rows.
 */
function sliceAscii(text: string, bytes: Uint8Array, offsets: Uint32Array, out: string[]): string[] {
  const first = offsets[0];
  const table = new InternTable(bytes);
  let shorts = 0;
  let repeats = 0;
  let interning = true;
  for (let i = 0; i < out.length; i++) {
    const start = offsets[i];
    const end = offsets[i + 1];
    if (!interning || end - start >= SHORT) {
      out[i] = text.slice(start - first, end - first);
      continue;
    }
    const slot = table.find(start, end);
    const known = table.values[slot];
    if (known !== undefined) {
      out[i] = known;
      repeats++;
    } else {
      const value = text.slice(start - first, end - first);
      out[i] = value;
      table.add(slot, start, end, value);
    }
    if (++shorts === INTERN_TRIAL && repeats < INTERN_TRIAL / 2) interning = false;
  }
  return out;
}

/**
 * Short values by their bytes: a typed-array hash table compared byte by byte, so a repeat
 * costs a hash and a compare of at most 12 bytes, not a Map lookup and a string compare.
 */
class InternTable {
  readonly values: (string | undefined)[] = new Array(SLOTS).fill(undefined);
  private readonly starts = new Int32Array(SLOTS);
  private readonly lengths = new Int32Array(SLOTS);
  private size = 0;

  constructor(private readonly bytes: Uint8Array) {}

  /** The slot holding bytes[start, end), or the empty slot where it would go. */
  find(start: number, end: number): number {
    const bytes = this.bytes;
    const length = end - start;
    let hash = length;
    for (let k = start; k < end; k++) hash = Math.imul(hash ^ bytes[k], 0x01000193);
    let slot = (hash ^ (hash >>> 15)) & (SLOTS - 1);
    while (this.values[slot] !== undefined) {
      if (this.lengths[slot] === length && this.sameBytes(this.starts[slot], start, length)) return slot;
      slot = (slot + 1) & (SLOTS - 1);
    }
    return slot;
  }

  /** Keeps `value` in the empty `slot` find returned, while the table has room. */
  add(slot: number, start: number, end: number, value: string): void {
    if (this.size >= INTERNED_MAX) return;
    this.values[slot] = value;
    this.starts[slot] = start;
    this.lengths[slot] = end - start;
    this.size++;
  }

  private sameBytes(a: number, b: number, length: number): boolean {
    const bytes = this.bytes;
    for (let k = 0; k < length; k++) if (bytes[a + k] !== bytes[b + k]) return false;
    return true;
  }
}

function isAscii(bytes: Uint8Array): boolean {
  // Eight bytes at a time where alignment allows.
  let i = 0;
  const n = bytes.byteLength;
  if (bytes.byteOffset % 4 === 0 && n >= 16) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, n >>> 2);
    for (let w = 0; w < words.length; w++) if (words[w] & 0x80808080) return false;
    i = words.length << 2;
  }
  for (; i < n; i++) if (bytes[i] & 0x80) return false;
  return true;
}

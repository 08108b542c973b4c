/**
 * The values of one leaf column of a row group, gathered into typed arrays as Parquet's
 * physical types hold them: INT32 and INT64 as 32-bit words, FLOAT and DOUBLE as floats,
 * BOOLEAN as bytes, BYTE_ARRAY as their bytes end to end with their offsets. Only non-null
 * values are kept (nulls live in the definition levels), so a page's PLAIN numbers are a slice
 * of the array as it is. Each value is checked as hyparquet-writer checks it (whole numbers in
 * range, numbers, booleans, strings or bytes) and refused with a ValueError.
 */

/** A value the column cannot hold; the row group names the record and field. */
export class ValueError extends Error {}

export type Physical = 'INT32' | 'INT64' | 'FLOAT' | 'DOUBLE' | 'BOOLEAN' | 'BYTE_ARRAY';

/** A leaf's values and their PLAIN bytes, as the column writer encodes them. */
export interface Leaf {
  readonly physical: Physical;
  /** Non-null values so far. */
  readonly count: number;
  push(value: unknown): void;
  /**
   * The items of one list, from definition level slot `at` on: each non-null item is pushed
   * with level `maxDef`, a null one gets `maxDef - 1` (refused unless `nullable`). Each store
   * has its own copy of this loop, not a shared one: inside it `this.push` then always meets one
   * class, so V8 inlines it; a shared loop would call five kinds of store through one site.
   */
  pushItems(items: ArrayLike<unknown>, defs: Uint8Array, at: number, maxDef: number, nullable: boolean): void;
  /** Bytes held. */
  memory(): number;
  clear(): void;
}

const INITIAL = 1024;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value !== null && typeof value === 'object') return value.constructor?.name ?? 'an object';
  return String(value);
}

function refuse(expected: string, value: unknown): never {
  throw new ValueError(`expected ${expected}, got ${describe(value)}`);
}

function nullItem(nullable: boolean): void {
  if (!nullable) throw new ValueError('a list item is null, but the items are never null');
}

/** `array` grown to hold at least `need` elements (contents kept). */
export function grown<T extends Int32Array | Float32Array | Float64Array | Uint8Array | Uint32Array>(
  array: T,
  need: number,
): T {
  if (need <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(Math.max(need, array.length * 2));
  next.set(array);
  return next;
}

const TWO_32 = 4294967296;

/** INT32 (every int of up to 32 bits; u32 as its bits, compared unsigned). */
export class Int32Leaf implements Leaf {
  readonly physical = 'INT32';
  count = 0;
  data = new Int32Array(INITIAL);

  constructor(readonly unsigned: boolean) {}

  push(value: unknown): void {
    if (this.count === this.data.length) this.data = grown(this.data, this.count + 1);
    this.data[this.count++] = this.int(value);
  }

  private int(value: unknown): number {
    const n = typeof value === 'bigint' ? Number(value) : value;
    if (typeof n === 'number') {
      // -0 passes as 0 (=== does not tell them apart), as hyparquet-writer writes it.
      if (this.unsigned ? n >>> 0 === n : (n | 0) === n) return n | 0;
    }
    return refuse(this.unsigned ? 'a uint32' : 'an int32', value);
  }

  pushItems(
    items: ArrayLike<unknown>,
    defs: Uint8Array,
    at: number,
    maxDef: number,
    nullable: boolean,
  ): void {
    this.data = grown(this.data, this.count + items.length);
    if (isIntArray(items, this.unsigned)) {
      this.data.set(items, this.count);
      this.count += items.length;
      defs.fill(maxDef, at, at + items.length);
      return;
    }
    for (let k = 0; k < items.length; k++) {
      const item = items[k];
      if (item === null || item === undefined) {
        nullItem(nullable);
        defs[at + k] = maxDef - 1;
      } else {
        this.data[this.count++] = this.int(item);
        defs[at + k] = maxDef;
      }
    }
  }

  memory(): number {
    return this.count * 4;
  }

  clear(): void {
    this.count = 0;
  }
}

/** Typed arrays whose every element is in the INT32 column's range as it is. */
function isIntArray(items: ArrayLike<unknown>, unsigned: boolean): items is ArrayLike<number> {
  return (
    items instanceof Int32Array ||
    items instanceof Int16Array ||
    items instanceof Uint16Array ||
    items instanceof Int8Array ||
    items instanceof Uint8Array ||
    (unsigned && items instanceof Uint32Array)
  );
}

/**
 * INT64 as pairs of 32-bit words (low, high): a safe number or a bigint is split exactly, never
 * through a double, and checked against the signed or unsigned 64-bit range.
 */
export class Int64Leaf implements Leaf {
  readonly physical = 'INT64';
  count = 0;
  words = new Int32Array(INITIAL * 2);

  constructor(readonly unsigned: boolean) {}

  push(value: unknown): void {
    if (this.count * 2 === this.words.length) this.words = grown(this.words, this.count * 2 + 2);
    const at = this.count * 2;
    if (typeof value === 'number') {
      if (!Number.isInteger(value)) refuse('a whole number', value);
      if (this.unsigned ? value < 0 || value >= TWO_32 * TWO_32 : value < -(2 ** 63) || value >= 2 ** 63)
        refuse(this.unsigned ? 'a uint64' : 'an int64', value);
      this.words[at] = value >>> 0;
      this.words[at + 1] = Math.floor(value / TWO_32) | 0;
    } else if (typeof value === 'bigint') {
      if (this.unsigned ? value < 0n || value >= 1n << 64n : value < -(1n << 63n) || value >= 1n << 63n)
        refuse(this.unsigned ? 'a uint64' : 'an int64', value);
      this.words[at] = Number(value & 0xffffffffn) | 0;
      this.words[at + 1] = Number((value >> 32n) & 0xffffffffn) | 0;
    } else refuse('a whole number', value);
    this.count++;
  }

  pushItems(
    items: ArrayLike<unknown>,
    defs: Uint8Array,
    at: number,
    maxDef: number,
    nullable: boolean,
  ): void {
    for (let k = 0; k < items.length; k++) {
      const item = items[k];
      if (item === null || item === undefined) {
        nullItem(nullable);
        defs[at + k] = maxDef - 1;
      } else {
        this.push(item);
        defs[at + k] = maxDef;
      }
    }
  }

  /** Value `i` as a bigint (for statistics). */
  bigint(i: number): bigint {
    const high = this.unsigned ? this.words[2 * i + 1] >>> 0 : this.words[2 * i + 1];
    return (BigInt(high) << 32n) + BigInt(this.words[2 * i] >>> 0);
  }

  memory(): number {
    return this.count * 8;
  }

  clear(): void {
    this.count = 0;
  }
}

function float(value: unknown): number {
  // A reader that declares a float column may still hand a large integer over exactly (UDF's
  // catalogue lists any table's elements as float64): the column is a double, so it gets one.
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  return refuse('a number', value);
}

/** FLOAT (`bits` 32) or DOUBLE (64). */
export class FloatLeaf implements Leaf {
  readonly physical: 'FLOAT' | 'DOUBLE';
  count = 0;
  data: Float32Array | Float64Array;

  constructor(bits: 32 | 64) {
    this.physical = bits === 32 ? 'FLOAT' : 'DOUBLE';
    this.data = bits === 32 ? new Float32Array(INITIAL) : new Float64Array(INITIAL);
  }

  push(value: unknown): void {
    if (this.count === this.data.length) this.data = grown(this.data, this.count + 1);
    this.data[this.count++] = float(value);
  }

  pushItems(
    items: ArrayLike<unknown>,
    defs: Uint8Array,
    at: number,
    maxDef: number,
    nullable: boolean,
  ): void {
    this.data = grown(this.data, this.count + items.length);
    if (items instanceof Float32Array || items instanceof Float64Array) {
      this.data.set(items, this.count);
      this.count += items.length;
      defs.fill(maxDef, at, at + items.length);
      return;
    }
    for (let k = 0; k < items.length; k++) {
      const item = items[k];
      if (item === null || item === undefined) {
        nullItem(nullable);
        defs[at + k] = maxDef - 1;
      } else {
        this.data[this.count++] = float(item);
        defs[at + k] = maxDef;
      }
    }
  }

  memory(): number {
    return this.count * this.data.BYTES_PER_ELEMENT;
  }

  clear(): void {
    this.count = 0;
  }
}

/** BOOLEAN as one byte each, 0 or 1. */
export class BoolLeaf implements Leaf {
  readonly physical = 'BOOLEAN';
  count = 0;
  data = new Uint8Array(INITIAL);

  push(value: unknown): void {
    if (typeof value !== 'boolean') refuse('a boolean', value);
    if (this.count === this.data.length) this.data = grown(this.data, this.count + 1);
    this.data[this.count++] = value ? 1 : 0;
  }

  pushItems(
    items: ArrayLike<unknown>,
    defs: Uint8Array,
    at: number,
    maxDef: number,
    nullable: boolean,
  ): void {
    for (let k = 0; k < items.length; k++) {
      const item = items[k];
      if (item === null || item === undefined) {
        nullItem(nullable);
        defs[at + k] = maxDef - 1;
      } else {
        this.push(item);
        defs[at + k] = maxDef;
      }
    }
  }

  memory(): number {
    return this.count;
  }

  clear(): void {
    this.count = 0;
  }
}

const encoder = new TextEncoder();
/** Strings gathered before they are encoded together (see BytesLeaf). */
const BATCH = 512;

/**
 * BYTE_ARRAY values (strings as UTF-8, JSON text, bytes), end to end: value `i` is
 * `bytes[offsets[i], offsets[i + 1])`. Strings wait in a batch and are encoded together, one
 * `join` and one `encodeInto` for the batch, which costs a fraction of encoding each string:
 * when the batch is all ASCII (as many bytes as characters) each string's length is its byte
 * length; otherwise the batch is encoded again string by string.
 */
export class BytesLeaf implements Leaf {
  readonly physical = 'BYTE_ARRAY';
  bytes = new Uint8Array(INITIAL * 16);
  offsets = new Uint32Array(INITIAL + 1);
  /** Values in `bytes` (the batch's strings come after them). */
  private encoded = 0;
  private batch: string[] = [];
  private batchChars = 0;

  get count(): number {
    return this.encoded + this.batch.length;
  }

  push(value: unknown): void {
    if (typeof value === 'string') {
      this.batchChars += value.length;
      if (this.batch.push(value) === BATCH) this.flush();
      return;
    }
    if (!(value instanceof Uint8Array)) refuse('a string or bytes', value);
    this.flush();
    const start = this.offsets[this.encoded];
    this.reserve(start + value.length, this.encoded + 1);
    this.bytes.set(value, start);
    this.offsets[++this.encoded] = start + value.length;
  }

  /** Encodes the batch of strings; the values are then all in `bytes` and `offsets`. */
  flush(): void {
    const batch = this.batch;
    if (batch.length === 0) return;
    const text = batch.join('');
    const start = this.offsets[this.encoded];
    this.reserve(start + 3 * text.length, this.encoded + batch.length);
    const { bytes, offsets } = this;
    const written = encoder.encodeInto(text, bytes.subarray(start)).written;
    let at = start;
    if (written === text.length)
      for (const s of batch) {
        at += s.length;
        offsets[++this.encoded] = at;
      }
    else
      for (const s of batch) {
        at += encoder.encodeInto(s, bytes.subarray(at)).written;
        offsets[++this.encoded] = at;
      }
    this.batch = [];
    this.batchChars = 0;
  }

  private reserve(bytes: number, values: number): void {
    if (bytes > this.bytes.length) this.bytes = grown(this.bytes, bytes);
    if (values >= this.offsets.length) this.offsets = grown(this.offsets, values + 1);
  }

  pushItems(
    items: ArrayLike<unknown>,
    defs: Uint8Array,
    at: number,
    maxDef: number,
    nullable: boolean,
  ): void {
    for (let k = 0; k < items.length; k++) {
      const item = items[k];
      if (item === null || item === undefined) {
        nullItem(nullable);
        defs[at + k] = maxDef - 1;
      } else {
        this.push(item);
        defs[at + k] = maxDef;
      }
    }
  }

  memory(): number {
    return this.offsets[this.encoded] + this.batchChars + this.count * 4;
  }

  clear(): void {
    this.encoded = 0;
    this.batch = [];
    this.batchChars = 0;
  }
}

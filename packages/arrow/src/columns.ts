import { FormatError, type NumericArray, type TabularValue } from '@binscope/core';
import { type Builder, type Data, type DataType, makeBuilder, makeData, Type } from 'apache-arrow';
import { Bitmap, grow } from './validity.js';

/**
 * One column of a record batch being filled: values go straight into the Arrow buffers
 * (values, offsets, validity) as typed arrays, and `finish` hands them to apache-arrow as Data.
 * One call per value into a builder cost most of an export's time (and per-value garbage most
 * of its memory); filling the buffers directly leaves a batch's memory at about its own size.
 */
export interface ColumnFill {
  /** Adds a value (null: a null slot). */
  append(value: TabularValue): void;
  /** Roughly the bytes of the values so far, for the batch's byte bound. */
  readonly bytes: number;
  /** The values so far as Data; the column is then empty. */
  finish(): Data;
}

/** The fill for a column of this Arrow type. */
export function columnFill(type: DataType): ColumnFill {
  switch (type.typeId) {
    case Type.Int:
    case Type.Float:
      return type.typeId === Type.Float && (type as unknown as { precision: number }).precision === 0
        ? new BuilderFill(type) // Float16: apache-arrow's builder rounds a number to half precision
        : new FixedFill(type);
    case Type.Bool:
      return new BoolFill(type);
    case Type.Utf8:
    case Type.Binary:
      return new BytesFill(type);
    case Type.List:
    case Type.FixedSizeList:
      return new ListFill(type);
    case Type.Struct:
      return new StructFill(type);
    default:
      return new BuilderFill(type);
  }
}

const INITIAL = 1024;

type Fixed = NumericArray | BigInt64Array | BigUint64Array;

/** Fixed-width numbers: 8 to 64-bit integers (64-bit ones as bigint, never through a double), floats. */
export class FixedFill implements ColumnFill {
  private readonly ctor: new (
    length: number,
  ) => Fixed;
  private readonly big: boolean;
  private values: Fixed;
  private length = 0;
  private readonly validity = new Bitmap();

  constructor(private readonly type: DataType) {
    this.ctor = type.ArrayType as new (length: number) => Fixed;
    this.big = this.ctor === BigInt64Array || this.ctor === BigUint64Array;
    this.values = new this.ctor(INITIAL);
  }

  get bytes(): number {
    return this.length * this.values.BYTES_PER_ELEMENT;
  }

  append(value: TabularValue): void {
    if (this.length === this.values.length)
      this.values = grow(this.values as Float64Array, this.ctor as never, this.length + 1);
    const i = this.length++;
    if (value === null) {
      this.validity.mark(i, false);
      return;
    }
    this.validity.mark(i, true);
    if (this.big)
      (this.values as BigInt64Array)[i] = typeof value === 'bigint' ? value : BigInt(value as number);
    // A bigint in a narrower column is a schema that declares it so (UDF's catalogue holds every
    // table's elements as float64): the nearest value of the declared type, as Parquet writes it.
    else (this.values as Float64Array)[i] = typeof value === 'bigint' ? Number(value) : (value as number);
  }

  /** Whether `items` is a typed array of this column's own kind, which `appendArray` copies whole. */
  takesWhole(items: unknown): items is NumericArray {
    return ArrayBuffer.isView(items) && items.constructor === this.ctor;
  }

  /** Bytes one value takes. */
  get elementBytes(): number {
    return this.values.BYTES_PER_ELEMENT;
  }

  /** Adds every item of a typed array of this column's own kind in one copy (an ndarray's data). */
  appendArray(items: NumericArray): boolean {
    if (items.constructor !== this.ctor) return false;
    const need = this.length + items.length;
    if (need > this.values.length) this.values = grow(this.values as Float64Array, this.ctor as never, need);
    (this.values as Float64Array).set(items as Float64Array, this.length);
    this.validity.markRange(this.length, items.length);
    this.length = need;
    return true;
  }

  finish(): Data {
    const length = this.length;
    const data = arrowData({
      type: this.type,
      length,
      ...this.validity.take(length),
      data: this.values.subarray(0, length),
    });
    this.values = new this.ctor(Math.min(this.values.length, INITIAL * 64));
    this.length = 0;
    return data;
  }
}

class BoolFill implements ColumnFill {
  private readonly bits = new Bitmap(true);
  private length = 0;
  private readonly validity = new Bitmap();

  constructor(private readonly type: DataType) {}

  get bytes(): number {
    return this.length >> 3;
  }

  append(value: TabularValue): void {
    const i = this.length++;
    this.validity.mark(i, value !== null);
    this.bits.mark(i, value === true);
  }

  finish(): Data {
    const length = this.length;
    const data = arrowData({
      type: this.type,
      length,
      ...this.validity.take(length),
      data: this.bits.all(length),
    });
    this.length = 0;
    return data;
  }
}

/** Largest byte offset an Arrow Utf8/Binary column holds (its offsets are 32-bit). */
const MAX_OFFSET = 0x7fff_ffff;
const encoder = new TextEncoder();

/** UTF-8 strings and bytes: an offsets buffer and one data buffer. */
class BytesFill implements ColumnFill {
  private offsets = new Int32Array(INITIAL + 1);
  private data = new Uint8Array(INITIAL * 16);
  private length = 0;
  private end = 0;
  private readonly validity = new Bitmap();

  constructor(private readonly type: DataType) {}

  get bytes(): number {
    return this.end + this.length * 4;
  }

  append(value: TabularValue): void {
    if (this.length + 1 === this.offsets.length)
      this.offsets = grow(this.offsets, Int32Array, this.length + 2);
    const i = this.length++;
    this.validity.mark(i, value !== null);
    if (typeof value === 'string') this.end = this.writeString(value);
    else if (value instanceof Uint8Array) {
      this.reserve(value.length);
      this.data.set(value, this.end);
      this.end += value.length;
    }
    this.offsets[i + 1] = this.end;
  }

  private writeString(text: string): number {
    const n = text.length;
    this.reserve(n * 3);
    const data = this.data;
    let at = this.end;
    // Short ASCII text (most of a table's strings) is copied here: cheaper than a call to encodeInto.
    if (n <= 64) {
      let i = 0;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c >= 0x80) break;
        data[at + i] = c;
      }
      if (i === n) return at + n;
    }
    at += encoder.encodeInto(text, data.subarray(at)).written;
    return at;
  }

  private reserve(extra: number): void {
    const need = this.end + extra;
    if (need > MAX_OFFSET)
      throw new FormatError(
        'UnsupportedFeature',
        `an Arrow ${this.type} column holds at most 2 GiB per record batch (32-bit offsets); lower --batch-rows`,
      );
    if (need > this.data.length) this.data = grow(this.data, Uint8Array, need);
  }

  finish(): Data {
    const length = this.length;
    const data = arrowData({
      type: this.type,
      length,
      ...this.validity.take(length),
      valueOffsets: this.offsets.slice(0, length + 1),
      data: this.data.slice(0, this.end),
    });
    this.length = 0;
    this.end = 0;
    return data;
  }
}

/** List<T> (offsets) and FixedSizeList<T>(n) (an ndarray of a known shape): the items fill a child column. */
class ListFill implements ColumnFill {
  private readonly child: ColumnFill;
  private readonly size: number | undefined;
  private offsets: Int32Array | undefined;
  private length = 0;
  private end = 0;
  private readonly validity = new Bitmap();

  constructor(private readonly type: DataType) {
    this.child = columnFill(type.children[0].type);
    this.size =
      type.typeId === Type.FixedSizeList ? (type as unknown as { listSize: number }).listSize : undefined;
    if (this.size === undefined) this.offsets = new Int32Array(INITIAL + 1);
  }

  get bytes(): number {
    return this.child.bytes + this.length * 4;
  }

  append(value: TabularValue): void {
    const i = this.length++;
    this.validity.mark(i, value !== null);
    const items = (value ?? []) as readonly TabularValue[] | NumericArray;
    if (this.size !== undefined) {
      if (value === null) for (let k = 0; k < this.size; k++) this.child.append(null);
      else if (items.length !== this.size)
        throw new FormatError(
          'InvalidValue',
          `a list of ${items.length} items where the field holds ${this.size}`,
        );
      else this.appendItems(items);
      return;
    }
    this.appendItems(items);
    this.end += items.length;
    if (this.end > MAX_OFFSET)
      throw new FormatError(
        'UnsupportedFeature',
        'an Arrow List column holds at most 2^31 items per record batch',
      );
    if (i + 1 === (this.offsets as Int32Array).length)
      this.offsets = grow(this.offsets as Int32Array, Int32Array, i + 2);
    (this.offsets as Int32Array)[i + 1] = this.end;
  }

  private appendItems(items: readonly TabularValue[] | NumericArray): void {
    if (ArrayBuffer.isView(items) && this.child instanceof FixedFill && this.child.appendArray(items)) return;
    for (let k = 0; k < items.length; k++) this.child.append(items[k] as TabularValue);
  }

  finish(): Data {
    const length = this.length;
    const child = this.child.finish();
    const validity = this.validity.take(length);
    const data =
      this.offsets === undefined
        ? arrowData({ type: this.type, length, ...validity, child })
        : arrowData({
            type: this.type,
            length,
            ...validity,
            valueOffsets: this.offsets.slice(0, length + 1),
            child,
          });
    this.length = 0;
    this.end = 0;
    return data;
  }
}

/** Struct (an image, an ndarray without a shape, a struct field): one child column per field. */
class StructFill implements ColumnFill {
  private readonly names: readonly string[];
  private readonly children: readonly ColumnFill[];
  private length = 0;
  private readonly validity = new Bitmap();

  constructor(private readonly type: DataType) {
    this.names = type.children.map((f) => f.name);
    this.children = type.children.map((f) => columnFill(f.type));
  }

  get bytes(): number {
    let total = 0;
    for (const child of this.children) total += child.bytes;
    return total;
  }

  append(value: TabularValue): void {
    this.validity.mark(this.length++, value !== null);
    const object = value as { readonly [key: string]: TabularValue } | null;
    for (let k = 0; k < this.children.length; k++) this.children[k].append(object?.[this.names[k]] ?? null);
  }

  finish(): Data {
    const length = this.length;
    const children = this.children.map((c) => c.finish());
    const data = arrowData({ type: this.type, length, ...this.validity.take(length), children });
    this.length = 0;
    return data;
  }
}

/** Any other type (Float16): apache-arrow's builder, one call per value. */
class BuilderFill implements ColumnFill {
  private readonly builder: Builder;
  private count = 0;

  constructor(type: DataType) {
    this.builder = makeBuilder({ type, nullValues: [null, undefined] });
  }

  get bytes(): number {
    return this.count * 8;
  }

  append(value: TabularValue): void {
    this.builder.append(value);
    this.count++;
  }

  finish(): Data {
    this.count = 0;
    return this.builder.flush();
  }
}

/** apache-arrow's makeData, whose props are typed per DataType subclass, for a type known only at run time. */
function arrowData(
  props: { type: DataType; length: number; nullCount: number } & Record<string, unknown>,
): Data {
  return makeData(props as never);
}

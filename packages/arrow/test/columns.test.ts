import type { TabularValue } from '@binscope/core';
import {
  Binary,
  Bool,
  type DataType,
  Field,
  FixedSizeList,
  Float16,
  Float64,
  Int8,
  Int32,
  Int64,
  List,
  makeVector,
  Struct,
  Uint64,
  Utf8,
  type Vector,
} from 'apache-arrow';
import { expect, it } from 'vitest';
import { columnFill } from '../src/columns.js';

// The column fills write Arrow's buffers by hand; apache-arrow's own vectors read them back.
// Rows pass the initial capacity (1024) and byte boundaries, with nulls first, last and between.

const ROWS = 2500;
const isNull = (i: number) => i % 7 === 3 || i === ROWS - 1;

/** The fill's Data as a vector, and every value through apache-arrow's `get`. */
function roundTrip(type: DataType, values: readonly TabularValue[]): unknown[] {
  const fill = columnFill(type);
  for (const v of values) fill.append(v);
  const vector: Vector = makeVector(fill.finish());
  expect(vector.length).toBe(values.length);
  expect(vector.nullCount).toBe(values.filter((v) => v === null).length);
  return Array.from({ length: vector.length }, (_, i) => vector.get(i));
}

function column<T>(make: (i: number) => T): (T | null)[] {
  return Array.from({ length: ROWS }, (_, i) => (isNull(i) ? null : make(i)));
}

it('fixed-width numbers keep every value, 64-bit ones exactly (from bigint or a safe number)', () => {
  const ints = column((i) => i * 977 - 1_000_000);
  expect(roundTrip(new Int32(), ints)).toEqual(ints);
  const small = column((i) => (i % 256) - 128);
  expect(roundTrip(new Int8(), small)).toEqual(small);
  const floats = column((i) => i / 3);
  expect(roundTrip(new Float64(), floats)).toEqual(floats);
  const big = column((i) => (i % 2 ? -(2n ** 63n) + BigInt(i) : 2 ** 53 - i));
  expect(roundTrip(new Int64(), big)).toEqual(big.map((v) => (v === null ? null : BigInt(v))));
  const unsigned = column((i) => 2n ** 64n - 1n - BigInt(i));
  expect(roundTrip(new Uint64(), unsigned)).toEqual(unsigned);
  const half = column((i) => (i % 1024) / 8); // exact in half precision
  expect(roundTrip(new Float16(), half)).toEqual(half);
});

it('bools, strings (ASCII, non-ASCII, long) and bytes', () => {
  const flags = column((i) => i % 3 === 0);
  expect(roundTrip(new Bool(), flags)).toEqual(flags);
  const text = column((i) =>
    i % 5 === 0 ? `é ${i} 日本 🎉` : i % 11 === 0 ? 'x'.repeat(70 + i) : i % 13 ? `r${i}` : '',
  );
  expect(roundTrip(new Utf8(), text)).toEqual(text);
  const bytes = column((i) => Uint8Array.from({ length: i % 40 }, (_, k) => (k * i) & 0xff));
  expect(roundTrip(new Binary(), bytes)).toEqual(bytes);
});

it('a column without nulls has no validity bitmap; a first null late keeps the earlier slots valid', () => {
  const fill = columnFill(new Int32());
  for (let i = 0; i < 2000; i++) fill.append(i);
  expect(fill.finish().nullBitmap).toHaveLength(0);
  for (let i = 0; i < 1500; i++) fill.append(i === 1499 ? null : i);
  const vector = makeVector(fill.finish());
  expect([vector.nullCount, vector.get(0), vector.get(1498), vector.get(1499)]).toEqual([1, 0, 1498, null]);
});

it('lists, fixed-size lists (typed-array items copied whole) and structs, with nulls at each level', () => {
  const item = new Field('item', new Int64(), true);
  const lists = column((i) => (i % 4 === 0 ? [] : [BigInt(i), null, -(2n ** 63n)]));
  expect(roundTrip(new List(item), lists).map((v) => (v === null ? null : [...(v as Vector)]))).toEqual(
    lists,
  );

  const fixed = new FixedSizeList(3, new Field('item', new Int32(), false));
  const arrays = column((i) => Int32Array.of(i, -i, i * 2));
  const back = roundTrip(fixed, arrays).map((v) => (v === null ? null : Int32Array.from(v as Vector)));
  expect(back).toEqual(arrays);
  expect(() => columnFill(fixed).append(Int32Array.of(1, 2))).toThrow(/2 items where the field holds 3/);

  const struct = new Struct([new Field('h', new Int32(), false), new Field('pixels', new Binary(), false)]);
  const images = column((i) => ({ h: i, pixels: Uint8Array.of(i & 0xff, 1) }));
  expect(
    roundTrip(struct, images).map((v) => (v === null ? null : (v as { toJSON(): unknown }).toJSON())),
  ).toEqual(images);
});

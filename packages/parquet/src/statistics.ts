import { BoolLeaf, BytesLeaf, FloatLeaf, Int32Leaf, Int64Leaf, type Leaf } from './leaves.js';

/**
 * A column chunk's minimum and maximum as hyparquet-writer computes them (its footer writer
 * turns them into the physical bytes): NaN skipped and counted, a zero minimum as -0 and a
 * zero maximum as +0, unsigned integers ordered as unsigned, byte arrays (UTF-8 strings too)
 * by unsigned bytes, which is the order of code points.
 */
export interface Extremes {
  min?: number | bigint | boolean | Uint8Array;
  max?: number | bigint | boolean | Uint8Array;
  /** Floating-point columns only. */
  nan?: number;
}

/**
 * The extremes of the leaf's values, or of the values `among` lists (one of each distinct value,
 * a dictionary's entries, which have the same extremes). Floats are always counted whole, for
 * their NaNs.
 */
export function extremes(leaf: Leaf, among?: Int32Array): Extremes {
  if (leaf.count === 0) return leaf instanceof FloatLeaf ? { nan: 0 } : {};
  if (leaf instanceof FloatLeaf) return floatExtremes(leaf);
  if (leaf instanceof BoolLeaf) return boolExtremes(leaf);
  const n = among ? among.length : leaf.count;
  const at = (k: number) => (among ? among[k] : k);
  if (leaf instanceof Int32Leaf) return int32Extremes(leaf, n, at);
  if (leaf instanceof Int64Leaf) return int64Extremes(leaf, n, at);
  if (leaf instanceof BytesLeaf) return bytesExtremes(leaf, n, at);
  return {};
}

/** Value `at(k)` for k in [0, n): the values whose extremes are asked. */
type Values = (k: number) => number;

function int32Extremes(leaf: Int32Leaf, n: number, at: Values): Extremes {
  const data = leaf.data;
  // u32 as unsigned: its bits read back with >>> 0.
  const value = leaf.unsigned ? (k: number) => data[at(k)] >>> 0 : (k: number) => data[at(k)];
  let min = value(0);
  let max = min;
  for (let k = 1; k < n; k++) {
    const v = value(k);
    if (v < min) min = v;
    else if (v > max) max = v;
  }
  return { min, max };
}

function int64Extremes(leaf: Int64Leaf, n: number, at: Values): Extremes {
  const words = leaf.words;
  // Compare (high, low) pairs: the high word signed (unsigned for u64), the low word unsigned.
  const high = (i: number) => (leaf.unsigned ? words[2 * i + 1] >>> 0 : words[2 * i + 1]);
  const less = (a: number, b: number) =>
    high(a) < high(b) || (high(a) === high(b) && words[2 * a] >>> 0 < words[2 * b] >>> 0);
  let min = at(0);
  let max = min;
  for (let k = 1; k < n; k++) {
    const i = at(k);
    if (less(i, min)) min = i;
    else if (less(max, i)) max = i;
  }
  return { min: leaf.bigint(min), max: leaf.bigint(max) };
}

function floatExtremes(leaf: FloatLeaf): Extremes {
  const data = leaf.data;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let nan = 0;
  let any = false;
  for (let i = 0; i < leaf.count; i++) {
    const v = data[i];
    if (Number.isNaN(v)) nan++;
    else {
      any = true;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  if (!any) return { nan };
  return { min: min === 0 ? -0 : min, max: max === 0 ? 0 : max, nan };
}

function boolExtremes(leaf: BoolLeaf): Extremes {
  let ones = 0;
  for (let i = 0; i < leaf.count; i++) ones += leaf.data[i];
  return { min: ones === leaf.count, max: ones > 0 };
}

function bytesExtremes(leaf: BytesLeaf, n: number, at: Values): Extremes {
  const { bytes, offsets } = leaf;
  // Unsigned byte order of value a against value b.
  const compare = (a: number, b: number) => {
    const aEnd = offsets[a + 1];
    const bEnd = offsets[b + 1];
    for (let x = offsets[a], y = offsets[b]; x < aEnd && y < bEnd; x++, y++)
      if (bytes[x] !== bytes[y]) return bytes[x] - bytes[y];
    return aEnd - offsets[a] - (bEnd - offsets[b]);
  };
  let min = at(0);
  let max = min;
  for (let k = 1; k < n; k++) {
    const i = at(k);
    if (compare(i, min) < 0) min = i;
    else if (compare(i, max) > 0) max = i;
  }
  const value = (i: number) => bytes.slice(offsets[i], offsets[i + 1]);
  return { min: value(min), max: value(max) };
}

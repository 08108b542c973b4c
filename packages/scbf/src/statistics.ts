import type { ScbfType } from './layout.js';
import type { Utf8Column } from './utf8.js';

/**
 * Per-column statistics (extension kind 2). Numeric min/max are the column's values (int32
 * widened exactly to a double; NaN is left out of min/max, so a NaN-only column has none).
 * utf8 min/max compare by code point, which is the byte order of UTF-8, and carry the
 * byte-length range too. `distinct` is a HyperLogLog estimate (exact for small columns in
 * practice: linear counting below ~10k values).
 */
export interface ColumnStatistics {
  type: ScbfType;
  /** Values without a value (always 0 until a file carries null bitmaps). */
  nullCount: number;
  distinct: number;
  /** Numeric columns: smallest and largest value, undefined when the column has none. */
  min?: number;
  max?: number;
  /** utf8 columns: smallest / largest value by code point, and the byte-length range. */
  minText?: string;
  maxText?: string;
  minLength?: number;
  maxLength?: number;
}

const P = 12;
const REGISTERS = 1 << P;

/** A HyperLogLog sketch over 32-bit hashes (2^12 registers, ~1.6% standard error). */
class DistinctSketch {
  private readonly registers = new Uint8Array(REGISTERS);
  add(hash: number): void {
    const index = hash >>> (32 - P);
    const rest = (hash << P) | (1 << (P - 1));
    const rank = Math.clz32(rest) + 1;
    if (rank > this.registers[index]) this.registers[index] = rank;
  }
  estimate(): number {
    let sum = 0;
    let zeros = 0;
    for (const r of this.registers) {
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    const alpha = 0.7213 / (1 + 1.079 / REGISTERS);
    const raw = (alpha * REGISTERS * REGISTERS) / sum;
    // Linear counting is far more accurate while registers are still empty.
    if (raw <= 2.5 * REGISTERS && zeros > 0) return Math.round(REGISTERS * Math.log(REGISTERS / zeros));
    return Math.round(raw);
  }
}

/** FNV-1a over bytes, then murmur3's finaliser: FNV alone leaves the high bits poorly mixed. */
function hashBytes(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return mix(h);
}

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const scratch = new Float64Array(1);
const scratchBytes = new Uint8Array(scratch.buffer);

function hashNumber(value: number): number {
  scratch[0] = value === 0 ? 0 : value; // -0 and 0 are one value for a filter
  return hashBytes(scratchBytes);
}

/** Null rows (bit set in `nulls`, see the null bitmap extension) count as nulls, not values. */
export function numericStatistics(
  type: 'int32' | 'float64',
  values: ArrayLike<number>,
  nulls?: Uint8Array,
): ColumnStatistics {
  const sketch = new DistinctSketch();
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let seen = false;
  let nullCount = 0;
  for (let i = 0; i < values.length; i++) {
    if (nulls && (nulls[i >> 3] >> (i & 7)) & 1) {
      nullCount++;
      continue;
    }
    const v = values[i];
    sketch.add(hashNumber(v));
    if (Number.isNaN(v)) continue;
    seen = true;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const out: ColumnStatistics = { type, nullCount, distinct: sketch.estimate() };
  if (seen) {
    out.min = min;
    out.max = max;
  }
  return out;
}

/** Compares two byte strings as unsigned bytes (UTF-8 byte order = code point order). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

export function utf8Statistics(column: Utf8Column): ColumnStatistics {
  const sketch = new DistinctSketch();
  const n = column.length;
  const out: ColumnStatistics = { type: 'utf8', nullCount: 0, distinct: 0 };
  if (n === 0) return out;
  let minIndex = 0;
  let maxIndex = 0;
  let minLength = Number.POSITIVE_INFINITY;
  let maxLength = 0;
  for (let i = 0; i < n; i++) {
    const from = column.offsets[i];
    const to = column.offsets[i + 1];
    sketch.add(hashBytes(column.bytes, from, to));
    minLength = Math.min(minLength, to - from);
    maxLength = Math.max(maxLength, to - from);
    const raw = column.rawBytes(i);
    if (compareBytes(raw, column.rawBytes(minIndex)) < 0) minIndex = i;
    if (compareBytes(raw, column.rawBytes(maxIndex)) > 0) maxIndex = i;
  }
  out.distinct = sketch.estimate();
  out.minText = column.get(minIndex);
  out.maxText = column.get(maxIndex);
  out.minLength = minLength;
  out.maxLength = maxLength;
  return out;
}

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

/** Compares two byte strings as unsigned bytes (UTF-8 byte order = code point order). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Statistics built batch by batch (rows in order), so a column never has to be whole in
 * memory: the writer feeds it one block, validate one streamed batch at a time. Null rows
 * (bit set in `nulls`, see the null bitmap extension) count as nulls, not values.
 */
export class StatisticsBuilder {
  private readonly sketch = new DistinctSketch();
  private row = 0;
  private nullCount = 0;
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;
  private seen = false;
  private minBytes: Uint8Array | undefined;
  private maxBytes: Uint8Array | undefined;
  private minLength = Number.POSITIVE_INFINITY;
  private maxLength = 0;

  constructor(
    readonly type: 'int32' | 'float64' | 'utf8',
    private readonly nulls?: Uint8Array,
  ) {}

  private isNull(): boolean {
    const r = this.row;
    return this.nulls !== undefined && ((this.nulls[r >> 3] >> (r & 7)) & 1) === 1;
  }

  addNumbers(values: ArrayLike<number>): void {
    for (let i = 0; i < values.length; i++, this.row++) {
      if (this.isNull()) {
        this.nullCount++;
        continue;
      }
      const v = values[i];
      this.sketch.add(hashNumber(v));
      if (Number.isNaN(v)) continue;
      this.seen = true;
      if (v < this.min) this.min = v;
      if (v > this.max) this.max = v;
    }
  }

  addStrings(column: Utf8Column): void {
    for (let i = 0; i < column.length; i++, this.row++) {
      const from = column.offsets[i];
      const to = column.offsets[i + 1];
      this.sketch.add(hashBytes(column.bytes, from, to));
      this.minLength = Math.min(this.minLength, to - from);
      this.maxLength = Math.max(this.maxLength, to - from);
      const raw = column.bytes.subarray(from, to);
      // Copies only when a new extreme is found: the batch's buffer is not ours to keep.
      if (this.minBytes === undefined || compareBytes(raw, this.minBytes) < 0) this.minBytes = raw.slice();
      if (this.maxBytes === undefined || compareBytes(raw, this.maxBytes) > 0) this.maxBytes = raw.slice();
    }
  }

  result(): ColumnStatistics {
    const out: ColumnStatistics = {
      type: this.type,
      nullCount: this.nullCount,
      distinct: this.sketch.estimate(),
    };
    if (this.type === 'utf8') {
      if (this.minBytes && this.maxBytes) {
        out.minText = utf8.decode(this.minBytes);
        out.maxText = utf8.decode(this.maxBytes);
        out.minLength = this.minLength;
        out.maxLength = this.maxLength;
      }
    } else if (this.seen) {
      out.min = this.min;
      out.max = this.max;
    }
    return out;
  }
}

export function numericStatistics(
  type: 'int32' | 'float64',
  values: ArrayLike<number>,
  nulls?: Uint8Array,
): ColumnStatistics {
  const builder = new StatisticsBuilder(type, nulls);
  builder.addNumbers(values);
  return builder.result();
}

export function utf8Statistics(column: Utf8Column): ColumnStatistics {
  const builder = new StatisticsBuilder('utf8');
  builder.addStrings(column);
  return builder.result();
}

/** Where two statistics disagree (the field name), or undefined when they are the same. */
export function statisticsDiffer(
  stored: ColumnStatistics,
  actual: ColumnStatistics,
): keyof ColumnStatistics | undefined {
  const keys = [
    'nullCount',
    'distinct',
    'min',
    'max',
    'minText',
    'maxText',
    'minLength',
    'maxLength',
  ] as const;
  return keys.find((k) => !Object.is(stored[k], actual[k]));
}

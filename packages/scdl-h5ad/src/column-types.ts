import type { FeatureColumnType } from '@binscope/scdl';
import type { ElementType } from './h5.js';

/**
 * The parquet type upstream ends up with for an AnnData column of this element type: the
 * column reaches pyarrow as a numpy array of that dtype, and pyarrow keeps it (C11).
 */
export function numericColumnType(type: ElementType): FeatureColumnType {
  switch (type) {
    case 'bool':
      return 'bool';
    case 'i8':
      return 'int8';
    case 'u8':
      return 'uint8';
    case 'i16':
      return 'int16';
    case 'u16':
      return 'uint16';
    case 'i32':
      return 'int32';
    case 'u32':
      return 'uint32';
    case 'i64':
      return 'int64';
    case 'u64':
      return 'uint64';
    case 'f16':
      return 'float16';
    case 'f32':
      return 'float32';
    case 'f64':
      return 'float64';
  }
}

type Numeric = Exclude<FeatureColumnType, 'string'>;

const INT_BITS: Partial<Record<Numeric, { bits: number; signed: boolean }>> = {
  int8: { bits: 8, signed: true },
  int16: { bits: 16, signed: true },
  int32: { bits: 32, signed: true },
  int64: { bits: 64, signed: true },
  uint8: { bits: 8, signed: false },
  uint16: { bits: 16, signed: false },
  uint32: { bits: 32, signed: false },
  uint64: { bits: 64, signed: false },
};
const FLOAT_BITS: Partial<Record<Numeric, number>> = { float16: 16, float32: 32, float64: 64 };

const signedOf = (bits: number) => `int${bits}` as Numeric;
const floatOf = (bits: number) => `float${bits}` as Numeric;

/** numpy.concatenate's result dtype for two columns (numpy's promotion table). */
export function promoteColumnTypes(a: FeatureColumnType, b: FeatureColumnType): FeatureColumnType {
  if (a === b) return a;
  if (a === 'string' || b === 'string') return 'string';
  if (a === 'bool') return b;
  if (b === 'bool') return a;
  const ia = INT_BITS[a];
  const ib = INT_BITS[b];
  if (ia && ib) {
    if (ia.signed === ib.signed) return ia.bits >= ib.bits ? a : b;
    const signed = ia.signed ? ia : ib;
    const unsigned = ia.signed ? ib : ia;
    if (unsigned.bits < signed.bits) return signedOf(signed.bits);
    return unsigned.bits < 64 ? signedOf(unsigned.bits * 2) : 'float64';
  }
  const fa = FLOAT_BITS[a];
  const fb = FLOAT_BITS[b];
  if (fa && fb) return floatOf(Math.max(fa, fb));
  const float = (fa ?? fb) as number;
  const int = (ia ?? ib) as { bits: number };
  // The smallest float that holds every value of the integer type.
  const needed = int.bits === 8 ? 16 : int.bits === 16 ? 32 : 64;
  return floatOf(Math.max(float, needed));
}

/** A value converted for a column of `type` (bigints for 64-bit integers, as the writer takes them). */
export function valueAs(type: FeatureColumnType, v: unknown): string | number | boolean | bigint | null {
  if (v === null || v === undefined) return null;
  if (type === 'string') return String(v);
  if (type === 'bool') return Boolean(v);
  if (type === 'int64' || type === 'uint64') return typeof v === 'bigint' ? v : BigInt(Number(v));
  return Number(v);
}

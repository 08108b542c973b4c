import type { Field, LogicalType, ReadOptions } from '@binscope/core';
import type { FeatureIndex, FeatureValue } from './features.js';

/** One obs feature column as a record field: its name in the records and in the parquet tables. */
export interface ObsField {
  field: Field;
  /** The column's name in the obs tables (the field's name differs only on a clash). */
  column: string;
}

/** The logical type of a parquet column as its Arrow type name (what FeatureIndex.parquetInfo reports). */
function logicalType(arrow: string): LogicalType {
  const int = /^(u?)int(8|16|32|64)$/.exec(arrow);
  if (int) return { kind: 'int', bits: Number(int[2]) as 8 | 16 | 32 | 64, signed: int[1] === '' };
  if (arrow === 'halffloat') return { kind: 'float', bits: 16 };
  if (arrow === 'float') return { kind: 'float', bits: 32 };
  if (arrow === 'double') return { kind: 'float', bits: 64 };
  if (arrow === 'bool') return { kind: 'bool' };
  // Strings, and binary columns, which the feature tables give as hex text.
  return { kind: 'string' };
}

/**
 * The type a column has across blocks whose tables type it differently: the wider number
 * when both are numbers (a double for an int beside a float, or for mixed signedness), text
 * otherwise (values are then given as text).
 */
function merged(a: LogicalType, b: LogicalType): LogicalType {
  if (a.kind === b.kind && a.kind !== 'int' && a.kind !== 'float') return a;
  if (a.kind === 'int' && b.kind === 'int' && a.signed === b.signed)
    return { kind: 'int', bits: Math.max(a.bits, b.bits) as 8 | 16 | 32 | 64, signed: a.signed };
  if (a.kind === 'float' && b.kind === 'float')
    return { kind: 'float', bits: Math.max(a.bits, b.bits) as 16 | 32 | 64 };
  const numeric = (t: LogicalType) => t.kind === 'int' || t.kind === 'float';
  return numeric(a) && numeric(b) ? { kind: 'float', bits: 64 } : { kind: 'string' };
}

function typeName(type: LogicalType): string {
  if (type.kind === 'int') return `${type.signed ? '' : 'u'}int${type.bits}`;
  if (type.kind === 'float') return `float${type.bits}`;
  return type.kind;
}

/**
 * The obs feature columns (obs_features/, one parquet table per block) as record fields after
 * `taken` (the matrix fields), in the order the blocks first name them, typed from the
 * parquet footers. Every field is nullable: a row outside every block, or in a block whose
 * table lacks the column, has null. A column named like a matrix field is given as `obs.NAME`.
 */
export async function obsFields(
  index: FeatureIndex | undefined,
  taken: readonly string[],
  options?: ReadOptions,
): Promise<ObsField[]> {
  if (!index) return [];
  const types = new Map<string, LogicalType>();
  for (let b = 0; b < index.blockCount; b++) {
    options?.signal?.throwIfAborted();
    if (!index.block(b).file) continue;
    for (const { name, type } of (await index.parquetInfo(b)).columns) {
      const t = logicalType(type);
      const seen = types.get(name);
      types.set(name, seen ? merged(seen, t) : t);
    }
  }
  const names = new Set(taken);
  return [...types].map(([column, type]) => {
    const name = names.has(column) ? `obs.${column}` : column;
    names.add(name);
    return {
      column,
      field: {
        name,
        type,
        nullable: true,
        description: 'obs (cell) feature column',
        metadata: { type: typeName(type) },
      },
    };
  });
}

/** A table value as the field's type: numbers as numbers (64-bit integers as bigints), else text. */
export function obsValue(value: FeatureValue | undefined, type: LogicalType): FeatureValue {
  if (value === null || value === undefined) return null;
  if (type.kind === 'string') return typeof value === 'string' ? value : String(value);
  if (type.kind === 'bool') return value;
  if (type.kind === 'int' && type.bits === 64) return typeof value === 'bigint' ? value : BigInt(value);
  return typeof value === 'bigint' || typeof value === 'boolean' ? Number(value) : value;
}

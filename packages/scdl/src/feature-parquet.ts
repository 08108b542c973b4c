/**
 * Feature tables as parquet, typed as upstream's writer types them (C11): bionemo-scdl turns
 * each column into a numpy array and hands it to `pa.array(values, from_pandas=True)`, so the
 * parquet column carries numpy's dtype (int8 stays int8, uint64 stays unsigned). NaN is
 * written as given: the AnnData converter turns it into null the way from_pandas does.
 */
import { type FormatError, formatErrors } from '@binscope/core';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { FORMAT } from './header.js';
import type { FeatureBlock, FeatureColumnType, FeatureValues } from './write-types.js';

const fail = formatErrors(FORMAT);

type SchemaElement = NonNullable<Parameters<typeof parquetWriteBuffer>[0]['schema']>[number];

/** Physical type plus the annotations pyarrow writes for each Arrow type. */
const SCHEMA: Record<FeatureColumnType, Omit<SchemaElement, 'name' | 'repetition_type'>> = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
  bool: { type: 'BOOLEAN' },
  int8: integer('INT32', 8, true),
  int16: integer('INT32', 16, true),
  int32: { type: 'INT32' },
  int64: { type: 'INT64' },
  uint8: integer('INT32', 8, false),
  uint16: integer('INT32', 16, false),
  uint32: integer('INT32', 32, false),
  uint64: integer('INT64', 64, false),
  float16: { type: 'FIXED_LEN_BYTE_ARRAY', type_length: 2, logical_type: { type: 'FLOAT16' } },
  float32: { type: 'FLOAT' },
  float64: { type: 'DOUBLE' },
};

function integer(
  type: 'INT32' | 'INT64',
  bitWidth: 8 | 16 | 32 | 64,
  isSigned: boolean,
): Omit<SchemaElement, 'name' | 'repetition_type'> {
  // Only the converted type: hyparquet-writer serialises IntType.bitWidth as a thrift i32
  // where readers expect a byte (pyarrow rejects the footer); INT_8..UINT_64 alone read back
  // as the same Arrow types.
  return {
    type,
    converted_type: `${isSigned ? 'INT' : 'UINT'}_${bitWidth}` as SchemaElement['converted_type'],
  };
}

const TYPED_ARRAY_TYPE: [new (...args: never[]) => ArrayBufferView, FeatureColumnType][] = [
  [Int8Array, 'int8'],
  [Int16Array, 'int16'],
  [Int32Array, 'int32'],
  [BigInt64Array, 'int64'],
  [Uint8Array, 'uint8'],
  [Uint16Array, 'uint16'],
  [Uint32Array, 'uint32'],
  [BigUint64Array, 'uint64'],
  [Float32Array, 'float32'],
  [Float64Array, 'float64'],
];

/**
 * A column's type when none is given: a typed array keeps its element type (as numpy's dtype
 * reaches pyarrow); plain values follow pandas' inference (integers → int64, else float64).
 */
export function inferColumnType(values: FeatureValues): FeatureColumnType {
  for (const [ctor, type] of TYPED_ARRAY_TYPE) if (values instanceof ctor) return type;
  let allIntegers = true;
  let kind: 'string' | 'number' | 'boolean' | 'bigint' | undefined;
  for (const v of values as readonly unknown[]) {
    if (v === null || v === undefined) continue;
    const t = typeof v;
    if (t !== 'string' && t !== 'number' && t !== 'boolean' && t !== 'bigint') {
      throw invalid(`feature values must be strings, numbers, booleans or bigints, not ${t}`);
    }
    if (kind === undefined) kind = t;
    else if (kind !== t && !(kind === 'number' && t === 'bigint') && !(kind === 'bigint' && t === 'number')) {
      throw invalid(`a feature column mixes ${kind} and ${t} values`);
    }
    if (t === 'number' && !Number.isInteger(v)) allIntegers = false;
  }
  if (kind === 'string' || kind === undefined) return 'string';
  if (kind === 'boolean') return 'bool';
  if (kind === 'bigint') return 'int64';
  return allIntegers ? 'int64' : 'float64';
}

function invalid(message: string): FormatError {
  return fail('InvalidValue', message);
}

const INT_RANGE: Partial<Record<FeatureColumnType, [bigint, bigint]>> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 2n ** 8n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

/**
 * Values as the writer takes them for `type`. An integer the type cannot hold is refused:
 * wrapping it (2^63 → −2^63 in int64) would make the archive read back another value.
 */
function columnValues(name: string, values: FeatureValues, type: FeatureColumnType): unknown[] {
  const range = INT_RANGE[type];
  if (range) {
    const wide = type === 'int64' || type === 'uint64';
    return Array.from(values as ArrayLike<unknown>, (v, row) => {
      if (v === null || v === undefined) return null;
      const n = typeof v === 'bigint' ? v : Number(v);
      if (typeof n === 'number' && !Number.isInteger(n))
        throw invalid(`feature column "${name}" row ${row}: ${n} is not an integer (${type})`);
      const big = BigInt(n);
      if (big < range[0] || big > range[1])
        throw invalid(`feature column "${name}" row ${row}: ${big} does not fit ${type}`);
      return wide ? big : Number(big);
    });
  }
  return ArrayBuffer.isView(values) ? Array.from(values as ArrayLike<unknown>) : (values as unknown[]);
}

/** One feature block's table as parquet bytes (hyparquet-writer, snappy, like pyarrow's default). */
export function featureTableParquet(block: FeatureBlock): Uint8Array {
  const schema: SchemaElement[] = [{ name: 'root', num_children: block.columns.length }];
  const columnData = block.columns.map((column) => {
    const type = column.type ?? inferColumnType(column.values);
    schema.push({ name: column.name, repetition_type: 'OPTIONAL', ...SCHEMA[type] });
    return { name: column.name, data: columnValues(column.name, column.values, type) };
  });
  const buffer = parquetWriteBuffer({ columnData, schema, createdBy: '@binscope/scdl' });
  return new Uint8Array(buffer);
}

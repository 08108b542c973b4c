import type {
  ByteLocation,
  DataRecord,
  Field,
  LogicalType,
  NdArrayValue,
  ReadOptions,
  RecordOptions,
  Schema,
  Value,
} from '@binscope/core';
import { MldfLazyText } from './decode.js';
import { type FieldType, type MldfField, ND_DTYPES } from './layout.js';
import type { MldfReader } from './read.js';
import type { MldfValue, NdArray } from './values.js';

/** The field every record starts with: the sample's position in the file. */
const SAMPLE_FIELD: Field = {
  name: 'sample',
  type: { kind: 'int', bits: 64, signed: false },
  description: 'position of the sample in the file (its metadata row)',
};

/** Types whose missing value (M6: ptr 0, size 0) has no empty form and reads as null. */
const NULL_WHEN_MISSING = new Set<FieldType>(['JSON', 'NDARRAY', 'IMAGE_RAW']);

function logicalType(f: MldfField): LogicalType {
  switch (f.type) {
    case 'INT': // M5: value i64
      return { kind: 'int', bits: 64, signed: true };
    case 'FLOAT': // M5: value f64
      return { kind: 'float', bits: 64 };
    case 'BYTES':
      return { kind: 'bytes' };
    case 'JSON':
      return { kind: 'json' };
    case 'TEXT_RAW':
      return { kind: 'string' };
    case 'IMAGE_RAW':
      return { kind: 'image' };
    case 'NDARRAY':
      return { kind: 'ndarray', dtype: ND_DTYPES[f.ndarray!.dtype], shape: f.ndarray!.shape };
  }
}

/**
 * The records' schema: `sample` (the position), then each field with its logical type.
 * `metadata.type` is MLDF's type name (`INT`, `NDARRAY`, …); an NDARRAY field's `dtype` is its
 * numpy typestr, which JSON output shows (`NdArrayValue.dtypeName`), as MLDF always printed it.
 */
export function mldfSchema(fields: readonly MldfField[]): Schema {
  return {
    fields: [
      SAMPLE_FIELD,
      ...fields.map((f): Field => {
        const metadata: Record<string, string> = { type: f.type };
        if (f.ndarray) metadata.dtype = f.ndarray.dtype;
        return {
          name: f.name,
          type: logicalType(f),
          ...(NULL_WHEN_MISSING.has(f.type) ? { nullable: true } : {}),
          metadata,
        };
      }),
    ],
  };
}

/**
 * A decoded value as a record value: NDARRAY with the dtype core knows and its numpy name,
 * JSON parsed with the text it was parsed from kept (so JSON output prints it as stored: big
 * integers, `-0.0`, repeated keys), TEXT_RAW decoded, a missing JSON/NDARRAY/IMAGE_RAW value
 * as null. Decoding errors are the eager read's (`InvalidValue` at the value's offset).
 */
function asValue(f: MldfField, value: MldfValue | undefined): Value {
  if (value === undefined) return null;
  if (value instanceof MldfLazyText) return value.value() as Value;
  if (f.type === 'NDARRAY') {
    const nd = value as NdArray;
    return {
      dtype: ND_DTYPES[nd.dtype],
      shape: nd.shape,
      data: nd.data,
      dtypeName: nd.dtype,
    } satisfies NdArrayValue;
  }
  return value as Value;
}

/**
 * The samples as DataRecords of `reader.schema`: `{sample, field: value}`, fields in file
 * order (those of `columns` when given; `sample` always first). With `locations`, each field's
 * bytes as `locateRecord` gives them. Decoding is lazy until a record is built, so the records
 * before a bad value come out before its error.
 */
export async function* mldfRecords(
  reader: MldfReader,
  options: RecordOptions = {},
): AsyncGenerator<DataRecord> {
  if (options.table !== undefined)
    throw new RangeError(`${reader.source.name}: MLDF has one table of samples, not "${options.table}"`);
  const start = Math.min(reader.numSamples, Math.max(0, options.offset ?? 0));
  const end =
    options.limit === undefined
      ? reader.numSamples
      : Math.min(reader.numSamples, start + Math.max(0, options.limit));
  const columns = options.columns;
  const selected = columns ? reader.fields.filter((f) => columns.includes(f.name)) : reader.fields;
  const fields = columns ? selected.map((f) => f.name) : undefined;
  let index = start;
  const batches = reader.batches({ start, end, fields, signal: options.signal, decode: 'lazy' });
  for await (const batch of batches) {
    for (const sample of batch) {
      const values: Record<string, Value> = { sample: index };
      for (const f of selected) values[f.name] = asValue(f, sample[f.name]);
      const locations = options.locations ? await sampleLocations(reader, index, fields, options) : undefined;
      yield { index: index++, values, ...(locations ? { locations } : {}) };
    }
  }
}

/**
 * Where each field of sample `index` is stored: `sample` at its metadata row; a field at its
 * value's bytes in the data region (when it has any) and at its cell of the row (its metadata
 * struct, which for INT and FLOAT is the value itself).
 */
export async function sampleLocations(
  reader: MldfReader,
  index: number,
  names: readonly string[] | undefined,
  options: ReadOptions = {},
): Promise<Record<string, ByteLocation[]>> {
  const file = reader.source.name;
  const row = reader.header.metadataPtr + index * reader.rowSize;
  const out: Record<string, ByteLocation[]> = {
    sample: [{ offset: row, length: reader.rowSize, file, field: 'sample' }],
  };
  for (const f of reader.fields) {
    if (names && !names.includes(f.name)) continue;
    const info = await reader.valueInfo(index, f.name, options);
    const cell: ByteLocation = { offset: info.metadataOffset, length: f.metadataSize, file, field: f.name };
    out[f.name] =
      info.size > 0 ? [{ offset: info.ptr, length: info.size, file, field: f.name }, cell] : [cell];
  }
  return out;
}

/**
 * Where sample `index` is stored, for `diff`: its metadata row, then per field its value's
 * bytes and its metadata struct (what `records({locations: true})` gives, in that order).
 */
export async function mldfLocateSample(
  reader: MldfReader,
  index: number,
  options: ReadOptions & { table?: string } = {},
): Promise<ByteLocation[]> {
  if (!Number.isSafeInteger(index) || index < 0 || index >= reader.numSamples) return [];
  const { sample, ...fields } = await sampleLocations(reader, index, undefined, options);
  // The row is the whole record's place, named by no field.
  const { field: _sample, ...row } = sample[0];
  return [row, ...Object.values(fields).flat()];
}

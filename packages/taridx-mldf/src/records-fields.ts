/**
 * How each field of any format's records becomes an MLDF field (records → MLDF), and the
 * refusals for what MLDF cannot hold. A Hugging Face-style table maps as a training set:
 *
 * int (any width) → INT; bool → INT 0/1; float → FLOAT; string → TEXT_RAW; json → JSON (its
 * text as stored); image → IMAGE_RAW; ndarray → NDARRAY (every value of the field's shape);
 * list of numbers → NDARRAY of shape [n] when every value has n items; bytes that hold images
 * (mediaType image/*, or a PNG/JPEG first value) and Hugging Face image structs
 * {bytes, path} → IMAGE_RAW, decoded (or BYTES with `--images bytes`); other bytes → BYTES.
 * Structs and other lists are refused, and so is a null (a JSON null is the JSON text `null`).
 */
import {
  type DType,
  type Field,
  FormatError,
  fieldTypeName,
  type ImageValue,
  type JsonValue,
  jsonLine,
  type LogicalType,
  type NdArrayValue,
  type Value,
} from '@binscope/core';
import { type FieldSpec, MldfLazyText, type NdDtype } from '@binscope/mldf';
import { decodeImage, isJpeg, isPng } from './image.js';

export interface RecordsPlace {
  file: string;
  format: string;
}

/** One MLDF field: its spec, and how a record's (non-null) value becomes what the writer takes. */
export interface FieldMap {
  spec: FieldSpec;
  field: Field;
  /** json: null is a JSON value (the text `null`), not a missing one. */
  nullIsValue?: boolean;
  value(value: Value, row: number): unknown;
}

export type ImageChoice = 'raw' | 'bytes';

const NUMPY: Readonly<Record<DType, NdDtype>> = {
  u8: '|u1',
  i8: '|i1',
  u16: '<u2',
  i16: '<i2',
  u32: '<u4',
  i32: '<i4',
  u64: '<u8',
  i64: '<i8',
  // MLDF has no half floats: values arrive widened to float32 (core's NdArrayValue), stored so.
  f16: '<f4',
  f32: '<f4',
  f64: '<f8',
};

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const encoder = new TextEncoder();

export function describe(field: Field): string {
  return `column "${field.name}" (${fieldTypeName(field)})`;
}

export function badValue(field: Field, row: number, message: string, place: RecordsPlace): FormatError {
  return new FormatError('InvalidValue', `${describe(field)} row ${row}: ${message}`, place);
}

/** The dtype of a list's or array's numbers, when it has one. */
function dtypeOf(type: LogicalType): DType | undefined {
  if (type.kind === 'int') return `${type.signed ? 'i' : 'u'}${type.bits}` as DType;
  if (type.kind === 'float') return `f${type.bits}` as DType;
  return undefined;
}

/** A Hugging Face `Image` feature as Parquet stores it: struct<bytes: binary, path: string>. */
function isImageStruct(type: LogicalType): boolean {
  return (
    type.kind === 'struct' &&
    type.fields.some((f) => f.name === 'bytes' && f.type.kind === 'bytes') &&
    type.fields.every((f) => f.name === 'bytes' || f.name === 'path')
  );
}

/**
 * The MLDF field for `field`; `first` is its value in the first record (what a bytes column
 * holds, a list's length, an array's shape when the schema does not say).
 */
export function planRecordField(
  field: Field,
  first: Value | undefined,
  images: ImageChoice,
  place: RecordsPlace,
): FieldMap {
  const type = field.type;
  const name = field.name;
  const refuse = (why: string) => new FormatError('UnsupportedFeature', `${describe(field)}: ${why}`, place);
  switch (type.kind) {
    case 'int':
      return { field, spec: { name, type: 'INT' }, value: (v, row) => int64(v, field, row, place) };
    case 'bool':
      return { field, spec: { name, type: 'INT' }, value: (v) => (v === true ? 1 : 0) };
    case 'float':
      return { field, spec: { name, type: 'FLOAT' }, value: (v) => v };
    case 'string':
      return { field, spec: { name, type: 'TEXT_RAW' }, value: (v) => v };
    case 'json':
      return {
        field,
        spec: { name, type: 'JSON' },
        nullIsValue: true,
        value: (v) => jsonText(v, name, place),
      };
    case 'image':
      return { field, spec: { name, type: 'IMAGE_RAW' }, value: (v) => imageValue(v as ImageValue) };
    case 'bytes':
    case 'struct': {
      if (type.kind === 'struct' && !isImageStruct(type))
        throw refuse('MLDF has no struct fields (only a Hugging Face image struct {bytes, path} maps)');
      const bytesOf = (v: Value) => (type.kind === 'struct' ? (v as { bytes?: Value }).bytes : v);
      const sample = first === undefined || first === null ? undefined : bytesOf(first);
      const image =
        type.kind === 'struct' ||
        (type.mediaType?.startsWith('image/') ?? false) ||
        (sample instanceof Uint8Array && (isPng(sample) || isJpeg(sample)));
      if (!image || images === 'bytes')
        return {
          field,
          spec: { name, type: 'BYTES' },
          value: (v, row) => bytesValue(bytesOf(v), field, row, place),
        };
      return {
        field,
        spec: { name, type: 'IMAGE_RAW' },
        value: (v, row) =>
          decodeImage(bytesValue(bytesOf(v), field, row, place), {
            file: place.file,
            format: place.format,
            key: String(row),
            ext: name,
            label: `${describe(field)} row ${row}`,
            keepFlag: '--images bytes',
          }),
      };
    }
    case 'ndarray': {
      const shape = type.shape ?? (first as NdArrayValue | null | undefined)?.shape ?? [0];
      return ndarrayField(
        field,
        NUMPY[type.dtype],
        shape,
        place,
        (v) => (v as NdArrayValue).shape,
        (v) => (v as NdArrayValue).data,
      );
    }
    case 'list': {
      const dtype = dtypeOf(type.items);
      if (!dtype) throw refuse('only lists of numbers map to MLDF (as NDARRAY)');
      const nd = NUMPY[dtype];
      const n = Array.isArray(first) ? first.length : 0;
      return ndarrayField(
        field,
        nd,
        [n],
        place,
        (v) => [(v as readonly Value[]).length],
        (v) => typed(nd, v as readonly Value[]),
      );
    }
  }
}

function ndarrayField(
  field: Field,
  dtype: NdDtype,
  shape: readonly number[],
  place: RecordsPlace,
  shapeOf: (v: Value) => readonly number[],
  dataOf: (v: Value) => unknown,
): FieldMap {
  return {
    field,
    spec: { name: field.name, type: 'NDARRAY', dtype, shape },
    value(v, row) {
      const got = shapeOf(v);
      if (got.length !== shape.length || got.some((d, i) => d !== shape[i]))
        throw badValue(
          field,
          row,
          `shape [${got.join(', ')}] differs from the first value's [${shape.join(', ')}]; an MLDF NDARRAY field has one shape`,
          place,
        );
      return dataOf(v);
    },
  };
}

const TYPED = {
  '|u1': Uint8Array,
  '|i1': Int8Array,
  '<u2': Uint16Array,
  '<i2': Int16Array,
  '<u4': Uint32Array,
  '<i4': Int32Array,
  '<f4': Float32Array,
  '<f8': Float64Array,
} as const;

/** A list's numbers as the typed array of its dtype (64-bit integers as bigints, never through a double). */
function typed(dtype: NdDtype, items: readonly Value[]) {
  if (dtype === '<i8') return BigInt64Array.from(items, (x) => BigInt(x as number | bigint));
  if (dtype === '<u8') return BigUint64Array.from(items, (x) => BigInt(x as number | bigint));
  const out = new TYPED[dtype as keyof typeof TYPED](items.length);
  for (let i = 0; i < items.length; i++) out[i] = Number(items[i]);
  return out;
}

function int64(value: Value, field: Field, row: number, place: RecordsPlace): bigint | number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX) return value;
  throw badValue(field, row, `${String(value).slice(0, 40)} does not fit MLDF's INT (int64)`, place);
}

function bytesValue(value: Value | undefined, field: Field, row: number, place: RecordsPlace): Uint8Array {
  if (value instanceof Uint8Array) return value;
  throw badValue(field, row, value == null ? 'has no bytes (null)' : 'is not bytes', place);
}

function imageValue(image: ImageValue) {
  // Another format's colour-mode code means nothing to MLDF (mode 0: raw pixels).
  return { height: image.height, width: image.width, channels: image.channels, pixels: image.pixels };
}

/** The JSON text as stored (big integers, -0.0 kept), never re-stringified by the writer. */
function jsonText(value: Value, name: string, place: RecordsPlace): MldfLazyText {
  const bytes = encoder.encode(jsonLine(value as JsonValue));
  return new MldfLazyText(bytes, 0, bytes.byteLength, 'JSON', name, 0, place.file);
}

import type { DType, NumericArray } from './dtype.js';
import { FormatError } from './errors.js';
import { type JsonValue, jsonLine } from './json.js';
import type { Field, ImageValue, LogicalType, NdArrayValue, Value } from './schema.js';

/**
 * How an export to a columnar format (Parquet, Arrow) lays out a logical type: only the types
 * every columnar format has (fixed-width numbers, bool, UTF-8, binary, lists and structs), so
 * each writer maps these and never a format's own types. The one table of the README
 * ("Types in Parquet and Arrow") is this mapping.
 */
export type TabularType =
  | { readonly kind: 'int'; readonly bits: 8 | 16 | 32 | 64; readonly signed: boolean }
  | { readonly kind: 'float'; readonly bits: 16 | 32 | 64 }
  | { readonly kind: 'bool' }
  | { readonly kind: 'string' }
  /** UTF-8 JSON text, marked as JSON where the format can say so. */
  | { readonly kind: 'json' }
  | { readonly kind: 'bytes' }
  /** `size`: every list has exactly this many items (an ndarray of a known shape). */
  | { readonly kind: 'list'; readonly items: TabularField; readonly size?: number }
  | { readonly kind: 'struct'; readonly fields: readonly TabularField[] };

export interface TabularField {
  readonly name: string;
  readonly type: TabularType;
  readonly nullable: boolean;
  /** Field metadata to keep (`binscope.shape`, `binscope.dtype`, a description, the format's type name). */
  readonly metadata: Readonly<Record<string, string>>;
}

export interface TabularOptions {
  /**
   * How images are written: a struct of height, width, channels and pixels (default), or the
   * bytes this returns for each (an encoded PNG: `--images png`).
   */
  readonly encodeImage?: (image: ImageValue) => Uint8Array;
}

/** A value as plain columnar data: what a TabularType's column holds per row. */
export type TabularValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | readonly TabularValue[]
  | NumericArray
  | { readonly [key: string]: TabularValue };

const DTYPE_TYPE: Record<DType, TabularType> = {
  u8: { kind: 'int', bits: 8, signed: false },
  i8: { kind: 'int', bits: 8, signed: true },
  u16: { kind: 'int', bits: 16, signed: false },
  i16: { kind: 'int', bits: 16, signed: true },
  u32: { kind: 'int', bits: 32, signed: false },
  i32: { kind: 'int', bits: 32, signed: true },
  u64: { kind: 'int', bits: 64, signed: false },
  i64: { kind: 'int', bits: 64, signed: true },
  f16: { kind: 'float', bits: 16 },
  f32: { kind: 'float', bits: 32 },
  f64: { kind: 'float', bits: 64 },
};

const INT32: TabularType = { kind: 'int', bits: 32, signed: true };

function plain(name: string, type: TabularType, nullable = false): TabularField {
  return { name, type, nullable, metadata: {} };
}

/** The columnar field an export writes for a schema field. */
export function tabularField(field: Field, options: TabularOptions = {}): TabularField {
  const metadata: Record<string, string> = {};
  if (field.description) metadata['binscope.description'] = field.description;
  if (field.metadata?.type) metadata['binscope.type'] = field.metadata.type;
  const type = field.type;
  if (type.kind === 'ndarray') {
    metadata['binscope.dtype'] = type.dtype;
    if (type.shape) metadata['binscope.shape'] = JSON.stringify(type.shape);
  }
  return { name: field.name, type: tabularType(type, options), nullable: field.nullable === true, metadata };
}

/** The columnar type of a logical type (see TabularType). */
export function tabularType(type: LogicalType, options: TabularOptions = {}): TabularType {
  switch (type.kind) {
    case 'int':
    case 'float':
    case 'bool':
    case 'string':
    case 'json':
    case 'bytes':
      return type;
    case 'image':
      if (options.encodeImage) return { kind: 'bytes' };
      return {
        kind: 'struct',
        fields: [
          plain('height', INT32),
          plain('width', INT32),
          plain('channels', INT32),
          plain('pixels', { kind: 'bytes' }),
        ],
      };
    case 'ndarray': {
      const items = plain('item', DTYPE_TYPE[type.dtype]);
      if (type.shape) return { kind: 'list', items, size: type.shape.reduce((a, b) => a * b, 1) };
      return {
        kind: 'struct',
        fields: [
          plain('shape', { kind: 'list', items: plain('item', INT32) }),
          plain('data', { kind: 'list', items }),
        ],
      };
    }
    case 'list':
      return { kind: 'list', items: plain('item', tabularType(type.items, options), true) };
    case 'struct':
      return { kind: 'struct', fields: type.fields.map((f) => tabularField(f, options)) };
  }
}

/**
 * A record value as the columnar data of its type's TabularType: JSON as its text (kept as
 * stored where the reader kept it), images as a struct or encoded bytes, ndarrays as their
 * flat typed data (with the shape beside it when the field has none). Integers stay exact:
 * a 64-bit one arrives as a bigint or a safe number and is passed on as it is.
 */
export function tabularValue(
  value: Value | undefined,
  type: LogicalType,
  options: TabularOptions = {},
): TabularValue {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'json':
      return jsonLine(value as JsonValue);
    case 'image': {
      const image = value as ImageValue;
      if (options.encodeImage) return options.encodeImage(image);
      return { height: image.height, width: image.width, channels: image.channels, pixels: image.pixels };
    }
    case 'ndarray':
      return ndarrayValue(value as NdArrayValue, type);
    case 'list': {
      const items = value as readonly Value[];
      return items.map((item) => tabularValue(item, type.items, options));
    }
    case 'struct': {
      const object = value as { readonly [key: string]: Value };
      const out: { [key: string]: TabularValue } = {};
      for (const f of type.fields) out[f.name] = tabularValue(object[f.name], f.type, options);
      return out;
    }
    default:
      return value as TabularValue;
  }
}

function ndarrayValue(array: NdArrayValue, type: LogicalType & { kind: 'ndarray' }): TabularValue {
  if (!type.shape) return { shape: [...array.shape], data: array.data };
  const expected = type.shape.reduce((a, b) => a * b, 1);
  if (array.data.length !== expected)
    throw new FormatError(
      'InvalidValue',
      `an ndarray of shape [${array.shape.join(', ')}] where the field's shape is [${type.shape.join(', ')}]`,
    );
  return array.data;
}

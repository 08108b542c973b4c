import type { DType, NumericArray } from './dtype.js';
import type { Problem } from './errors.js';
import type { JsonValue } from './json.js';

/**
 * What a value is, independent of how a format stores it: apps render, filter and convert
 * records by these types alone, never by the format's name.
 */
export type LogicalType =
  | { readonly kind: 'int'; readonly bits: 8 | 16 | 32 | 64; readonly signed: boolean }
  | { readonly kind: 'float'; readonly bits: 16 | 32 | 64 }
  | { readonly kind: 'bool' }
  | { readonly kind: 'string' }
  /** Opaque bytes; `mediaType` when they are a known kind of file ('image/jpeg' for a .jpg tar member). */
  | { readonly kind: 'bytes'; readonly mediaType?: string }
  /** Parsed JSON (MLDF JSON fields, UDF json tables). */
  | { readonly kind: 'json' }
  /** An ImageValue. */
  | { readonly kind: 'image' }
  /** An NdArrayValue; `shape` when every value of the field has it. */
  | { readonly kind: 'ndarray'; readonly dtype: DType; readonly shape?: readonly number[] }
  | { readonly kind: 'list'; readonly items: LogicalType }
  | { readonly kind: 'struct'; readonly fields: readonly Field[] };

export interface Field {
  readonly name: string;
  readonly type: LogicalType;
  /** Whether a value may be null (an absent value is something else: the key is missing). */
  readonly nullable?: boolean;
  readonly description?: string;
  /**
   * The format's own words about the field. Keys core reads: `type`, the format's name for
   * the field's type ("int32", "utf8", "dictionary-encoded text"), used in messages such as
   * `--where`'s type errors and in summaries; without it the logical type names itself.
   * On a list of values stored sparsely: `indices`, the name of the field holding each
   * value's column position (same length, same order), and `columns`, the dense width (a
   * decimal integer) when known; statistics use them for per-column totals and sparsity.
   */
  readonly metadata?: Readonly<Record<string, string>>;
}

export interface Schema {
  readonly fields: readonly Field[];
  /** The field that names a record (TARIDX: `key`), when there is one. */
  readonly key?: string;
}

/** Pixels of one image, row-major, `channels` bytes per pixel. */
export interface ImageValue {
  readonly height: number;
  readonly width: number;
  readonly channels: number;
  /** The format's own colour-mode code, when it has one (MLDF's image mode). */
  readonly mode?: number;
  readonly pixels: Uint8Array;
}

/**
 * An n-dimensional array in host byte order, row-major (f16 arrives widened to Float32Array).
 * `dtypeName` is how the format spells the element type ("<f4" for MLDF, numpy's notation):
 * JSON output shows it in place of `dtype` so records print as they always have.
 */
export interface NdArrayValue {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly data: NumericArray;
  readonly dtypeName?: string;
}

/**
 * A value of a record, interpreted only through its Field's type. 64-bit integers are a
 * `bigint`, or a `number` when the format knows it is a safe integer; consumers accept both.
 * Floats are numbers (-0 and non-finite values included).
 */
export type Value =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | ImageValue
  | NdArrayValue
  | JsonValue
  | readonly Value[]
  | { readonly [key: string]: Value };

/** Where a value is stored: a byte range of the file (or of `file`, inside an archive). */
export interface ByteLocation {
  offset: number;
  length?: number;
  file?: string;
  /**
   * The record field stored here (a column, "values"), when a record is stored in several
   * places: diff shows, for a differing field, the location of that field.
   */
  field?: string;
}

/**
 * A run of consecutive records as one array per field (`PluginCapabilities.columns`): what a
 * columnar export (Parquet) takes without a record object per row. Entry `k` of each column is
 * the value of record `offset + k`, exactly as `records()` would give it: a typed array for a
 * numeric field (one element a record), else an array of the records' values.
 */
export interface ColumnBatch {
  /** Position of the batch's first record, as records() numbers them. */
  readonly offset: number;
  readonly rows: number;
  /** By field name, every field of the schema read (or of `RecordOptions.columns`). */
  readonly columns: { readonly [field: string]: ArrayLike<Value | undefined> };
}

/** One record of a table: typed values, and where they are when asked (`RecordOptions.locations`). */
export interface DataRecord {
  /** Position in its table, as records() numbers it (what locateRecord takes). */
  readonly index: number;
  /** By field name; a field missing here is absent (JSON output leaves it out), `null` is a null. */
  readonly values: { readonly [field: string]: Value | undefined };
  /** With `RecordOptions.locations`: where each field's bytes are (several places allowed). */
  readonly locations?: { readonly [field: string]: readonly ByteLocation[] };
  /** Set on a record that stands in for one the format could not read (a UDF table breaking a rule). */
  readonly problem?: Problem;
}

/** A table of records a reader offers besides its main one (UDF tables, TARIDX samples). */
export interface TableInfo {
  readonly name: string;
  readonly title?: string;
  readonly schema: Schema;
  /** How many records, when known without reading them. */
  readonly count?: number;
  /**
   * The table that holds the file's data when the main records are an index of it (TARIDX:
   * `samples`, the members' bytes, beside the index rows): what an export writes by default.
   */
  readonly primary?: boolean;
}

/** A short name of a logical type, for messages and summaries ("int32", "float64", "string"). */
export function typeName(type: LogicalType): string {
  switch (type.kind) {
    case 'int':
      return `${type.signed ? 'int' : 'uint'}${type.bits}`;
    case 'float':
      return `float${type.bits}`;
    case 'ndarray':
      return `ndarray<${type.dtype}>${type.shape ? `[${type.shape.join('×')}]` : ''}`;
    case 'list':
      return `list<${typeName(type.items)}>`;
    case 'bytes':
      return type.mediaType ? `bytes (${type.mediaType})` : 'bytes';
    default:
      return type.kind;
  }
}

/** The format's name for a field's type when it gave one (metadata `type`), else the logical type's. */
export function fieldTypeName(field: Field): string {
  return field.metadata?.type ?? typeName(field.type);
}

const fieldMaps = new WeakMap<Schema, ReadonlyMap<string, Field>>();

/** A schema's fields by name (the first of a repeated name), computed once per schema object. */
export function fieldsByName(schema: Schema): ReadonlyMap<string, Field> {
  let map = fieldMaps.get(schema);
  if (!map) {
    const byName = new Map<string, Field>();
    for (const field of schema.fields) if (!byName.has(field.name)) byName.set(field.name, field);
    map = byName;
    fieldMaps.set(schema, map);
  }
  return map;
}

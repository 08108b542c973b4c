import type { Field, LogicalType, Schema } from '@binscope/core';
import type { TableInfo } from './descriptor.js';
import type { Prim } from './types.js';

const STRING: LogicalType = { kind: 'string' };
const U64: LogicalType = { kind: 'int', bits: 64, signed: false };
const U32: LogicalType = { kind: 'int', bits: 32, signed: false };
const JSON_TYPE: LogicalType = { kind: 'json' };

/**
 * Metadata `layout: 'true'` marks a field that says where something is stored rather than what
 * (an offset, a size): `diff` compares it only with `--layout` (the plugin's `layoutFields` is
 * derived from these marks).
 */
const LAYOUT = { layout: 'true' } as const;

/** A FileOffset as a value: where a dataset is and how big (layout, U1). */
const FILE_OFFSET: LogicalType = {
  kind: 'struct',
  fields: [
    { name: 'offset', type: U64 },
    { name: 'size', type: U64 },
  ],
};

/** Every element of a table, whatever its primitive: numbers, and 64-bit integers as bigints. */
const ELEMENTS: LogicalType = { kind: 'list', items: { kind: 'float', bits: 64 } };
const ELEMENTS_TYPE = { type: "the table's primitive (prim); 64-bit integers beyond 2^53 print as strings" };

/**
 * The table catalogue: one record per table of every dataset, in walk order (U7), with the
 * table's type and its content by kind (values, text, json, file_offsets or the size of opaque
 * bytes); a table that breaks a rule stands in with its type and `error`, a dataset that cannot
 * be loaded with where it is referenced (U15). The fields are those `binscope cat` has always
 * printed; each record holds the ones that apply to its table, in this order. Every field but
 * `dataset` is absent where it does not apply, so each is nullable: an export (Parquet, Arrow)
 * has no "absent" and writes a null there.
 */
export const catalogueSchema: Schema = {
  fields: [
    { name: 'dataset', type: U64, description: "the dataset's offset in the file", metadata: LAYOUT },
    {
      name: 'dataset_size',
      nullable: true,
      type: U64,
      description: 'the size of a dataset that could not be loaded',
      metadata: LAYOUT,
    },
    {
      name: 'referenced_at',
      nullable: true,
      type: U64,
      description: 'where the FileOffset of a dataset that could not be loaded is stored',
      metadata: LAYOUT,
    },
    {
      name: 'dataset_id',
      nullable: true,
      type: STRING,
      description: "the dataset's id (up to 4 ASCII characters)",
    },
    { name: 'table', nullable: true, type: STRING, description: "the table's name (key_name)" },
    {
      name: 'prim',
      nullable: true,
      type: STRING,
      description: 'the primitive: u8, i8, u16, i16, u32, i32, u64, i64, f32, f64 or custom',
    },
    {
      name: 'dims',
      nullable: true,
      type: { kind: 'int', bits: 8, signed: false },
      description: 'declared dimensions, 0 (scalar) to 3',
    },
    {
      name: 'hint',
      nullable: true,
      type: STRING,
      description: 'the type hint: none, text, json, dataset, index, range, coord, …',
    },
    {
      name: 'shape',
      nullable: true,
      type: { kind: 'list', items: U32 },
      description: 'the declared axes, then the ghost axes (U5)',
    },
    {
      name: 'type_name',
      nullable: true,
      type: STRING,
      description: 'the free-form type name, when the table has one',
    },
    {
      name: 'index_name',
      nullable: true,
      type: STRING,
      description: 'the table an INDEX or RANGE table points into',
    },
    {
      name: 'related_name',
      nullable: true,
      type: STRING,
      description: 'the related table (structure of arrays)',
    },
    {
      name: 'values',
      nullable: true,
      type: ELEMENTS,
      description: 'the elements, row-major, of a numeric table of at most 65,536 elements',
      metadata: ELEMENTS_TYPE,
    },
    {
      name: 'values_head',
      nullable: true,
      type: ELEMENTS,
      description: 'the first 64 elements of a larger numeric table',
      metadata: ELEMENTS_TYPE,
    },
    {
      name: 'truncated',
      nullable: true,
      type: { kind: 'bool' },
      description: 'true when only values_head is given',
    },
    {
      name: 'text',
      nullable: true,
      type: JSON_TYPE,
      description: 'a TEXT table: one string (scalar) or its strings row-major (U10)',
      metadata: { type: 'text' },
    },
    { name: 'json', nullable: true, type: JSON_TYPE, description: 'a JSON table: the parsed document (U11)' },
    {
      name: 'file_offsets',
      nullable: true,
      type: { kind: 'list', items: FILE_OFFSET },
      description: 'a DATASET table: the datasets it references',
      metadata: LAYOUT,
    },
    { name: 'bytes', nullable: true, type: U32, description: 'the size of an opaque (custom) table' },
  ],
};

/** The catalogue's fields that are layout (for `diff --layout`), from the schema's marks. */
export const CATALOGUE_LAYOUT_FIELDS: readonly string[] = catalogueSchema.fields
  .filter((f) => f.metadata?.layout === 'true')
  .map((f) => f.name);

const SCALAR: Record<Exclude<Prim, 'custom'>, LogicalType> = {
  u8: { kind: 'int', bits: 8, signed: false },
  i8: { kind: 'int', bits: 8, signed: true },
  u16: { kind: 'int', bits: 16, signed: false },
  i16: { kind: 'int', bits: 16, signed: true },
  u32: U32,
  i32: { kind: 'int', bits: 32, signed: true },
  u64: U64,
  i64: { kind: 'int', bits: 64, signed: true },
  f32: { kind: 'float', bits: 32 },
  f64: { kind: 'float', bits: 64 },
};

/** A table's type as the inspect tree and messages write it: `f32[64] ghost [3] coord`. */
export function describeType(t: TableInfo): string {
  const declared = t.dims ? `[${t.shape.slice(0, t.dims).join('×')}]` : '';
  const ghost = t.ghostDims ? ` ghost [${t.shape.slice(t.dims).join('×')}]` : '';
  return `${t.prim}${declared}${ghost}${t.hint === 'none' ? '' : ` ${t.hint}`}`;
}

/** How a table's rows are made: what one row holds (see tableSchema). */
export type RowKind = 'numeric' | 'text' | 'json' | 'dataset' | 'bytes';

export function rowKind(t: TableInfo): RowKind {
  if (t.hint === 'json') return 'json';
  if (t.prim === 'custom') return 'bytes';
  if (t.hint === 'text') return 'text';
  if (t.hint === 'dataset') return 'dataset';
  return 'numeric';
}

/**
 * The rows of a table: along its first declared axis (one row for a scalar, and for opaque
 * custom data, whose layout the format does not describe). The number of rows, without reading.
 */
export function rowCount(t: TableInfo): number {
  if (t.dims === 0 || rowKind(t) === 'bytes') return 1;
  return t.shape[0];
}

/** The axes of one element inside a row: the declared axes after the first, then the ghost axes. */
export function rowShape(t: TableInfo): number[] {
  return t.dims === 0 ? t.shape.slice() : t.shape.slice(1);
}

/** `type` nested in a list per declared axis after the first (a 2D text table's rows are lists of strings). */
function nested(t: TableInfo, type: LogicalType): LogicalType {
  let out = type;
  for (let axis = t.dims - 1; axis >= 1; axis--) out = { kind: 'list', items: out };
  return out;
}

/** The logical type of one row's value. */
function rowType(t: TableInfo): LogicalType {
  switch (rowKind(t)) {
    case 'json':
      return JSON_TYPE;
    case 'bytes':
      return { kind: 'bytes' };
    case 'text':
      return nested(t, STRING);
    case 'dataset':
      return nested(t, FILE_OFFSET);
    default: {
      const prim = t.prim as Exclude<Prim, 'custom'>;
      const shape = rowShape(t);
      return shape.length === 0 ? SCALAR[prim] : { kind: 'ndarray', dtype: prim, shape };
    }
  }
}

/**
 * The schema of one table's rows: one field, named as the table, whose values are the table's
 * rows — a number (or an ndarray of the element axes) for a numeric table, a string (lists of
 * them for 2D and 3D) for TEXT, a JSON value for JSON, a FileOffset for DATASET, the bytes for
 * opaque custom data. Metadata keeps the format's words: its type, hint and names.
 */
export function tableSchema(t: TableInfo): Schema {
  const metadata: Record<string, string> = { type: describeType(t), prim: t.prim, hint: t.hint };
  if (t.typeName !== null) metadata.type_name = t.typeName;
  if (t.indexName !== null) metadata.index_name = t.indexName;
  if (t.relatedName !== null) metadata.related_name = t.relatedName;
  if (t.hint === 'dataset') metadata.layout = 'true';
  const field: Field = { name: t.name, type: rowType(t), metadata };
  return { fields: [field] };
}

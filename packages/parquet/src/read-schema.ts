import {
  type DType,
  type Field,
  type LogicalType,
  parseBoundedJson,
  type Schema,
  toJsonValue,
  type Value,
  withJsonSource,
  type JsonValue,
} from '@binscope/core';
import type { FileMetaData, SchemaElement, SchemaTree } from 'hyparquet';
import { parquetSchema } from 'hyparquet';
import { isListLike, isMapLike } from 'hyparquet/src/schema.js';
import { FIELDS_KEY } from './write-schema.js';

/** A top-level column: its field, and how a value hyparquet assembled becomes a record value. */
export interface ColumnPlan {
  readonly field: Field;
  readonly convert: (value: unknown) => Value;
}

type Convert = (value: unknown) => Value;
const same: Convert = (value) => (value === undefined ? null : (value as Value));

/** The types of an INT32 or INT64 column by its converted type (what every writer sets). */
const INT_TYPES: Record<string, LogicalType & { kind: 'int' }> = {
  INT_8: { kind: 'int', bits: 8, signed: true },
  INT_16: { kind: 'int', bits: 16, signed: true },
  INT_32: { kind: 'int', bits: 32, signed: true },
  INT_64: { kind: 'int', bits: 64, signed: true },
  UINT_8: { kind: 'int', bits: 8, signed: false },
  UINT_16: { kind: 'int', bits: 16, signed: false },
  UINT_32: { kind: 'int', bits: 32, signed: false },
  UINT_64: { kind: 'int', bits: 64, signed: false },
};

/** How Parquet names a column's type, for messages and summaries (`INT64 TIMESTAMP(MICROS)`). */
export function parquetTypeName(element: SchemaElement): string {
  const base = element.type ?? 'group';
  const logical = element.logical_type;
  if (logical) {
    if (logical.type === 'INTEGER') return `${base} INT(${logical.bitWidth}, ${logical.isSigned})`;
    if (logical.type === 'TIMESTAMP' || logical.type === 'TIME')
      return `${base} ${logical.type}(${logical.unit})`;
    if (logical.type === 'DECIMAL') return `${base} DECIMAL(${logical.precision}, ${logical.scale})`;
    return `${base} ${logical.type}`;
  }
  if (element.converted_type === 'DECIMAL') return `${base} DECIMAL(${element.precision}, ${element.scale})`;
  return element.converted_type ? `${base} ${element.converted_type}` : base;
}

const decoder = new TextDecoder();

function jsonConvert(value: unknown): Value {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array || typeof value === 'string') {
    const text = typeof value === 'string' ? value : decoder.decode(value);
    // Kept with its text: integers past 2^53 and number spellings print as stored.
    return withJsonSource(parseBoundedJson(text) as JsonValue, text);
  }
  return toJsonValue(value);
}

/** A leaf column's logical type, and how its values (as hyparquet converts them) become ours. */
function leafType(element: SchemaElement): { type: LogicalType; convert: Convert } {
  const ctype = element.converted_type;
  const ltype = element.logical_type;
  // Decimals arrive from hyparquet as doubles: exact up to 15 digits, which is what float64 promises.
  if (ctype === 'DECIMAL' || ltype?.type === 'DECIMAL')
    return { type: { kind: 'float', bits: 64 }, convert: same };
  switch (element.type) {
    case 'BOOLEAN':
      return { type: { kind: 'bool' }, convert: same };
    case 'INT32':
    case 'INT64': {
      const bits = element.type === 'INT32' ? 32 : 64;
      if (ltype?.type === 'INTEGER') {
        const type: LogicalType = { kind: 'int', bits: ltype.bitWidth as 8, signed: ltype.isSigned };
        return { type, convert: same };
      }
      return { type: (ctype && INT_TYPES[ctype]) || { kind: 'int', bits, signed: true }, convert: same };
    }
    case 'INT96':
      // Legacy timestamps: nanoseconds since the epoch (the parsers keep hyparquet from making a Date).
      return { type: { kind: 'int', bits: 64, signed: true }, convert: same };
    case 'FLOAT':
      return { type: { kind: 'float', bits: 32 }, convert: same };
    case 'DOUBLE':
      return { type: { kind: 'float', bits: 64 }, convert: same };
    case 'FIXED_LEN_BYTE_ARRAY':
      if (ltype?.type === 'FLOAT16') return { type: { kind: 'float', bits: 16 }, convert: same };
      if (ltype?.type === 'UUID') return { type: { kind: 'string' }, convert: same };
      return { type: { kind: 'bytes' }, convert: same };
    default:
      if (ctype === 'UTF8' || ctype === 'ENUM' || ltype?.type === 'STRING' || ltype?.type === 'ENUM')
        return { type: { kind: 'string' }, convert: same };
      if (ctype === 'JSON' || ltype?.type === 'JSON') return { type: { kind: 'json' }, convert: jsonConvert };
      return { type: { kind: 'bytes' }, convert: same };
  }
}

const DTYPES = new Set<DType>(['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64', 'f16', 'f32', 'f64']);

const TYPED: Record<DType, (values: ArrayLike<number | bigint>) => ArrayLike<number | bigint>> = {
  u8: (v) => Uint8Array.from(v as ArrayLike<number>),
  i8: (v) => Int8Array.from(v as ArrayLike<number>),
  u16: (v) => Uint16Array.from(v as ArrayLike<number>),
  i16: (v) => Int16Array.from(v as ArrayLike<number>),
  u32: (v) => Uint32Array.from(v as ArrayLike<number>),
  i32: (v) => Int32Array.from(v as ArrayLike<number>),
  u64: (v) => BigUint64Array.from(v as ArrayLike<bigint>, BigInt),
  i64: (v) => BigInt64Array.from(v as ArrayLike<bigint>, BigInt),
  // A float16 ndarray arrives widened to float32, as core's NdArrayValue says.
  f16: (v) => Float32Array.from(v as ArrayLike<number>),
  f32: (v) => Float32Array.from(v as ArrayLike<number>),
  f64: (v) => Float64Array.from(v as ArrayLike<number>),
};

/**
 * A list an export wrote from an ndarray of a known shape (`binscope.shape`, `binscope.dtype`
 * in the footer's `binscope.fields`) reads back as that ndarray, so Parquet → MLDF gets its
 * arrays back; a list whose length differs from the shape stays a list.
 */
function ndarrayPlan(
  meta: Readonly<Record<string, string>>,
  list: Convert,
): { type: LogicalType; convert: Convert } | undefined {
  const dtype = meta['binscope.dtype'] as DType;
  let shape: unknown;
  try {
    shape = JSON.parse(meta['binscope.shape'] ?? 'null');
  } catch {
    return undefined;
  }
  if (!DTYPES.has(dtype) || !Array.isArray(shape) || !shape.every((n) => Number.isSafeInteger(n) && n >= 0))
    return undefined;
  const dims = shape as number[];
  const size = dims.reduce((a, b) => a * b, 1);
  return {
    type: { kind: 'ndarray', dtype, shape: dims },
    convert: (value) => {
      const items = list(value);
      if (!Array.isArray(items)) return items;
      if (items.length !== size || items.some((v) => v === null)) return items as Value;
      return { dtype, shape: dims, data: TYPED[dtype](items as (number | bigint)[]) } as unknown as Value;
    },
  };
}

interface Planned {
  type: LogicalType;
  convert: Convert;
  nullable: boolean;
  metadata: Record<string, string>;
  description?: string;
}

/** The field of one schema node (a leaf, a LIST, a MAP or a struct group), recursively. */
function plan(
  node: SchemaTree,
  path: string,
  extra: Readonly<Record<string, Record<string, string>>>,
): Planned {
  const element = node.element;
  const { 'binscope.description': description, ...own } = extra[path] ?? {};
  const metadata: Record<string, string> = { type: parquetTypeName(element), ...own };
  const nullable = element.repetition_type === 'OPTIONAL';
  let planned: { type: LogicalType; convert: Convert };
  if (isListLike(node)) {
    const item = plan(node.children[0].children[0], `${path}.element`, extra);
    const list: Convert = (value) =>
      value === null || value === undefined ? null : Array.from(value as unknown[], item.convert);
    planned = ndarrayPlan(own, list) ?? { type: { kind: 'list', items: item.type }, convert: list };
  } else if (isMapLike(node)) {
    planned = { type: { kind: 'json' }, convert: jsonConvert };
  } else if (node.children.length > 0) {
    const children = node.children.map((c) => ({
      name: c.element.name,
      ...plan(c, `${path}.${c.element.name}`, extra),
    }));
    planned = {
      type: { kind: 'struct', fields: children.map(toField) },
      convert: (value) => {
        if (value === null || value === undefined) return null;
        const object = value as Record<string, unknown>;
        const out: Record<string, Value> = {};
        for (const c of children) out[c.name] = c.convert(object[c.name]);
        return out;
      },
    };
  } else planned = leafType(element);
  // A repeated field outside a LIST (the legacy two-level form) is a list of its values.
  if (element.repetition_type === 'REPEATED') {
    const inner = planned;
    planned = {
      type: { kind: 'list', items: inner.type },
      convert: (value) => (value == null ? [] : Array.from(value as unknown[], inner.convert)),
    };
  }
  return { ...planned, nullable, metadata, description };
}

function toField(p: Planned & { name: string }): Field {
  return {
    name: p.name,
    type: p.type,
    ...(p.nullable ? { nullable: true } : {}),
    ...(p.description ? { description: p.description } : {}),
    metadata: p.metadata,
  };
}

/** The footer's `binscope.fields` entry (what an export stored per field), when it is well formed. */
function exportedFieldMetadata(metadata: FileMetaData): Record<string, Record<string, string>> {
  const entry = metadata.key_value_metadata?.find((kv) => kv.key === FIELDS_KEY)?.value;
  if (!entry) return {};
  try {
    const parsed = JSON.parse(entry) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, Record<string, string>>) : {};
  } catch {
    return {};
  }
}

/** The records' schema and each top-level column's conversion, from the footer's schema. */
export function readSchema(metadata: FileMetaData): { schema: Schema; columns: ColumnPlan[] } {
  const root = parquetSchema(metadata);
  const extra = exportedFieldMetadata(metadata);
  const columns = root.children.map((node) => {
    const name = node.element.name;
    const planned = plan(node, name, extra);
    return { field: toField({ name, ...planned }), convert: planned.convert };
  });
  return { schema: { fields: columns.map((c) => c.field) }, columns };
}

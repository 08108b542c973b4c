import type { DType, Field, LogicalType, Schema } from '@binscope/core';
import {
  type DataType,
  type Dictionary,
  type Field as ArrowField,
  type FixedSizeList,
  type Float,
  type Int,
  type List,
  type Schema as ArrowSchema,
  type Struct,
  Precision,
  Type,
} from 'apache-arrow';
import { EXTENSION_NAME, JSON_EXTENSION } from './schema-out.js';

/**
 * Arrow's types as core's logical types, so every verb (head, cat --where, diff, convert)
 * works on an Arrow file as on any other. What core has no type for keeps its Arrow name in
 * the field's metadata `type`: timestamps, dates, times and durations are their integer
 * values (as apache-arrow gives them), decimals and anything else their text.
 */

const DTYPES: readonly DType[] = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64', 'f16', 'f32', 'f64'];

function intLogical(type: Int): LogicalType {
  return { kind: 'int', bits: type.bitWidth as 8 | 16 | 32 | 64, signed: type.isSigned };
}

function floatBits(type: Float): 16 | 32 | 64 {
  return type.precision === Precision.HALF ? 16 : type.precision === Precision.SINGLE ? 32 : 64;
}

/** The dtype of a fixed-size list's items, when they are plain numbers. */
function dtypeOf(type: DataType): DType | undefined {
  if (type.typeId === Type.Int) {
    const int = type as Int;
    return `${int.isSigned ? 'i' : 'u'}${int.bitWidth}` as DType;
  }
  if (type.typeId === Type.Float) return `f${floatBits(type as Float)}` as DType;
  return undefined;
}

/** `binscope.shape` when it is a list of whole numbers whose product is the list's size. */
function shapeOf(metadata: ReadonlyMap<string, string>, size: number): number[] | undefined {
  const text = metadata.get('binscope.shape');
  if (text === undefined) return undefined;
  try {
    const shape: unknown = JSON.parse(text);
    if (!Array.isArray(shape) || !shape.every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined;
    return shape.reduce((a: number, b: number) => a * b, 1) === size ? shape : undefined;
  } catch {
    return undefined;
  }
}

export interface Mapped {
  readonly type: LogicalType;
  /** The Arrow type's name, when the logical type does not say it. */
  readonly arrowName?: string;
  /** How values are read: as stored, or via their text (decimals, unions...). */
  readonly asText?: boolean;
}

/** The logical type of an Arrow field (its metadata decides JSON and ndarray). */
export function logicalOf(field: ArrowField): Mapped {
  const { type, metadata } = field;
  switch (type.typeId) {
    case Type.Int:
      return { type: intLogical(type as Int) };
    case Type.Float:
      return { type: { kind: 'float', bits: floatBits(type as Float) } };
    case Type.Bool:
      return { type: { kind: 'bool' } };
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Utf8View:
      return metadata.get(EXTENSION_NAME) === JSON_EXTENSION
        ? { type: { kind: 'json' } }
        : { type: { kind: 'string' }, arrowName: type.typeId === Type.Utf8 ? undefined : String(type) };
    case Type.Binary:
    case Type.LargeBinary:
    case Type.BinaryView:
    case Type.FixedSizeBinary:
      return { type: { kind: 'bytes' }, arrowName: type.typeId === Type.Binary ? undefined : String(type) };
    case Type.List:
    case Type.LargeList:
      return { type: { kind: 'list', items: logicalOf((type as List).children[0]).type } };
    case Type.FixedSizeList:
      return fixedList(field, type as FixedSizeList);
    case Type.Struct:
      return { type: { kind: 'struct', fields: (type as Struct).children.map(coreField) } };
    case Type.Dictionary: {
      const dictionary = type as Dictionary;
      const inner = logicalOf({ ...field, type: dictionary.dictionary } as ArrowField);
      return { ...inner, arrowName: String(type) };
    }
    case Type.Timestamp:
    case Type.Date:
    case Type.Time:
    case Type.Duration:
      return { type: { kind: 'int', bits: 64, signed: true }, arrowName: String(type) };
    default:
      return { type: { kind: 'string' }, arrowName: String(type), asText: true };
  }
}

function fixedList(field: ArrowField, type: FixedSizeList): Mapped {
  const items = type.children[0];
  const dtype = dtypeOf(items.type);
  const shape = dtype ? shapeOf(field.metadata, type.listSize) : undefined;
  if (dtype && shape) {
    const named = field.metadata.get('binscope.dtype');
    return {
      type: {
        kind: 'ndarray',
        dtype: named && DTYPES.includes(named as DType) ? (named as DType) : dtype,
        shape,
      },
    };
  }
  return { type: { kind: 'list', items: logicalOf(items).type }, arrowName: String(type) };
}

/** A core field of an Arrow field: nullability, description and the Arrow type's name kept. */
export function coreField(field: ArrowField): Field {
  const mapped = logicalOf(field);
  const metadata: Record<string, string> = {};
  if (mapped.arrowName) metadata.type = mapped.arrowName;
  const description = field.metadata.get('binscope.description');
  return {
    name: field.name,
    type: mapped.type,
    nullable: field.nullable,
    ...(description === undefined ? {} : { description }),
    ...(Object.keys(metadata).length ? { metadata } : {}),
  };
}

export function coreSchema(schema: ArrowSchema): Schema {
  return { fields: schema.fields.map(coreField) };
}

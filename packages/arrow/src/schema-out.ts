import type { Schema as CoreSchema, TabularField, TabularOptions, TabularType } from '@binscope/core';
import { tabularField } from '@binscope/core';
import {
  Binary,
  Bool,
  type DataType,
  Field,
  FixedSizeList,
  Float16,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  List,
  Schema,
  Struct,
  Uint8,
  Uint16,
  Uint32,
  Uint64,
  Utf8,
} from 'apache-arrow';

/**
 * The Arrow side of core's export mapping (README "Types in Parquet and Arrow"): core's
 * tabularField decides what a logical type becomes; this only names the Arrow type of each
 * TabularType, so Parquet and Arrow exports never disagree about a column.
 */

/** Field metadata Arrow's canonical JSON extension type is recognised by (pyarrow: `pa.json_()`). */
export const EXTENSION_NAME = 'ARROW:extension:name';
export const EXTENSION_METADATA = 'ARROW:extension:metadata';
export const JSON_EXTENSION = 'arrow.json';

function intType(bits: 8 | 16 | 32 | 64, signed: boolean): DataType {
  switch (bits) {
    case 8:
      return signed ? new Int8() : new Uint8();
    case 16:
      return signed ? new Int16() : new Uint16();
    case 32:
      return signed ? new Int32() : new Uint32();
    case 64:
      return signed ? new Int64() : new Uint64();
  }
}

/** The Arrow type of a TabularType. */
export function arrowType(type: TabularType): DataType {
  switch (type.kind) {
    case 'int':
      return intType(type.bits, type.signed);
    case 'float':
      return type.bits === 16 ? new Float16() : type.bits === 32 ? new Float32() : new Float64();
    case 'bool':
      return new Bool();
    case 'string':
    case 'json':
      return new Utf8();
    case 'bytes':
      return new Binary();
    case 'list': {
      const items = arrowField(type.items);
      return type.size === undefined ? new List(items) : new FixedSizeList(type.size, items);
    }
    case 'struct':
      return new Struct(type.fields.map(arrowField));
  }
}

/** The Arrow field of a TabularField: its metadata kept, JSON marked as Arrow's JSON extension. */
export function arrowField(field: TabularField): Field {
  const metadata = new Map(Object.entries(field.metadata));
  if (field.type.kind === 'json') {
    metadata.set(EXTENSION_NAME, JSON_EXTENSION);
    metadata.set(EXTENSION_METADATA, '');
  }
  return new Field(field.name, arrowType(field.type), field.nullable, metadata);
}

/** What an export writes for a records schema: the columnar fields and the Arrow schema of them. */
export interface ExportSchema {
  readonly fields: readonly TabularField[];
  readonly arrow: Schema;
}

export function exportSchema(schema: CoreSchema, options: TabularOptions): ExportSchema {
  const fields = schema.fields.map((f) => tabularField(f, options));
  return { fields, arrow: new Schema(fields.map(arrowField)) };
}

import { createHash } from 'node:crypto';
import * as path from 'node:path';
import {
  type AnyFormatPlugin,
  type DataRecord,
  type LogicalType,
  type Schema,
  type TabularField,
  type TabularType,
  type TabularValue,
  tabularField,
  tabularValue,
} from '@binscope/core';
import { runPython } from '@binscope/testkit';

/**
 * The canonical row form test/python/read_parquet.py prints: ints as decimal text, floats as
 * the hex of their IEEE double bits, bytes as `x` + hex, structs as their values in field
 * order. Equal digests mean equal values, without a deep-equal of large arrays.
 */
type Canon = null | boolean | string | Canon[];

function floatBits(value: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  return `f${Buffer.from(view.buffer).toString('hex')}`;
}

/** A value as the export's columnar data (core's tabularValue), canonical. */
export function canonTabular(value: TabularValue, type: TabularType): Canon {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'int':
      return String(value);
    case 'float':
      return floatBits(Number(value));
    case 'bool':
      return value as boolean;
    case 'string':
    case 'json':
      return value as string;
    case 'bytes':
      return `x${Buffer.from(value as Uint8Array).toString('hex')}`;
    case 'list':
      return Array.from(value as ArrayLike<TabularValue>, (v) => canonTabular(v, type.items.type));
    case 'struct': {
      const object = value as { [key: string]: TabularValue };
      return type.fields.map((f) => canonTabular(object[f.name] ?? null, f.type));
    }
  }
}

/** A record value of a logical type, canonical (what pyarrow's canonical form of it must be). */
export function canonValue(value: unknown, type: LogicalType): Canon {
  return canonTabular(tabularValue(value as never, type), tabularField({ name: '', type }).type);
}

export interface Digest {
  rows: number;
  digest: string;
  first: string | undefined;
}

/** The digest of records as read_parquet.py computes it over a Parquet file's rows. */
export async function digestRecords(schema: Schema, records: AsyncIterable<DataRecord>): Promise<Digest> {
  const hash = createHash('sha256');
  let rows = 0;
  let first: string | undefined;
  for await (const record of records) {
    const text = JSON.stringify(schema.fields.map((f) => canonValue(record.values[f.name] ?? null, f.type)));
    first ??= text;
    hash.update(`${text}\n`);
    rows++;
  }
  return { rows, digest: hash.digest('hex'), first };
}

/** How pyarrow prints the Arrow type it reads for a column the export wrote (the mapping's table). */
export function arrowTypeName(type: TabularType): string {
  const child = (f: TabularField) => `${f.name}: ${arrowTypeName(f.type)}${f.nullable ? '' : ' not null'}`;
  switch (type.kind) {
    case 'int':
      return `${type.signed ? '' : 'u'}int${type.bits}`;
    case 'float':
      return { 16: 'halffloat', 32: 'float', 64: 'double' }[type.bits];
    case 'bool':
      return 'bool';
    case 'string':
      return 'string';
    case 'json':
      // pyarrow 19+ reads Parquet's JSON logical type as the canonical JSON extension type.
      return 'extension<arrow.json>';
    case 'bytes':
      return 'binary';
    case 'list':
      return `list<${child({ ...type.items, name: 'element' })}>`;
    case 'struct':
      return `struct<${type.fields.map(child).join(', ')}>`;
  }
}

export interface PyarrowView extends Digest {
  schema: { name: string; type: string; nullable: boolean }[];
  metadata: Record<string, string>;
}

const SCRIPTS = path.join(import.meta.dirname, 'python');

export function readWithPyarrow(file: string): PyarrowView {
  return JSON.parse(runPython(path.join(SCRIPTS, 'read_parquet.py'), [file])) as PyarrowView;
}

export function writeWithPyarrow(
  file: string,
  compression: string,
  rows: number,
  rowGroup: number,
): Digest & { rowGroups: number; codec: string; dictionary: boolean } {
  return JSON.parse(
    runPython(path.join(SCRIPTS, 'write_parquet.py'), [file, compression, String(rows), String(rowGroup)]),
  );
}

/** The plugin of a format, from its package's lazy entry. */
export async function pluginOf(entry: { load?: () => Promise<AnyFormatPlugin> }): Promise<AnyFormatPlugin> {
  return entry.load!();
}

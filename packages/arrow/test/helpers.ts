import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type ConvertOptions,
  type LazyFormat,
  type OptionValues,
  type RecordsInput,
  recordsInput,
  type TabularType,
  type TabularValue,
  tabularField,
  tabularValue,
  chooseRecords,
} from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { openPath } from '@binscope/core/node';
import { mldfFormat } from '@binscope/mldf/magic';
import { scbfFormat } from '@binscope/scbf/magic';
import { scdlFormat } from '@binscope/scdl/magic';
import { taridxFormat } from '@binscope/taridx/magic';
import { runPython } from '@binscope/testkit';
import { udfFormat } from '@binscope/udf/magic';
import { arrowFileConverter, arrowStreamConverter } from '../src/export.js';

export const FORMATS: Record<string, LazyFormat> = {
  scbf: scbfFormat,
  mldf: mldfFormat,
  udf: udfFormat,
  taridx: taridxFormat,
  scdl: scdlFormat,
};

export const DESCRIBE = path.join(import.meta.dirname, 'py', 'describe.py');

/** A vector opened with its format's plugin, as the CLI opens an export's input. */
export async function openInput(format: string, target: string) {
  const plugin = await FORMATS[format].load!();
  const reader = await plugin.open(openPath(target));
  const input = recordsInput(plugin, reader, target);
  return { input, close: () => reader.close?.() };
}

export function convertOptions(values: OptionValues = {}): ConvertOptions {
  return { scratch: undefined as never, values };
}

/** Exports `input` to `file` (IPC file or stream by kind) and returns the converter's report. */
export async function exportTo(
  input: RecordsInput,
  file: string,
  kind: 'file' | 'stream',
  values: OptionValues = {},
) {
  const sink = new MemorySink();
  const converter = kind === 'file' ? arrowFileConverter : arrowStreamConverter;
  const report = await converter.convertRecords!(input, { kind: 'file', sink }, convertOptions(values));
  fs.writeFileSync(file, sink.bytes());
  return report;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** A value in describe.py's canonical text: ints as decimal text, floats as float64 bits, bytes as hex. */
export function canon(value: TabularValue, type: TabularType): unknown {
  if (value === null) return null;
  switch (type.kind) {
    case 'int':
      return String(value);
    case 'float': {
      // A float column declared so holds a 64-bit integer's nearest double (UDF's catalogue values).
      const n = Number(value);
      if (Number.isNaN(n)) return 'nan';
      const bits = new Uint8Array(8);
      new DataView(bits.buffer).setFloat64(0, n, true);
      return hex(bits);
    }
    case 'bytes':
      return hex(value as Uint8Array);
    case 'list':
      return Array.from(value as ArrayLike<TabularValue>, (v) => canon(v, type.items.type));
    case 'struct': {
      const object = value as { readonly [key: string]: TabularValue };
      return type.fields.map((f) => [f.name, canon(object[f.name] ?? null, f.type)]);
    }
    default:
      return value;
  }
}

/**
 * What pyarrow must find in the export of `input` (the chosen table): the schema as core's
 * tabular mapping says, and the sha256 of every record's values mapped the same way.
 */
export async function expectedExport(input: RecordsInput, values: OptionValues = {}) {
  const chosen = await chooseRecords(input, convertOptions(values).values);
  const fields = chosen.schema.fields.map((f) => tabularField(f));
  const hash = (await import('node:crypto')).createHash('sha256');
  const first: unknown[] = [];
  let rows = 0;
  for await (const record of input.records({ table: chosen.table })) {
    const line = chosen.schema.fields.map((f, i) =>
      canon(tabularValue(record.values[f.name], f.type), fields[i].type),
    );
    const text = JSON.stringify(line);
    hash.update(`${text}\n`);
    if (first.length < 3) first.push(JSON.parse(text));
    rows++;
  }
  // An Arrow type has no media type: a bytes column of JPEGs is plain binary.
  const arrowFields = JSON.parse(JSON.stringify(fields, (k, v) => (k === 'mediaType' ? undefined : v)));
  return { fields: arrowFields, rows, sha256: hash.digest('hex'), first };
}

export function describeWithPyarrow(file: string, kind: 'file' | 'stream') {
  return JSON.parse(runPython(DESCRIBE, [file, kind]));
}

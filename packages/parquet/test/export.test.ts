/**
 * The export's own rules: it streams (a row group reaches the output before the next records
 * are read), refuses records the input could not read with their own error, encodes images as
 * PNG when asked, names folder files safely, and reports progress.
 */
import {
  type DataRecord,
  fileTarget,
  isBinscopeError,
  MemorySource,
  type ProgressEvent,
  type RecordsInput,
  type Schema,
} from '@binscope/core';
import { MemorySink } from '@binscope/core/binary';
import { decode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { FileNames, parquetExport } from '../src/export.js';
import { parquetPlugin } from '../src/plugin.js';
import { options } from './exports.js';

function input(schema: Schema, records: () => AsyncIterable<DataRecord>, count?: number): RecordsInput {
  return {
    kind: 'records',
    name: 'generated',
    format: 'test',
    schema,
    tables: async function* () {
      yield { name: 'data', schema, count, primary: true };
    },
    records: () => records(),
    summary: async () => ({ format: 'test', title: 'test', counts: {}, properties: [] }),
  };
}

const INT: Schema = { fields: [{ name: 'n', type: { kind: 'int', bits: 32, signed: true } }] };

async function exported(source: RecordsInput, values: Record<string, string | number | boolean> = {}) {
  const sink = new MemorySink();
  const events: ProgressEvent[] = [];
  const report = await parquetExport.convertRecords!(
    source,
    { kind: 'file', sink },
    {
      ...options(values),
      onProgress: (e) => events.push(e),
    },
  );
  return { sink, report, events };
}

describe('the Parquet export', () => {
  it('streams: each row group is in the output before later records are read', async () => {
    const sink = new MemorySink();
    const seen: number[] = [];
    const source = input(INT, async function* () {
      for (let i = 0; i < 10_000; i++) {
        // what the output held when record i was asked for
        if (i % 1000 === 0) seen.push(sink.position);
        yield { index: i, values: { n: i } };
      }
    });
    await parquetExport.convertRecords!(source, { kind: 'file', sink }, options({ rowGroupSize: 1000 }));
    // Row group k was written before record 1000·(k+1) was read: the output grew group by group.
    for (let k = 1; k < seen.length; k++) expect(seen[k], `before group ${k}`).toBeGreaterThan(seen[k - 1]);
    const reader = await parquetPlugin.open(fileTarget(new MemorySource(sink.bytes())));
    expect(reader.metadata.row_groups.length).toBe(10);
  });

  it('reports progress in items, with the total the table declares', async () => {
    const source = input(
      INT,
      async function* () {
        for (let i = 0; i < 2500; i++) yield { index: i, values: { n: i } };
      },
      2500,
    );
    const { events, report } = await exported(source, { rowGroupSize: 1000 });
    expect(events.map((e) => [e.done, e.total, e.unit])).toEqual([
      [1000, 2500, 'items'],
      [2000, 2500, 'items'],
      [2500, 2500, 'items'],
    ]);
    expect(report.details).toMatchObject({ table: 'data', rows: 2500, rowGroups: 3 });
  });

  it('refuses a record the input could not read, with that record’s own error', async () => {
    const source = input(INT, async function* () {
      yield { index: 0, values: { n: 1 } };
      yield {
        index: 1,
        values: {},
        problem: {
          code: 'OutOfBounds',
          message: 'table 3 points past the file',
          offset: 1234,
          file: 'x.udf',
        },
      };
    });
    const error = await exported(source).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isBinscopeError(error, 'FormatError')).toBe(true);
    expect(error).toMatchObject({ code: 'OutOfBounds', offset: 1234, file: 'x.udf' });
  });

  it('refuses a null where the schema says there is none', async () => {
    const source = input(INT, async function* () {
      yield { index: 0, values: { n: null } };
    });
    await expect(exported(source)).rejects.toMatchObject({ code: 'InvalidValue', message: /n is null/ });
  });

  it('--images png: each image as PNG bytes with its pixels', async () => {
    const pixels = Uint8Array.from({ length: 4 * 3 * 3 }, (_, i) => (i * 37) & 0xff);
    const schema: Schema = { fields: [{ name: 'image', type: { kind: 'image' } }] };
    const source = input(schema, async function* () {
      yield { index: 0, values: { image: { height: 3, width: 4, channels: 3, pixels } } };
    });
    const { sink } = await exported(source, { images: 'png' });
    const reader = await parquetPlugin.open(fileTarget(new MemorySource(sink.bytes())));
    expect(reader.schema.fields[0].type).toEqual({ kind: 'bytes' });
    let image: Uint8Array | undefined;
    for await (const record of parquetPlugin.records(reader)) image = record.values.image as Uint8Array;
    const png = decode(image!);
    expect([png.width, png.height, png.channels, png.depth]).toEqual([4, 3, 3, 8]);
    expect(Buffer.from(png.data as Uint8Array).equals(Buffer.from(pixels))).toBe(true);
  });

  it('folder file names are file-safe and unique', () => {
    const names = new FileNames();
    expect(
      ['udf', 'children/0/names', 'children/0/names', '../x', 'a b', '', 'UDF'].map((t) => names.take(t)),
    ).toEqual([
      'udf.parquet',
      'children_0_names.parquet',
      'children_0_names-2.parquet',
      'x.parquet',
      'a_b.parquet',
      'table.parquet',
      'UDF-2.parquet',
    ]);
  });
});

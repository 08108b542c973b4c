/**
 * Parquet as pyarrow users write it (nulls, dictionary pages, several row groups, snappy, zstd
 * and gzip) reads through the plugin with the right schema and values, lazily; and Parquet →
 * Parquet through the export equals the source table.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CountingSource, fileTarget, recordsInput } from '@binscope/core';
import { NodeFileSource } from '@binscope/core/node';
import { describeWith, pythonModules, tempDir } from '@binscope/testkit';
import { afterAll, expect, it } from 'vitest';
import { parquetPlugin } from '../src/plugin.js';
import { digestRecords, readWithPyarrow, writeWithPyarrow } from './canon.js';
import { exportFile } from './exports.js';

const scratch = tempDir('binscope-parquet-read-');
afterAll(() => scratch.remove());

async function open(file: string) {
  const source = NodeFileSource.open(file, path.basename(file));
  const reader = await parquetPlugin.open(fileTarget(source));
  return { source, reader, close: () => source.close() };
}

describeWith(pythonModules(['pyarrow', 'numpy']), 'Parquet written by pyarrow', () => {
  it.each(['snappy', 'zstd', 'gzip'])('%s: schema, values and row groups', async (codec) => {
    const file = path.join(scratch.dir, `${codec}.parquet`);
    const written = writeWithPyarrow(file, codec, 2500, 700);
    expect(written).toMatchObject({ rowGroups: 4, codec: codec.toUpperCase(), dictionary: true });
    const { reader, close } = await open(file);
    try {
      const types = Object.fromEntries(
        reader.schema.fields.map((f) => [f.name, `${JSON.stringify(f.type)}${f.nullable ? '?' : ''}`]),
      );
      expect(types).toMatchObject({
        id: '{"kind":"int","bits":32,"signed":true}?',
        big: '{"kind":"int","bits":64,"signed":true}?',
        u64: '{"kind":"int","bits":64,"signed":false}?',
        small: '{"kind":"int","bits":8,"signed":true}?',
        value: '{"kind":"float","bits":64}?',
        f32: '{"kind":"float","bits":32}?',
        label: '{"kind":"string"}?',
        blob: '{"kind":"bytes"}?',
        flag: '{"kind":"bool"}?',
        tags: '{"kind":"list","items":{"kind":"string"}}?',
      });
      expect(reader.schema.fields.find((f) => f.name === 'point')?.type.kind).toBe('struct');
      const ours = await digestRecords(reader.schema, parquetPlugin.records(reader));
      expect({ rows: ours.rows, first: ours.first }).toEqual({ rows: written.rows, first: written.first });
      expect(ours.digest).toBe(written.digest);
      // offset and limit across a row group boundary
      const some = [];
      for await (const r of parquetPlugin.records(reader, { offset: 698, limit: 4, columns: ['id', 'u64'] }))
        some.push([r.index, r.values.id, r.values.u64]);
      expect(some).toEqual([
        [698, 698, 18446744073709550917n],
        [699, 699, 18446744073709550916n],
        [700, 700, 18446744073709550915n],
        [701, 701, 18446744073709550914n],
      ]);
      const info = await parquetPlugin.info(reader);
      expect(info.counts).toEqual({ rows: 2500, columns: 12, rowGroups: 4 });
    } finally {
      await close();
    }
  });

  it('info reads the footer alone; head reads one row group', async () => {
    const file = path.join(scratch.dir, 'lazy.parquet');
    writeWithPyarrow(file, 'snappy', 20000, 5000);
    const counting = new CountingSource(NodeFileSource.open(file, 'lazy.parquet'));
    const reader = await parquetPlugin.open(fileTarget(counting));
    await parquetPlugin.info(reader);
    const size = fs.statSync(file).size;
    const footer = reader.layout.footer!;
    // magic, tail and the footer: nothing of the data
    expect(counting.bytesRead).toBeLessThanOrEqual(4 + 8 + footer.length + 8);
    for await (const _ of parquetPlugin.records(reader, { limit: 3 })) void _;
    expect(counting.bytesRead).toBeLessThan(size / 2);
    await counting.close?.();
  });

  it('Parquet → Parquet equals the source table', async () => {
    const file = path.join(scratch.dir, 'source.parquet');
    const written = writeWithPyarrow(file, 'zstd', 3000, 1000);
    const { reader, close } = await open(file);
    const out = path.join(scratch.dir, 'again.parquet');
    try {
      await exportFile(recordsInput(parquetPlugin, reader, file), out, { rowGroupSize: 512 });
    } finally {
      await close();
    }
    // pyarrow sees the same table (its canonical digest), binscope the same records and types
    const seen = readWithPyarrow(out);
    expect(seen.digest).toBe(written.digest);
    const source = readWithPyarrow(file);
    expect(seen.schema.map((f) => [f.name, f.type])).toEqual(source.schema.map((f) => [f.name, f.type]));
    const again = await open(out);
    try {
      expect(again.reader.metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([
        512, 512, 512, 512, 512, 440,
      ]);
      expect((await digestRecords(again.reader.schema, parquetPlugin.records(again.reader))).digest).toBe(
        written.digest,
      );
    } finally {
      await again.close();
    }
  });
});

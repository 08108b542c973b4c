import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileTarget, memoryScratch, recordsInput } from '@binscope/core';
import { NodeFileSource } from '@binscope/core/node';
import { parquetExport, parquetPlugin } from '@binscope/parquet';
import { scbfPlugin } from '@binscope/scbf';
import { writeScbfFile } from '@binscope/scbf/node';
import type { Bench } from './harness.js';
import { csvRows, fileSink, formatExportRows } from './parquet-formats.js';
import { generate } from './scbf.js';

/**
 * Parquet (issue #31): the export of a 1,000,000-row SCBF file (int32, utf8, float64,
 * low-cardinality utf8, int32; the SCBF bench's table) to Parquet, snappy, through the
 * SCBF plugin's records, and the export read back through the Parquet plugin. The floor of
 * both is a raw read of the same bytes (the SCBF file's, the Parquet file's). Then the other
 * formats' exports and CSV → Parquet beside DuckDB (parquet-formats.ts); the peak RSS of large
 * exports is export-peak.ts.
 */
export default async function run(b: Bench): Promise<void> {
  const dir = b.dir('parquet');
  const rows = b.n(1_000_000, 1000);
  const scbfPath = path.join(dir, 'bench.scbf');
  const parquetPath = path.join(dir, 'bench.parquet');
  await writeScbfFile(scbfPath, generate(rows));
  const scbfBytes = fs.statSync(scbfPath).size;

  const exportOnce = async () => {
    const source = NodeFileSource.open(scbfPath);
    const reader = await scbfPlugin.open(fileTarget(source));
    const sink = fileSink(parquetPath);
    try {
      await parquetExport.convertRecords!(
        recordsInput(scbfPlugin, reader, scbfPath),
        { kind: 'file', sink },
        { scratch: memoryScratch() },
      );
    } finally {
      sink.close();
      await source.close();
    }
  };
  await b.compare(
    {
      format: 'parquet',
      operation: 'export SCBF → Parquet (snappy)',
      bytes: scbfBytes,
      items: rows,
      runs: 5,
      warmup: 0,
      note: 'bytes: the SCBF input',
    },
    exportOnce,
    { name: 'raw read of the SCBF file', run: () => fs.readFileSync(scbfPath) },
  );
  const parquetBytes = fs.statSync(parquetPath).size;
  await b.compare(
    {
      format: 'parquet',
      operation: 'read all records',
      bytes: parquetBytes,
      items: rows,
      runs: 5,
      warmup: 0,
    },
    async () => {
      const source = NodeFileSource.open(parquetPath);
      const reader = await parquetPlugin.open(fileTarget(source));
      let n = 0;
      for await (const _ of parquetPlugin.records(reader)) n++;
      await source.close();
      if (n !== rows) throw new Error('short read');
    },
    { name: 'raw read of the Parquet file', run: () => fs.readFileSync(parquetPath) },
  );
  fs.rmSync(parquetPath, { force: true });
  fs.rmSync(scbfPath, { force: true });

  await formatExportRows(b, dir);
  await csvRows(b, dir);
}

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ANY_FORMAT,
  type ConvertReport,
  directoryTarget,
  fileTarget,
  memoryScratch,
  type OptionValues,
  recordsInput,
  runConverter,
  type Target,
} from '@binscope/core';
import type { ByteSink } from '@binscope/core/binary';
import { NodeDirectory, NodeFileSource } from '@binscope/core/node';
import { DuckDBInstance } from '@duckdb/node-api';
import { createFormatRegistry } from '@binscope/formats';
import { scbfToCsv, writeScbfFile } from '@binscope/scbf/node';
import { indexShards } from '@binscope/taridx';
import { type Bench, generateInChild } from './harness.js';
import { generate as generateMldf } from './mldf.js';
import { generate as generateScbf } from './scbf.js';
import { generate as generateTaridx } from './taridx.js';
import { writeF32Table } from './udf.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const registry = createFormatRegistry();

/** A file written with plain positional writes: the export's output, nothing in between. */
export function fileSink(file: string): ByteSink & { close(): void } {
  const fd = fs.openSync(file, 'w');
  let position = 0;
  return {
    get position() {
      return position;
    },
    async write(bytes) {
      fs.writeSync(fd, bytes, 0, bytes.byteLength, position);
      position += bytes.byteLength;
    },
    close: () => fs.closeSync(fd),
  };
}

/** Runs the converter `from` → `to` (file output) the way the CLI does: registry, load, runConverter. */
async function convert(
  from: string,
  to: string,
  input: Parameters<typeof runConverter>[2],
  output: string,
  values: OptionValues = {},
): Promise<ConvertReport> {
  const info = registry.converters.find((c) => c.from === from && c.to === to && c.output === 'file');
  if (!info) throw new Error(`no ${from} → ${to} converter`);
  const sink = fileSink(output);
  try {
    return await runConverter(
      info,
      await info.load(),
      input,
      { kind: 'file', sink },
      {
        values,
        scratch: memoryScratch(),
      },
    );
  } finally {
    sink.close();
  }
}

/** Opens `target` with the plugin of `format` and exports its records (or `values.table`) to Parquet. */
async function exportToParquet(
  format: string,
  target: Target,
  name: string,
  output: string,
  values: OptionValues = {},
): Promise<ConvertReport> {
  const plugin = await registry.load(format);
  const reader = await plugin.open(target);
  try {
    return await convert(ANY_FORMAT, 'parquet', recordsInput(plugin, reader, name), output, values);
  } finally {
    await reader.close?.();
  }
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile());
}

/** The floor of every export row: each input file read whole. */
function readWhole(files: readonly string[]): () => number {
  return () => {
    let n = 0;
    for (const f of files) n += fs.readFileSync(f).byteLength;
    return n;
  };
}

const bytesOf = (files: readonly string[]) => files.reduce((sum, f) => sum + fs.statSync(f).size, 0);

/**
 * Export to Parquet of each other format's bench fixture (issue #31), written by that format's
 * bench generator: MLDF samples, the TARIDX samples table (payloads from the shards), SCDL rows
 * and one UDF table, each beside a raw read of the same input files.
 */
export async function formatExportRows(b: Bench, dir: string): Promise<void> {
  const out = path.join(dir, 'format.parquet');
  const row = async (
    format: string,
    what: string,
    files: string[],
    items: number,
    open: () => { target: Target; name: string; close?: () => Promise<void> },
    values: OptionValues = {},
  ) => {
    await b.compare(
      {
        format: 'parquet',
        operation: `export ${what} → Parquet (snappy)`,
        bytes: bytesOf(files),
        items,
        runs: 5,
        warmup: 0,
        note: `bytes: the ${format} input files`,
      },
      async () => {
        const { target, name, close } = open();
        try {
          const report = await exportToParquet(format.toLowerCase(), target, name, out, values);
          const rows = report.details?.rows;
          if (typeof rows === 'number' && rows !== items) throw new Error(`${format}: exported ${rows} rows`);
        } finally {
          await close?.();
        }
      },
      { name: `raw read of the ${format} input`, run: readWhole(files) },
    );
  };
  const onFile = (file: string) => () => {
    const source = NodeFileSource.open(file);
    return { target: fileTarget(source), name: file, close: () => source.close() };
  };

  const mldf = await generateMldf(b);
  await row('MLDF', 'MLDF samples', [mldf.file], mldf.samples, onFile(mldf.file));
  fs.rmSync(path.dirname(mldf.file), { recursive: true, force: true });

  const tarDir = path.join(dir, 'taridx');
  fs.mkdirSync(tarDir);
  const samples = b.n(100_000, 100);
  generateTaridx(tarDir, samples);
  const shards = new NodeDirectory(tarDir);
  const index = path.join(tarDir, 'train.taridx');
  fs.writeFileSync(index, (await indexShards({ directory: shards, fold: 'train' })).bytes);
  await shards.close();
  await row('TARIDX', 'TARIDX samples table', filesUnder(tarDir), samples, () => {
    const source = NodeFileSource.open(index);
    const siblings = new NodeDirectory(tarDir);
    return {
      target: fileTarget(source, siblings),
      name: index,
      close: async () => {
        await source.close();
        await siblings.close();
      },
    };
  });
  fs.rmSync(tarDir, { recursive: true, force: true });

  const cells = b.n(80_000, 50);
  const archive = path.join(dir, 'bench.scdl');
  generateInChild(path.join(here, 'scdl.ts'), [archive, String(cells)]);
  await row('SCDL', 'SCDL rows', filesUnder(archive), cells, () => {
    const directory = new NodeDirectory(archive);
    return { target: directoryTarget(directory), name: archive, close: () => directory.close() };
  });
  fs.rmSync(archive, { recursive: true, force: true });

  const udf = path.join(dir, 'f32.udf');
  const floats = await writeF32Table(b, udf);
  await row('UDF', 'UDF f32 table', [udf], floats, onFile(udf), { table: 'values' });
  fs.rmSync(udf, { force: true });
  fs.rmSync(out, { force: true });
}

/**
 * CSV → Parquet: binscope has no CSV → Parquet converter (CSV is no format a plugin reads), so
 * the row is CSV → SCBF → Parquet through the registry's converters, beside DuckDB's own
 * `COPY (FROM read_csv(...)) TO '...' (FORMAT parquet)` on the same CSV.
 */
export async function csvRows(b: Bench, dir: string): Promise<void> {
  const rows = b.n(1_000_000, 1000);
  const scbf = path.join(dir, 'csv-source.scbf');
  const csv = path.join(dir, 'bench.csv');
  await writeScbfFile(scbf, generateScbf(rows));
  await scbfToCsv(scbf, csv);
  const between = path.join(dir, 'csv-between.scbf');
  const viaBinscope = path.join(dir, 'csv-binscope.parquet');
  const viaDuckdb = path.join(dir, 'csv-duckdb.parquet');
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
  try {
    await b.compare(
      {
        format: 'parquet',
        operation: 'CSV → SCBF → Parquet (no direct CSV → Parquet converter)',
        bytes: fs.statSync(csv).size,
        items: rows,
        runs: 5,
        warmup: 1,
        note: 'bytes: the CSV; DuckDB uses all cores',
      },
      async () => {
        const source = NodeFileSource.open(csv);
        try {
          await convert('csv', 'scbf', fileTarget(source), between);
        } finally {
          await source.close();
        }
        const report = await exportToParquet(
          'scbf',
          fileTarget(NodeFileSource.open(between)),
          between,
          viaBinscope,
        );
        if (report.details?.rows !== undefined && report.details.rows !== rows)
          throw new Error('short export');
      },
      {
        name: "DuckDB COPY (FROM read_csv(...)) TO '...parquet'",
        run: () =>
          connection.run(
            `COPY (FROM read_csv(${sqlString(csv)})) TO ${sqlString(viaDuckdb)} (FORMAT parquet)`,
          ),
      },
    );
  } finally {
    connection.closeSync();
    db.closeSync();
  }
  for (const f of [scbf, between, viaBinscope, viaDuckdb]) fs.rmSync(f, { force: true });
  fs.rmSync(csv, { force: true });
}

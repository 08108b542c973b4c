import {
  type ConvertOptions,
  type ConvertOutput,
  type ConvertReport,
  type Converter,
  FormatError,
  type TabularOptions,
  chooseRecords,
  type RecordsChoice,
} from '@binscope/core';
import { type ExportedTable, writeParquet } from './write.js';
import { encodePng } from './images.js';

function tabularOptions(options: ConvertOptions): TabularOptions {
  return options.values?.images === 'png' ? { encodeImage: encodePng } : {};
}

function report(tables: readonly ExportedTable[], extra: Record<string, string> = {}): ConvertReport {
  const rows = tables.reduce((n, t) => n + t.rows, 0);
  return {
    warnings: [],
    details: {
      ...extra,
      rows,
      ...(tables.length === 1
        ? { columns: tables[0].columns, rowGroups: tables[0].rowGroups }
        : { files: tables.map((t) => t.path ?? '') }),
    },
  };
}

/** `* → parquet`: one table of any readable input as one Parquet file. */
export const parquetExport: Converter = {
  async convertRecords(input, output, options) {
    if (output.kind !== 'file') throw wrongOutput('file');
    const chosen = await chooseRecords(input, options.values, { signal: options.signal });
    const written = await writeParquet(input, chosen, output.sink, options, tabularOptions(options));
    return report([written], chosen.table === undefined ? {} : { table: chosen.table });
  },
};

/**
 * `* → parquet folder`: the main records as `<format>.parquet` and each table as
 * `<table>.parquet`, names made file-safe and unique (a UDF file's tables, a TARIDX index and
 * its samples). Tables stream one after another; each file is complete when its write resolves.
 */
export const parquetFolderExport: Converter = {
  async convertRecords(input, output, options) {
    if (output.kind !== 'directory') throw wrongOutput('directory');
    const names = new FileNames();
    const written: ExportedTable[] = [];
    const tabular = tabularOptions(options);
    const write = async (chosen: RecordsChoice, name: string) => {
      const path = names.take(name);
      await output.sink.write(path, async (sink) => {
        written.push({ ...(await writeParquet(input, chosen, sink, options, tabular)), path });
      });
    };
    await write({ schema: input.schema }, input.format);
    for await (const table of input.tables({ signal: options.signal }))
      await write({ table: table.name, schema: table.schema, count: table.count }, table.name);
    return report(written);
  },
};

function wrongOutput(kind: ConvertOutput['kind']): FormatError {
  return new FormatError('UnsupportedFeature', `this Parquet export writes a ${kind}, not what it was given`);
}

/** File names from table names: only letters, digits, `.`, `_` and `-`, each name once. */
export class FileNames {
  private readonly taken = new Set<string>();

  take(table: string): string {
    const safe = table.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'table';
    let name = `${safe}.parquet`;
    for (let n = 2; this.taken.has(name.toLowerCase()); n++) name = `${safe}-${n}.parquet`;
    this.taken.add(name.toLowerCase());
    return name;
  }
}

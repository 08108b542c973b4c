import { ANY_FORMAT, type ConverterInfo, type LazyFormat, type OptionSpec } from '@binscope/core';

/**
 * Parquet as data, for detection and for the app's format and converter lists: this entry
 * (`@binscope/parquet/magic`) imports no parser and no writer; `load` brings them in on first use.
 */
export const parquetFormat: LazyFormat = {
  specificationVersion: 2,
  id: 'parquet',
  title: 'Apache Parquet',
  kind: 'file',
  role: 'format',
  extensions: ['parquet'],
  mimeTypes: ['application/vnd.apache.parquet'],
  // `PAR1` opens and closes every Parquet file; the reader checks the closing one.
  magic: [{ offset: 0, bytes: 'PAR1' }],
  load: () => import('./plugin.js').then((m) => m.parquetPlugin),
};

/**
 * The export's options. `table` and `images` mean the same for every export that declares them
 * (Parquet, Arrow): the apps make one flag of a name, so the wording is shared too.
 */
const EXPORT_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'table',
    type: 'string',
    valueName: 'NAME',
    description: "the input's table to export (default: its primary table, else its main records)",
  },
  {
    name: 'indexOnly',
    type: 'boolean',
    description: 'export the main records even when a primary table holds the data (TARIDX: the index rows)',
  },
  {
    name: 'images',
    type: 'string',
    choices: ['struct', 'png'],
    description: 'images as a struct of height, width, channels and pixels (default) or as PNG bytes',
  },
  {
    name: 'compression',
    type: 'string',
    choices: ['snappy', 'gzip', 'none'],
    description: 'page compression (default snappy)',
  },
  {
    name: 'rowGroupSize',
    type: 'number',
    description: 'rows per row group (default: as many as fit in about 32 MiB of values)',
  },
];

/** Records of any readable input → one Parquet file. */
export const recordsToParquetConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'records-to-parquet',
  from: ANY_FORMAT,
  to: 'parquet',
  title: 'records → Parquet',
  output: 'file',
  extensions: ['parquet'],
  options: EXPORT_OPTIONS,
  load: () => import('./export.js').then((m) => m.parquetExport),
};

/** Records of any readable input → a folder of Parquet files, one per table. */
export const tablesToParquetConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'tables-to-parquet',
  from: ANY_FORMAT,
  to: 'parquet',
  title: 'tables → Parquet folder',
  output: 'directory',
  extensions: ['parquet'],
  options: EXPORT_OPTIONS.filter((o) => o.name !== 'table' && o.name !== 'indexOnly'),
  load: () => import('./export.js').then((m) => m.parquetFolderExport),
};

/** Every conversion this package provides, for the app's converter list. */
export const parquetConverters: readonly ConverterInfo[] = [
  recordsToParquetConverter,
  tablesToParquetConverter,
];

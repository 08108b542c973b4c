import { ANY_FORMAT, type ConverterInfo, type LazyFormat } from '@binscope/core';

/**
 * SCBF as data, for detection and for the app's format and converter lists: this entry
 * (`@binscope/scbf/magic`) imports no parser code; `load` brings it in on first use.
 */

/** `SCBFv1\0\0`: the 8-byte magic of S1. */
export const SCBF_MAGIC = 'SCBFv1\0\0';

/**
 * The SCBF entry of the format list. The short `SCBF` signature also claims files whose
 * version or case is wrong, so `validate` can name the defect instead of detection
 * answering "unknown".
 */
export const scbfFormat: LazyFormat = {
  specificationVersion: 2,
  id: 'scbf',
  title: 'SCBF (Simple Columnar Binary Format)',
  kind: 'file',
  role: 'format',
  extensions: ['scbf'],
  mimeTypes: ['application/x-scbf'],
  magic: [
    { offset: 0, bytes: SCBF_MAGIC },
    { offset: 0, bytes: 'SCBF' },
  ],
  load: () => import('./plugin.js').then((m) => m.scbfPlugin),
};

/** CSV (S8 dialect, or any RFC 4180 CSV) → SCBF, types by S7 unless given. */
export const csvToScbfConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'csv-to-scbf',
  from: 'csv',
  to: 'scbf',
  title: 'CSV → SCBF',
  output: 'file',
  extensions: ['scbf'],
  options: [
    {
      name: 'types',
      type: 'string',
      valueName: 'NAME:TYPE,…',
      description: 'column types (int32, float64, utf8), e.g. id:int32,price:float64; others inferred (S7)',
    },
    { name: 'level', type: 'number', description: 'zlib level 0–9 (default 6)' },
    {
      name: 'maxColumns',
      type: 'number',
      description: 'most columns accepted (default 100,000; memory grows about 3 KB per column)',
    },
    {
      name: 'zlib',
      type: 'string',
      choices: ['node', 'python'],
      description:
        "python: deflate as Python's zlib.compress, bytes identical to the upstream writer (slower)",
    },
    {
      name: 'extensions',
      type: 'boolean',
      description: 'add the extension footer: block checksums and statistics',
    },
    {
      name: 'nulls',
      type: 'boolean',
      description: 'empty cells of otherwise numeric columns become nulls (with the extension footer)',
    },
    {
      name: 'dictionary',
      type: 'string',
      choices: ['auto', 'off'],
      description:
        'auto: dictionary-encode text columns with few distinct values (with the extension footer)',
    },
  ],
  load: () => import('./convert.js').then((m) => m.convertCsvToScbf),
};

/** SCBF → CSV in the S8 dialect (CSV → SCBF → CSV is byte-identical). */
export const scbfToCsvConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'scbf-to-csv',
  from: 'scbf',
  to: 'csv',
  title: 'SCBF → CSV',
  output: 'file',
  extensions: ['csv'],
  load: () => import('./convert.js').then((m) => m.convertScbfToCsv),
};

/**
 * The records of any format a plugin reads → SCBF: int8–int32/uint8–uint16 → int32,
 * float16–float64 → float64, string → utf8; other types refused by name, or cast as `--cast`
 * documents; nulls refused, or null bitmaps with `--nulls`.
 */
export const recordsToScbfConverter: ConverterInfo = {
  specificationVersion: 2,
  id: 'records-to-scbf',
  from: ANY_FORMAT,
  to: 'scbf',
  title: 'records → SCBF',
  output: 'file',
  extensions: ['scbf'],
  options: [
    {
      name: 'cast',
      type: 'boolean',
      description:
        'int64/uint32/uint64 → int32 if every value fits, else float64 if every value is an exact double; bool → int32 0/1; json → its JSON text as utf8',
    },
    {
      name: 'nulls',
      type: 'boolean',
      description:
        'null values of int32/float64 columns become SCBF null bitmaps (with the extension footer)',
    },
    {
      name: 'table',
      type: 'string',
      valueName: 'NAME',
      description: "the input's table to convert (default: its records, or its primary table)",
    },
    { name: 'level', type: 'number', description: 'zlib level 0–9 (default 6)' },
  ],
  load: () => import('./records-convert.js').then((m) => m.convertRecordsToScbf),
};

/** Every conversion this package provides, for the app's converter list. */
export const scbfConverters: readonly ConverterInfo[] = [
  csvToScbfConverter,
  scbfToCsvConverter,
  recordsToScbfConverter,
];

import {
  type ByteSource,
  definePlugin,
  fileTarget,
  type JsonValue,
  type Summary,
  type ValidateOptions,
  type ValidationReport,
} from '@binscope/core';
import { udfContentFields } from './content.js';
import { UdfDataset } from './dataset.js';
import type { TableInfo } from './descriptor.js';
import { inspectParse, inspectUdf } from './inspect.js';
import { udfFormat } from './magic.js';
import { type UdfOpenOptions, UdfReader } from './read.js';
import { udfColumns, udfLocateRecord, udfRecords } from './records.js';
import { CATALOGUE_LAYOUT_FIELDS } from './schema.js';
import { namedTables, recordTable } from './tables.js';
import { checkUdf, parseUdf, type UdfParse } from './validate.js';

/** info() details list at most this many datasets. */
const DETAIL_DATASETS = 1_000;

function tableSummary(t: TableInfo): JsonValue {
  return {
    name: t.name,
    prim: t.prim,
    dims: t.dims,
    hint: t.hint,
    shape: t.shape,
    data_size: t.dataSize,
    index_name: t.indexName,
    related_name: t.relatedName,
    type_name: t.typeName,
  };
}

/** Datasets and tables of the whole walk; a child that cannot be loaded is listed with its error (U15). */
async function summarize(reader: UdfReader): Promise<Summary> {
  const h = reader.header;
  let datasets = 0;
  let tables = 0;
  const details: JsonValue[] = [];
  for await (const d of reader.walkReporting()) {
    if (!(d instanceof UdfDataset)) {
      if (details.length < DETAIL_DATASETS) {
        const { code, detail } = d.error;
        details.push({ offset: d.ref.at.offset, size: d.ref.at.size, error: `${code}: ${detail}` });
      }
      continue;
    }
    datasets++;
    tables += d.tables.length;
    if (details.length < DETAIL_DATASETS) {
      details.push({
        offset: d.fileOffset.offset,
        size: d.fileOffset.size,
        id: d.id,
        tables: d.tables.map(tableSummary),
      });
    }
  }
  return {
    format: udfFormat.id,
    title: udfFormat.title,
    version: h.magic,
    counts: { datasets, tables },
    properties: [
      ['file id', h.id],
      ['root', h.root ? { offset: h.root.offset, size: h.root.size } : null],
      ['datasets', datasets],
      ['tables', tables],
      ['file size', reader.source.size],
    ],
    details: { datasets: details, datasets_listed: details.length },
  };
}

/** The tables of the file as capabilities.tables lists them, in walk order. */
async function* udfTables(reader: UdfReader, options?: ValidateOptions) {
  for await (const table of namedTables(reader, options)) yield recordTable(table);
}

const { load: _load, ...info } = udfFormat;

/**
 * The UDF plugin: one parse of the file header in core's three modes, the checked walk of every
 * dataset and table (validate, inspect), the tree, and the reader's verbs. Records are the
 * table catalogue, or with `table` one table's rows; `capabilities.tables` lists the tables
 * (found by walking the file, so `open` reads 64 bytes whatever the file).
 */
export const udfPlugin = definePlugin<UdfParse, UdfReader, 'file'>({
  ...info,
  kind: 'file',
  parse: parseUdf,
  reader: (parsed, _input, options) => new UdfReader(parsed.source, parsed.header!, parsed.problems, options),
  deepChecks: (parsed, _input, problems, options) => checkUdf(parsed, problems, options),
  tree: (parsed) => inspectParse(parsed),
  info: (reader) => summarize(reader),
  inspect: (reader, options) => inspectUdf(reader, options),
  records: udfRecords,
  contentFields: (reader) => udfContentFields(reader),
  locateRecord: (reader, index, options) => udfLocateRecord(reader, index, options),
  // Where a table's dataset sits and the offsets a DATASET table holds are layout: `diff`
  // compares the walk positions they point at (contentFields' refs) unless asked for layout.
  layoutFields: CATALOGUE_LAYOUT_FIELDS,
  capabilities: {
    tables: udfTables,
    columns: udfColumns,
    // Loaded when asked: readers never need the writer.
    sample: async (out) => (await import('./sample.js')).writeUdfSample(out),
  },
});

/**
 * Opens a UDF file lazily: reads and checks the 64-byte file header (a FormatError for a file
 * that is not a valid UDF). Datasets are read when asked for. Closing the reader leaves
 * `source` open: it is the caller's.
 */
export function openUdf(source: ByteSource, options: UdfOpenOptions = {}): Promise<UdfReader> {
  return udfPlugin.open(fileTarget(source), options);
}

/**
 * Every MUST of the UDF spec and U1–U15: the file header, then each dataset reachable from the
 * root in walk order (header, lookup table, descriptors, cross-references, then every table's
 * payload). Keeps going after an error wherever the structure still allows it. Never throws for
 * bad input; "only reported" fields (U8) are warnings.
 */
export function validateUdf(source: ByteSource, options: ValidateOptions = {}): Promise<ValidationReport> {
  return udfPlugin.validate(fileTarget(source), options);
}
